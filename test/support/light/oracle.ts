/**
 * The Go oracle (test/peers/light-oracle, built by `npm run peers`): CometBFT's own light client and
 * cosmos/ics23 judging exactly the answers xupgrade's light client was given. A recording transport keeps
 * every JSON-RPC call a CometRpc makes; the oracle replays them to CometBFT's RPC client and says
 * "verified" or "refused" (with the check), and "exists"/"absent"/"refused" for each store proof.
 */
import { spawn } from "node:child_process";
import { CometRpc, fetchTransport, type RpcTransport } from "../../../bindings/client/rpc.js";
import { missingPeerReason, peerBinaries } from "../../../scripts/peers/paths.mjs";

export interface RecordedAnswer {
  method: string;
  params: unknown;
  result?: unknown;
  error?: unknown;
}

/** A transport that records each call (and its answer) into `log`; `pending` holds the calls in flight. */
export function recordingTransport(log: RecordedAnswer[], inner: RpcTransport = fetchTransport, pending = new Set<Promise<unknown>>()): RpcTransport {
  return async (url, body, timeoutMs) => {
    const call = inner(url, body, timeoutMs).then(async (r) => ({ r, text: await r.text() }));
    pending.add(call);
    const { r: res, text } = await call.finally(() => pending.delete(call));
    try {
      const req = JSON.parse(body) as { method: string; params: unknown };
      const ans = JSON.parse(text) as { result?: unknown; error?: unknown };
      log.push({ method: req.method, params: req.params, result: ans.result, error: ans.error });
    } catch {
      /* not JSON: nothing to replay */
    }
    return { ok: res.ok, status: res.status, text: async () => text };
  };
}

/** A CometRpc on `url` that records into a fresh log; `idle()` resolves once no call is in flight (and what they started ran). */
export function recordingRpc(url: string): { rpc: CometRpc; log: RecordedAnswer[]; idle(): Promise<void> } {
  const log: RecordedAnswer[] = [];
  const pending = new Set<Promise<unknown>>();
  const idle = async () => {
    while (pending.size > 0) await Promise.allSettled([...pending]);
    await new Promise((r) => setTimeout(r, 20));
    if (pending.size > 0) await idle();
  };
  return { rpc: new CometRpc(url, 15_000, recordingTransport(log, fetchTransport, pending)), log, idle };
}

export interface OracleProof {
  name: string;
  header_height: string;
  store: string;
  key: string;
  result: unknown;
}

export interface OracleCase {
  chain_id: string;
  trust_height: string;
  trust_hash: string;
  trusting_period: string;
  now: string;
  max_clock_drift: string;
  target_height: string;
  primary: { answers: RecordedAnswer[] };
  witnesses: { answers: RecordedAnswer[] }[];
  proofs: OracleProof[];
}

export interface OracleVerdict {
  verdict: "verified" | "refused";
  kind?: string;
  error?: string;
  hash?: string;
  app_hash?: string;
  proofs: {
    name: string;
    verdict: "exists" | "absent" | "refused";
    value?: string;
    error?: string;
    /** For a proven absence: the neighbours its proof names (hex). */
    left?: { key: string; value: string };
    right?: { key: string; value: string };
  }[];
}

/** Why the oracle cannot run here (for a skip message), or undefined. */
export const oracleMissing = (): string | undefined => missingPeerReason("light-oracle");

export function runOracle(c: OracleCase): Promise<OracleVerdict> {
  const bin = peerBinaries().lightOracle;
  if (!bin) throw new Error(oracleMissing());
  return runJsonProgram(bin, c);
}

/** Runs one of our Go programs on `input` as JSON (stdin) and resolves to its JSON answer (stdout). */
export function runJsonProgram<T>(bin: string, input: unknown): Promise<T> {
  return new Promise((resolve, reject) => {
    const child = spawn(bin, [], { stdio: ["pipe", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (d: string) => (out += d));
    child.stderr.setEncoding("utf8").on("data", (d: string) => (err += d));
    child.on("error", reject);
    child.on("close", (code) => {
      if (code !== 0) return reject(new Error(`${bin} exited ${code}: ${err}`));
      resolve(JSON.parse(out) as T);
    });
    child.stdin.end(JSON.stringify(input));
  });
}
