/**
 * One verification, judged twice: xupgrade's light client runs against a node (through recording
 * transports), then the Go oracle (CometBFT's light client) replays exactly what it was told. Both verdicts
 * come back side by side; `check` is the failed check's name (errors.ts Check) on both sides.
 */
import { toHex } from "@cosmjs/encoding";
import { LightClient, type VerificationStep } from "../../../bindings/light/client.js";
import { VerificationError } from "../../../bindings/light/errors.js";
import { RpcProvider } from "../../../bindings/light/rpc-provider.js";
import { formatTimestamp, timestampFromNs, type Timestamp } from "../../../bindings/light/types.js";
import { formatGoDuration } from "../../../bindings/go/duration.js";
import { recordingRpc, runOracle, oracleMissing, type OracleProof, type OracleVerdict, type RecordedAnswer } from "./oracle.js";

export interface JudgeInput {
  chainId: string;
  primary: string;
  witnesses?: string[];
  trustHeight: bigint;
  trustHash: Uint8Array;
  trustingPeriodNs?: bigint;
  target: bigint;
  now?: Timestamp;
}

export interface TsVerdict {
  verdict: "verified" | "refused";
  check?: string;
  error?: string;
  errorClass?: string;
  /** The error itself (a LightClientAttackError carries the evidence sent). */
  thrown?: VerificationError;
  hash?: string;
  steps: VerificationStep[];
}

export interface Judged {
  ts: TsVerdict;
  go: OracleVerdict | undefined;
  primaryLog: RecordedAnswer[];
  witnessLogs: RecordedAnswer[][];
  input: JudgeInput & { now: Timestamp; trustingPeriodNs: bigint };
}

export const DRIFT_NS = 10_000_000_000n;

export async function judge(input: JudgeInput, proofs: (client: LightClient) => Promise<OracleProof[]> = async () => []): Promise<Judged> {
  const now = input.now ?? timestampFromNs(BigInt(Date.now()) * 1_000_000n);
  const trustingPeriodNs = input.trustingPeriodNs ?? 14n * 24n * 3600n * 1_000_000_000n;
  const p = recordingRpc(input.primary);
  const ws = (input.witnesses ?? []).map(recordingRpc);
  const steps: VerificationStep[] = [];
  const ts: TsVerdict = { verdict: "refused", steps };
  let proofCases: OracleProof[] = [];
  try {
    const client = await LightClient.create(new RpcProvider(p.rpc), {
      chainId: input.chainId,
      trust: { height: input.trustHeight, hash: input.trustHash, period: trustingPeriodNs },
      witnesses: ws.map((w) => new RpcProvider(w.rpc)),
      withoutWitnesses: ws.length === 0,
      now: () => now,
      maxBlockLagMs: 3000,
      onStep: (s) => steps.push(s),
    });
    const lb = await client.verifyAtHeight(input.target);
    proofCases = await proofs(client);
    ts.verdict = "verified";
    ts.hash = toHex(lb.hash).toUpperCase();
  } catch (e) {
    if (!(e instanceof VerificationError)) throw e;
    ts.check = e.check;
    ts.error = e.message;
    ts.errorClass = e.name;
    ts.thrown = e;
  }
  let go: OracleVerdict | undefined;
  if (!oracleMissing()) {
    go = await runOracle({
      chain_id: input.chainId,
      trust_height: input.trustHeight.toString(),
      trust_hash: toHex(input.trustHash).toUpperCase(),
      trusting_period: formatGoDuration(trustingPeriodNs),
      now: formatTimestamp(now),
      max_clock_drift: formatGoDuration(DRIFT_NS),
      target_height: input.target.toString(),
      primary: { answers: p.log },
      witnesses: ws.map((w) => ({ answers: w.log })),
      proofs: proofCases,
    });
  }
  return { ts, go, primaryLog: p.log, witnessLogs: ws.map((w) => w.log), input: { ...input, now, trustingPeriodNs } };
}

/** A one-line account of both verdicts, for assertion messages. */
export const explain = (j: Judged) =>
  `xupgrade: ${j.ts.verdict}${j.ts.error ? ` (${j.ts.check}: ${j.ts.error})` : ""}\nCometBFT: ${j.go ? `${j.go.verdict}${j.go.error ? ` (${j.go.kind}: ${j.go.error})` : ""}` : "not run"}`;
