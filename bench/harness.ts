/**
 * A thin layer over tinybench. Each task runs a *batch* of `ops` calls per sample and reports the batch's
 * mean per call (tinybench's `overriddenDuration`): single calls of 20–200 ns are below what one timer
 * read can resolve, so a sample is a batch of ≥ ~10 µs. The median and p99 are over these batch means.
 * Untimed per-sample setup (e.g. scheduling the plan that the timed preBlock then applies) happens inside
 * `sample` outside its own clock; `overriddenIterationCost` keeps tinybench's time budget honest about it.
 */
import { Bench } from "tinybench";
import { config } from "./config.js";

export type Impl =
  | "wasm"
  | "js"
  | "cosmjs-types"
  | "bufbuild-reflect"
  | "bufbuild-wire"
  | "loader"
  | "wasm-raw"
  | "@confio/ics23"
  // bench/peers: xupgrade against the Go programs it replaces
  | "xupgrade"
  | "simd"
  | "cosmovisor";

export interface BenchTask {
  /** The case number in bench/README.md (1–10). */
  case: number;
  /** What is measured; the same id across implementations makes a comparison row. */
  id: string;
  impl: Impl;
  /** Calls per sample. */
  ops: number;
  /** Runs one sample and returns the measured nanoseconds for its `ops` calls. */
  sample: () => number | Promise<number>;
  async?: boolean;
}

export interface TaskResult {
  case: number;
  id: string;
  impl: Impl;
  /** Nanoseconds per call. */
  median: number;
  p99: number;
  mean: number;
  min: number;
  samples: number;
  opsPerSample: number;
}

/** Nanoseconds since an arbitrary origin, as a double (hrtime's bigint costs ~30 ns; fine for ≥10 µs samples). */
export function nowNs(): number {
  return performance.now() * 1e6;
}

/**
 * The timing loops are compiled anew for every task (new Function): closures made from one function
 * literal share V8's type feedback, so a shared loop would see every task's `fn` at its call site, turn
 * megamorphic and slow all tasks down unevenly (docs/spec/core.md §3 saw the same). A fresh
 * function per task keeps each loop's call site monomorphic.
 */
function compileLoop(async: boolean): (ops: number, fn: (i: number) => unknown, now: () => number) => () => unknown {
  const body = async
    ? "return async () => { const t0 = now(); for (let i = 0; i < ops; i++) await fn(i); return now() - t0; };"
    : "return () => { const t0 = now(); for (let i = 0; i < ops; i++) fn(i); return now() - t0; };";
  return new Function("ops", "fn", "now", body) as never;
}

/** A sync sample that times `ops` calls of `fn(i)`. */
export function timed(ops: number, fn: (i: number) => void): () => number {
  return compileLoop(false)(ops, fn, nowNs) as () => number;
}

/** An async sample that awaits `ops` calls of `fn(i)` one after another. */
export function timedAsync(ops: number, fn: (i: number) => Promise<unknown>): () => Promise<number> {
  return compileLoop(true)(ops, fn, nowNs) as () => Promise<number>;
}

const gc = (globalThis as { gc?: () => void }).gc;

/** Linear-interpolated quantile of ascending samples. */
function quantile(sorted: number[], q: number): number {
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (at - lo);
}

/**
 * Runs a group side by side: tinybench twice with half the time budget each, first in the given order,
 * then reversed (A B … B A), so neither implementation always runs on the heap and JIT state the other
 * left behind; a full GC (with --expose-gc) before each task's warm-up and run. Statistics are over the
 * pooled samples of both rounds.
 */
export async function runGroup(tasks: BenchTask[]): Promise<TaskResult[]> {
  const samples = tasks.map(() => [] as number[]);
  for (const order of [tasks.map((_, i) => i), tasks.map((_, i) => tasks.length - 1 - i)]) {
    const bench = new Bench({
      time: config.time / 2,
      warmupTime: config.warmupTime,
      iterations: Math.ceil(config.iterations / 2),
      warmupIterations: config.warmupIterations,
      retainSamples: true,
      throws: true,
    });
    for (const i of order) {
      const t = tasks[i];
      const name = `${t.id} [${t.impl}]`;
      const hooks = { beforeAll: () => gc?.(), retainSamples: true };
      if (t.async) {
        bench.add(
          name,
          async () => {
            const t0 = nowNs();
            const ns = await t.sample();
            return { overriddenDuration: ns / 1e6 / t.ops, overriddenIterationCost: (nowNs() - t0) / 1e6 };
          },
          { ...hooks, async: true },
        );
      } else {
        bench.add(
          name,
          () => {
            const t0 = nowNs();
            const ns = t.sample() as number;
            return { overriddenDuration: ns / 1e6 / t.ops, overriddenIterationCost: (nowNs() - t0) / 1e6 };
          },
          { ...hooks, async: false },
        );
      }
    }
    await bench.run();
    order.forEach((i, k) => {
      const task = bench.tasks[k];
      const r = task.result;
      if (r.state !== "completed") throw new Error(`${task.name}: ${r.state}${"error" in r ? `: ${String(r.error)}` : ""}`);
      for (const ms of r.latency.samples ?? []) samples[i].push(ms * 1e6);
    });
  }
  return tasks.map((t, i) => {
    const sorted = samples[i].sort((a, b) => a - b);
    return {
      case: t.case,
      id: t.id,
      impl: t.impl,
      median: quantile(sorted, 0.5),
      p99: quantile(sorted, 0.99),
      mean: sorted.reduce((a, b) => a + b, 0) / sorted.length,
      min: sorted[0],
      samples: sorted.length,
      opsPerSample: t.ops,
    };
  });
}

/** Human-readable duration from nanoseconds. */
export function fmtNs(ns: number): string {
  if (ns < 1_000) return `${ns.toFixed(ns < 100 ? 1 : 0)} ns`;
  if (ns < 1_000_000) return `${(ns / 1_000).toFixed(ns < 10_000 ? 2 : 1)} µs`;
  return `${(ns / 1_000_000).toFixed(2)} ms`;
}
