/**
 * The evidence oracle (test/peers/evidence-oracle, built by `npm run peers`): CometBFT v0.38.26's own reading of
 * a light client attack evidence as xupgrade sends it — decoded by its JSON decoder as broadcast_evidence decodes
 * it, ValidateBasic, its hash, the evidence re-encoded, and the evidence pool's checks against an honest chain's
 * blocks. A synthetic chain answers `broadcast_evidence` through it (`oracleEvidencePool`): a node with
 * CometBFT's evidence checks and a store of that chain's blocks.
 */
import { commitJson, headerJson, validatorSetJson } from "../../../bindings/light/cmtjson.js";
import { missingPeerReason, peerBinaries } from "../../../scripts/peers/paths.mjs";
import { runJsonProgram } from "./oracle.js";
import { RpcFault } from "./rpc-server.js";
import type { SyntheticChain } from "./synthetic.js";

export interface EvidenceCase {
  /** The evidence as broadcast_evidence received it. */
  evidence: unknown;
  /** The honest chain's light block at the evidence's height. */
  common: unknown;
  /** The honest chain's signed header at the conflicting height (its latest, when it has not reached it). */
  trusted: unknown;
}

export interface EvidenceVerdict {
  error?: string;
  valid_basic: string;
  hash?: string;
  /** The evidence as cmtjson writes it again. */
  reencoded?: unknown;
  kind?: string;
  byzantine: string[];
  /** "ok", or why a full node would refuse it. */
  verify: string;
}

export const evidenceOracleMissing = (): string | undefined => missingPeerReason("evidence-oracle");

export function runEvidenceOracle(c: EvidenceCase): Promise<EvidenceVerdict> {
  const bin = peerBinaries().evidenceOracle;
  if (!bin) throw new Error(evidenceOracleMissing());
  return runJsonProgram(bin, c);
}

type EvidenceJson = { value: { CommonHeight: string; ConflictingBlock: { signed_header: { header: { height: string } } } } };

/** What the chain, as a full node, holds for `evidence`: its block at the evidence's height and its header at the conflicting one. */
export function evidenceCase(chain: SyntheticChain, evidence: unknown): EvidenceCase {
  const ev = evidence as EvidenceJson;
  const common = BigInt(ev.value.CommonHeight);
  const conflicting = BigInt(ev.value.ConflictingBlock.signed_header.header.height);
  // A conflicting height the chain has not reached: its latest header (a forward lunatic attack).
  const at = conflicting > chain.latest ? chain.latest : conflicting;
  const signed = (h: bigint) => ({ header: headerJson(chain.header(h)), commit: commitJson(chain.commit(h)) });
  return { evidence, common: { signed_header: signed(common), validator_set: validatorSetJson(chain.valset(common).set) }, trusted: signed(at) };
}

/**
 * `acceptEvidence` for a synthetic chain: the evidence pool's verdict, by CometBFT's code, against this chain's
 * blocks; the evidence's hash when it holds, else the refusal (an RpcFault, as a node answers). Each case is kept.
 */
export function oracleEvidencePool(chain: () => SyntheticChain, seen: { case: EvidenceCase; verdict: EvidenceVerdict }[] = []) {
  return async (evidence: unknown): Promise<Uint8Array> => {
    const c = evidenceCase(chain(), evidence);
    const verdict = await runEvidenceOracle(c);
    seen.push({ case: c, verdict });
    if (verdict.error) throw new RpcFault(`evidence oracle: ${verdict.error}`);
    if (verdict.valid_basic !== "ok") throw new RpcFault(`evidence.ValidateBasic failed: ${verdict.valid_basic}`);
    if (verdict.verify !== "ok") throw new RpcFault(`failed to add evidence: ${verdict.verify}`);
    return Uint8Array.from(Buffer.from(verdict.hash!, "hex"));
  };
}
