/** cosmovisor's Config.validate: the paths that must exist before the visor runs. */
import { statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { ENV, ROOT_NAME, type VisorConfig } from "./types.js";
import { messageOf } from "../../../base/errors.js";

export function statError(e: unknown, path: string): string {
  const code = (e as { code?: string }).code;
  const text: Record<string, string> = { ENOENT: "no such file or directory", EACCES: "permission denied", ENOTDIR: "not a directory" };
  return `stat ${path}: ${(code && text[code]) ?? messageOf(e)}`;
}

/** cosmovisor's Config.validate: name, home and its `cosmovisor/` root, and the backup directory when backups are on. */
export function validateConfig(cfg: VisorConfig): string[] {
  const errs: string[] = [];
  if (cfg.name === "") errs.push(`${ENV.name} is not set`);
  if (cfg.home === "") errs.push(`${ENV.home} is not set`);
  else if (!isAbsolute(cfg.home)) errs.push(`${ENV.home} must be an absolute path`);
  else {
    const root = join(cfg.home, ROOT_NAME);
    try {
      if (!statSync(root).isDirectory()) errs.push(`${root} is not a directory`);
    } catch (e) {
      errs.push(`cannot stat home dir: ${statError(e, root)}`);
    }
  }
  if (cfg.unsafeSkipBackup) return errs;
  if (cfg.dataBackupDir === "") errs.push(`${ENV.dataBackupDir} must not be empty`);
  else if (!isAbsolute(cfg.dataBackupDir)) errs.push(`${cfg.dataBackupDir} must be an absolute path`);
  else {
    try {
      if (!statSync(cfg.dataBackupDir).isDirectory()) errs.push(`${JSON.stringify(cfg.dataBackupDir)} must be a valid directory`);
    } catch (e) {
      errs.push(`${JSON.stringify(cfg.dataBackupDir)} must be a valid directory: ${statError(e, cfg.dataBackupDir)}`);
    }
  }
  return errs;
}
