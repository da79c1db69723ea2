/**
 * Run-wide settings. Full mode takes ~2–3 minutes on a 2-core VM; quick mode (`--quick` or BENCH_QUICK=1)
 * runs every case with a few iterations, only to prove that the bench still works (CI smoke run).
 */
export const QUICK = process.argv.includes("--quick") || /^(1|true|yes)$/i.test(process.env.BENCH_QUICK ?? "");

export const config = QUICK
  ? {
      /** tinybench time budget per task (ms) and its warm-up. */
      time: 15,
      warmupTime: 5,
      iterations: 3,
      warmupIterations: 1,
      /** Case 8: preBlock calls and schedule/apply cycles. */
      memoryPreBlocks: 10_000,
      memoryCycles: 1_000,
      /** Case 7: fresh processes per loading mode. */
      coldRuns: 1,
    }
  : {
      time: 600,
      warmupTime: 100,
      iterations: 20,
      warmupIterations: 10,
      memoryPreBlocks: 1_000_000,
      memoryCycles: 100_000,
      coldRuns: 5,
    };
