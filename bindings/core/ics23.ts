/**
 * ICS23 proofs, the part both cores share (docs/spec/core.md §14): the proof specs, the argument checks, the
 * error every refusal becomes and its wording, and the checks of a store proof's op list that come before any
 * hashing. The verification itself is in each core (js/ics23.ts, assembly/ics23.ts); both report a refusal as
 * the same numbers (Ics23Reason, generated from assembly/ics23-reasons.ts), worded here once, so the two
 * cores cannot drift apart in wording.
 */
import { checkBytes, checkString } from "./args.js";
import { Ics23Fact, Ics23Form, Ics23Message, Ics23Reason, Ics23Side, Ics23Where } from "./constants.generated.js";
import { toHex } from "./errors.js";
import { malformedDetail } from "./status.js";

export { Ics23Fact, Ics23Form, Ics23Message, Ics23Reason, Ics23Side, Ics23Where };

// ---- what a verified proof proved (both cores return these; fresh copies of the bytes they checked) ----

/** A leaf a verified ICS23 proof proved present, as the verifier decoded it. */
export interface ProvenLeaf {
  readonly key: Uint8Array;
  readonly value: Uint8Array;
}

/** What a verified non-existence proof proved: the key is absent, between these proven, adjacent neighbours. */
export interface NonMembershipFacts {
  readonly left: ProvenLeaf | undefined;
  readonly right: ProvenLeaf | undefined;
}

/** What a verified store proof proved about its key (op 0, the key in its store). */
export type StoreProofFacts =
  | { readonly kind: "exists"; readonly key: Uint8Array; readonly value: Uint8Array }
  | { readonly kind: "absent"; readonly key: Uint8Array; readonly left: ProvenLeaf | undefined; readonly right: ProvenLeaf | undefined };

/** cosmos.ics23.v1.HashOp. The cores compute SHA-256 only; any other op in a proof or spec is refused. */
export const HashOp = {
  NO_HASH: 0,
  SHA256: 1,
  SHA512: 2,
  KECCAK: 3,
  RIPEMD160: 4,
  BITCOIN: 5,
  SHA512_256: 6,
  BLAKE2B_512: 7,
  BLAKE2S_256: 8,
  BLAKE3: 9,
} as const;
/** cosmos.ics23.v1.LengthOp. */
export const LengthOp = {
  NO_PREFIX: 0,
  VAR_PROTO: 1,
  VAR_RLP: 2,
  FIXED32_BIG: 3,
  FIXED32_LITTLE: 4,
  FIXED64_BIG: 5,
  FIXED64_LITTLE: 6,
  REQUIRE_32_BYTES: 7,
  REQUIRE_64_BYTES: 8,
} as const;

export interface LeafSpec {
  hash: number;
  prehashKey: number;
  prehashValue: number;
  length: number;
  prefix: Uint8Array;
}

export interface InnerSpec {
  /** A permutation of 0 … n-1 (n ≥ 2): the order in which children are hashed. */
  childOrder: readonly number[];
  childSize: number;
  minPrefixLength: number;
  maxPrefixLength: number;
  /** The hash of an empty child (SMT); empty when the tree has none. */
  emptyChild: Uint8Array;
  hash: number;
}

/** cosmos.ics23.v1.ProofSpec, camelCase. */
export interface ProofSpec {
  leafSpec: LeafSpec;
  innerSpec: InnerSpec;
  /** 0: 128, as ics23 v0.11 reads it. */
  maxDepth: number;
  minDepth: number;
  prehashKeyBeforeComparison: boolean;
}

/** The specs the Cosmos SDK maps its proof ops to: `ics23:iavl`, `ics23:simple`, `ics23:smt`. */
export type Ics23SpecName = "iavl" | "tendermint" | "smt";
export type Ics23Spec = Ics23SpecName | ProofSpec;

