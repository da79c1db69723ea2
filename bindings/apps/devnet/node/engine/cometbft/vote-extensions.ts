/**
 * Vote extensions on the CometBFT engine (docs/spec/readiness.md §6): what the proposer injects into its
 * block, and the checks every validator makes of it in ProcessProposal (and again, deterministically, in
 * FinalizeBlock).
 *
 * PrepareProposal receives the previous height's extended commit (every precommit with its vote extension
 * and the extension's signature); the proposer puts it first in the block as the injected transaction
 * `INJECTION_PREFIX ‖ tendermint.abci.ExtendedCommitInfo`, so that validators that only see the block's last
 * commit (without extensions) can check every attestation's signature. A vote whose extension fails the
 * shape check (one that reached the proposer as a late precommit, which CometBFT adds without asking the
 * app) is pruned: extension and signature emptied, its flag kept; a pruned vote tells the tally nothing.
 *
 * The checks (one InjectionError kind each), in order: the injection is where it must be; it decodes; its
 * round, votes, validators, powers and flags are exactly the block's last commit; only COMMIT votes carry
 * extensions; every extension is signed, by a known validator, validly (CanonicalVoteExtension of height
 * h - 1, the commit's round, the chain id); every extension passes the shape check.
 */
import { ExtendedCommitInfo, type CommitInfo } from "cosmjs-types/tendermint/abci/types";
import { BlockIDFlag } from "cosmjs-types/tendermint/types/validator";
import { voteExtensionSignBytes } from "../../../../../light/encoding.js";
import { verifySignatures } from "../../../../../light/signatures.js";
import { decodeVoteExtension, type ReadinessVote } from "../../../../../module/readiness/index.js";
import { validators } from "../../../modules/staking.js";
import type { StoreView } from "../../../shared/branch.js";
import { hexUpper } from "../../../shared/util.js";

/** Marks the injected transaction; a 0x00 first byte can never start a Cosmos TxRaw (field number 0). */
export const INJECTION_PREFIX = Uint8Array.from([0x00, ...new TextEncoder().encode("xupgrade/votes/1"), 0x00]);

/** The largest injection decoded: every validator's vote with an extension at the limit, with room. */
const MAX_INJECTION_BYTES = 4 * 1024 * 1024;

export type InjectionErrorKind =
  | "missing"
  | "unexpected"
  | "malformed"
  | "round"
  | "votes"
  | "validator"
  | "flag"
  | "extension-without-commit"
  | "unsigned-extension"
  | "unknown-validator"
  | "signature"
  | "shape";

export class InjectionError extends Error {
  override readonly name = "InjectionError";
  constructor(
    readonly kind: InjectionErrorKind,
    message: string,
  ) {
    super(message);
  }
}

export function isInjection(tx: Uint8Array): boolean {
  if (tx.length < INJECTION_PREFIX.length) return false;
  for (let i = 0; i < INJECTION_PREFIX.length; i++) if (tx[i] !== INJECTION_PREFIX[i]) return false;
  return true;
}

const EMPTY = new Uint8Array(0);

/** PrepareProposal: the injected transaction for the previous height's extended commit, malformed extensions pruned. */
export function buildInjection(local: ExtendedCommitInfo): { tx: Uint8Array; pruned: number } {
  let pruned = 0;
  const votes = local.votes.map((v) => {
    if (v.voteExtension.length === 0) return v;
    let ok = v.blockIdFlag === BlockIDFlag.BLOCK_ID_FLAG_COMMIT && v.extensionSignature.length > 0;
    if (ok) {
      try {
        decodeVoteExtension(v.voteExtension);
      } catch {
        ok = false;
      }
    }
    if (ok) return v;
    pruned++;
    return { ...v, voteExtension: EMPTY, extensionSignature: EMPTY };
  });
  const body = ExtendedCommitInfo.encode({ round: local.round, votes }).finish();
  const tx = new Uint8Array(INJECTION_PREFIX.length + body.length);
  tx.set(INJECTION_PREFIX);
  tx.set(body, INJECTION_PREFIX.length);
  return { tx, pruned };
}

export interface InjectionContext {
  chainId: string;
  /** The block being checked: its votes are of height - 1. */
  height: bigint;
  /** The state whose validators sign (the committed state, or the block's branch). */
  view: StoreView;
}

