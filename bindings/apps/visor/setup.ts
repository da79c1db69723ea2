/**
 * `visor init` and `visor add-upgrade` (docs/spec/sidecar.md §9): putting binaries in place, with cosmovisor's log
 * lines and errors. `add-upgrade --upgrade-height` also writes a manual plan: first the record
 * (`cosmovisor/manual-upgrade.json`, so the watcher can never see the plan without knowing it is manual),
 * then `data/upgrade-info.json`, atomically.
 */
import { chmod, copyFile, lstat, mkdir, rename, rm, stat, unlink } from "node:fs/promises";
import { dirname, join } from "node:path";
import { exists, writeFileAtomic } from "../../base/file.js";
import { ROLLED_BACK_MARKER } from "./reconcile.js";
import { writeUpgradeInfo } from "../../module/upgrade-info/file.js";
import { readPlanFile } from "./node/info-file.js";
import { ensureBinary, Layout, pathError, random } from "./layout.js";
import type { VisorLogger } from "./log.js";
import { sameName } from "./names.js";
import { VisorError } from "./errors.js";

export async function initVisor(cfg: { home: string; name: string }, path: string | undefined, log: VisorLogger): Promise<string> {
  if (path === undefined || path === "") throw new VisorError("no <path to executable> provided");
  let st;
  try {
    st = await stat(path);
  } catch (e) {
    throw new VisorError(`executable file not found: ${pathError("stat", path, e).message}`);
  }
  if (st.isDirectory()) throw new VisorError("invalid path to executable: must not be a directory");
  const layout = new Layout({ home: cfg.home, name: cfg.name, disableRecase: false });
  const binDir = dirname(layout.genesisBin);

  log.info("checking on the genesis/bin directory");
  const dirStat = await lstat(binDir).catch(() => undefined);
  if (dirStat && !dirStat.isDirectory()) throw new VisorError(`the path ${JSON.stringify(binDir)} already exists but is not a directory`);
  if (!dirStat) {
    log.info(`creating directory (and any parents): ${JSON.stringify(binDir)}`);
    await mkdir(binDir, { recursive: true, mode: 0o750 });
  }

  log.info("checking on the genesis/bin executable");
  const target = layout.genesisBin;
  if (
    await lstat(target).then(
      () => true,
      () => false,
    )
  ) {
    log.info(`the ${JSON.stringify(target)} file already exists`);
  } else {
    log.info(`copying executable into place: ${JSON.stringify(target)}`);
    await copyFile(path, target);
  }
  log.info(`making sure ${JSON.stringify(target)} is executable`);
  await ensureBinary(target);

  log.info("checking on the current symlink and creating it if needed");
  const { bin } = await layout.resolveCurrent();
  log.info(`the current symlink points to: ${JSON.stringify(bin)}`);
  return bin;
}

export interface AddUpgradeOptions {
  force?: boolean;
  /** Also write a manual plan at this height (docs/spec/sidecar.md §9). */
  height?: bigint;
}

export async function addUpgrade(
  cfg: { home: string; name: string; disableRecase: boolean },
  upgradeName: string,
  path: string,
  o: AddUpgradeOptions,
  log: VisorLogger,
): Promise<string> {
  const layout = new Layout(cfg);
  const dest = layout.upgradeBin(upgradeName); // refuses "", ".", ".."
  let st;
  try {
    st = await stat(path);
  } catch (e) {
    throw new VisorError(`invalid executable: ${pathError("stat", path, e).message}`);
  }
  if (!st.isFile()) throw new VisorError(`invalid executable: ${path} is not a regular file`);
  log.info(`Using ${path} for ${upgradeName} upgrade`);

  if (o.height !== undefined) {
    // Never replace a plan that is still pending, unless told to.
    const existing = await readPlanFile(layout.infoFile, cfg.disableRecase).catch(() => undefined);
    if (existing && !o.force && !sameName(existing.name, await layout.currentName())) {
      throw new VisorError(`${layout.infoFile} already holds the pending upgrade "${existing.name}" at height ${existing.height}; use --force to replace it`);
    }
  }

  if (
    (await lstat(dest).then(
      () => true,
      () => false,
    )) &&
    !o.force
  )
    throw new VisorError(`file already exists at ${dest}`);
  await mkdir(dirname(dest), { recursive: true, mode: 0o755 });
  const temp = `${dest}.${random()}.tmp`;
  try {
    await copyFile(path, temp);
    await chmod(temp, 0o755);
    await rename(temp, dest);
  } catch (e) {
    await unlink(temp).catch(() => {});
    throw e;
  }
  log.info(`Upgrade binary located at ${dest}`);
  // A new binary for an upgrade that was rolled back is the operator's go-ahead to try it again (docs/spec/sidecar.md §13).
  const rolledBack = join(layout.upgradeDir(upgradeName), ROLLED_BACK_MARKER);
  if (await exists(rolledBack)) {
    await rm(rolledBack, { force: true });
    log.info(`the upgrade "${upgradeName}" was rolled back; with this binary the visor upgrades to it again`);
  }

  if (o.height !== undefined) {
    const record = JSON.stringify({ name: upgradeName, height: o.height.toString(), info: "" }) + "\n";
    await writeFileAtomic(layout.manualRecord, record, { mode: 0o600 });
    await writeUpgradeInfo(cfg.home, { name: upgradeName, height: o.height });
    log.info(`manual upgrade "${upgradeName}" at height ${o.height} written to ${join(layout.dataDir, "upgrade-info.json")}`);
  }
  return dest;
}
