/**
 * The `readiness` store (docs/spec/readiness.md §5), an ordinary app store, so its values are part of the
 * app hash (and provable once the app hash is a Merkle root):
 *
 *   0x00                                      → ReadinessParams
 *   0x01 ‖ BE64(plan height) ‖ BE16(len) ‖ name → ReadinessTally of that plan
 *
 * Values are the protobuf messages of proto/xupgrade/upgrade/v1/readiness.proto, written canonically (so a
 * value that did not change is the same bytes, and is not written again).
 */
import { equalBytes } from "../../base/bytes.js";
import { prefixEnd, type KVStore } from "../../core/kv.js";
import { decodeAttestation, encodeAttestation } from "./attestation.js";
import { ReadinessError } from "./errors.js";
import {
  READINESS_STATUSES,
  type AppHashGroup,
  type ExpectedBinary,
  type ExpectedBinarySource,
  type ReadinessTally,
  type ValidatorReadiness,
} from "./tally.js";
import { LEN, V, walk, Writer } from "./wire.js";

export const READINESS_STORE = "readiness";
const PARAMS_KEY = Uint8Array.of(0x00);
const TALLY_PREFIX = 0x01;

export interface ReadinessParams {
  /** CometBFT's ABCI consensus parameter at InitChain; 0: vote extensions are off. */
  voteExtensionsEnableHeight: bigint;
  /** The activation gate's fraction as a decimal text ("" = off). */
  activationThreshold: string;
}

export const DEFAULT_READINESS_PARAMS: ReadinessParams = { voteExtensionsEnableHeight: 0n, activationThreshold: "" };

const utf8 = new TextEncoder();

export function tallyKey(name: string, height: bigint): Uint8Array {
  const n = utf8.encode(name);
  if (n.length > 0xffff) throw new RangeError("a plan name longer than 65535 bytes has no readiness key");
  const key = new Uint8Array(1 + 8 + 2 + n.length);
  const dv = new DataView(key.buffer);
  key[0] = TALLY_PREFIX;
  dv.setBigUint64(1, BigInt.asUintN(64, height));
  dv.setUint16(9, n.length);
  key.set(n, 11);
  return key;
}

// ---- codecs ----

const corrupt = (what: string) => new ReadinessError("corrupt", `corrupt readiness store value: ${what}`);

export function encodeParams(p: ReadinessParams): Uint8Array {
  return new Writer().int64(1, p.voteExtensionsEnableHeight).string(2, p.activationThreshold).finish();
}

export function decodeParams(bytes: Uint8Array): ReadinessParams {
  const p = { ...DEFAULT_READINESS_PARAMS };
  walk(bytes, "readiness params", "corrupt", { 1: V, 2: LEN }, (f) => {
    if (f.no === 1) p.voteExtensionsEnableHeight = f.int64();
    else p.activationThreshold = f.string();
  });
  return p;
}

const STATUS_NUMBER = (s: ValidatorReadiness["status"]) => READINESS_STATUSES.indexOf(s) + 1;
const SOURCES: readonly ExpectedBinarySource[] = ["plan_info", "most_power"];

function encodeValidator(v: ValidatorReadiness): Uint8Array {
  return new Writer()
    .bytes(1, v.address)
    .string(2, v.name)
    .int64(3, v.power)
    .uint32(4, STATUS_NUMBER(v.status))
    .message(5, v.attestation && encodeAttestation(v.attestation))
    .int64(6, v.attestedHeight)
    .finish();
}

function encodeGroup(g: AppHashGroup): Uint8Array {
  const w = new Writer().int64(1, g.snapshotHeight).bytes(2, g.appHash).int64(3, g.power);
  for (const a of g.validators) w.message(4, a);
  return w.finish();
}

function encodeExpected(e: ExpectedBinary): Uint8Array {
  return new Writer()
    .string(1, e.platform)
    .bytes(2, e.sha256)
    .uint32(3, SOURCES.indexOf(e.source) + 1)
    .finish();
}

export function encodeTally(t: ReadinessTally): Uint8Array {
  const w = new Writer()
    .string(1, t.planName)
    .int64(2, t.planHeight)
    .int64(3, t.updatedHeight)
    .int64(4, t.totalPower)
    .int64(5, t.readyPower)
    .int64(6, t.differentBinaryPower)
    .int64(7, t.failedPower)
    .int64(8, t.notRehearsedPower)
    .int64(9, t.noAttestationPower);
  for (const v of t.validators) w.message(10, encodeValidator(v));
  for (const g of t.appHashGroups) w.message(11, encodeGroup(g));
  for (const e of t.expectedBinaries) w.message(12, encodeExpected(e));
  return w.bool(13, t.appHashesDisagree).finish();
}