/** ics23's IavlSpec: a key in one store's IAVL tree (proof op `ics23:iavl`). */
export const IAVL_SPEC: Readonly<ProofSpec> = Object.freeze({
  leafSpec: Object.freeze({
    hash: HashOp.SHA256,
    prehashKey: HashOp.NO_HASH,
    prehashValue: HashOp.SHA256,
    length: LengthOp.VAR_PROTO,
    prefix: Uint8Array.of(0),
  }),
  innerSpec: Object.freeze({
    childOrder: Object.freeze([0, 1]),
    childSize: 33,
    minPrefixLength: 4,
    maxPrefixLength: 12,
    emptyChild: new Uint8Array(0),
    hash: HashOp.SHA256,
  }),
  maxDepth: 0,
  minDepth: 0,
  prehashKeyBeforeComparison: false,
});

/** ics23's TendermintSpec: a store in the multistore's simple Merkle map (proof op `ics23:simple`). */
export const TENDERMINT_SPEC: Readonly<ProofSpec> = Object.freeze({
  leafSpec: Object.freeze({
    hash: HashOp.SHA256,
    prehashKey: HashOp.NO_HASH,
    prehashValue: HashOp.SHA256,
    length: LengthOp.VAR_PROTO,
    prefix: Uint8Array.of(0),
  }),
  innerSpec: Object.freeze({
    childOrder: Object.freeze([0, 1]),
    childSize: 32,
    minPrefixLength: 1,
    maxPrefixLength: 1,
    emptyChild: new Uint8Array(0),
    hash: HashOp.SHA256,
  }),
  maxDepth: 0,
  minDepth: 0,
  prehashKeyBeforeComparison: false,
});

/** ics23's SmtSpec (proof op `ics23:smt`). */
export const SMT_SPEC: Readonly<ProofSpec> = Object.freeze({
  leafSpec: Object.freeze({
    hash: HashOp.SHA256,
    prehashKey: HashOp.SHA256,
    prehashValue: HashOp.SHA256,
    length: LengthOp.NO_PREFIX,
    prefix: Uint8Array.of(0),
  }),
  innerSpec: Object.freeze({
    childOrder: Object.freeze([0, 1]),
    childSize: 32,
    minPrefixLength: 1,
    maxPrefixLength: 1,
    emptyChild: new Uint8Array(32),
    hash: HashOp.SHA256,
  }),
  maxDepth: 256,
  minDepth: 0,
  prehashKeyBeforeComparison: true,
});

/** Which extra prefix rules a spec gets: ics23 applies IAVL's or Tendermint's to any spec equal to theirs (SpecEquals). */
export const Family = { Other: 0, Iavl: 1, Tendermint: 2 } as const;

/** A spec as the cores use it: checked, its family and its effective maximum depth settled. */
export interface CheckedSpec {
  readonly spec: Readonly<ProofSpec>;
  readonly family: number;
  /** maxDepth, 0 read as 128 */
  readonly maxDepth: number;
  /** the position of each branch in childOrder (childOrder's inverse) */
  readonly position: readonly number[];
}

// ---- arguments (docs/spec/core.md §2.5) ----

const checked = new WeakMap<object, CheckedSpec>();

function isUint32(v: unknown): v is number {
  return typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= 0xffffffff;
}

function isInt32(v: unknown): v is number {
  return typeof v === "number" && Number.isInteger(v) && v >= -0x80000000 && v <= 0x7fffffff;
}

/** ics23's SpecEquals: it compares the ops, the prefix lengths, the child size and the number of children (not the prefixes). */
function specEquals(a: Readonly<ProofSpec>, b: Readonly<ProofSpec>): boolean {
  const [la, lb, ia, ib] = [a.leafSpec, b.leafSpec, a.innerSpec, b.innerSpec];
  return (
    la.hash === lb.hash &&
    la.prehashKey === lb.prehashKey &&
    la.prehashValue === lb.prehashValue &&
    la.length === lb.length &&
    ia.hash === ib.hash &&
    ia.minPrefixLength === ib.minPrefixLength &&
    ia.maxPrefixLength === ib.maxPrefixLength &&
    ia.childSize === ib.childSize &&
    ia.childOrder.length === ib.childOrder.length
  );
}