/** Where the block's transactions put injections: it must be first exactly when votes are required, nowhere else. */
export function checkPlacement(txs: readonly Uint8Array[], required: boolean): void {
  const at = txs.findIndex(isInjection);
  if (required && at !== 0) throw new InjectionError("missing", "the block does not start with the previous height's votes (vote extensions are on)");
  if (!required && at >= 0) throw new InjectionError("unexpected", `transaction ${at} is an injected vote list, but this block carries none`);
  const again = txs.findIndex((t, i) => i > 0 && isInjection(t));
  if (again > 0) throw new InjectionError("unexpected", `transaction ${again} is a second injected vote list`);
}

/**
 * Checks an injected transaction against the block's last commit and returns the votes it tells the tally
 * (an extension for every signed COMMIT vote, none for the others).
 */
export async function checkInjection(ctx: InjectionContext, tx: Uint8Array, last: CommitInfo): Promise<ReadinessVote[]> {
  if (tx.length > MAX_INJECTION_BYTES) throw new InjectionError("malformed", `the injected votes are ${tx.length} bytes, more than ${MAX_INJECTION_BYTES}`);
  let ext: ExtendedCommitInfo;
  try {
    ext = ExtendedCommitInfo.decode(tx.subarray(INJECTION_PREFIX.length));
  } catch (e) {
    throw new InjectionError("malformed", `the injected votes do not decode: ${(e as Error).message}`);
  }
  if (ext.round !== last.round) throw new InjectionError("round", `the injected votes are of round ${ext.round}, the last commit of round ${last.round}`);
  if (ext.votes.length !== last.votes.length)
    throw new InjectionError("votes", `${ext.votes.length} injected votes for ${last.votes.length} in the last commit`);
  const keys = new Map(validators(ctx.view).map((v) => [v.consensus_address, Buffer.from(v.consensus_pubkey, "base64")]));
  const checks: { index: number; key: Uint8Array; message: Uint8Array; signature: Uint8Array }[] = [];
  const out: ReadinessVote[] = [];
  for (const [i, v] of ext.votes.entries()) {
    const c = last.votes[i];
    const addr = hexUpper(v.validator?.address ?? EMPTY);
    if (addr !== hexUpper(c.validator?.address ?? EMPTY) || (v.validator?.power ?? 0n) !== (c.validator?.power ?? 0n)) {
      throw new InjectionError(
        "validator",
        `injected vote ${i} is of validator ${addr} (power ${v.validator?.power}), the last commit's of ${hexUpper(c.validator?.address ?? EMPTY)} (power ${c.validator?.power})`,
      );
    }
    if (v.blockIdFlag !== c.blockIdFlag)
      throw new InjectionError("flag", `injected vote ${i} (${addr}) has flag ${v.blockIdFlag}, the last commit ${c.blockIdFlag}`);
    const hasExt = v.voteExtension.length > 0;
    const signed = v.extensionSignature.length > 0;
    if (v.blockIdFlag !== BlockIDFlag.BLOCK_ID_FLAG_COMMIT) {
      if (hasExt || signed) throw new InjectionError("extension-without-commit", `injected vote ${i} (${addr}) is not a COMMIT vote but carries an extension`);
      out.push({ address: v.validator.address, extension: undefined });
      continue;
    }
    if (!signed) {
      if (hasExt) throw new InjectionError("unsigned-extension", `injected vote ${i} (${addr}) carries an extension without its signature`);
      out.push({ address: v.validator.address, extension: undefined }); // pruned by the proposer
      continue;
    }
    const key = keys.get(addr);
    if (!key) throw new InjectionError("unknown-validator", `injected vote ${i} is of ${addr}, which is not a validator in the state`);
    try {
      decodeVoteExtension(v.voteExtension);
    } catch (e) {
      throw new InjectionError("shape", `injected vote ${i} (${addr}): ${(e as Error).message}`);
    }
    checks.push({ index: i, key, message: voteExtensionSignBytes(ctx.chainId, ctx.height - 1n, ext.round, v.voteExtension), signature: v.extensionSignature });
    out.push({ address: v.validator.address, extension: v.voteExtension });
  }
  const valid = await verifySignatures(checks.map((c) => ({ type: "ed25519" as const, key: c.key, message: c.message, signature: c.signature })));
  const bad = checks.find((_, j) => !valid[j]);
  if (bad)
    throw new InjectionError(
      "signature",
      `injected vote ${bad.index} (${hexUpper(ext.votes[bad.index].validator.address)}): the extension's signature does not verify`,
    );
  return out;
}
