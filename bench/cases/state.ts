/**
 * Case 11: the commit multistore as a node holds its state — one app store of N keys (keys shaped like bank
 * balances: a prefix, a 20-byte address, a denom; 16-byte values) among the devnet's other stores, on
 * LevelDB, pruning on (the last `KEEP_RECENT` versions kept, so every measured commit also prunes one
 * version).
 *
 * Every write of the case is generated once, into a workload file (`writeWorkload`), and replayed from it:
 * by `buildState` and `measureState` here, and by cosmos/iavl's side (test/peers/iavl-bench), so that both
 * trees see the same operations in the same order and must reach the same app hash at every height.
 *
 * `buildState` writes the workload and fills a database in its own process; `measureState` then runs in a
 * fresh process and measures what a node would see: the start-up (open, first read), the commit of blocks of
 * 100 and of 1,000 changed keys (the writes into the tree, the working hash, the commit with its pruning), a
 * proof of a present and of an absent key (time and bytes), and the process's RSS (now and at its peak).
 */
import { createHash } from "node:crypto";
import { closeSync, openSync, readFileSync, readSync, statSync, writeSync } from "node:fs";
import { join } from "node:path";
import type { KVStore } from "../../bindings/core/kv.js";
import { nodeSha256, openNodeCommitMultiStore } from "../../bindings/store/level-node.js";
import type { CommitMultiStore } from "../../bindings/store/rootmulti/store.js";
import { config } from "../config.js";

export const KEEP_RECENT = 100;
/** The stores, the app store first (the one measured; its key is read at start-up). */
const STORES = ["bank", "auth", "gov", "staking", "upgrade"];
const BUILD_BATCH = 20_000;
const KEY_SIZE = 26;
const encoder = new TextEncoder();

/** The i-th key: 0x02 ‖ a 20-byte address ‖ "stake" (a balance). */
export function stateKey(i: number): Uint8Array {
  const addr = createHash("sha256").update(`account ${i}`).digest().subarray(0, 20);
  const out = new Uint8Array(1 + 20 + 5);
  out[0] = 0x02;
  out.set(addr, 1);
  out.set(encoder.encode("stake"), 21);
  return out;
}

function value(i: number, version: number): Uint8Array {
  const out = new Uint8Array(16);
  const v = new DataView(out.buffer);
  v.setFloat64(0, i);
  v.setFloat64(8, version);
  return out;
}

/** A small deterministic generator (the runs are comparable across sizes and machines). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/** The kinds of block a node commits here, in the order the build and the measurement cycle through them. */
export const BLOCKS = [
  { name: "spread100", changes: 100, clustered: false },
  { name: "spread1000", changes: 1000, clustered: false },
  { name: "clustered100", changes: 100, clustered: true },
  { name: "clustered1000", changes: 1000, clustered: true },
] as const;
export type BlockName = (typeof BLOCKS)[number]["name"];
type BlockKind = (typeof BLOCKS)[number];

/**
 * What a block of the workload is for: the bulk load (one version kept), the ageing (`KEEP_RECENT` kept),
 * then in the measuring process the first block of each kind after start-up, the warm-up blocks, and the
 * sampled ones.
 */
export const PHASE = { bulk: 0, age: 1, cold: 2, warm: 3, sampled: 4 } as const;
const NO_KIND = 255;

interface Op {
  store: number;
  key: Uint8Array;
  /** undefined: a delete */
  value: Uint8Array | undefined;
}

interface Block {
  phase: number;
  /** Index in BLOCKS, or undefined for a bulk block. */
  kind: number | undefined;
  ops: Op[];
}

/*
 * The workload file (read by test/peers/iavl-bench/main.go too; integers little-endian):
 *   "xupgrade-state-workload 1\n"
 *   u16 store count, then per store: u16 length ‖ name
 *   u32 keep-recent while ageing and measuring; u16 length ‖ the key of the first store read at start-up
 *   blocks to the end: u8 phase ‖ u8 kind (255: none) ‖ u32 op count ‖
 *     ops: u8 store ‖ u8 op (0 set, 1 delete) ‖ u16 length ‖ key ‖ (set) u16 length ‖ value
 */
