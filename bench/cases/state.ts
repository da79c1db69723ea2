/**
 * Case 10 (issue 23): the commit multistore as a node holds its state — one app store of N keys (keys
 * shaped like bank balances: a prefix, a 20-byte address, a denom; 16-byte values) among the devnet's
 * other stores, on LevelDB, pruning on (the last `KEEP_RECENT` versions kept, so every measured commit
 * also prunes one version).
 *
 * `buildState` fills a database in its own process; `measureState` then runs in a fresh process and
 * measures what a node would see: the start-up (open, first read), the commit of a block of 100 and of
 * 1,000 changed keys (the writes into the tree, the working hash, the commit with its pruning), a proof
 * of a present and of an absent key (time and bytes), and the process's RSS (now and at its peak).
 */
import { createHash } from "node:crypto";
import { closeSync, fstatSync, openSync, readFileSync, readSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { KVStore } from "../../bindings/core/kv.js";
import { nodeSha256, openNodeCommitMultiStore } from "../../bindings/store/level-node.js";
import type { CommitMultiStore } from "../../bindings/store/rootmulti/store.js";

export const KEEP_RECENT = 100;
const STORE = "bank";
const OTHER_STORES = ["auth", "gov", "staking", "upgrade"];
const BUILD_BATCH = 20_000;

/** The i-th key: 0x02 ‖ a 20-byte address ‖ "stake" (a balance). */
export function stateKey(i: number): Uint8Array {
  const addr = createHash("sha256").update(`account ${i}`).digest().subarray(0, 20);
  const out = new Uint8Array(1 + 20 + 5);
  out[0] = 0x02;
  out.set(addr, 1);
  out.set(new TextEncoder().encode("stake"), 21);
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

export interface StateBuild {
  keys: number;
  heights: number;
  seconds: number;
  diskBytes: number;
}

/** The database and the sorted key list of a built state. */
export const dbDir = (dir: string) => join(dir, "db");
const keysFile = (dir: string) => join(dir, "keys.bin");
const KEY_SIZE = 26;

/** `n` keys of [0, n), in key order (clustered blocks write runs of them). */
class SortedKeys {
  private constructor(
    private readonly fd: number,
    readonly count: number,
  ) {}

  static write(dir: string, n: number): void {
    const keys = Array.from({ length: n }, (_, i) => stateKey(i));
    keys.sort((a, b) => Buffer.compare(a, b));
    const out = new Uint8Array(n * KEY_SIZE);
    keys.forEach((k, i) => out.set(k, i * KEY_SIZE));
    writeFileSync(keysFile(dir), out);
  }

  static open(dir: string): SortedKeys {
    const fd = openSync(keysFile(dir), "r");
    return new SortedKeys(fd, fstatSync(fd).size / KEY_SIZE);
  }

  /** `count` keys in a row from a random place. */
  run(rand: () => number, count: number): Uint8Array[] {
    const first = Math.floor(rand() * (this.count - count));
    const buf = new Uint8Array(count * KEY_SIZE);
    readSync(this.fd, buf, 0, buf.length, first * KEY_SIZE);
    return Array.from({ length: count }, (_, i) => buf.subarray(i * KEY_SIZE, (i + 1) * KEY_SIZE));
  }

  close(): void {
    closeSync(this.fd);
  }
}

/** The kinds of block a node commits here, in the order the build and the measurement cycle through them. */
export const BLOCKS = [
  { name: "spread100", changes: 100, clustered: false },
  { name: "spread1000", changes: 1000, clustered: false },
  { name: "clustered100", changes: 100, clustered: true },
  { name: "clustered1000", changes: 1000, clustered: true },
] as const;
export type BlockName = (typeof BLOCKS)[number]["name"];

/**
 * The writes of one block, made before it is timed: spread blocks change keys at random (80 % updates,
 * 10 % new keys, 10 % deletes), clustered blocks update a run of keys adjacent in key order.
 */
class Workload {
  private next: number;
  constructor(
    private readonly n: number,
    private readonly rand: () => number,
    private readonly sorted: SortedKeys,
    next = n,
  ) {
    this.next = next;
  }

  block(kind: (typeof BLOCKS)[number], height: number): (store: KVStore) => void {
    const sets: [Uint8Array, Uint8Array][] = [];
    const deletes: Uint8Array[] = [];
    if (kind.clustered) this.sorted.run(this.rand, kind.changes).forEach((k, c) => sets.push([k, value(c, height)]));
    else
      for (let c = 0; c < kind.changes; c++) {
        const r = this.rand();
        if (r < 0.8) sets.push([stateKey(Math.floor(this.rand() * this.n)), value(c, height)]);
        else if (r < 0.9) sets.push([stateKey(this.next++), value(c, height)]);
        else deletes.push(stateKey(Math.floor(this.rand() * this.n)));
      }
    return (store) => {
      for (const [k, v] of sets) store.set(k, v);
      for (const k of deletes) store.delete(k);
    };
  }
}

/** Versions the build ages the state by: every version the measurement prunes is one of these. */
const AGE_BLOCKS = Math.ceil((KEEP_RECENT + 2) / BLOCKS.length) * BLOCKS.length;

/**
 * Writes `n` keys into the app store, `BUILD_BATCH` per block (pruning as it goes), and a few keys into
 * the other stores; then ages the state by `AGE_BLOCKS` blocks of the measured kinds with `KEEP_RECENT`
 * versions kept, so that each measured commit prunes a version like itself, as on a node that has run
 * for a while.
 */
export async function buildState(dir: string, n: number): Promise<StateBuild> {
  const started = performance.now();
  SortedKeys.write(dir, n);
  let ms = await openNodeCommitMultiStore(dbDir(dir), { keepRecent: 1, sync: false });
  let h = 0;
  for (const s of OTHER_STORES) for (let i = 0; i < 20; i++) ms.store(s).set(new TextEncoder().encode(`${s} ${i}`), value(i, 0));
  for (let i = 0; i < n; ) {
    const store = ms.store(STORE);
    for (const end = Math.min(n, i + BUILD_BATCH); i < end; i++) store.set(stateKey(i), value(i, 0));
    await ms.commit(++h);
  }
  await ms.close();
  ms = await openNodeCommitMultiStore(dbDir(dir), { keepRecent: KEEP_RECENT, sync: false });
  const sorted = SortedKeys.open(dir);
  const work = new Workload(n, rng(n + 1), sorted, 2 * n);
  for (let b = 0; b < AGE_BLOCKS; b++) {
    work.block(BLOCKS[b % BLOCKS.length], h + 1)(ms.store(STORE));
    await ms.commit(++h);
  }
  sorted.close();
  await ms.close();
  return { keys: n, heights: h, seconds: (performance.now() - started) / 1000, diskBytes: await du(dbDir(dir)) };
}

async function du(dir: string): Promise<number> {
  const { readdir, stat } = await import("node:fs/promises");
  let total = 0;
  for (const f of await readdir(dir)) total += (await stat(`${dir}/${f}`)).size;
  return total;
}

export interface Dist {
  median: number;
  p90: number;
  max: number;
  samples: number;
}

function dist(xs: number[]): Dist {
  const s = [...xs].sort((a, b) => a - b);
  const at = (q: number) => s[Math.min(s.length - 1, Math.floor(q * s.length))];
  return { median: at(0.5), p90: at(0.9), max: s[s.length - 1], samples: s.length };
}

/** One kind of block, measured. */
export interface BlockMeasure {
  /** Writes into the tree + working hash + commit (with its pruning), ms: wall, and CPU of every thread. */
  ms: Dist;
  cpuMs: Dist;
  /** Per commit (medians): nodes written, hashes computed, nodes read from the database, nodes pruned. */
  written: number;
  hashed: number;
  read: number;
  pruned: number;
  /** The first block of this kind after start-up (before the warm-up blocks), ms wall and CPU. */
  coldMs: number;
  coldCpuMs: number;
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
}

/** A field of /proc/self/status in bytes (Linux), or undefined. */
function status(field: string): number | undefined {
  const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync("/proc/self/status", "utf8"));
  return m ? Number(m[1]) * 1024 : undefined;
}

/** Measures the database `buildState` made for `n` keys, in this (fresh) process. */
export async function measureState(dir: string, n: number, blocks: number, proofs: number, warmBlocks: number): Promise<StateMeasure> {
  let hashes = 0;
  const sha256 = (data: Uint8Array) => {
    hashes++;
    return nodeSha256(data);
  };
  const t0 = performance.now();
  const ms: CommitMultiStore = await openNodeCommitMultiStore(dbDir(dir), { keepRecent: KEEP_RECENT, sync: false, sha256 });
  const probe = ms.store(STORE).get(stateKey(Math.floor(n / 2)));
  const startupMs = performance.now() - t0;
  if (probe === undefined) throw new Error("the built state is missing a key");

  const sorted = SortedKeys.open(dir);
  const work = new Workload(n, rng(n), sorted);
  let h = Number(ms.lastCommittedHeight);
  interface Sample {
    ms: number;
    cpuMs: number;
    written: number;
    hashed: number;
    read: number;
    pruned: number;
  }
  const block = async (kind: (typeof BLOCKS)[number]): Promise<Sample> => {
    const writes = work.block(kind, h + 1);
    const before = ms.nodeStats;
    const hashed = hashes;
    const t = performance.now();
    const cpu = process.cpuUsage();
    writes(ms.store(STORE));
    ms.workingHash();
    await ms.commit(++h);
    const used = process.cpuUsage(cpu);
    const elapsed = performance.now() - t;
    const after = ms.nodeStats;
    return {
      ms: elapsed,
      cpuMs: (used.user + used.system) / 1000,
      written: after.written - before.written,
      hashed: hashes - hashed,
      read: after.read - before.read,
      pruned: after.pruned - before.pruned,
    };
  };
  const samples = Object.fromEntries(BLOCKS.map((b) => [b.name, [] as Sample[]])) as Record<BlockName, Sample[]>;
  const cold = {} as Record<BlockName, Sample>;
  for (const kind of BLOCKS) cold[kind.name] = await block(kind);
  for (let i = 0; i < warmBlocks; i++) await block(BLOCKS[i % BLOCKS.length]);
  // The kinds alternate, so that all of them see the same cache, compaction and pruning conditions.
  for (let i = 0; i < blocks; i++) for (const kind of BLOCKS) samples[kind.name].push(await block(kind));
  sorted.close();

  const view = ms.at(h)!;
  const present: number[] = [];
  const absent: number[] = [];
  let presentBytes = 0;
  let absentBytes = 0;
  const rand = rng(n + 2);
  for (let i = 0; i < proofs; i++) {
    const key = stateKey(Math.floor(rand() * n));
    let t = performance.now();
    const p = view.prove(STORE, key);
    const dt = performance.now() - t;
    const size = p.ops.reduce((s, o) => s + o.data.length + o.key.length + o.type.length, 0);
    if (p.value !== undefined) {
      present.push(dt);
      presentBytes = Math.max(presentBytes, size);
    }
    const missing = stateKey(n * 10 + i);
    t = performance.now();
    const q = view.prove(STORE, missing);
    absent.push(performance.now() - t);
    absentBytes = Math.max(absentBytes, q.ops.reduce((s, o) => s + o.data.length + o.key.length + o.type.length, 0));
  }
  const mem = process.memoryUsage();
  const peak = status("VmHWM") ?? mem.rss;
  const anon = status("RssAnon") ?? mem.rss;
  const file = status("RssFile") ?? 0;
  await ms.close();
  const med = (xs: number[]) => dist(xs).median;
  const measured = (name: BlockName): BlockMeasure => {
    const xs = samples[name];
    return {
      ms: dist(xs.map((x) => x.ms)),
      cpuMs: dist(xs.map((x) => x.cpuMs)),
      written: med(xs.map((x) => x.written)),
      hashed: med(xs.map((x) => x.hashed)),
      read: med(xs.map((x) => x.read)),
      pruned: med(xs.map((x) => x.pruned)),
      coldMs: cold[name].ms,
      coldCpuMs: cold[name].cpuMs,
    };
  };
  return {
    keys: n,
    startupMs,
    blocks: Object.fromEntries(BLOCKS.map((b) => [b.name, measured(b.name)])) as Record<BlockName, BlockMeasure>,
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
  };
}
