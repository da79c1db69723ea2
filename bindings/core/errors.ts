/**
 * Typed errors with the Cosmos SDK's codespaces, codes and exact message strings.
 * Both cores report failures as a status (see core/status.ts) and turn it into one of these,
 * so the two backends cannot drift apart in wording.
 */

export type UpgradeErrorKind =
  | "invalid-request"
  | "module-version-not-found"
  | "plan-not-found"
  | "client-not-found"
  | "consensus-state-not-found"
  | "unauthorized"
  | "corrupt-store"
  | "malformed-protobuf"
  | "invalid-upgrade-info"
  | "upgrade-needed"
  | "binary-too-early"
  | "downgrade"
  | "handler-failed"
  | "info-write-failed"
  | "no-handler"
  | "store-loader";

export class UpgradeError extends Error {
  override name = "UpgradeError";
  constructor(
    readonly codespace: string,
    readonly code: number,
    message: string,
    readonly kind: UpgradeErrorKind,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** The process exit code a host uses when this error halts the node (docs/spec/keeper.md §6.1). */
  get exitCode(): number {
    return (EXIT_CODES as Partial<Record<UpgradeErrorKind, number>>)[this.kind] ?? 1;
  }
}

/** The process exit code of each kind of error that halts a node (docs/spec/keeper.md §6.1); any other is 1. */
export const EXIT_CODES = {
  "upgrade-needed": 20,
  "binary-too-early": 21,
  downgrade: 22,
  "handler-failed": 23,
  "info-write-failed": 24,
  "corrupt-store": 25,
} as const satisfies Partial<Record<UpgradeErrorKind, number>>;

/** Exit code for any error that stops PreBlock; a handler's own error counts as handler-failed. */
export function haltExitCode(err: unknown): number {
  if (err instanceof UpgradeError) return err.exitCode;
  return EXIT_CODES["handler-failed"];
}

const invalidRequest = (text: string) => new UpgradeError("sdk", 18, `${text}: invalid request`, "invalid-request");
const plain = (message: string, kind: UpgradeErrorKind) => new UpgradeError("undefined", 1, message, kind);

export const errors = {
  timeDeprecated: () => invalidRequest("time-based upgrades have been deprecated in the SDK"),
  ibcMoved: () => invalidRequest("upgrade logic for IBC has been moved to the IBC module"),
  nameEmpty: () => invalidRequest("name cannot be empty"),
  heightNotPositive: () => invalidRequest("height must be greater than 0"),
  scheduledInPast: () => invalidRequest("upgrade cannot be scheduled in the past"),
  alreadyCompleted: (name: string) => invalidRequest(`upgrade with name ${name} has already been completed`),

  moduleVersionNotFound: (module: string) =>
    new UpgradeError("upgrade", 2, `x/upgrade: QueryModuleVersions module ${module} not found: module version not found`, "module-version-not-found"),
  planNotFound: () => new UpgradeError("upgrade", 3, "upgrade plan not found", "plan-not-found"),
  clientNotFound: () => new UpgradeError("upgrade", 4, "upgraded client not found", "client-not-found"),
  consensusStateNotFound: () => new UpgradeError("upgrade", 5, "upgraded consensus state not found", "consensus-state-not-found"),
  unauthorized: (expected: string, got: string) =>
    new UpgradeError("upgrade", 6, `expected ${expected} got ${got}: expected authority account as only signer for proposal message`, "unauthorized"),

  corruptValue: (key: Uint8Array, length: number) =>
    new UpgradeError("xupgrade", 1, `value at key 0x${toHex(key)} is ${length} bytes, expected 8: corrupt store value`, "corrupt-store"),
  corruptName: (key: Uint8Array) =>
    new UpgradeError("xupgrade", 1, `key 0x${toHex(key)} holds a name that is not valid UTF-8: corrupt store value`, "corrupt-store"),
  corruptDone: (key: Uint8Array, length: number) =>
    new UpgradeError(
      "xupgrade",
      1,
      `done record at key 0x${toHex(key)} with a ${length}-byte value fits neither layout (seed: an 8-byte height; sdk: the value 01 under a key of at least 10 bytes): corrupt store value`,
      "corrupt-store",
    ),
  mixedLayout: (key: Uint8Array, layout: "seed" | "sdk") =>
    new UpgradeError(
      "xupgrade",
      1,
      `done records in both layouts: key 0x${toHex(key)} is in the ${layout} layout, the records before it in the ${layout === "sdk" ? "seed" : "sdk"} layout: corrupt store value`,
      "corrupt-store",
    ),
  corruptPlan: (detail: string) => new UpgradeError("xupgrade", 1, `cannot decode plan at key 0x00: ${detail}: corrupt store value`, "corrupt-store"),
  malformed: (detail: string) => new UpgradeError("xupgrade", 2, `${detail}: malformed protobuf`, "malformed-protobuf"),
  invalidUpgradeInfo: (message: string) => new UpgradeError("xupgrade", 3, message, "invalid-upgrade-info"),

  upgradeNeeded: (name: string, height: bigint, info: string) => plain(`UPGRADE "${name}" NEEDED at height: ${height}: ${info}`, "upgrade-needed"),
  binaryTooEarly: (name: string) =>
    plain(`BINARY UPDATED BEFORE TRIGGER! UPGRADE "${name}" - in binary but not executed on chain. Downgrade your binary`, "binary-too-early"),
  downgrade: (appVersion: bigint, name: string) => plain(`wrong app version ${appVersion}, upgrade handler is missing for ${name} upgrade plan`, "downgrade"),
  infoWriteFailed: (detail: string) => plain(`unable to write upgrade info to filesystem: ${detail}`, "info-write-failed"),
  noHandler: () => plain("ApplyUpgrade should never be called without first checking HasHandler", "no-handler"),
  storeLoader: (message: string) => plain(message, "store-loader"),
};

export function toHex(bytes: Uint8Array): string {
  let s = "";
  for (let i = 0; i < bytes.length; i++) s += bytes[i].toString(16).padStart(2, "0");
  return s;
}