const MAGIC = encoder.encode("xupgrade-state-workload 1\n");

export const workloadFile = (dir: string) => join(dir, "workload.bin");
/** xupgrade's database of a built state. */
export const dbDir = (dir: string) => join(dir, "db");

class WorkloadWriter {
  private buf = new Uint8Array(1 << 20);
  private view = new DataView(this.buf.buffer);
  private pos = 0;
  private readonly fd: number;

  constructor(path: string) {
    this.fd = openSync(path, "w");
  }

  header(stores: string[], keepRecent: number, probe: Uint8Array): void {
    this.bytes(MAGIC, false);
    this.u16(stores.length);
    for (const s of stores) this.bytes(encoder.encode(s));
    this.room(4);
    this.view.setUint32(this.pos, keepRecent, true);
    this.pos += 4;
    this.bytes(probe);
  }

  block(b: Block): void {
    this.room(6);
    this.buf[this.pos] = b.phase;
    this.buf[this.pos + 1] = b.kind ?? NO_KIND;
    this.view.setUint32(this.pos + 2, b.ops.length, true);
    this.pos += 6;
    for (const o of b.ops) {
      this.room(2);
      this.buf[this.pos++] = o.store;
      this.buf[this.pos++] = o.value === undefined ? 1 : 0;
      this.bytes(o.key);
      if (o.value !== undefined) this.bytes(o.value);
    }
  }

  close(): void {
    this.flush();
    closeSync(this.fd);
  }

  private u16(v: number): void {
    this.room(2);
    this.view.setUint16(this.pos, v, true);
    this.pos += 2;
  }

