/**
 * The pre-flight commands (docs/spec/sidecar.md §9).
 *
 * `show-upgrade-info`: the pending plan (from `data/upgrade-info.json`, or the chain's scheduled plan over
 * RPC), the binary the visor would run, whether it is staged, the URL it would download for this platform and
 * its checksum, and `ready: yes|no (<reason>)`. Unless told not to, an unstaged binary is downloaded,
 * verified and unpacked into `.tmp/` exactly as at the height, then deleted — so "ready: yes" means the
 * upgrade would get its binary.
 *
 * With `--rehearse`, the binary it would run (staged, or just downloaded) is asked to rehearse the upgrade on a
 * copy of the node's committed state (docs/spec/rehearse.md §5): `<bin> rehearse --home $DAEMON_HOME --plan
 * <name> --height <h> -o json`. The binary is opaque to the visor, so this is the whole protocol: a JSON line
 * on stdout carrying `"format":"xupgrade-rehearsal/1"` is a rehearsal; anything else means the binary does not
 * support it, which is said without failing the pre-flight. A rehearsal that predicts a halt makes it
 * `ready: no`.
 *
 * `prepare-upgrade`: stages the scheduled plan's binary in `upgrades/<dir>` now.
 */
import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { lstat, mkdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { fetchBinary } from "../../../module/plan-info/fetch.js";
import type { VisorConfig } from "../config/index.js";
import { binarySource, downloadLimits, fetchUpgrade, signatureCheck, type BinarySource, type FetchOptions } from "../download/fetch.js";
import { readText, planFromText } from "../node/info-file.js";
import { Layout } from "../layout.js";
import type { VisorLogger } from "../log.js";
import { osArch, sameName } from "../names.js";
import { chainPlan, type ChainPlan } from "../node/node-rpc.js";
import { goQuote } from "../../../go/quote.js";
import { messageOf } from "../../../base/errors.js";
import { VisorError } from "../errors.js";
import type { VisorEvents } from "../telling/events.js";

export interface UpgradeReport {
  name: string;
  height: string;
  info: string;
  /** `<home>/data/upgrade-info.json` or `chain (<rpc>)`. */
  source: string;
  binary: string;
  staged: boolean;
  platform: string;
  url: string;
  checksum: string;
  ready: boolean;
  reason: string;
  /** The pre-flight's own verdict, before any rehearsal: the binary is staged, or downloaded and verified. */
  preflight_ok: boolean;
  /** sha256 of the binary it would run (lower-case hex), when it has one to hash. */
  binary_sha256: string;
  /** With `--rehearse`: what the binary's rehearsal said. */
  rehearsal?: RehearsalSummary;
}

/** The outcome of `<bin> rehearse …` (docs/spec/rehearse.md §5). */
export interface RehearsalSummary {
  /** The binary printed a rehearsal (it supports the protocol). */
  supported: boolean;
  /** The rehearsal ran to its verdict. */
  rehearsed: boolean;
  /** The upgrade would succeed on the rehearsed state. */
  ok: boolean;
  /** The exit code the real upgrade would end the node with (0: it goes on). */
  exit_code: number;
  /** The halt's message, or why there is no rehearsal. */
  error: string;
  modules_migrated: number;
  /** The upgrade block (FinalizeBlock and Commit), milliseconds. */
  upgrade_ms: number;
  /** The whole rehearsal, as the visor timed it, milliseconds. */
  duration_ms: number;
  snapshot_height: string;
  /** One line for people. */
  summary: string;
  /** The binary's own JSON report, as it printed it. */
  report?: unknown;
}

export const REHEARSAL_FORMAT = "xupgrade-rehearsal/1";

export type ShowResult = { found: false; message: string } | { found: true; report: UpgradeReport };

function fetchOptions(cfg: VisorConfig, layout: Layout, log: VisorLogger, temp: (p: string) => void, platform?: string, signal?: AbortSignal): FetchOptions {
  return {
    layout,
    daemonName: cfg.name,
    mustHaveChecksum: cfg.downloadMustHaveChecksum,
    limits: downloadLimits(cfg, signal),
    log,
    temp,
    platform,
    signing: { keys: cfg.downloadSigningKeys, namespace: cfg.downloadSignatureNamespace },
  };
}

/** The plan to report: the file's when it is pending, else the chain's. */
async function findPlan(cfg: VisorConfig, layout: Layout): Promise<{ plan?: ChainPlan; source: string; problem?: string; none?: string }> {
  const text = await readText(layout.infoFile).catch((e: Error) => {
    throw new VisorError(`error while reading upgrade-info.json: ${e.message}`);
  });
  if (text !== undefined) {
    try {
      const p = planFromText(text, layout.infoFile, cfg.disableRecase);
      if (!sameName(p.name, await layout.currentName())) return { plan: { name: p.rawName, height: p.height, info: p.info }, source: layout.infoFile };
    } catch (e) {
      return { source: layout.infoFile, problem: (e as Error).message };
    }
  }
  let plan: ChainPlan | undefined;
  try {
    plan = await chainPlan(cfg.rpcAddress);
  } catch (e) {
    return { source: "", none: `No upgrade info found at ${layout.infoFile} (and the node at ${cfg.rpcAddress} could not be asked: ${(e as Error).message})` };
  }
  if (!plan) return { source: "", none: `No upgrade info found at ${layout.infoFile}` };
  return { plan, source: `chain (CurrentPlan at ${cfg.rpcAddress})` };
}

export interface ShowOptions {
  verify: boolean;
  log: VisorLogger;
  platform?: string;
  /** Ask the binary to rehearse the upgrade (`show-upgrade-info --rehearse`). */
  rehearse?: boolean;
  /** How long the rehearsal may take (default 10 minutes). */
  rehearseTimeoutMs?: number;
  /** Told the rehearsal's result (the `rehearsal` stage, docs/spec/sidecar.md §11). */
  events?: VisorEvents;
  /** The plan to check (the readiness loop's, from the chain); default: upgrade-info.json's, else the chain's. */
  plan?: ChainPlan;
  /** Stops a download and a rehearsal in progress (the readiness loop, when an upgrade begins). */
  signal?: AbortSignal;
}

export async function showUpgradeInfo(cfg: VisorConfig, o: ShowOptions): Promise<ShowResult> {
  const layout = new Layout(cfg);
  const found = o.plan ? { plan: o.plan, source: `chain (CurrentPlan at ${cfg.rpcAddress})` } : await findPlan(cfg, layout);
  const platform = o.platform ?? osArch();
  if (found.none) return { found: false, message: found.none };
  const report: UpgradeReport = {
    name: found.plan?.name ?? "",
    height: found.plan?.height.toString() ?? "",
    info: found.plan?.info ?? "",
    source: found.source,
    binary: "",
    staged: false,
    platform,
    url: "",
    checksum: "",
    ready: false,
    reason: "",
    preflight_ok: false,
    binary_sha256: "",
  };
  const no = (reason: string): ShowResult => ({ found: true, report: { ...report, ready: false, reason } });
  if (found.problem) return no(`invalid upgrade-info.json: ${found.problem}`);
  const plan = found.plan!;
  let bin: string;
  try {
    bin = layout.upgradeBin(plan.name);
  } catch (e) {
    return no((e as Error).message);
  }
  report.binary = bin;
  const st = await stat(bin).catch(() => undefined);
  if (st) {
    report.staged = true;
    if (!st.isFile()) return no(`${bin} is not a regular file`);
    const reason = `staged binary at ${bin}${(st.mode & 0o111) === 0o111 ? "" : " (it will be made executable)"}`;
    const staged: ShowResult = { found: true, report: { ...report, ready: true, preflight_ok: true, binary_sha256: await fileSha256(bin), reason } };
    return o.rehearse ? withRehearsal(staged, bin, cfg, plan, o) : staged;
  }
  if (!cfg.allowDownloadBinaries) return no(`the binary is not staged at ${bin} and DAEMON_ALLOW_DOWNLOAD_BINARIES is off`);
  const dir = layout.upgradeDir(plan.name);
  if (
    await lstat(dir).then(
      () => true,
      () => false,
    )
  )
    return no(`upgrade dir ${dir} already exists without bin/${cfg.name}; won't overwrite`);

  const temps: string[] = [];
  const fo = fetchOptions(cfg, layout, o.log, (p) => void temps.push(p), o.platform, o.signal);
  const work = await layout.tmpPath("preflight");
  temps.push(work);
  await mkdir(work, { mode: 0o700 });
  try {
    let source: BinarySource;
    try {
      source = await binarySource(plan.info, join(work, "info"), fo);
    } catch (e) {
      return no((e as Error).message);
    }
    report.url = source.url.raw;
    report.checksum = source.url.checksum ? `${source.url.checksum.algo}:${source.url.checksum.hex}` : "none";
    if (!o.verify) {
      const unchecked: ShowResult = {
        found: true,
        report: { ...report, ready: true, reason: `binaries[${source.key}] will be downloaded at the height (not checked: --no-download)` },
      };
      if (o.rehearse) unchecked.report.rehearsal = notRehearsed("the binary is not downloaded (--no-download), so it cannot rehearse");
      return unchecked;
    }
    let fetched: ShowResult & { found: true };
    let installed: string;
    try {
      const { bin, bytes } = await fetchBinary(source.url, join(work, "download"), {
        daemonName: cfg.name,
        limits: fo.limits,
        verify: signatureCheck(source, work, fo),
      });
      installed = bin;
      const how = source.url.checksum ? `${source.url.checksum.algo} checksum matches` : "no checksum to verify";
      const reason = `downloaded binaries[${source.key}] (${bytes} bytes), ${how}, bin/${cfg.name} present`;
      fetched = { found: true, report: { ...report, ready: true, preflight_ok: true, binary_sha256: await fileSha256(installed), reason } };
    } catch (e) {
      if (e instanceof VisorError) return no(e.message);
      return no(`cannot download binary. error downloading ${goQuote(source.url.raw)}: ${messageOf(e)}`);
    }
    // The downloaded binary rehearses before it is deleted with the rest of the work directory.
    return o.rehearse ? await withRehearsal(fetched, installed, cfg, plan, o) : fetched;
  } finally {
    for (const p of temps) await rm(p, { recursive: true, force: true }).catch(() => {});
  }
}

/** sha256 of a file, streamed (a binary may be hundreds of MB), lower-case hex. */
export async function fileSha256(path: string): Promise<string> {
  const h = createHash("sha256");
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest("hex");
}

function notRehearsed(why: string, supported = false, report?: unknown): RehearsalSummary {
  return {
    supported,
    rehearsed: false,
    ok: false,
    exit_code: 0,
    error: why,
    modules_migrated: 0,
    upgrade_ms: 0,
    duration_ms: 0,
    snapshot_height: "",
    summary: `not rehearsed: ${why}`,
    ...(report === undefined ? {} : { report }),
  };
}

/** `ms` for people: "0.42 ms", "12 ms", "1.30 s". */
function formatMs(n: number): string {
  if (n < 1) return `${n.toFixed(2)} ms`;
  if (n < 1000) return `${n.toFixed(n < 10 ? 1 : 0)} ms`;
  return `${(n / 1000).toFixed(2)} s`;
}

/** The ready verdict with the rehearsal's: a predicted halt makes it "no"; no rehearsal leaves it as it was. */
async function withRehearsal(r: ShowResult & { found: true }, bin: string, cfg: VisorConfig, plan: ChainPlan, o: ShowOptions): Promise<ShowResult> {
  const rehearsal = await rehearseWith(bin, cfg.home, plan, o.rehearseTimeoutMs ?? 600_000, o.log, o.signal);
  o.events?.emit("rehearsal", plan, { ok: rehearsal.ok, rehearsed: rehearsal.rehearsed, exit_code: rehearsal.exit_code, summary: rehearsal.summary });
  const report = { ...r.report, rehearsal };
  if (!rehearsal.rehearsed) return { found: true, report };
  if (!rehearsal.ok) return { found: true, report: { ...report, ready: false, reason: `rehearsal: ${rehearsal.summary}` } };
  return { found: true, report };
}

/**
 * Runs `<bin> rehearse --home <home> --plan <name> --height <h> -o json` and reads its verdict. Never throws:
 * a binary that cannot run, times out, or prints no rehearsal is reported as such.
 */
async function rehearseWith(bin: string, home: string, plan: ChainPlan, timeoutMs: number, log: VisorLogger, signal?: AbortSignal): Promise<RehearsalSummary> {
  const args = ["rehearse", "--home", home, "--plan", plan.name, "--height", plan.height.toString(), "-o", "json"];
  log.info(`rehearsing the upgrade with the new binary bin=${bin} upgrade=${plan.name} height=${plan.height}`);
  const started = performance.now();
  const run = await new Promise<{ code: number | null; signal: string | null; stdout: string; stderr: string; error?: Error; timedOut: boolean }>((resolve) => {
    let stdout = "";
    let stderr = "";
    let timedOut = false;
    const child = spawn(bin, args, { stdio: ["ignore", "pipe", "pipe"] });
    const cap = (s: string, d: Buffer) => (s.length > 8 << 20 ? s : s + d.toString("utf8"));
    child.stdout.on("data", (d: Buffer) => (stdout = cap(stdout, d)));
    child.stderr.on("data", (d: Buffer) => (stderr = cap(stderr, d)));
    const stop = () => {
      child.kill("SIGTERM");
      setTimeout(() => child.kill("SIGKILL"), 5000).unref();
    };
    const timer = setTimeout(() => {
      timedOut = true;
      stop();
    }, timeoutMs);
    if (signal?.aborted) stop();
    signal?.addEventListener("abort", stop, { once: true });
    child.on("close", () => signal?.removeEventListener("abort", stop));
    child.on("error", (error) => {
      clearTimeout(timer);
      resolve({ code: null, signal: null, stdout, stderr, error, timedOut });
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr, timedOut });
    });
  });
  const durationMs = performance.now() - started;
  if (run.error) return notRehearsed(`cannot run ${bin}: ${run.error.message}`);
  const found = run.stdout
    .split("\n")
    .reverse()
    .map((line) => {
      try {
        const v = JSON.parse(line) as unknown;
        return typeof v === "object" && v !== null && (v as { format?: unknown }).format === REHEARSAL_FORMAT ? (v as Record<string, unknown>) : undefined;
      } catch {
        return undefined;
      }
    })
    .find((v) => v !== undefined);
  const lastLine = run.stderr.trim().split("\n").pop() ?? "";
  const status = run.timedOut ? `timed out after ${formatMs(timeoutMs)}` : run.signal ? `signal: ${run.signal}` : `exit status ${run.code}`;
  if (!found) {
    const summary = notRehearsed(`${bin} does not support \`rehearse\` (${status}${lastLine ? `: ${lastLine}` : ""})`);
    log.info(`the new binary does not support rehearsals: ${summary.error}`);
    return summary;
  }
  const str = (k: string) => (typeof found[k] === "string" ? found[k] : "");
  const num = (k: string) => (typeof found[k] === "number" ? found[k] : 0);
  if (found.rehearsed !== true) return notRehearsed(`the rehearsal could not run: ${str("error") || status}`, true, found);
  const snapshot = (found.snapshot ?? {}) as { height?: string };
  const base = {
    supported: true,
    rehearsed: true,
    ok: found.ok === true,
    exit_code: num("exit_code"),
    error: str("error"),
    modules_migrated: num("modules_migrated"),
    upgrade_ms: num("upgrade_ms"),
    duration_ms: Math.round(durationMs * 100) / 100,
    snapshot_height: snapshot.height ?? "",
    report: found,
  };
  const summary = base.ok
    ? `rehearsed: ${base.modules_migrated} module${base.modules_migrated === 1 ? "" : "s"} migrated in ${formatMs(base.upgrade_ms)}`
    : `the upgrade would halt the node with exit code ${base.exit_code}: ${base.error}`;
  log.info(`rehearsal done ok=${base.ok} exit_code=${base.exit_code} snapshot_height=${base.snapshot_height} duration=${formatMs(durationMs)}`);
  return { ...base, summary };
}

