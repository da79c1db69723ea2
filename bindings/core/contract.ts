/**
 * The contract both cores fulfil: the AssemblyScript core compiled to WebAssembly (wasm/) and its
 * pure-TypeScript twin (js/). Everything that decides — validation, key layout, codecs, the PreBlock
 * decision, the Done lookup, the version-map merge — lives behind this contract. The keeper only carries
 * out what the core decided (runs handlers, writes files, logs, throws).
 *
 * Arguments (docs/spec/core.md §2.5): both cores check every argument before doing any work and refuse an
 * ill-formed one with the same TypeError (args.ts). A `string` must be a string without a lone surrogate
 * (`<what> is not valid UTF-8 (it holds a lone surrogate)`), a `bigint` a bigint within int64 (uint64 for
 * versions and encodeUint64BE), a Plan an object of those, bytes a Uint8Array. The one exception is
 * `CoreSession.preBlock(h)`, the per-block path: `h` is not checked, the caller (the keeper) hands it a
 * bigint in [1, 2^63-1]. The core reports bad *data* (bytes, store values, plans failing ValidateBasic)
 * as UpgradeError.
 */
import type { Ics23Spec, NonMembershipFacts, ProofOp, StoreProofFacts } from "./ics23.js";
import type { KVStore } from "./kv.js";
import type { CompletedUpgrade, DoneEntries, ModuleVersion, Coin, Plan, VersionMap } from "./types.js";

export type Backend = "wasm" | "js";

/** Stateless codecs: usable without a keeper, e.g. by a light client decoding raw store entries. */
export interface Core {
  readonly backend: Backend;

  planKey(): Uint8Array;
  doneKey(name: string): Uint8Array;
  moduleVersionKey(module: string): Uint8Array;
  protocolVersionKey(): Uint8Array;
  upgradedClientKey(height: bigint): Uint8Array;
  upgradedConsStateKey(height: bigint): Uint8Array;

  encodeInt64BE(value: bigint): Uint8Array;
  decodeInt64BE(bytes: Uint8Array): bigint;
  encodeUint64BE(value: bigint): Uint8Array;
  decodeUint64BE(bytes: Uint8Array): bigint;

  /** Go-identical Plan bytes (zero time always written). Refuses an empty name or a height <= 0. */
  encodePlan(plan: Plan): Uint8Array;
  /** Decodes Plan bytes; throws malformed-protobuf, or ValidateBasic 1–2 for a time or IBC field. */
  decodePlan(bytes: Uint8Array): Plan;
  /** Plan.ValidateBasic (docs/spec/keeper.md §4) for a plan whose time is zero unless said otherwise. */
  validateBasic(plan: Plan, timeIsZero?: boolean): void;
  shouldExecute(planHeight: bigint, blockHeight: bigint): boolean;

  /** Batch codecs for light clients: raw (key, value) pairs of the 0x01 / 0x02 ranges. */
  decodeDoneEntries(keys: Uint8Array[], values: Uint8Array[]): CompletedUpgrade[];
  /**
   * The raw 0x01 range in either layout (docs/spec/core.md §2.6): the seed's `01 ‖ name → BE64(height)`
   * (what decodeDoneEntries reads) or the Cosmos SDK's, v0.46 and later, `01 ‖ BE64(height) ‖ name → 01`.
   * A record is seed-shaped when its value is 8 bytes, SDK-shaped when its value is the byte 01 and its key
   * holds a name after the height (10 bytes or more); the layout is the one every record fits, reported as
   * `"seed"` or `"sdk"` (`undefined` for no records), with the records in input order as decodeDoneEntries
   * gives them. Refusals, each for the first record at fault: a key outside 0x01 (TypeError, as
   * decodeDoneEntries); a record fitting neither layout (`done record at key 0x… with a <n>-byte value fits
   * neither layout (…): corrupt store value`); records of both layouts (`done records in both layouts: key
   * 0x… is in the sdk layout, the records before it in the seed layout: corrupt store value`); then a name
   * that is not UTF-8 (`key 0x… holds a name that is not valid UTF-8: corrupt store value`). All
   * UpgradeError xupgrade/1 (corrupt-store).
   */
  decodeDoneEntriesAnyLayout(keys: Uint8Array[], values: Uint8Array[]): DoneEntries;
  decodeModuleVersionEntries(keys: Uint8Array[], values: Uint8Array[]): ModuleVersion[];
  /** 8 big-endian bytes per height. */
  encodeHeightsBE(heights: BigInt64Array): Uint8Array;