function decodeValidator(bytes: Uint8Array): ValidatorReadiness {
  const v: ValidatorReadiness = { address: new Uint8Array(0), name: "", power: 0n, status: "no_attestation", attestedHeight: 0n };
  walk(bytes, "validator readiness", "corrupt", { 1: LEN, 2: LEN, 3: V, 4: V, 5: LEN, 6: V }, (f) => {
    switch (f.no) {
      case 1:
        v.address = f.bytes();
        break;
      case 2:
        v.name = f.string();
        break;
      case 3:
        v.power = f.int64();
        break;
      case 4: {
        const s = READINESS_STATUSES[f.varintU32() - 1];
        if (s === undefined) throw corrupt("unknown readiness status");
        v.status = s;
        break;
      }
      case 5:
        v.attestation = decodeAttestation(f.bytes(), "corrupt");
        break;
      case 6:
        v.attestedHeight = f.int64();
        break;
    }
  });
  return v;
}

function decodeGroup(bytes: Uint8Array): AppHashGroup {
  const g: AppHashGroup = { snapshotHeight: 0n, appHash: new Uint8Array(0), power: 0n, validators: [] };
  walk(bytes, "app hash group", "corrupt", { 1: V, 2: LEN, 3: V, 4: LEN }, (f) => {
    if (f.no === 1) g.snapshotHeight = f.int64();
    else if (f.no === 2) g.appHash = f.bytes();
    else if (f.no === 3) g.power = f.int64();
    else g.validators.push(f.bytes());
  });
  return g;
}

function decodeExpected(bytes: Uint8Array): ExpectedBinary {
  const e: ExpectedBinary = { platform: "", sha256: new Uint8Array(0), source: "plan_info" };
  walk(bytes, "expected binary", "corrupt", { 1: LEN, 2: LEN, 3: V }, (f) => {
    if (f.no === 1) e.platform = f.string();
    else if (f.no === 2) e.sha256 = f.bytes();
    else {
      const s = SOURCES[f.varintU32() - 1];
      if (s === undefined) throw corrupt("unknown expected-binary source");
      e.source = s;
    }
  });
  return e;
}

export function decodeTally(bytes: Uint8Array): ReadinessTally {
  const t: ReadinessTally = {
    planName: "",
    planHeight: 0n,
    updatedHeight: 0n,
    totalPower: 0n,
    readyPower: 0n,
    differentBinaryPower: 0n,
    failedPower: 0n,
    notRehearsedPower: 0n,
    noAttestationPower: 0n,
    validators: [],
    appHashGroups: [],
    expectedBinaries: [],
    appHashesDisagree: false,
  };
  const ints = [
    "",
    "",
    "planHeight",
    "updatedHeight",
    "totalPower",
    "readyPower",
    "differentBinaryPower",
    "failedPower",
    "notRehearsedPower",
    "noAttestationPower",
  ] as const;
  walk(bytes, "readiness tally", "corrupt", { 1: LEN, 2: V, 3: V, 4: V, 5: V, 6: V, 7: V, 8: V, 9: V, 10: LEN, 11: LEN, 12: LEN, 13: V }, (f) => {
    if (f.no === 1) t.planName = f.string();
    else if (f.no >= 2 && f.no <= 9) (t as unknown as Record<string, bigint>)[ints[f.no]] = f.int64();
    else if (f.no === 10) t.validators.push(decodeValidator(f.bytes()));
    else if (f.no === 11) t.appHashGroups.push(decodeGroup(f.bytes()));
    else if (f.no === 12) t.expectedBinaries.push(decodeExpected(f.bytes()));
    else t.appHashesDisagree = f.bool();
  });
  return t;
}

// ---- the store ----

export function readParams(store: KVStore): ReadinessParams {
  const raw = store.get(PARAMS_KEY);
  return raw === undefined ? { ...DEFAULT_READINESS_PARAMS } : decodeParams(raw);
}

export function writeParams(store: KVStore, p: ReadinessParams): void {
  store.set(PARAMS_KEY, encodeParams(p));
}

export function readTally(store: KVStore, name: string, height: bigint): ReadinessTally | undefined {
  const raw = store.get(tallyKey(name, height));
  return raw === undefined ? undefined : decodeTally(raw);
}

/**
 * Stores the tally computed in block `height` unless only its `updatedHeight` would change: the stored
 * value keeps its bytes (and its updated height) while nothing else changed. Returns the tally as stored.
 */
export function saveTally(store: KVStore, t: ReadinessTally, height: bigint): ReadinessTally {
  const key = tallyKey(t.planName, t.planHeight);
  const old = store.get(key);
  if (old !== undefined) {
    const kept = { ...t, updatedHeight: decodeTally(old).updatedHeight };
    if (equalBytes(old, encodeTally(kept))) return kept;
  }
  const fresh = { ...t, updatedHeight: height };
  store.set(key, encodeTally(fresh));
  return fresh;
}

/** Every stored tally, by plan height then name. */
export function* allTallies(store: KVStore): Generator<ReadinessTally> {
  const prefix = Uint8Array.of(TALLY_PREFIX);
  for (const [, v] of store.iterate(prefix, prefixEnd(prefix))) yield decodeTally(v);
}
