/**
 * Verified x/upgrade reads, judged twice (docs/spec/light-client.md §8): VerifiedUpgradeClient reads through
 * recording transports and a core that notes each store proof it checks; then the Go oracle replays the same
 * answers — the headers through CometBFT's light client, every `abci_query` answer with a proof through
 * cosmos/ics23 — and both verdicts come back per header and per proof.
 */
import { toHex } from "@cosmjs/encoding";
import type { Core } from "../../../bindings/core/contract.js";
import { loadCore } from "../../../bindings/core/index.js";
import { formatGoDuration } from "../../../bindings/go/duration.js";
import type { VerificationStep } from "../../../bindings/light/client.js";
import { VerificationError } from "../../../bindings/light/errors.js";
import { RpcProvider } from "../../../bindings/light/rpc-provider.js";
import { type Timestamp, formatTimestamp, timestampFromNs } from "../../../bindings/light/types.js";
import { VerifiedUpgradeClient } from "../../../bindings/light/upgrade.js";
import { DRIFT_NS } from "./judge.js";
import { type OracleProof, type OracleVerdict, type RecordedAnswer, oracleMissing, recordingRpc, runOracle } from "./oracle.js";

export interface UpgradeJudgeInput {
  primary: string;
  witnesses?: string[];
  trustHeight: bigint;
  trustHash: Uint8Array;
  trustingPeriodNs?: bigint;
  now?: Timestamp;
  /** Verify up to this height (default the primary's latest). */
  syncTo?: bigint;
}

/** What xupgrade's client decided about one proof: the core's verdict, or a refusal before the core. */
export interface ProofNote {
  key: string;
  verdict: "exists" | "absent" | "refused";
  error?: string;
}

export interface UpgradeJudged<T> {
  ts: { verdict: "verified" | "refused"; value?: T; check?: string; error?: string; errorClass?: string; headerHeight?: bigint; steps: VerificationStep[] };
  proofs: ProofNote[];
  go: OracleVerdict | undefined;
  answers: RecordedAnswer[];
}

/** A core that notes every store proof it is asked to check (and what it said). */
function notingCore(core: Core, notes: ProofNote[]): Core {
  return new Proxy(core, {
    get(target, prop, receiver) {
      if (prop !== "ics23VerifyStoreProof") return Reflect.get(target, prop, receiver);
      return (appHash: Uint8Array, ops: Parameters<Core["ics23VerifyStoreProof"]>[1], store: string, key: Uint8Array, value: Uint8Array | undefined) => {
        try {
          const facts = target.ics23VerifyStoreProof(appHash, ops, store, key, value);
          notes.push({ key: toHex(key), verdict: facts.kind });
          return facts;
        } catch (e) {
          notes.push({ key: toHex(key), verdict: "refused", error: (e as Error).message });
          throw e;
        }
      };
    },
  });
}

export async function judgeUpgrade<T>(input: UpgradeJudgeInput, read: (c: VerifiedUpgradeClient) => Promise<T>): Promise<UpgradeJudged<T>> {
  const now = input.now ?? timestampFromNs(BigInt(Date.now()) * 1_000_000n);
  const trustingPeriodNs = input.trustingPeriodNs ?? 14n * 24n * 3600n * 1_000_000_000n;
  const p = recordingRpc(input.primary);
  const ws = (input.witnesses ?? []).map(recordingRpc);
  const notes: ProofNote[] = [];
  const steps: VerificationStep[] = [];
  const ts: UpgradeJudged<T>["ts"] = { verdict: "refused", steps };
  try {
    const client = await VerifiedUpgradeClient.connect(new RpcProvider(p.rpc), {
      trust: { height: input.trustHeight, hash: input.trustHash, period: trustingPeriodNs },
      witnesses: ws.map((w) => new RpcProvider(w.rpc)),
      withoutWitnesses: ws.length === 0,
      now: () => now,
      maxBlockLagMs: 3000,
      onStep: (s) => steps.push(s),
      core: notingCore(await loadCore("wasm"), notes),
    });
    const header = await client.sync(input.syncTo);
    ts.headerHeight = header.height;
    ts.value = await read(client);
    ts.verdict = "verified";
  } catch (e) {
    if (!(e instanceof VerificationError)) throw e;
    ts.check = e.check;
    ts.error = e.message;
    ts.errorClass = e.name;
  }
  // Calls still in flight when the read failed finish first: the oracle must see what the client saw.
  await Promise.all([p.idle(), ...ws.map((w) => w.idle())]);
  // Every answer that carried (or should have carried) a proof: what the client was told about a key.
  const proofs: OracleProof[] = [];
  for (const a of p.log) {
    const params = a.params as { path?: string; data?: string; height?: string; prove?: boolean };
    if (a.method !== "abci_query" || !params.path?.endsWith("/key") || a.result === undefined) continue;
    const store = params.path.split("/")[2];
    proofs.push({ name: params.data ?? "", header_height: (BigInt(params.height ?? "0") + 1n).toString(), store, key: params.data ?? "", result: a.result });
  }
  // A key the client refused before asking the core (no proof, wrong ops) is a refusal too.
  for (const pr of proofs) {
    if (!notes.some((n) => n.key === pr.key)) {
      const r = (pr.result as { response: { proofOps: unknown } }).response;
      if (!r.proofOps && ts.verdict === "refused") notes.push({ key: pr.key, verdict: "refused", error: "no proof" });
    }
  }
  let go: OracleVerdict | undefined;
  if (!oracleMissing()) {
    go = await runOracle({
      chain_id: chainIdAt(p.log, input.trustHeight),
      trust_height: input.trustHeight.toString(),
      trust_hash: toHex(input.trustHash).toUpperCase(),
      trusting_period: formatGoDuration(trustingPeriodNs),
      now: formatTimestamp(now),
      max_clock_drift: formatGoDuration(DRIFT_NS),
      target_height: (ts.headerHeight ?? latestCommitHeight(p.log) ?? input.trustHeight).toString(),
      primary: { answers: p.log },
      witnesses: ws.map((w) => ({ answers: w.log })),
      proofs,
    });
  }
  return { ts, proofs: notes, go, answers: p.log };
}

/** The chain id of the header the primary gave at the trust height (the trusted hash vouches for it). */
function chainIdAt(log: RecordedAnswer[], height: bigint): string {
  for (const a of log) {
    const r = a.result as { signed_header?: { header?: { height?: string; chain_id?: string } } } | undefined;
    if (a.method === "commit" && r?.signed_header?.header?.height === height.toString()) return r.signed_header.header.chain_id ?? "";
  }
  return "";
}

/** The highest header the primary was asked for (the target when the client failed before saying). */
function latestCommitHeight(log: RecordedAnswer[]): bigint | undefined {
  let best: bigint | undefined;
  for (const a of log) {
    const r = a.result as { signed_header?: { header?: { height?: string } } } | undefined;
    const h = r?.signed_header?.header?.height;
    if (a.method === "commit" && h !== undefined && (best === undefined || BigInt(h) > best)) best = BigInt(h);
  }
  return best;
}
