/**
 * The readiness attestation and the vote extension carrying it (docs/spec/readiness.md §2): what a validator's
 * sidecar found for the scheduled plan — the binary's sha256 on this platform, the pre-flight's verdict, the
 * rehearsal's verdict with the app hash it reached and the height of the state it ran on.
 *
 * `decodeVoteExtension` is the shape check of VerifyVoteExtension and ProcessProposal: at most
 * MAX_VOTE_EXTENSION_BYTES, known fields only, the one canonical encoding (decoded, encoded again, the same
 * bytes), and every field within its rule (`checkAttestation`). It never looks at the chain's state, so it
 * gives the same answer on every validator at every height.
 */
import { equalBytes } from "../../base/bytes.js";
import { ReadinessError } from "./errors.js";
import { LEN, V, walk, Writer } from "./wire.js";

/** The largest vote extension accepted (CometBFT's own limit is 1 MiB). */
export const MAX_VOTE_EXTENSION_BYTES = 1024;
export const MAX_PLAN_NAME_BYTES = 128;
export const MAX_BINARY_VERSION_BYTES = 64;
const MAX_PLATFORM_BYTES = 32;

export type RehearsalVerdict = "not_rehearsed" | "passed" | "failed";
export const REHEARSAL_VERDICTS: readonly RehearsalVerdict[] = ["not_rehearsed", "passed", "failed"];

export interface ReadinessAttestation {
  planName: string;
  planHeight: bigint;
  /** `<os>/<arch>` in Go's names, or "any". */
  platform: string;
  /** 32 bytes, or empty when the pre-flight found no binary. */
  binarySha256: Uint8Array;
  preflightOk: boolean;
  rehearsal: RehearsalVerdict;
  /** failed: the halt's exit code (non-zero); otherwise 0. */
  rehearsalExitCode: number;
  /** passed: the app hash after the rehearsed upgrade block (32 bytes); otherwise empty. */
  appHash: Uint8Array;
  /** The height of the state rehearsed (0 when not rehearsed). */
  snapshotHeight: bigint;
  /** The new binary's app and version, e.g. "example-v2 2.0.0" (may be empty). */
  binaryVersion: string;
}

const utf8 = new TextEncoder();
const PLATFORM = /^(any|[a-z0-9]+\/[a-z0-9]+)$/;
// C0 and C1 controls, DEL: a version is shown to people.
// eslint-disable-next-line no-control-regex -- the controls are what it looks for
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * The pre-flight's verdict in words, for logs, the CLI and the page. A validator whose pre-flight found no
 * binary and one whose binary failed its checksum both count as "failed" in the tally (docs/spec/readiness.md
 * §4.1); an operator's next step differs (stage the binary, or replace it), so the words say which.
 */
export function preflightText(a: Pick<ReadinessAttestation, "preflightOk" | "binarySha256">): string {
  if (a.preflightOk) return "pre-flight ok";
  return a.binarySha256.length === 0 ? "pre-flight found no binary" : "pre-flight failed";
}

/** Throws a ReadinessError naming the first field outside its rule. */
export function checkAttestation(a: ReadinessAttestation): void {
  const fail = (kind: ReadinessError["kind"], message: string) => new ReadinessError(kind, message);
  const nameBytes = utf8.encode(a.planName).length;
  if (nameBytes === 0) throw fail("plan-name", "the plan name is empty");
  if (nameBytes > MAX_PLAN_NAME_BYTES) throw fail("plan-name", `the plan name is ${nameBytes} bytes, more than ${MAX_PLAN_NAME_BYTES}`);
  if (a.planHeight <= 0n) throw fail("plan-height", `the plan height ${a.planHeight} is not positive`);
  if (!PLATFORM.test(a.platform) || a.platform.length > MAX_PLATFORM_BYTES)
    throw fail("platform", `invalid platform ${JSON.stringify(a.platform)}: expected <os>/<arch> (lower case) or "any"`);
  if (a.binarySha256.length !== 0 && a.binarySha256.length !== 32) throw fail("binary-sha256", `the binary's sha256 is ${a.binarySha256.length} bytes, not 32`);
  if (a.preflightOk && a.binarySha256.length === 0) throw fail("binary-sha256", "a passing pre-flight must name the binary's sha256");
  if (!REHEARSAL_VERDICTS.includes(a.rehearsal)) throw fail("rehearsal", `unknown rehearsal verdict ${JSON.stringify(a.rehearsal)}`);
  const rehearsed = a.rehearsal !== "not_rehearsed";
  if (rehearsed && a.binarySha256.length === 0) throw fail("binary-sha256", `a ${a.rehearsal} rehearsal must name the binary's sha256`);
  if (a.rehearsal === "passed" && a.appHash.length !== 32) throw fail("app-hash", `a passed rehearsal's app hash is ${a.appHash.length} bytes, not 32`);
  if (a.rehearsal !== "passed" && a.appHash.length !== 0) throw fail("app-hash", `a ${a.rehearsal} rehearsal carries no app hash`);
  if (!Number.isInteger(a.rehearsalExitCode) || a.rehearsalExitCode < 0 || a.rehearsalExitCode > 0xffffffff)
    throw fail("exit-code", `invalid exit code ${a.rehearsalExitCode}`);
  if ((a.rehearsal === "failed") !== (a.rehearsalExitCode !== 0)) {
    throw fail(
      "exit-code",
      a.rehearsal === "failed"
        ? "a failed rehearsal must name its non-zero exit code"
        : `a ${a.rehearsal} rehearsal has exit code 0, not ${a.rehearsalExitCode}`,
    );
  }
  if (rehearsed && (a.snapshotHeight < 1n || a.snapshotHeight >= a.planHeight)) {
    throw fail("snapshot-height", `the rehearsed state's height ${a.snapshotHeight} is not between 1 and the plan height ${a.planHeight} (excluded)`);
  }
  if (!rehearsed && a.snapshotHeight !== 0n)
    throw fail("snapshot-height", `an attestation that was not rehearsed names a snapshot height (${a.snapshotHeight})`);
  const versionBytes = utf8.encode(a.binaryVersion).length;
  if (versionBytes > MAX_BINARY_VERSION_BYTES)
    throw fail("binary-version", `the binary version is ${versionBytes} bytes, more than ${MAX_BINARY_VERSION_BYTES}`);
  if (CONTROL.test(a.binaryVersion)) throw fail("binary-version", "the binary version contains control characters");
}

