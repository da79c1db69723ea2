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
  httpAddress: "DAEMON_HTTP_ADDRESS",
  rpcPollInterval: "DAEMON_RPC_POLL_INTERVAL",
  webhookUrl: "DAEMON_WEBHOOK_URL",
  webhookRetries: "DAEMON_WEBHOOK_RETRIES",
  webhookTimeout: "DAEMON_WEBHOOK_TIMEOUT",
  dataBackupKeep: "DAEMON_DATA_BACKUP_KEEP",
  downloadSigningKeys: "DAEMON_DOWNLOAD_SIGNING_KEYS",
  downloadSignatureNamespace: "DAEMON_DOWNLOAD_SIGNATURE_NAMESPACE",
  orchestratorImageFile: "DAEMON_ORCHESTRATOR_IMAGE_FILE",
  readiness: "DAEMON_READINESS",
  prestart: "DAEMON_PRESTART",
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
  /** A loopback `host:port` for the visor's HTTP endpoint (`/metrics`, and what other features register); "" = off. */
  httpAddress: string;
  /** How often the visor asks the node (RPC `status`, CurrentPlan) for its height and plan (ns). */
  rpcPollInterval: bigint;
  /** Where each stage is POSTed as JSON; empty = no webhooks. */
  webhookUrls: string[];
  /** Retries of a failed webhook delivery (attempts = retries + 1). */
  webhookRetries: number;
  /** The deadline of one webhook attempt (ns). */
  webhookTimeout: bigint;
  /** Complete backups of this home kept after a new one (the oldest go first); 0 = all. */
  dataBackupKeep: number;
  /** OpenSSH ed25519 public keys (`ssh-ed25519 AAAA… comment`) a downloaded binary must be signed by; empty = no signature check. */
  downloadSigningKeys: string[];
  /** The SSH signature namespace (`ssh-keygen -Y sign -n <namespace>`). */
  downloadSignatureNamespace: string;
  /** Orchestrator mode: write the plan's image tag here and exit instead of switching binaries; "" = off. */
  orchestratorImageFile: string;
  /** `run` attests the scheduled plan's readiness on its own, every DAEMON_RPC_POLL_INTERVAL (docs/spec/readiness.md §3). */
  readiness: boolean;
  /** `run` starts the next binary in standby before the height, for binaries that honour XUPGRADE_STANDBY_FD (docs/spec/sidecar.md §5.5). */
  prestart: boolean;
}

export const DEFAULT_POLL_INTERVAL = 300n * MS;
export const DEFAULT_RPC_ADDRESS = "http://localhost:26657";
export const DEFAULT_GRPC_ADDRESS = "localhost:9090";
export const DEFAULT_RPC_POLL_INTERVAL = 5_000n * MS;
export const DEFAULT_WEBHOOK_RETRIES = 5;
export const DEFAULT_WEBHOOK_TIMEOUT = 5_000n * MS;
export const DEFAULT_SIGNATURE_NAMESPACE = "file";
/** The visor's exit status in orchestrator mode once the image tag is written (docs/spec/sidecar.md §11). */
export const ORCHESTRATOR_EXIT_CODE = 75;

export const ROOT_NAME = "cosmovisor";

/** Durations as milliseconds for timers. */
export const ms = (ns: bigint): number => Number(ns / MS);

// ---- value parsers: each returns the value or pushes cosmovisor's message ----

/** Variable → text, from the environment or the file. */
export type Source = Record<string, string | undefined>;
