/**
 * The pre-flight commands (docs/spec/sidecar.md §9).
 *
 * `show-upgrade-info`: the pending plan (from `data/upgrade-info.json`, or the chain's scheduled plan over
 * RPC), the binary the visor would run, whether it is staged, the URL it would download for this platform and
 * its checksum, and `ready: yes|no (<reason>)`. Unless told not to, an unstaged binary is downloaded,
 * verified and unpacked into `.tmp/` exactly as at the height, then deleted — so "ready: yes" means the
 * upgrade would get its binary.
 *
 * `prepare-upgrade`: stages the scheduled plan's binary in `upgrades/<dir>` now.
 */
import { lstat, mkdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { installBinary, archiveKind } from "../../module/plan-info/archive.js";
import { download, fileNameOf } from "../../module/plan-info/download.js";
import type { VisorConfig } from "./config/index.js";
import { ms } from "./config/index.js";
import { binarySource, downloadLimits, fetchUpgrade, type BinarySource, type FetchOptions } from "./fetch.js";
import { readText, planFromText } from "./info-file.js";
import { Layout } from "./layout.js";
import type { Logger } from "./log.js";
import { osArch, sameName } from "./names.js";
import { chainPlan, type ChainPlan } from "./node-rpc.js";

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
}

export type ShowResult = { found: false; message: string } | { found: true; report: UpgradeReport };

function fetchOptions(cfg: VisorConfig, layout: Layout, log: Logger, temp: (p: string) => void, platform?: string): FetchOptions {
  return {
    layout,
    daemonName: cfg.name,
    mustHaveChecksum: cfg.downloadMustHaveChecksum,
    limits: downloadLimits(cfg),
    log,
    temp,
    platform,
  };
}

/** The plan to report: the file's when it is pending, else the chain's. */
async function findPlan(cfg: VisorConfig, layout: Layout): Promise<{ plan?: ChainPlan; source: string; problem?: string; none?: string }> {
  const text = await readText(layout.infoFile).catch((e: Error) => {
    throw new Error(`error while reading upgrade-info.json: ${e.message}`);
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

export async function showUpgradeInfo(cfg: VisorConfig, o: { verify: boolean; log: Logger; platform?: string }): Promise<ShowResult> {
  const layout = new Layout(cfg);
  const found = await findPlan(cfg, layout);
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
    return { found: true, report: { ...report, ready: true, reason: `staged binary at ${bin}${(st.mode & 0o111) === 0o111 ? "" : " (it will be made executable)"}` } };
  }
  if (!cfg.allowDownloadBinaries) return no(`the binary is not staged at ${bin} and DAEMON_ALLOW_DOWNLOAD_BINARIES is off`);
  const dir = layout.upgradeDir(plan.name);
  if (await lstat(dir).then(() => true, () => false)) return no(`upgrade dir ${dir} already exists without bin/${cfg.name}; won't overwrite`);

  const temps: string[] = [];
  const fo = fetchOptions(cfg, layout, o.log, (p) => void temps.push(p), o.platform);
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
      return { found: true, report: { ...report, ready: true, reason: `binaries[${source.key}] will be downloaded at the height (not checked: --no-download)` } };
    }
    try {
      const { file, bytes } = await download(source.url, join(work, fileNameOf(source.url.raw)), fo.limits);
      await installBinary(file, archiveKind(source.url.raw), join(work, "result"), cfg.name, source.url.raw, fo.limits);
      const how = source.url.checksum ? `${source.url.checksum.algo} checksum matches` : "no checksum to verify";
      return { found: true, report: { ...report, ready: true, reason: `downloaded binaries[${source.key}] (${bytes} bytes), ${how}, bin/${cfg.name} present` } };
    } catch (e) {
      return no(`cannot download binary. error downloading "${source.url.raw}": ${(e as Error).message}`);
    }
  } finally {
    for (const p of temps) await rm(p, { recursive: true, force: true }).catch(() => {});
  }
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
  rows.push(["ready", `${p.ready ? "yes" : "no"} (${p.reason})`]);
  return rows.map(([k, v]) => `${(k + ":").padEnd(10)}${v}`).join("\n") + "\n";
}

/** `prepare-upgrade`: stages the chain's scheduled plan now; false when there is no plan. */
export async function prepareUpgrade(cfg: VisorConfig, o: { log: Logger; platform?: string }): Promise<boolean> {
  const layout = new Layout(cfg);
  const plan = await chainPlan(cfg.rpcAddress);
  if (!plan) {
    o.log.info("No active upgrade plan found");
    return false;
  }
  o.log.info(`Preparing for upgrade name=${plan.name} height=${plan.height}`);
  const bin = layout.upgradeBin(plan.name);
  if (await lstat(bin).then(() => true, () => false)) {
    o.log.info(`Upgrade binary already present at ${bin}`);
    o.log.info("Upgrade preparation complete");
    return true;
  }
  const dir = layout.upgradeDir(plan.name);
  if (await lstat(dir).then(() => true, () => false)) throw new Error(`upgrade dir ${dir} already exists without bin/${cfg.name}; won't overwrite`);
  const temps: string[] = [];
  try {
    const fo = fetchOptions(cfg, layout, o.log, (p) => void temps.push(p), o.platform);
    const r = await fetchUpgrade(plan.name, plan.info, { ...fo, onSource: (s) => o.log.info(`Downloading upgrade binary url=${s.url.raw}`) });
    o.log.info(`Upgrade binary located at ${r.bin}`);
  } finally {
    for (const p of temps) await rm(p, { recursive: true, force: true }).catch(() => {});
  }
  o.log.info("Upgrade preparation complete");
  return true;
}