const VERDICT_NUMBER: Record<RehearsalVerdict, number> = { not_rehearsed: 0, passed: 1, failed: 2 };

/** The ReadinessAttestation message (canonical proto3: defaults omitted). Does not check the fields. */
export function encodeAttestation(a: ReadinessAttestation): Uint8Array {
  return new Writer()
    .string(1, a.planName)
    .int64(2, a.planHeight)
    .string(3, a.platform)
    .bytes(4, a.binarySha256)
    .bool(5, a.preflightOk)
    .uint32(6, VERDICT_NUMBER[a.rehearsal])
    .uint32(7, a.rehearsalExitCode)
    .bytes(8, a.appHash)
    .int64(9, a.snapshotHeight)
    .string(10, a.binaryVersion)
    .finish();
}

const ATTESTATION_FIELDS = { 1: LEN, 2: V, 3: LEN, 4: LEN, 5: V, 6: V, 7: V, 8: LEN, 9: V, 10: LEN } as const;

/** Decodes a ReadinessAttestation message (no canonical or shape check: see decodeVoteExtension). */
export function decodeAttestation(bytes: Uint8Array, kind: "malformed" | "corrupt" = "malformed"): ReadinessAttestation {
  const a: ReadinessAttestation = {
    planName: "",
    planHeight: 0n,
    platform: "",
    binarySha256: new Uint8Array(0),
    preflightOk: false,
    rehearsal: "not_rehearsed",
    rehearsalExitCode: 0,
    appHash: new Uint8Array(0),
    snapshotHeight: 0n,
    binaryVersion: "",
  };
  walk(bytes, "readiness attestation", kind, ATTESTATION_FIELDS, (f) => {
    switch (f.no) {
      case 1:
        a.planName = f.string();
        break;
      case 2:
        a.planHeight = f.int64();
        break;
      case 3:
        a.platform = f.string();
        break;
      case 4:
        a.binarySha256 = f.bytes();
        break;
      case 5:
        a.preflightOk = f.bool();
        break;
      case 6: {
        const n = f.varintU32();
        const verdict = REHEARSAL_VERDICTS[n];
        if (verdict === undefined) throw new ReadinessError(kind === "corrupt" ? "corrupt" : "rehearsal", `unknown rehearsal verdict ${n}`);
        a.rehearsal = verdict;
        break;
      }
      case 7:
        a.rehearsalExitCode = f.varintU32();
        break;
      case 8:
        a.appHash = f.bytes();
        break;
      case 9:
        a.snapshotHeight = f.int64();
        break;
      case 10:
        a.binaryVersion = f.string();
        break;
    }
  });
  return a;
}

/** The vote extension of an attestation (VoteExtension{readiness}); none: empty bytes. */
export function encodeVoteExtension(a: ReadinessAttestation | undefined): Uint8Array {
  if (a === undefined) return new Uint8Array(0);
  return new Writer().message(1, encodeAttestation(a)).finish();
}

/**
 * The shape check: the attestation a vote extension carries, or undefined for an empty extension (or an
 * empty VoteExtension message). Throws a ReadinessError for anything else than a canonical, well-formed
 * VoteExtension of at most MAX_VOTE_EXTENSION_BYTES.
 */
export function decodeVoteExtension(bytes: Uint8Array): ReadinessAttestation | undefined {
  if (bytes.length > MAX_VOTE_EXTENSION_BYTES)
    throw new ReadinessError("too-large", `the vote extension is ${bytes.length} bytes, more than ${MAX_VOTE_EXTENSION_BYTES}`);
  if (bytes.length === 0) return undefined;
  let inner: Uint8Array | undefined;
  walk(bytes, "vote extension", "malformed", { 1: LEN }, (f) => {
    inner = f.bytes();
  });
  const a = inner === undefined ? undefined : decodeAttestation(inner);
  const again = encodeVoteExtension(a);
  if (!equalBytes(again, bytes))
    throw new ReadinessError(
      "not-canonical",
      "the vote extension is not in its canonical encoding (fields out of order, repeated, or a default value written)",
    );
  if (a !== undefined) checkAttestation(a);
  return a;
}
