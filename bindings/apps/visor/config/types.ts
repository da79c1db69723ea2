/** The visor's settings (docs/spec/sidecar.md §3): the variable names, the parsed configuration and its defaults. */
import { MS } from "../../../go/duration.js";

export const ENV = {
  home: "DAEMON_HOME",
  name: "DAEMON_NAME",
  allowDownloadBinaries: "DAEMON_ALLOW_DOWNLOAD_BINARIES",
  downloadMustHaveChecksum: "DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM",
  restartAfterUpgrade: "DAEMON_RESTART_AFTER_UPGRADE",
  restartDelay: "DAEMON_RESTART_DELAY",
  shutdownGrace: "DAEMON_SHUTDOWN_GRACE",
  pollInterval: "DAEMON_POLL_INTERVAL",
  unsafeSkipBackup: "UNSAFE_SKIP_BACKUP",
  dataBackupDir: "DAEMON_DATA_BACKUP_DIR",
  preupgradeMaxRetries: "DAEMON_PREUPGRADE_MAX_RETRIES",
  grpcAddress: "DAEMON_GRPC_ADDRESS",
  disableLogs: "COSMOVISOR_DISABLE_LOGS",
  colorLogs: "COSMOVISOR_COLOR_LOGS",
  timeFormatLogs: "COSMOVISOR_TIMEFORMAT_LOGS",
  customPreupgrade: "COSMOVISOR_CUSTOM_PREUPGRADE",
  disableRecase: "COSMOVISOR_DISABLE_RECASE",
  rpcAddress: "DAEMON_RPC_ADDRESS",
  downloadMaxBytes: "DAEMON_DOWNLOAD_MAX_BYTES",
  downloadIdleTimeout: "DAEMON_DOWNLOAD_IDLE_TIMEOUT",
  downloadTimeout: "DAEMON_DOWNLOAD_TIMEOUT",
  downloadMinRate: "DAEMON_DOWNLOAD_MIN_RATE",
} as const;

export const ENV_NAMES: readonly string[] = Object.values(ENV);

export interface VisorConfig {
  home: string;
  name: string;
  allowDownloadBinaries: boolean;
  downloadMustHaveChecksum: boolean;
  restartAfterUpgrade: boolean;
  /** Durations in nanoseconds; 0 = not set. */
  restartDelay: bigint;
  shutdownGrace: bigint;
  pollInterval: bigint;
  unsafeSkipBackup: boolean;
  dataBackupDir: string;
  preupgradeMaxRetries: number;
  grpcAddress: string;
  disableLogs: boolean;
  colorLogs: boolean;
  /** One of the twelve layout names, or "" for no timestamp. */
  timeFormatLogs: string;
  customPreupgrade: string;
  disableRecase: boolean;
  rpcAddress: string;
  downloadMaxBytes: number;
  downloadIdleTimeout: bigint;
  /** The deadline of one download (ns). */
  downloadTimeout: bigint;
  /** Bytes per second a download must keep up over every idle-timeout span; 0: no minimum. */
  downloadMinRate: number;
}

export const DEFAULT_POLL_INTERVAL = 300n * MS;
export const DEFAULT_RPC_ADDRESS = "http://localhost:26657";
export const DEFAULT_GRPC_ADDRESS = "localhost:9090";

export const ROOT_NAME = "cosmovisor";

/** Durations as milliseconds for timers. */
export const ms = (ns: bigint): number => Number(ns / MS);

// ---- value parsers: each returns the value or pushes cosmovisor's message ----

/** Variable → text, from the environment or the file. */
export type Source = Record<string, string | undefined>;