function make(spec: Readonly<ProofSpec>): CheckedSpec {
  const family = specEquals(spec, IAVL_SPEC) ? Family.Iavl : specEquals(spec, TENDERMINT_SPEC) ? Family.Tendermint : Family.Other;
  const position: number[] = [];
  spec.innerSpec.childOrder.forEach((branch, i) => (position[branch] = i));
  return { spec, family, maxDepth: spec.maxDepth === 0 ? 128 : spec.maxDepth, position };
}

const NAMED: Readonly<Record<Ics23SpecName, CheckedSpec>> = { iavl: make(IAVL_SPEC), tendermint: make(TENDERMINT_SPEC), smt: make(SMT_SPEC) };

/**
 * A spec argument: "iavl", "tendermint" or "smt" (the specs above), or a ProofSpec whose fields are well-formed
 * and consistent (the rules ics23 checks on the way, checked up front here): integer ops, a child order that
 * is a permutation of 0 … n-1 with n ≥ 2, a child size ≥ 1, prefix lengths ≥ 0 with maxPrefixLength < minPrefixLength + childSize,
 * an empty child that is empty or childSize bytes, depths ≥ 0.
 */
export function checkSpec(value: unknown): CheckedSpec {
  if (typeof value === "string") {
    const named = (NAMED as Record<string, CheckedSpec>)[value];
    if (named === undefined || !Object.hasOwn(NAMED, value))
      throw new TypeError(`unknown ICS23 spec ${JSON.stringify(value)}: expected "iavl", "tendermint", "smt" or a ProofSpec`);
    return named;
  }
  if (typeof value !== "object" || value === null)
    throw new TypeError(`spec must be "iavl", "tendermint", "smt" or a ProofSpec, got ${value === null ? "null" : typeof value}`);
  const known = checked.get(value);
  if (known) return known;
  const s = value as ProofSpec;
  const leaf = s.leafSpec as LeafSpec | undefined;
  const inner = s.innerSpec as InnerSpec | undefined;
  if (typeof leaf !== "object" || leaf === null) throw new TypeError("spec.leafSpec must be an object");
  if (typeof inner !== "object" || inner === null) throw new TypeError("spec.innerSpec must be an object");
  for (const f of ["hash", "prehashKey", "prehashValue", "length"] as const) {
    if (!isInt32(leaf[f])) throw new TypeError(`spec.leafSpec.${f} must be an int32, got ${String(leaf[f])}`);
  }
  checkBytes(leaf.prefix, "spec.leafSpec.prefix");
  if (!isInt32(inner.hash)) throw new TypeError(`spec.innerSpec.hash must be an int32, got ${String(inner.hash)}`);
  for (const f of ["childSize", "minPrefixLength", "maxPrefixLength"] as const) {
    if (!isUint32(inner[f]) || inner[f] > 0x7fffffff) throw new TypeError(`spec.innerSpec.${f} must be a non-negative int32, got ${String(inner[f])}`);
  }
  if (inner.childSize < 1) throw new TypeError("spec.innerSpec.childSize must be at least 1");
  if (inner.maxPrefixLength >= inner.minPrefixLength + inner.childSize) {
    throw new TypeError("spec.innerSpec.maxPrefixLength must be below minPrefixLength + childSize");
  }
  const order = inner.childOrder;
  if (!Array.isArray(order) || order.length < 2) throw new TypeError("spec.innerSpec.childOrder must be an array of at least 2 branches");
  const seen = new Set<number>();
  for (const b of order) {
    if (!isInt32(b) || b < 0 || b >= order.length || seen.has(b))
      throw new TypeError(`spec.innerSpec.childOrder must be a permutation of 0…${order.length - 1}`);
    seen.add(b);
  }
  if ((order.length - 1) * inner.childSize + inner.maxPrefixLength > 0x7fffffff) throw new TypeError("spec.innerSpec is too large");
  checkBytes(inner.emptyChild, "spec.innerSpec.emptyChild");
  if (inner.emptyChild.length !== 0 && inner.emptyChild.length !== inner.childSize) {
    throw new TypeError(`spec.innerSpec.emptyChild must be empty or childSize (${inner.childSize}) bytes, got ${inner.emptyChild.length}`);
  }
  if (!isUint32(s.maxDepth) || s.maxDepth > 0x7fffffff) throw new TypeError(`spec.maxDepth must be a non-negative int32, got ${String(s.maxDepth)}`);
  if (!isUint32(s.minDepth) || s.minDepth > 0x7fffffff) throw new TypeError(`spec.minDepth must be a non-negative int32, got ${String(s.minDepth)}`);
  if (typeof s.prehashKeyBeforeComparison !== "boolean") throw new TypeError("spec.prehashKeyBeforeComparison must be a boolean");
  // A snapshot: a spec changed after its first use must not change what was checked.
  const copy: ProofSpec = {
    leafSpec: { hash: leaf.hash, prehashKey: leaf.prehashKey, prehashValue: leaf.prehashValue, length: leaf.length, prefix: leaf.prefix.slice() },
    innerSpec: {
      childOrder: [...order],
      childSize: inner.childSize,
      minPrefixLength: inner.minPrefixLength,
      maxPrefixLength: inner.maxPrefixLength,
      emptyChild: inner.emptyChild.slice(),
      hash: inner.hash,
    },
    maxDepth: s.maxDepth,
    minDepth: s.minDepth,
    prehashKeyBeforeComparison: s.prehashKeyBeforeComparison,
  };
  const result = make(copy);
  checked.set(value, result);
  return result;
}

