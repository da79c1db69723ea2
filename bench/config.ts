/**
 * Run-wide settings. Full mode takes ~2–3 minutes on a 2-core VM; quick mode (`--quick` or BENCH_QUICK=1)
 * runs every case with a few iterations, only to prove that the bench still works (CI smoke run).
 */
export const QUICK = process.argv.includes("--quick") || /^(1|true|yes)$/i.test(process.env.BENCH_QUICK ?? "");
/** `--only state`: run case 11 (the node's state) alone. */
export const ONLY_STATE = process.argv.includes("--only") && process.argv[process.argv.indexOf("--only") + 1] === "state";
/** `--only light`: run case 12 (the light client) alone. */
export const ONLY_LIGHT = process.argv.includes("--only") && process.argv[process.argv.indexOf("--only") + 1] === "light";

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
      /** Case 11: keys in the app store, measured blocks of each kind, warm-up blocks, proofs of each kind. */
      stateSizes: [1_000], // one size proves the harness; the growth from size to size is a full run's
      stateBlocks: 3,
      stateWarmBlocks: 4,
      stateProofs: 10,
    }
  : {
      time: 600,
      warmupTime: 100,
      iterations: 20,
      warmupIterations: 10,
      memoryPreBlocks: 1_000_000,
      memoryCycles: 100_000,
      coldRuns: 5,
      stateSizes: [10_000, 100_000, 1_000_000],
      stateBlocks: 30,
      stateWarmBlocks: 40,
      stateProofs: 200,
    };