export function formatReport(r: ShowResult): string {
  if (!r.found) return r.message + "\n";
  const p = r.report;
  const rows: [string, string][] = [
    ["upgrade", p.name],
    ["height", p.height],
    ["info", p.info],
    ["source", p.source],
    ["binary", p.binary],
    ["staged", p.staged ? "yes" : "no"],
    ["platform", p.platform],
  ];
  if (p.url !== "") rows.push(["url", p.url], ["checksum", p.checksum]);
  const h = p.rehearsal;
  if (h) {
    const snap = h.snapshot_height ? ` (snapshot at height ${h.snapshot_height}, ${formatMs(h.duration_ms)} in all)` : "";
    rows.push(["rehearsal", h.rehearsed ? (h.ok ? `the upgrade succeeds on a copy of the state${snap}` : `${h.summary}${snap}`) : h.summary]);
  }
  if (h?.rehearsed && h.ok && p.ready) rows.push(["ready", `yes — ${h.summary} (${p.reason})`]);
  else rows.push(["ready", `${p.ready ? "yes" : "no"} (${p.reason})`]);
  // Labels are padded to 10 columns; a longer one ("rehearsal:") gets one space.
  return rows.map(([k, v]) => `${(k + ":").padEnd(10)}${k.length >= 9 ? " " : ""}${v}`).join("\n") + "\n";
}