/** One op of a `ProofOps` answer (CometBFT's crypto.ProofOp; cosmjs's `ProofOp` has this shape). */
export interface ProofOp {
  readonly type: string;
  readonly key: Uint8Array;
  readonly data: Uint8Array;
}

/** The proof ops the SDK may send, and the spec each is checked against (store/types/proof.go). */
export const PROOF_OP_SPECS: Readonly<Record<string, Ics23SpecName>> = Object.freeze({
  "ics23:iavl": "iavl",
  "ics23:simple": "tendermint",
  "ics23:smt": "smt",
});

/** An op of a store proof, ready for a core: its spec and the key it must prove. */
export interface PlannedOp {
  readonly spec: CheckedSpec;
  readonly key: Uint8Array;
  readonly data: Uint8Array;
}

/** Checks the arguments of ics23VerifyStoreProof (TypeError), then the op list against the key path (Ics23Error). */
export function planStoreProof(appHash: unknown, proofOps: unknown, storeName: unknown, key: unknown, value: unknown): PlannedOp[] {
  checkBytes(appHash, "app hash");
  if (!Array.isArray(proofOps)) throw new TypeError(`proof ops must be an array of {type, key, data}, got ${proofOps === null ? "null" : typeof proofOps}`);
  const name = checkString(storeName, "store name");
  checkBytes(key, "key");
  if (value !== undefined) checkBytes(value, "value");
  for (let i = 0; i < proofOps.length; i++) {
    const op = proofOps[i] as ProofOp | null;
    if (typeof op !== "object" || op === null) throw new TypeError(`proof op ${i} must be an object {type, key, data}`);
    checkString(op.type, `proof op ${i} type`);
    checkBytes(op.key, `proof op ${i} key`);
    checkBytes(op.data, `proof op ${i} data`);
  }
  const ops = proofOps as ProofOp[];
  if (ops.length === 0) throw chainError("no-proof-ops", "the answer holds no proof ops");
  // CometBFT's ProofOperators.Verify: each op with a key consumes the key path from its end, so the first op
  // proves the key and the next one the store name; an op without a key consumes nothing.
  const path = [new TextEncoder().encode(name), key as Uint8Array];
  const planned: PlannedOp[] = [];
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    const specName = Object.hasOwn(PROOF_OP_SPECS, op.type) ? PROOF_OP_SPECS[op.type] : undefined;
    if (specName === undefined) {
      throw chainError("proof-op-type", `proof op ${i} has type ${JSON.stringify(op.type)}, expected ics23:iavl, ics23:simple or ics23:smt`, i);
    }
    if (op.key.length !== 0) {
      const expected = path.pop();
      if (expected === undefined)
        throw chainError("proof-op-key", `proof op ${i} (${op.type}) proves key 0x${toHex(op.key)}, but the key path has no part left`, i);
      if (!equal(expected, op.key)) {
        throw chainError("proof-op-key", `proof op ${i} (${op.type}) proves key 0x${toHex(op.key)}, expected 0x${toHex(expected)}`, i);
      }
    }
    planned.push({ spec: NAMED[specName], key: op.key, data: op.data });
  }
  if (path.length !== 0) throw chainError("proof-op-count", `the proof ops leave ${path.length} part${path.length === 1 ? "" : "s"} of the key path unproven`);
  return planned;
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// ---- refusals ----

