/**
 * Where headers, validator sets and store proofs come from: a node, through its CometBFT RPC (./rpc-provider.ts)
 * or a cosmjs CometClient (./comet-provider.ts). Nothing a provider returns is trusted; a light block is only
 * checked for shape and self-consistency here (LightBlock.ValidateBasic), and verified by ./verifier.ts.
 */
import { ProviderError } from "./errors.js";
import type { LightClientAttackEvidence } from "./evidence.js";
import type { Header, SignedHeader, Validator } from "./types.js";
import { type LightBlock, lightBlock } from "./verifier.js";
import { ValidatorSet } from "./validators.js";

/** One op of a store proof as the SDK serves it (`ics23:iavl`, `ics23:simple`): `data` is an ICS23 CommitmentProof. */
export interface ProofOp {
  type: string;
  key: Uint8Array;
  data: Uint8Array;
}

/** An `abci_query` answer: the value at `height` and, when asked for, the proof of it. */
export interface AbciAnswer {
  code: number;
  codespace: string;
  log: string;
  key: Uint8Array;
  value: Uint8Array;
  height: bigint;
  /** undefined when the node sent no proof. */
  proofOps: ProofOp[] | undefined;
}

export interface AbciRequest {
  path: string;
  data: Uint8Array;
  height: bigint;
  prove: boolean;
}

/** What the node says about itself (unverified). */
export interface NodeStatus {
  chainId: string;
  latestHeight: bigint;
}

export interface LightProvider {
  /** The endpoint, for messages. */
  readonly label: string;
  status(): Promise<NodeStatus>;
  /** The signed header at `height` (the latest when undefined). */
  signedHeader(height?: bigint): Promise<SignedHeader>;
  /** Every validator of the set at `height`, in the node's order (all pages). */
  validators(height: bigint): Promise<Validator[]>;
  abciQuery(request: AbciRequest): Promise<AbciAnswer>;
  /** The headers from `minHeight` to `maxHeight` (at most 20, as `blockchain` gives them), in any order. */
  headers(minHeight: bigint, maxHeight: bigint): Promise<Header[]>;
  /**
   * Hands evidence of a light client attack to the node (`broadcast_evidence`); resolves to the hash the node
   * gives it. A provider without it cannot report evidence (the detector says so).
   */
  reportEvidence?(evidence: LightClientAttackEvidence): Promise<Uint8Array>;
}

/**
 * The light block at `height` from a provider, checked as CometBFT's provider checks it: the height asked for,
 * a well-formed header of `chainId` that its commit signs, and the validator set its header names. Without a
 * chain id, the header's own is taken (for the trust root, whose hash then vouches for it).
 */
export async function fetchLightBlock(provider: LightProvider, height: bigint | undefined, chainId: string | undefined): Promise<LightBlock> {
  const sh = await provider.signedHeader(height);
  const got = sh.header.height;
  if (height !== undefined && got !== height) {
    throw new ProviderError(provider.label, `asked for the header at height ${height}, got height ${got}`, "garbage", height);
  }
  const vals = new ValidatorSet(await provider.validators(got), got);
  return lightBlock(sh, vals, chainId ?? sh.header.chainId);
}