/** `prepare-upgrade`: stages the chain's scheduled plan now; false when there is no plan. */
export async function prepareUpgrade(cfg: VisorConfig, o: { log: VisorLogger; platform?: string; signal?: AbortSignal }): Promise<boolean> {
  const layout = new Layout(cfg);
  const plan = await chainPlan(cfg.rpcAddress);
  if (!plan) {
    o.log.info("No active upgrade plan found");
    return false;
  }
  o.log.info(`Preparing for upgrade name=${plan.name} height=${plan.height}`);
  const bin = layout.upgradeBin(plan.name);
  if (
    await lstat(bin).then(
      () => true,
      () => false,
    )
  ) {
    o.log.info(`Upgrade binary already present at ${bin}`);
    o.log.info("Upgrade preparation complete");
    return true;
  }
  const dir = layout.upgradeDir(plan.name);
  if (
    await lstat(dir).then(
      () => true,
      () => false,
    )
  )
    throw new VisorError(`upgrade dir ${dir} already exists without bin/${cfg.name}; won't overwrite`);
  const temps: string[] = [];
  try {
    const fo = fetchOptions(cfg, layout, o.log, (p) => void temps.push(p), o.platform, o.signal);
    const r = await fetchUpgrade(plan.name, plan.info, { ...fo, onSource: (s) => o.log.info(`Downloading upgrade binary url=${s.url.raw}`) });
    o.log.info(`Upgrade binary located at ${r.bin}`);
  } finally {
    for (const p of temps) await rm(p, { recursive: true, force: true }).catch(() => {});
  }
  o.log.info("Upgrade preparation complete");
  return true;
}