export type Ics23ErrorKind =
  | "malformed-proof"
  | "empty-proof"
  | "not-existence-proof"
  | "not-nonexistence-proof"
  | "empty-batch"
  | "no-batch-entry"
  | "no-leaf"
  | "iavl-varint"
  | "iavl-height"
  | "iavl-size"
  | "iavl-version"
  | "iavl-prefix-length"
  | "leaf-hash-op"
  | "leaf-prehash-key"
  | "leaf-prehash-value"
  | "leaf-length-op"
  | "leaf-prefix"
  | "min-depth"
  | "max-depth"
  | "inner-hash-op"
  | "tendermint-inner-prefix"
  | "inner-prefix-is-leaf-prefix"
  | "inner-prefix-too-short"
  | "inner-prefix-too-long"
  | "inner-suffix-length"
  | "key-mismatch"
  | "value-mismatch"
  | "empty-key"
  | "empty-value"
  | "unsupported-hash-op"
  | "unsupported-length-op"
  | "length-op"
  | "root-mismatch"
  | "no-neighbours"
  | "key-not-left-of-right-neighbour"
  | "key-not-right-of-left-neighbour"
  | "not-left-most"
  | "not-right-most"
  | "neighbours-not-adjacent"
  | "app-hash-mismatch"
  | "compressed-index"
  | "non-canonical-proof"
  // the op list of a store proof (checked before any hashing)
  | "no-proof-ops"
  | "proof-op-type"
  | "proof-op-key"
  | "proof-op-count";

/** A proof that was refused: which check failed (`kind`) and where. The message says both. */
export class Ics23Error extends Error {
  override name = "Ics23Error";
  constructor(
    message: string,
    readonly kind: Ics23ErrorKind,
    /** Where: the proof op (store proofs), the neighbour (non-existence proofs), and `"leaf"` or the inner op's index in the path. */
    readonly at: { op?: number; side?: "left" | "right"; step?: "leaf" | number } = {},
  ) {
    super(message);
  }
}

function chainError(kind: Ics23ErrorKind, message: string, op?: number): Ics23Error {
  return new Ics23Error(message, kind, op === undefined ? {} : { op });
}

/** What a core reports for a refusal: the numbers of assembly/ics23-reasons.ts and up to three details. */
export interface Ics23Failure {
  reason: number;
  where: number;
  side: number;
  /** the inner op's index when `where` is Ics23Where.Inner */
  step: number;
  a: number;
  b: number;
  c: number;
  /** a 64-bit detail: an IAVL height, size or version */
  v: bigint;
}