  private bytes(b: Uint8Array, prefixed = true): void {
    if (prefixed) this.u16(b.length);
    this.room(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  private room(n: number): void {
    if (this.pos + n > this.buf.length) this.flush();
  }

  private flush(): void {
    writeSync(this.fd, this.buf, 0, this.pos);
    this.pos = 0;
  }
}

class WorkloadReader {
  readonly stores: string[] = [];
  readonly keepRecent: number;
  readonly probe: Uint8Array;
  private readonly fd: number;
  private buf = new Uint8Array(1 << 20);
  private view = new DataView(this.buf.buffer);
  private pos = 0;
  private end = 0;
  private eof = false;

  constructor(path: string) {
    this.fd = openSync(path, "r");
    const magic = this.take(MAGIC.length);
    if (!magic || Buffer.compare(magic, MAGIC) !== 0) throw new Error(`${path} is not a state workload (version 1)`);
    for (let i = this.u16(); i > 0; i--) this.stores.push(new TextDecoder().decode(this.bytes()));
    this.fill(4);
    this.keepRecent = this.view.getUint32(this.pos, true);
    this.pos += 4;
    this.probe = this.bytes();
  }

  /** The next block, or undefined after the last. */
  next(): Block | undefined {
    if (!this.fill(6)) return undefined;
    const phase = this.buf[this.pos];
    const kind = this.buf[this.pos + 1];
    const count = this.view.getUint32(this.pos + 2, true);
    this.pos += 6;
    const ops: Op[] = new Array(count);
    for (let i = 0; i < count; i++) {
      if (!this.fill(2)) throw new Error("truncated workload");
      const store = this.buf[this.pos];
      const del = this.buf[this.pos + 1] === 1;
      this.pos += 2;
      const key = this.bytes();
      ops[i] = { store, key, value: del ? undefined : this.bytes() };
    }
    return { phase, kind: kind === NO_KIND ? undefined : kind, ops };
  }

  close(): void {
    closeSync(this.fd);
  }

  private u16(): number {
    if (!this.fill(2)) throw new Error("truncated workload");
    const v = this.view.getUint16(this.pos, true);
    this.pos += 2;
    return v;
  }

  /** A length-prefixed byte string, copied (a node keeps its value: a view would keep the whole buffer). */
  private bytes(): Uint8Array {
    const n = this.u16();
    const out = this.take(n);
    if (!out) throw new Error("truncated workload");
    return out;
  }

  private take(n: number): Uint8Array | undefined {
    if (!this.fill(n)) return undefined;
    const out = this.buf.slice(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }

  /** Whether `n` bytes are buffered, reading more if needed. */
  private fill(n: number): boolean {
    if (this.end - this.pos >= n) return true;
    this.buf.copyWithin(0, this.pos, this.end);
    this.end -= this.pos;
    this.pos = 0;
    while (!this.eof && this.end < n) {
      const got = readSync(this.fd, this.buf, this.end, this.buf.length - this.end, null);
      if (got === 0) this.eof = true;
      this.end += got;
    }
    return this.end >= n;
  }
}

/**
 * The blocks of the ageing and of the measurement: spread blocks change keys at random (80 % updates, 10 %
 * new keys, 10 % deletes; the sets first, then the deletes), clustered blocks update a run of keys adjacent
 * in key order (one account range, one module's prefix).
 */
class Generator {
  private next: number;
  constructor(
    private readonly n: number,
    private readonly rand: () => number,
    /** The n keys in key order, KEY_SIZE bytes each. */
    private readonly sorted: Uint8Array,
    next: number,
  ) {
    this.next = next;
  }

  block(kind: BlockKind, height: number): Op[] {
    const sets: Op[] = [];
    const deletes: Op[] = [];
    if (kind.clustered) {
      const first = Math.floor(this.rand() * (this.n - kind.changes));
      for (let c = 0; c < kind.changes; c++) {
        sets.push({ store: 0, key: this.sorted.slice((first + c) * KEY_SIZE, (first + c + 1) * KEY_SIZE), value: value(c, height) });
      }
    } else
      for (let c = 0; c < kind.changes; c++) {
        const r = this.rand();
        if (r < 0.8) sets.push({ store: 0, key: stateKey(Math.floor(this.rand() * this.n)), value: value(c, height) });
        else if (r < 0.9) sets.push({ store: 0, key: stateKey(this.next++), value: value(c, height) });
        else deletes.push({ store: 0, key: stateKey(Math.floor(this.rand() * this.n)), value: undefined });
      }
    return [...sets, ...deletes];
  }
}

/** Versions the build ages the state by: every version the measurement prunes is one of these. */
const AGE_BLOCKS = Math.ceil((KEEP_RECENT + 2) / BLOCKS.length) * BLOCKS.length;

/**
 * Writes the workload of a state of `n` keys: `n` keys into the app store, `BUILD_BATCH` per block, and a
 * few keys into the other stores (one version kept); `AGE_BLOCKS` blocks of the measured kinds with
 * `KEEP_RECENT` versions kept, so that each measured commit prunes a version like itself, as on a node that
 * has run for a while; then the measurement: the first block of each kind, `warmBlocks` warm-up blocks, and
 * `blocks` blocks of each kind, the kinds alternating (so that all of them see the same cache, compaction
 * and pruning conditions).
 */
export function writeWorkload(dir: string, n: number, blocks: number, warmBlocks: number): void {
  const keys = Array.from({ length: n }, (_, i) => stateKey(i));
  keys.sort((a, b) => Buffer.compare(a, b));
  const sorted = new Uint8Array(n * KEY_SIZE);
  keys.forEach((k, i) => sorted.set(k, i * KEY_SIZE));
  keys.length = 0;

  const w = new WorkloadWriter(workloadFile(dir));
  w.header(STORES, KEEP_RECENT, stateKey(Math.floor(n / 2)));
  let h = 0;
  for (let i = 0; i < n;) {
    const ops: Op[] = [];
    if (h === 0)
      for (let s = 1; s < STORES.length; s++) for (let j = 0; j < 20; j++) ops.push({ store: s, key: encoder.encode(`${STORES[s]} ${j}`), value: value(j, 0) });
    for (const end = Math.min(n, i + BUILD_BATCH); i < end; i++) ops.push({ store: 0, key: stateKey(i), value: value(i, 0) });
    w.block({ phase: PHASE.bulk, kind: undefined, ops });
    h++;
  }
  const kindBlock = (g: Generator, phase: number, k: number) => {
    w.block({ phase, kind: k, ops: g.block(BLOCKS[k], ++h) });
  };
  const age = new Generator(n, rng(n + 1), sorted, 2 * n);
  for (let b = 0; b < AGE_BLOCKS; b++) kindBlock(age, PHASE.age, b % BLOCKS.length);
  const measured = new Generator(n, rng(n), sorted, n);
  for (let k = 0; k < BLOCKS.length; k++) kindBlock(measured, PHASE.cold, k);
  for (let i = 0; i < warmBlocks; i++) kindBlock(measured, PHASE.warm, i % BLOCKS.length);
  for (let i = 0; i < blocks; i++) for (let k = 0; k < BLOCKS.length; k++) kindBlock(measured, PHASE.sampled, k);
  w.close();
}

export interface StateBuild {
  keys: number;
  heights: number;
  /** Writing the workload file, then building the database from it. */
  workloadSeconds: number;
  seconds: number;
  diskBytes: number;
  workloadBytes: number;
  /** The app hash after each block of the build, hex (compared with cosmos/iavl's, then dropped). */
  appHashes?: string[];
}

const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.length).toString("hex");

/** Applies a block's writes to the stores of `ms`. */
function apply(ms: CommitMultiStore, stores: string[], b: Block): void {
  const kv: KVStore[] = stores.map((s) => ms.store(s));
  for (const o of b.ops) {
    if (o.value === undefined) kv[o.store].delete(o.key);
    else kv[o.store].set(o.key, o.value);
  }
}

/** Writes the workload (bench config's measurement) and builds the state's bulk and ageing blocks. */
export async function buildState(dir: string, n: number): Promise<StateBuild> {
  const t0 = performance.now();
  writeWorkload(dir, n, config.stateBlocks, config.stateWarmBlocks);
  const started = performance.now();
  const r = new WorkloadReader(workloadFile(dir));
  let ms = await openNodeCommitMultiStore(dbDir(dir), { keepRecent: 1, sync: false });
  let phase: number = PHASE.bulk;
  let h = 0;
  const appHashes: string[] = [];
  for (let b = r.next(); b !== undefined && b.phase <= PHASE.age; b = r.next()) {
    if (b.phase !== phase) {
      await ms.close();
      ms = await openNodeCommitMultiStore(dbDir(dir), { keepRecent: r.keepRecent, sync: false });
      phase = b.phase;
    }
    apply(ms, r.stores, b);
    appHashes.push(hex(await ms.commit(++h)));
  }
  r.close();
  await ms.close();
  return {
    keys: n,
    heights: h,
    workloadSeconds: (started - t0) / 1000,
    seconds: (performance.now() - started) / 1000,
    diskBytes: await du(dbDir(dir)),
    workloadBytes: statSync(workloadFile(dir)).size,
    appHashes,
  };
}

export async function du(dir: string): Promise<number> {
  const { readdir, stat } = await import("node:fs/promises");
  let total = 0;
  for (const f of await readdir(dir)) total += (await stat(`${dir}/${f}`)).size;
  return total;
}

export interface Dist {
  median: number;
  p90: number;
  max: number;
  mean: number;
  samples: number;
}

export function dist(xs: number[]): Dist {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { median: at(0.5), p90: at(0.9), max: s[s.length - 1], mean: s.reduce((a, b) => a + b, 0) / s.length, samples: s.length };
}

/** One committed block, measured (either side). */
export interface BlockSample {
  phase: number;
  kind: number;
  /** Writes into the tree + working hash + commit (with its pruning), ms: wall, and CPU of every thread. */
  ms: number;
  cpuMs: number;
  /** xupgrade: the CPU time of the main thread alone (the rest is LevelDB's: its writer and its compactions). */
  mainCpuMs?: number;
  /** Nodes written and nodes deleted by pruning. */
  written: number;
  pruned: number;
  /** Nodes read from the database (xupgrade: the byte cache and LevelDB below it; cosmos/iavl: goleveldb). */
  read?: number;
  /** xupgrade: hashes computed. */
  hashed?: number;
  /** cosmos/iavl: fast-index entries written. */
  fastWritten?: number;
  appHash: string;
}

/** One kind of block, measured. */
export interface BlockMeasure {
  ms: Dist;
  cpuMs: Dist;
  /** xupgrade: the main thread's CPU time (median), ms. */
  mainCpuMs?: number;
  /** Per commit (medians): nodes written, nodes pruned, nodes read from the database; xupgrade: hashes computed; iavl: fast-index entries written. */
  written: number;
  pruned: number;
  hashed?: number;
  read?: number;
  fastWritten?: number;
  /** The first block of this kind after start-up (before the warm-up blocks), ms wall and CPU. */
  coldMs: number;
  coldCpuMs: number;
}

/** The sampled blocks of each kind, summarized (the same statistics for both sides). */
export function summarize(samples: readonly BlockSample[]): Record<BlockName, BlockMeasure> {
  const med = (xs: number[]) => dist(xs).median;
  const optional = (xs: (number | undefined)[]) => (xs.every((x) => x !== undefined) && xs.length > 0 ? med(xs) : undefined);
  const out = {} as Record<BlockName, BlockMeasure>;
  BLOCKS.forEach((kind, k) => {
    const xs = samples.filter((s) => s.kind === k && s.phase === PHASE.sampled);
    const cold = samples.find((s) => s.kind === k && s.phase === PHASE.cold);
    if (xs.length === 0 || cold === undefined) throw new Error(`no measured ${kind.name} blocks`);
    out[kind.name] = {
      ms: dist(xs.map((x) => x.ms)),
      cpuMs: dist(xs.map((x) => x.cpuMs)),
      mainCpuMs: optional(xs.map((x) => x.mainCpuMs)),
      written: med(xs.map((x) => x.written)),
      pruned: med(xs.map((x) => x.pruned)),
      hashed: optional(xs.map((x) => x.hashed)),
      read: optional(xs.map((x) => x.read)),
      fastWritten: optional(xs.map((x) => x.fastWritten)),
      coldMs: cold.ms,
      coldCpuMs: cold.cpuMs,
    };
  });
  return out;
}

export interface StateMeasure {
  keys: number;
  /** Open and first read of the app store, ms. */
  startupMs: number;
  blocks: Record<BlockName, BlockMeasure>;
  /** Blocks committed after start-up before the measured ones. */
  warmBlocks: number;
  /** `/store/bank/key` proofs at the latest height: both ProofOps, ms and bytes. */
  proofPresentMs: Dist;
  proofAbsentMs: Dist;
  proofPresentBytes: number;
  proofAbsentBytes: number;
  /** The process's resident memory after the run, and its peak (VmHWM), MiB. */
  rssMiB: number;
  peakRssMiB: number;
  /**
   * Of the RSS at the end: anonymous memory (the JS heap, the node caches, LevelDB's block cache) and
   * file pages (LevelDB maps its table files: clean pages of the page cache, given back under pressure).
   */
  rssAnonMiB: number;
  rssFileMiB: number;
  heapUsedMiB: number;
  /** The app hash after each measured block, hex (compared with cosmos/iavl's, then dropped). */
  appHashes?: string[];
  /** Nodes written by each measured block (compared with cosmos/iavl's, then dropped). */
  writtenPerBlock?: number[];
}

/** CPU time of this process's main thread so far, ms (Linux: its schedstat, in ns), or undefined. */
function mainThreadCpuMs(): number | undefined {
  try {
    return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
  } catch {
    return undefined;
  }
}

/** A field of /proc/self/status in bytes (Linux), or undefined. */
function status(field: string): number | undefined {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync("/proc/self/status", "utf8"));
  return m ? Number(m[1]) * 1024 : undefined;
}

/** Measures the database `buildState` made for `n` keys, in this (fresh) process. */
export async function measureState(dir: string, n: number, blocks: number, proofs: number, warmBlocks: number): Promise<StateMeasure> {
  // The measured blocks are read before the clock starts (cosmos/iavl's side does the same).
  const r = new WorkloadReader(workloadFile(dir));
  const measured: Block[] = [];
  for (let b = r.next(); b !== undefined; b = r.next()) if (b.phase >= PHASE.cold) measured.push(b);
  r.close();
  const count = (phase: number) => measured.filter((b) => b.phase === phase).length;
  if (count(PHASE.cold) !== BLOCKS.length || count(PHASE.warm) !== warmBlocks || count(PHASE.sampled) !== blocks * BLOCKS.length) {
    throw new Error(`the workload in ${dir} was written for another measurement than ${blocks} blocks of each kind after ${warmBlocks} warm-up blocks`);
  }
  globalThis.gc?.();

  let hashes = 0;
  const sha256 = (data: Uint8Array) => {
    hashes++;
    return nodeSha256(data);
  };
  const t0 = performance.now();
  const ms: CommitMultiStore = await openNodeCommitMultiStore(dbDir(dir), { keepRecent: r.keepRecent, sync: false, sha256 });
  const probe = ms.store(r.stores[0]).get(r.probe);
  const startupMs = performance.now() - t0;
  if (probe === undefined) throw new Error("the built state is missing the start-up key");

  let h = Number(ms.lastCommittedHeight);
  const samples: BlockSample[] = [];
  for (const b of measured) {
    const before = ms.nodeStats;
    const hashed = hashes;
    const t = performance.now();
    const cpu = process.cpuUsage();
    const main = mainThreadCpuMs();
    apply(ms, r.stores, b);
    ms.workingHash();
    const appHash = await ms.commit(++h);
    const mainAfter = mainThreadCpuMs();
    const used = process.cpuUsage(cpu);
    const elapsed = performance.now() - t;
    const after = ms.nodeStats;
    samples.push({
      phase: b.phase,
      kind: b.kind!,
      ms: elapsed,
      cpuMs: (used.user + used.system) / 1000,
      mainCpuMs: main !== undefined && mainAfter !== undefined ? mainAfter - main : undefined,
      written: after.written - before.written,
      hashed: hashes - hashed,
      read: after.read - before.read,
      pruned: after.pruned - before.pruned,
      appHash: hex(appHash),
    });
  }

  const view = ms.at(h)!;
  const store = r.stores[0];
  const present: number[] = [];
  const absent: number[] = [];
  let presentBytes = 0;
  let absentBytes = 0;
  const rand = rng(n + 2);
  for (let i = 0; i < proofs; i++) {
    const key = stateKey(Math.floor(rand() * n));
    let t = performance.now();
    const p = view.prove(store, key);
    const dt = performance.now() - t;
    const size = p.ops.reduce((s, o) => s + o.data.length + o.key.length + o.type.length, 0);
    if (p.value !== undefined) {
      present.push(dt);
      presentBytes = Math.max(presentBytes, size);
    }
    const missing = stateKey(n * 10 + i);
    t = performance.now();
    const q = view.prove(store, missing);
    absent.push(performance.now() - t);
    absentBytes = Math.max(
      absentBytes,
      q.ops.reduce((s, o) => s + o.data.length + o.key.length + o.type.length, 0),
    );
  }
  const mem = process.memoryUsage();
  const peak = status("VmHWM") ?? mem.rss;
  const anon = status("RssAnon") ?? mem.rss;
  const file = status("RssFile") ?? 0;
  await ms.close();
  return {
    keys: n,
    startupMs,
    blocks: summarize(samples),
    warmBlocks,
    proofPresentMs: dist(present),
    proofAbsentMs: dist(absent),
    proofPresentBytes: presentBytes,
    proofAbsentBytes: absentBytes,
    rssMiB: mem.rss / 2 ** 20,
    peakRssMiB: peak / 2 ** 20,
    rssAnonMiB: anon / 2 ** 20,
    rssFileMiB: file / 2 ** 20,
    heapUsedMiB: mem.heapUsed / 2 ** 20,
    appHashes: samples.map((s) => s.appHash),
    writtenPerBlock: samples.map((s) => s.written),
  };
}
