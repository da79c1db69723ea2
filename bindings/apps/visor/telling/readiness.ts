/**
 * The visor's readiness attestation (docs/spec/readiness.md §3): what its pre-flight found for the scheduled
 * plan — the binary's sha256 on this platform, the pre-flight's verdict, the rehearsal's verdict with the app
 * hash it reached and the height of the state it ran on — written to `<home>/data/upgrade-readiness.json`,
 * where the node picks it up for its vote extensions.
 *
 * When: `show-upgrade-info --rehearse` (unless `--no-attest`), and, with DAEMON_READINESS=true, `run` on its
 * own: every DAEMON_RPC_POLL_INTERVAL it asks the node for the scheduled plan, stages the plan's binary when
 * downloads are allowed and it is not staged yet, and runs the pre-flight with its rehearsal again whenever
 * the plan or the staged binary changed (a failed attempt is retried after ten intervals). Never while an
 * upgrade runs.
 *
 * With DAEMON_HTTP_ADDRESS (the visor's loopback endpoint; off by default) `run` serves the attestation as
 * it was written at `GET /readiness`, for an operator's monitoring.
 */
import { readFile, stat } from "node:fs/promises";
import { fromHex } from "@cosmjs/encoding";
import { readinessFilePath, writeReadinessFile } from "../../../module/readiness/file.js";
import { attestationToJson, checkAttestation, type ReadinessAttestation, type ReadinessJson } from "../../../module/readiness/index.js";
import { ms, type VisorConfig } from "../config/index.js";
import type { Route } from "./endpoint.js";
import type { VisorEvents } from "./events.js";
import { Layout } from "../layout.js";
import type { VisorLogger } from "../log.js";
import { chainPlan, type ChainPlan } from "../node/node-rpc.js";
import { prepareUpgrade, showUpgradeInfo, type UpgradeReport } from "../upgrade/preflight.js";

const str = (v: unknown): string => (typeof v === "string" ? v : "");

/** The attestation a pre-flight report makes (a report with `--rehearse`, or without: then not rehearsed). */
export function attestationOf(r: UpgradeReport): ReadinessAttestation {
  const h = r.rehearsal;
  const report = (h?.report ?? {}) as { app?: { name?: unknown; version?: unknown }; app_hash_after?: unknown };
  const version = [str(report.app?.name), str(report.app?.version)]
    .filter((x) => x !== "")
    .join(" ")
    .slice(0, 64);
  const sha = r.binary_sha256 === "" ? new Uint8Array(0) : fromHex(r.binary_sha256);
  const base: ReadinessAttestation = {
    planName: r.name,
    planHeight: BigInt(r.height),
    platform: r.platform,
    binarySha256: sha,
    preflightOk: r.preflight_ok,
    rehearsal: "not_rehearsed",
    rehearsalExitCode: 0,
    appHash: new Uint8Array(0),
    snapshotHeight: 0n,
    binaryVersion: version,
  };
  if (!h?.rehearsed || sha.length === 0) return base;
  const snapshotHeight = /^[1-9][0-9]*$/.test(h.snapshot_height) ? BigInt(h.snapshot_height) : 0n;
  const appHash = str(report.app_hash_after);
  if (h.ok && /^[0-9A-Fa-f]{64}$/.test(appHash)) return { ...base, rehearsal: "passed", appHash: fromHex(appHash.toLowerCase()), snapshotHeight };
  if (!h.ok && h.exit_code !== 0) return { ...base, rehearsal: "failed", rehearsalExitCode: h.exit_code, snapshotHeight };
  return base;
}

/** Writes the attestation of a pre-flight report for the node; returns what it wrote. */
export async function attest(cfg: VisorConfig, r: UpgradeReport, log: VisorLogger): Promise<ReadinessJson> {
  const a = attestationOf(r);
  checkAttestation(a);
  const json = attestationToJson(a, { path: r.binary, reason: r.reason, summary: r.rehearsal?.summary ?? "not rehearsed", created: new Date().toISOString() });
  await writeReadinessFile(cfg.home, json);
  log.info(`readiness attestation written for upgrade "${a.planName}"`, {
    path: readinessFilePath(cfg.home),
    preflight: a.preflightOk ? "ok" : "failed",
    rehearsal: a.rehearsal,
    snapshot_height: a.snapshotHeight,
  });
  return json;
}