const KINDS: Record<number, Ics23ErrorKind> = {
  [Ics23Reason.Malformed]: "malformed-proof",
  [Ics23Reason.EmptyProof]: "empty-proof",
  [Ics23Reason.NotExistence]: "not-existence-proof",
  [Ics23Reason.NotNonexistence]: "not-nonexistence-proof",
  [Ics23Reason.EmptyBatch]: "empty-batch",
  [Ics23Reason.NoBatchEntry]: "no-batch-entry",
  [Ics23Reason.NoLeaf]: "no-leaf",
  [Ics23Reason.IavlVarint]: "iavl-varint",
  [Ics23Reason.IavlHeight]: "iavl-height",
  [Ics23Reason.IavlSize]: "iavl-size",
  [Ics23Reason.IavlVersion]: "iavl-version",
  [Ics23Reason.IavlRemainder]: "iavl-prefix-length",
  [Ics23Reason.LeafHash]: "leaf-hash-op",
  [Ics23Reason.LeafPrehashKey]: "leaf-prehash-key",
  [Ics23Reason.LeafPrehashValue]: "leaf-prehash-value",
  [Ics23Reason.LeafLength]: "leaf-length-op",
  [Ics23Reason.LeafPrefix]: "leaf-prefix",
  [Ics23Reason.MinDepth]: "min-depth",
  [Ics23Reason.MaxDepth]: "max-depth",
  [Ics23Reason.InnerHash]: "inner-hash-op",
  [Ics23Reason.TendermintPrefix]: "tendermint-inner-prefix",
  [Ics23Reason.InnerLeafPrefix]: "inner-prefix-is-leaf-prefix",
  [Ics23Reason.InnerPrefixShort]: "inner-prefix-too-short",
  [Ics23Reason.InnerPrefixLong]: "inner-prefix-too-long",
  [Ics23Reason.InnerSuffix]: "inner-suffix-length",
  [Ics23Reason.KeyMismatch]: "key-mismatch",
  [Ics23Reason.ValueMismatch]: "value-mismatch",
  [Ics23Reason.EmptyKey]: "empty-key",
  [Ics23Reason.EmptyValue]: "empty-value",
  [Ics23Reason.UnsupportedHash]: "unsupported-hash-op",
  [Ics23Reason.UnsupportedLength]: "unsupported-length-op",
  [Ics23Reason.LengthRequired]: "length-op",
  [Ics23Reason.RootMismatch]: "root-mismatch",
  [Ics23Reason.NoNeighbours]: "no-neighbours",
  [Ics23Reason.NotLeftOfRight]: "key-not-left-of-right-neighbour",
  [Ics23Reason.NotRightOfLeft]: "key-not-right-of-left-neighbour",
  [Ics23Reason.NotLeftMost]: "not-left-most",
  [Ics23Reason.NotRightMost]: "not-right-most",
  [Ics23Reason.NotAdjacent]: "neighbours-not-adjacent",
  [Ics23Reason.AppHashMismatch]: "app-hash-mismatch",
  [Ics23Reason.CompressedIndex]: "compressed-index",
  [Ics23Reason.NonCanonical]: "non-canonical-proof",
};

const HASH_NAMES = ["NO_HASH", "SHA256", "SHA512", "KECCAK", "RIPEMD160", "BITCOIN", "SHA512_256", "BLAKE2B_512", "BLAKE2S_256", "BLAKE3"];
const LENGTH_NAMES = [
  "NO_PREFIX",
  "VAR_PROTO",
  "VAR_RLP",
  "FIXED32_BIG",
  "FIXED32_LITTLE",
  "FIXED64_BIG",
  "FIXED64_LITTLE",
  "REQUIRE_32_BYTES",
  "REQUIRE_64_BYTES",
];
const hashName = (op: number) => HASH_NAMES[op] ?? `${op}`;
const lengthName = (op: number) => LENGTH_NAMES[op] ?? `${op}`;
const VARINTS = ["height", "size", "version"];

/** The messages of a CommitmentProof by Ics23Message number, and their fields' names (proofs.proto). */
const MESSAGE_NAMES: Record<number, string> = Object.fromEntries(Object.entries(Ics23Message).map(([name, n]) => [n, name]));
const FIELD_NAMES: Record<string, readonly string[]> = {
  CommitmentProof: ["", "exist", "nonexist", "batch", "compressed"],
  ExistenceProof: ["", "key", "value", "leaf", "path"],
  NonExistenceProof: ["", "key", "left", "right"],
  LeafOp: ["", "hash", "prehash_key", "prehash_value", "length", "prefix"],
  InnerOp: ["", "hash", "prefix", "suffix"],
  BatchProof: ["", "entries"],
  BatchEntry: ["", "exist", "nonexist"],
  CompressedBatchProof: ["", "entries", "lookup_inners"],
  CompressedBatchEntry: ["", "exist", "nonexist"],
  CompressedExistenceProof: ["", "key", "value", "leaf", "path"],
  CompressedNonExistenceProof: ["", "key", "left", "right"],
};

