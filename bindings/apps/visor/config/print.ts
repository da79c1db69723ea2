/** `visor config`: every value in Go's formats, then the derived paths. */
import { join } from "node:path";
import { formatGoDuration } from "../../../go/duration.js";
import { ENV, ROOT_NAME, type VisorConfig } from "./types.js";

/** `visor config`: every value, then the derived paths. */
export function detailString(cfg: VisorConfig): string {
  const root = join(cfg.home, ROOT_NAME);
  const lines = [
    "Configurable Values:",
    `  ${ENV.home}: ${cfg.home}`,
    `  ${ENV.name}: ${cfg.name}`,
    `  ${ENV.allowDownloadBinaries}: ${cfg.allowDownloadBinaries}`,
    `  ${ENV.downloadMustHaveChecksum}: ${cfg.downloadMustHaveChecksum}`,
    `  ${ENV.restartAfterUpgrade}: ${cfg.restartAfterUpgrade}`,
    `  ${ENV.restartDelay}: ${formatGoDuration(cfg.restartDelay)}`,
    `  ${ENV.shutdownGrace}: ${formatGoDuration(cfg.shutdownGrace)}`,
    `  ${ENV.pollInterval}: ${formatGoDuration(cfg.pollInterval)}`,
    `  ${ENV.unsafeSkipBackup}: ${cfg.unsafeSkipBackup}`,
    `  ${ENV.dataBackupDir}: ${cfg.dataBackupDir}`,
    `  ${ENV.preupgradeMaxRetries}: ${cfg.preupgradeMaxRetries}`,
    `  ${ENV.grpcAddress}: ${cfg.grpcAddress}`,
    `  ${ENV.disableLogs}: ${cfg.disableLogs}`,
    `  ${ENV.colorLogs}: ${cfg.colorLogs}`,
    `  ${ENV.timeFormatLogs}: ${cfg.timeFormatLogs}`,
    `  ${ENV.customPreupgrade}: ${cfg.customPreupgrade}`,
    `  ${ENV.disableRecase}: ${cfg.disableRecase}`,
    `  ${ENV.rpcAddress}: ${cfg.rpcAddress}`,
    `  ${ENV.downloadMaxBytes}: ${cfg.downloadMaxBytes}`,
    `  ${ENV.downloadIdleTimeout}: ${formatGoDuration(cfg.downloadIdleTimeout)}`,
    `  ${ENV.downloadTimeout}: ${formatGoDuration(cfg.downloadTimeout)}`,
    `  ${ENV.downloadMinRate}: ${cfg.downloadMinRate}`,
    `  ${ENV.httpAddress}: ${cfg.httpAddress}`,
    `  ${ENV.rpcPollInterval}: ${formatGoDuration(cfg.rpcPollInterval)}`,
    `  ${ENV.webhookUrl}: ${cfg.webhookUrls.join(",")}`,
    `  ${ENV.webhookRetries}: ${cfg.webhookRetries}`,
    `  ${ENV.webhookTimeout}: ${formatGoDuration(cfg.webhookTimeout)}`,
    `  ${ENV.dataBackupKeep}: ${cfg.dataBackupKeep}`,
    `  ${ENV.downloadSigningKeys}: ${cfg.downloadSigningKeys.length === 0 ? "" : `${cfg.downloadSigningKeys.length} key(s)`}`,
    `  ${ENV.downloadSignatureNamespace}: ${cfg.downloadSignatureNamespace}`,
    `  ${ENV.orchestratorImageFile}: ${cfg.orchestratorImageFile}`,
    `  ${ENV.readiness}: ${cfg.readiness}`,
    `  ${ENV.prestart}: ${cfg.prestart}`,
    "Derived Values:",
    `        Root Dir: ${root}`,
    `     Upgrade Dir: ${join(root, "upgrades")}`,
    `     Genesis Bin: ${join(root, "genesis", "bin", cfg.name)}`,
    `  Monitored File: ${join(cfg.home, "data", "upgrade-info.json")}`,
    ` Data Backup Dir: ${cfg.dataBackupDir}`,
    `  Readiness File: ${join(cfg.home, "data", "upgrade-readiness.json")}`,
  ];
  return lines.join("\n") + "\n";
}
