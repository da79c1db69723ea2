/**
 * What the node's data directory says about it while it is stopped (docs/spec/sidecar.md §5.1): its last
 * committed height and its validator's last signature.
 *
 * The committed height is read from `data/application.db`, the application's LevelDB: the key `h` of this
 * project's multistore (8 bytes, big-endian), or the Cosmos SDK's `s/latest` (a protobuf Int64Value). The
 * database is never opened in place — opening a LevelDB writes to it — but as a copy in `.tmp/` made the
 * backup's way (table files hard-linked, the rest copied: upgrade/tree-copy.ts), so the probe costs a few small
 * copies and leaves the node's files as they were. A store another engine wrote (Pebble, RocksDB), or one
 * on another file system, gives "unknown", and the visor decides without it.
 *
 * `data/priv_validator_state.json` is CometBFT's record of the last height, round and step this validator
 * signed: a rollback must never take it backwards (upgrade/rollback.ts).
 *
 * Whether the node runs: LevelDB (classic-level, goleveldb) holds a POSIX lock on each database's `LOCK`
 * file for as long as it is open, and Linux lists every lock in `/proc/locks` with its device and inode — a
 * precise answer that neither opens nor touches the database.
 */
import { mkdir, readFile, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { messageOf } from "../../../base/errors.js";
import type { Layout } from "../layout.js";
import { copyTree, walkTree } from "../upgrade/tree-copy.js";

export interface CommittedHeight {
  height?: bigint;
  /** Where it was read, or why it is unknown. */
  source: string;
}

const HEIGHT_KEY = Uint8Array.of(0x68); // 'h': this project's multistore
const SDK_LATEST_KEY = new TextEncoder().encode("s/latest"); // the SDK's rootmulti

/** A protobuf Int64Value (`08 <varint>`), as the SDK's rootmulti stores its latest version. */
function int64Value(b: Uint8Array): bigint | undefined {
  if (b.length === 0) return 0n;
  if (b[0] !== 0x08) return undefined;
  let v = 0n;
  for (let i = 1, shift = 0n; i < b.length && i < 11; i++, shift += 7n) {
    v |= BigInt(b[i] & 0x7f) << shift;
    if ((b[i] & 0x80) === 0) return v;
  }
  return undefined;
}

/** The application's last committed height, read from a copy of `<dataDir>/application.db` (the node's `data/` by default). */
export async function committedHeight(layout: Layout, dataDir = layout.dataDir): Promise<CommittedHeight> {
  const db = join(dataDir, "application.db");
  try {
    await stat(join(db, "CURRENT"));
  } catch {
    return { source: "no LevelDB at data/application.db" };
  }
  const probe = await layout.tmpPath("probe");
  try {
    const [d, t] = await Promise.all([stat(db), stat(layout.tmpDir)]);
    if (d.dev !== t.dev) return { source: "data/ and cosmovisor/.tmp are on different file systems" };
    await mkdir(probe, { mode: 0o700 });
    // LOCK belongs to whoever holds the database; LOG is LevelDB's text log.
    const entries = await walkTree(db, (r) => r === "LOCK" || r === "LOG" || r === "LOG.old");
    await copyTree(db, probe, entries, { link: true });
    const { ClassicLevel } = await import("classic-level");
    const level = new ClassicLevel<Uint8Array, Uint8Array>(probe, { keyEncoding: "view", valueEncoding: "view", createIfMissing: false });
    try {
      await level.open();
      const ours = await level.get(HEIGHT_KEY);
      if (ours !== undefined && ours.length === 8) {
        return { height: new DataView(ours.buffer, ours.byteOffset, 8).getBigUint64(0), source: "data/application.db" };
      }
      const sdk = await level.get(SDK_LATEST_KEY);
      const v = sdk === undefined ? undefined : int64Value(sdk);
      if (v !== undefined) return { height: v, source: "data/application.db (s/latest)" };
      return { source: "data/application.db has no height this visor knows" };
    } finally {
      await level.close().catch(() => {});
    }
  } catch (e) {
    return { source: `data/application.db unreadable: ${messageOf(e).split("\n")[0]}` };
  } finally {
    await rm(probe, { recursive: true, force: true });
  }
}

/** CometBFT's last signed (height, round, step), from `priv_validator_state.json` in `dataDir`; undefined when there is none. */
export interface SignState {
  height: bigint;
  round: number;
  step: number;
}

export async function signState(dataDir: string): Promise<SignState | undefined> {
  let doc: { height?: unknown; round?: unknown; step?: unknown };
  try {
    doc = JSON.parse(await readFile(join(dataDir, "priv_validator_state.json"), "utf8")) as typeof doc;
  } catch {
    return undefined;
  }
  const h = typeof doc.height === "string" && /^[0-9]+$/.test(doc.height) ? BigInt(doc.height) : typeof doc.height === "number" ? BigInt(doc.height) : 0n;
  return { height: h, round: Number(doc.round ?? 0), step: Number(doc.step ?? 0) };
}

/** a is after b in signing order (height, then round, then step). */
export function signedAfter(a: SignState, b: SignState | undefined): boolean {
  if (!b) return a.height > 0n;
  if (a.height !== b.height) return a.height > b.height;
  if (a.round !== b.round) return a.round > b.round;
  return a.step > b.step;
}

/** A lock held on one of `dataDir`'s databases: its `LOCK` file and the process holding it. */
export interface HeldLock {
  file: string;
  pid: number;
}

/**
 * The databases under `dataDir` that a process holds open (their `LOCK` file locked), from `/proc/locks`;
 * undefined where the kernel does not list locks (not Linux).
 */
export async function heldLocks(dataDir: string): Promise<HeldLock[] | undefined> {
  let table: string;
  try {
    table = await readFile("/proc/locks", "utf8");
  } catch {
    return undefined;
  }
  // `1: POSIX  ADVISORY  WRITE 29358 fe:00:10856886 0 EOF`: pid, then major:minor (hex):inode.
  const locked = new Map<string, number>();
  for (const line of table.split("\n")) {
    const m = /\s(\d+)\s+([0-9a-f]+):([0-9a-f]+):(\d+)\s/.exec(line);
    if (m && !line.includes("->")) locked.set(`${parseInt(m[2], 16)}:${parseInt(m[3], 16)}:${m[4]}`, Number(m[1]));
  }
  const out: HeldLock[] = [];
  const files = await walkTree(dataDir).catch(() => []);
  for (const e of files) {
    if (e.kind !== "file" || !/(^|\/)LOCK$/.test(e.rel)) continue;
    const st = await stat(join(dataDir, e.rel)).catch(() => undefined);
    if (!st) continue;
    // Linux's dev_t: the major in bits 8–19 (and 32+), the minor in bits 0–7 (and 20–31).
    const dev = BigInt(st.dev);
    const major = Number(((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn));
    const minor = Number((dev & 0xffn) | ((dev >> 12n) & ~0xffn));
    const pid = locked.get(`${major}:${minor}:${st.ino}`);
    if (pid !== undefined) out.push({ file: e.rel, pid });
  }
  return out;
}