  /**
   * Parses a coin expression `<amount><denom>` (e.g. a deposit): amount decimal digits only, at most
   * 2^256 - 1 (returned canonical, without leading zeros); denom `[a-zA-Z][a-zA-Z0-9/:._-]{2,127}`.
   * Refusals throw InvalidCoinError (an UpgradeError), e.g. `invalid coin "1.5stake": amount must be a whole number`.
   */
  parseCoin(text: string): Coin;

  /** SHA-256 (docs/spec/core.md §14.1). */
  sha256(data: Uint8Array): Uint8Array;

  /**
   * ICS23 proofs (docs/spec/core.md §14): `proof` is a protobuf `cosmos.ics23.v1.CommitmentProof` (existence,
   * non-existence, batch or compressed batch), `spec` one of "iavl", "tendermint", "smt" or a ProofSpec. Only a
   * canonical encoding is read (as gogoproto or ts-proto write one, §14.2; anything else is refused as
   * `non-canonical-proof`). The checks are cosmos/ics23's; a refusal throws an Ics23Error whose `kind` names
   * the check that failed and whose message says where (e.g. `left neighbour: inner op 3: inner prefix has 3
   * bytes, fewer than the spec's minimum 4`). Ill-formed arguments are a TypeError (§2.5). What a verification
   * proved is returned from the very bytes it checked (fresh copies): a caller reads nothing else of the proof.
   */
  /** CommitmentProof.Calculate: the root the proof's (first) existence proof hashes to; no spec checks. */
  ics23CalculateRoot(proof: Uint8Array): Uint8Array;
  /** VerifyMembership: `key` holds `value` under `root`; returns normally or throws an Ics23Error. */
  ics23VerifyMembership(spec: Ics23Spec, root: Uint8Array, proof: Uint8Array, key: Uint8Array, value: Uint8Array): void;
  /**
   * VerifyNonMembership: `key` is absent under `root` (its neighbours are proven and adjacent); returns those
   * neighbours (of the proof, or of the batch entry it checked).
   */
  ics23VerifyNonMembership(spec: Ics23Spec, root: Uint8Array, proof: Uint8Array, key: Uint8Array): NonMembershipFacts;
  /**
   * A Cosmos SDK store proof: the `ProofOps` of `abci_query` on `/store/<storeName>/key` with `prove`, checked
   * against the app hash of the header that commits to that state (the header at the query height + 1), as the
   * SDK's proof runtime does it (ops `ics23:iavl` for the key in the store, then `ics23:simple` for the store in
   * the multistore). `value` is the value the node answered: the proof must show the key holds it; `undefined`:
   * the proof must show the key is absent. Returns what op 0 proved about the key — the existence entry it
   * verified, or the neighbours of the non-existence entry it verified — or throws an Ics23Error (`at.op` names
   * the op).
   */
  ics23VerifyStoreProof(appHash: Uint8Array, proofOps: readonly ProofOp[], storeName: string, key: Uint8Array, value: Uint8Array | undefined): StoreProofFacts;

  /** Binds the keeper operations to one upgrade store. */
  session(store: KVStore, skipHeights: readonly bigint[]): CoreSession;
}

/** What PreBlock must do at this block, as decided by the core (docs/spec/keeper.md §6). */
export type PreBlockDecision =
  | { action: "none" }
  | { action: "skipped"; plan: Plan }
  | { action: "upgrade-needed"; plan: Plan }
  | { action: "apply"; plan: Plan }
  | { action: "binary-too-early"; plan: Plan }
  | { action: "downgrade"; lastName: string };

/** Keeper operations over one upgrade store. Every method is synchronous. */
export interface CoreSession {
  schedule(plan: Plan, blockHeight: bigint): void;
  clearPlan(): void;
  plan(): Plan | undefined;
  doneHeight(name: string): bigint;
  lastCompleted(): CompletedUpgrade | undefined;
  moduleVersions(): ModuleVersion[];
  moduleVersion(name: string): bigint | undefined;
  /** Merge: writes every entry in ascending UTF-8 byte order of names; never deletes. */
  setModuleVersions(vm: VersionMap): void;
  protocolVersion(): bigint;
  /** ApplyUpgrade after the handler resolved: version map, protocol version, IBC keys, plan, done. Returns the new protocol version. */
  finishUpgrade(plan: Plan, blockHeight: bigint, vm: VersionMap): bigint;
  preBlock(blockHeight: bigint): PreBlockDecision;
  registerHandler(name: string): void;
  hasHandler(name: string): boolean;
  isSkipHeight(height: bigint): boolean;
  downgradeVerified: boolean;
}