/** What is not canonical about a proof's encoding (§14.2): `form` in message `m` at `field`, `other` the field before it or the varint's role. */
function nonCanonicalText(form: number, m: number, field: number, other: number): string {
  const message = MESSAGE_NAMES[m] ?? `message ${m}`;
  const nameOf = (f: number) => FIELD_NAMES[message]?.[f] || undefined;
  const named = (f: number) => (nameOf(f) ? `field ${f} (${nameOf(f)})` : `field ${f}`);
  switch (form) {
    case Ics23Form.Oneof:
      return `${message} holds two proofs (field ${other} ${nameOf(other)}, then field ${field} ${nameOf(field)})`;
    case Ics23Form.Twice:
      return `${message} ${named(field)} appears twice`;
    case Ics23Form.Unknown:
      return field < 0 ? `unknown field (a number of 2^29 or more) in ${message}` : `unknown field ${field} in ${message}`;
    case Ics23Form.Default:
      return `${message} ${named(field)} is written with its default value`;
    case Ics23Form.Order:
      return `field ${field} of ${message} comes after field ${other}`;
    case Ics23Form.Varint: {
      const which = [
        `the tag of ${message} ${field < 0 ? "field 2^29 or more" : `field ${field}`}`,
        `the length of ${message} ${named(field)}`,
        `the value of ${message} ${named(field)}`,
        `an element of ${message} ${named(field)}`,
      ];
      return `a varint is not minimally encoded (${which[other] ?? "?"})`;
    }
    case Ics23Form.Int32:
      return `${message} ${named(field)} holds a value beyond int32`;
    case Ics23Form.Unpacked:
      return `${message} ${named(field)} is not written packed`;
    default:
      return `form ${form} of ${message} ${named(field)}`;
  }
}