/** The visor's own loop of attestations (DAEMON_READINESS). */
export class ReadinessAttester {
  private lastKey = "";
  private retryAt = 0;
  private running: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private stopped = true;
  private abort = new AbortController();
  private rpcProblem = "";

  constructor(private readonly o: { cfg: VisorConfig; log: VisorLogger; layout: Layout; events?: VisorEvents; rehearseTimeoutMs?: number }) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.abort = new AbortController();
    this.schedule(0);
  }

  /** Stops the loop: an attempt in progress is cut short (its download, its rehearsal's process) and waited for. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.abort.abort(new Error("the readiness loop stopped"));
    await this.running;
  }

  private schedule(delay: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.tick()
        .catch((e: unknown) => this.o.log.warn(`readiness attestation failed: ${(e as Error).message}`))
        .finally(() => {
          this.running = undefined;
          this.schedule(ms(this.o.cfg.rpcPollInterval));
        });
    }, delay);
    this.timer.unref();
  }

  /** One look at the chain: attests again when the plan or the staged binary changed. */
  async tick(): Promise<void> {
    const { cfg, log, layout } = this.o;
    let plan: ChainPlan | undefined;
    try {
      plan = await chainPlan(cfg.rpcAddress);
      this.rpcProblem = "";
    } catch (e) {
      // The node is not answering (starting, stopped for the upgrade), or DAEMON_RPC_ADDRESS is not its RPC: next time, said once.
      const problem = (e as Error).message;
      if (problem !== this.rpcProblem) log.info(`readiness: cannot ask the node at ${cfg.rpcAddress} for the scheduled plan yet: ${problem}`);
      this.rpcProblem = problem;
      return;
    }
    if (!plan) return;
    const bin = layout.upgradeBin(plan.name);
    let st = await stat(bin).catch(() => undefined);
    if (!st && cfg.allowDownloadBinaries && Date.now() >= this.retryAt) {
      try {
        await prepareUpgrade(cfg, { log, signal: this.abort.signal });
      } catch (e) {
        log.warn(`cannot stage the binary of upgrade "${plan.name}" yet: ${(e as Error).message}`);
      }
      st = await stat(bin).catch(() => undefined);
    }
    const key = `${plan.name}@${plan.height}|${plan.info}|${st ? `${st.ino}/${st.size}/${st.mtimeMs}` : "absent"}`;
    if (key === this.lastKey && (this.retryAt === 0 || Date.now() < this.retryAt)) return;
    log.info(`pre-flight and rehearsal of upgrade "${plan.name}" for the readiness attestation`, { height: plan.height, staged: st !== undefined });
    const result = await showUpgradeInfo(cfg, {
      verify: true,
      log,
      rehearse: true,
      rehearseTimeoutMs: this.o.rehearseTimeoutMs,
      plan,
      signal: this.abort.signal,
      events: this.o.events,
    });
    if (!result.found || this.abort.signal.aborted) return;
    const json = await attest(cfg, result.report, log);
    this.lastKey = key;
    // A verdict that may change without anything changing here (a download that failed, a node that did not answer the rehearsal) is tried again later.
    const settled = json.preflight.ok && json.rehearsal.verdict !== "not_rehearsed";
    this.retryAt = settled ? 0 : Date.now() + 10 * ms(cfg.rpcPollInterval);
  }
}

/** `GET /readiness` on the visor's endpoint (DAEMON_HTTP_ADDRESS): the attestation file as written, or 404 while there is none. */
export function readinessRoute(cfg: VisorConfig): Route {
  const path = readinessFilePath(cfg.home);
  return () =>
    readFile(path, "utf8").then(
      (body) => ({ status: 200, type: "application/json", body }),
      () => ({ status: 404, type: "application/json", body: JSON.stringify({ error: `no readiness attestation yet (${path})` }) + "\n" }),
    );
}
