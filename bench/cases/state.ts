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
import { readFileSync } from "node:fs";
import { openNodeCommitMultiStore } from "../../bindings/store/level-node.js";
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

/** Writes `n` keys into the app store, `BUILD_BATCH` per block, and a few keys into the other stores. */
export async function buildState(dir: string, n: number): Promise<StateBuild> {
  const started = performance.now();
  const ms = await openNodeCommitMultiStore(dir, { keepRecent: KEEP_RECENT, sync: false });
  let h = 0;
  for (const s of OTHER_STORES) for (let i = 0; i < 20; i++) ms.store(s).set(new TextEncoder().encode(`${s} ${i}`), value(i, 0));
  for (let i = 0; i < n; ) {
    const store = ms.store(STORE);
    for (const end = Math.min(n, i + BUILD_BATCH); i < end; i++) store.set(stateKey(i), value(i, 0));
    await ms.commit(++h);
  }
  await ms.close();
  return { keys: n, heights: h, seconds: (performance.now() - started) / 1000, diskBytes: await du(dir) };
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

export interface StateMeasure {
  keys: number;
  /** Open and first read of the app store, ms. */
  startupMs: number;
  /** Blocks of 100 / 1,000 changed keys: writes + working hash + commit (with pruning), ms. */
  commit100Ms: Dist;
  commit1000Ms: Dist;
  /** The same, CPU time of the process (every thread): less sensitive to a busy machine. */
  commit100CpuMs: Dist;
  commit1000CpuMs: Dist;
  /** `/store/bank/key` proofs at the latest height: both ProofOps, ms and bytes. */
  proofPresentMs: Dist;
  proofAbsentMs: Dist;
  proofPresentBytes: number;
  proofAbsentBytes: number;
  /** The process's resident memory after the run, and its peak (VmHWM), MiB. */
  rssMiB: number;
  peakRssMiB: number;
  /**
   * Of the RSS at the end: anonymous memory (the JS heap, the node cache, LevelDB's block cache) and
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
export async function measureState(dir: string, n: number, blocks: number, proofs: number): Promise<StateMeasure> {
  const t0 = performance.now();
  const ms: CommitMultiStore = await openNodeCommitMultiStore(dir, { keepRecent: KEEP_RECENT, sync: false });
  const probe = ms.store(STORE).get(stateKey(Math.floor(n / 2)));
  const startupMs = performance.now() - t0;
  if (probe === undefined) throw new Error("the built state is missing a key");

  const rand = rng(n);
  let h = Number(ms.lastCommittedHeight);
  let next = n;
  const block = async (changes: number): Promise<[number, number]> => {
    const t = performance.now();
    const cpu = process.cpuUsage();
    const store = ms.store(STORE);
    for (let c = 0; c < changes; c++) {
      const r = rand();
      // 80 % updates of existing keys, 10 % new keys, 10 % deletes (of keys that exist).
      if (r < 0.8) store.set(stateKey(Math.floor(rand() * n)), value(c, h + 1));
      else if (r < 0.9) store.set(stateKey(next++), value(c, h + 1));
      else store.delete(stateKey(Math.floor(rand() * n)));
    }
    ms.workingHash();
    await ms.commit(++h);
    const used = process.cpuUsage(cpu);
    return [performance.now() - t, (used.user + used.system) / 1000];
  };
  const commit100: number[] = [];
  const commit1000: number[] = [];
  const cpu100: number[] = [];
  const cpu1000: number[] = [];
  for (let i = 0; i < blocks; i++) {
    // Alternated, so that both sizes see the same cache and pruning conditions.
    const [a, ca] = await block(100);
    const [b, cb] = await block(1000);
    commit100.push(a);
    cpu100.push(ca);
    commit1000.push(b);
    cpu1000.push(cb);
  }

  const view = ms.at(h)!;
  const present: number[] = [];
  const absent: number[] = [];
  let presentBytes = 0;
  let absentBytes = 0;
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
  return {
    keys: n,
    startupMs,
    commit100Ms: dist(commit100),
    commit1000Ms: dist(commit1000),
    commit100CpuMs: dist(cpu100),
    commit1000CpuMs: dist(cpu1000),
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