/** The text of a refusal, without where it happened. */
function reasonText(f: Ics23Failure): string {
  const { a, b, v } = f;
  switch (f.reason) {
    case Ics23Reason.Malformed:
      return `the proof is not a CommitmentProof: ${malformedDetail(a, b, f.c)}`;
    case Ics23Reason.EmptyProof:
      return "the proof holds no existence or non-existence proof";
    case Ics23Reason.NotExistence:
      return `expected an existence proof, got a ${a === 2 ? "non-existence" : "batch"} proof`;
    case Ics23Reason.NotNonexistence:
      return `expected a non-existence proof, got a${a === 1 ? "n existence" : " batch"} proof`;
    case Ics23Reason.EmptyBatch:
      return "the batch proof has no entries";
    case Ics23Reason.NoBatchEntry:
      return a === 1 ? "the batch proof has no existence proof for the key" : "the batch proof has no non-existence proof around the key";
    case Ics23Reason.NoLeaf:
      return "the existence proof has no leaf op";
    case Ics23Reason.IavlVarint:
      return `the IAVL ${VARINTS[a] ?? "?"} varint at the start of the prefix does not read`;
    case Ics23Reason.IavlHeight:
      return b === 1 ? `IAVL leaf height is ${v}, expected 0` : v < 0n ? `IAVL height ${v} is negative` : `IAVL height ${v} is below the node's layer ${a}`;
    case Ics23Reason.IavlSize:
      return b === 1 ? `IAVL leaf size is ${v}, expected 1` : `IAVL size ${v} is negative`;
    case Ics23Reason.IavlVersion:
      return `IAVL version ${v} is negative`;
    case Ics23Reason.IavlRemainder:
      return b === 0
        ? `the IAVL leaf prefix has ${a} bytes after its varints, expected 0`
        : `the IAVL inner prefix has ${a} bytes after its varints, expected 1 or 34`;
    case Ics23Reason.LeafHash:
      return `leaf hash op ${hashName(a)} does not match the spec's ${hashName(b)}`;
    case Ics23Reason.LeafPrehashKey:
      return `leaf prehash-key op ${hashName(a)} does not match the spec's ${hashName(b)}`;
    case Ics23Reason.LeafPrehashValue:
      return `leaf prehash-value op ${hashName(a)} does not match the spec's ${hashName(b)}`;
    case Ics23Reason.LeafLength:
      return `leaf length op ${lengthName(a)} does not match the spec's ${lengthName(b)}`;
    case Ics23Reason.LeafPrefix:
      return "leaf prefix does not match spec (it does not start with the spec's leaf prefix)";
    case Ics23Reason.MinDepth:
      return `the path has ${a} inner ops, fewer than the spec's minimum depth ${b}`;
    case Ics23Reason.MaxDepth:
      return `the path has ${a} inner ops, more than the spec's maximum depth ${b}`;
    case Ics23Reason.InnerHash:
      return `inner hash op ${hashName(a)} does not match the spec's ${hashName(b)}`;
    case Ics23Reason.TendermintPrefix:
      return a === 0
        ? "the Tendermint inner prefix is empty"
        : a === 1
          ? "the Tendermint inner prefix beside a suffix is not exactly 01"
          : "the Tendermint inner prefix does not start with 01";
    case Ics23Reason.InnerLeafPrefix:
      return "inner prefix starts with the leaf prefix";
    case Ics23Reason.InnerPrefixShort:
      return `inner prefix has ${a} bytes, fewer than the spec's minimum ${b}`;
    case Ics23Reason.InnerPrefixLong:
      return `inner prefix has ${a} bytes, more than the spec allows (${b})`;
    case Ics23Reason.InnerSuffix:
      return `inner suffix has ${a} bytes, not a multiple of the child size ${b}`;
    case Ics23Reason.KeyMismatch:
      return "the proof is for another key";
    case Ics23Reason.ValueMismatch:
      return "the proven value does not match the value";
    case Ics23Reason.EmptyKey:
      return "the leaf's key is empty";
    case Ics23Reason.EmptyValue:
      return "the leaf's value is empty";
    case Ics23Reason.UnsupportedHash:
      return `hash op ${hashName(a)} is not supported (SHA-256 only)`;
    case Ics23Reason.UnsupportedLength:
      return `length op ${lengthName(a)} is not supported`;
    case Ics23Reason.LengthRequired:
      return `length op ${lengthName(b)} needs ${b === LengthOp.REQUIRE_64_BYTES ? 64 : 32} bytes, got ${a}`;
    case Ics23Reason.RootMismatch:
      return "calculated root does not match";
    case Ics23Reason.NoNeighbours:
      return "the non-existence proof has neither a left nor a right neighbour";
    case Ics23Reason.NotLeftOfRight:
      return "key is not between the neighbours: it is not left of the right neighbour's key";
    case Ics23Reason.NotRightOfLeft:
      return "key is not between the neighbours: it is not right of the left neighbour's key";
    case Ics23Reason.NotLeftMost:
      return "there is no left neighbour, and the right neighbour is not the left-most leaf";
    case Ics23Reason.NotRightMost:
      return "there is no right neighbour, and the left neighbour is not the right-most leaf";
    case Ics23Reason.NotAdjacent:
      return "the neighbours are not adjacent leaves";
    case Ics23Reason.AppHashMismatch:
      return "the calculated app hash does not match the app hash";
    case Ics23Reason.CompressedIndex:
      return `the compressed batch refers to inner op ${a} of its lookup table, which has ${b}`;
    case Ics23Reason.NonCanonical:
      return `the proof is not canonically encoded: ${nonCanonicalText(a, b, f.c, Number(v))}`;
    default:
      // An invariant: both cores return only the reasons above.
      throw new Error(`core returned unknown ICS23 reason ${f.reason}`);
  }
}

/** The error for a core's refusal; `op` and `opType` name the proof op of a store proof. */
export function ics23Error(f: Ics23Failure, op?: number, opType?: string): Ics23Error {
  let where = "";
  const at: { op?: number; side?: "left" | "right"; step?: "leaf" | number } = {};
  if (op !== undefined && f.reason !== Ics23Reason.AppHashMismatch) {
    where += `proof op ${op} (${opType}): `;
    at.op = op;
  }
  if (f.side !== Ics23Side.None) {
    at.side = f.side === Ics23Side.Left ? "left" : "right";
    where += `${at.side} neighbour: `;
  }
  if (f.where === Ics23Where.Leaf) {
    at.step = "leaf";
    where += "leaf: ";
  } else if (f.where === Ics23Where.Inner) {
    at.step = f.step;
    where += `inner op ${f.step}: `;
  }
  return new Ics23Error(where + reasonText(f), KINDS[f.reason], at);
}
