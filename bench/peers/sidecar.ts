/**
 * Case 3, the sidecar: `xupgrade visor` against cosmovisor v1.5.0 on the same real upgrade, from simd v0.47's halt
 * at `v047-to-v050` to simd v0.50's first block, and from appd v0.50's halt at `v050-to-v053` to appd v0.53's
 * (our own app, SDK v0.50.15 → v0.53.8, test/peers/app). This is a slot: the harness that drives the upgrade under either
 * supervisor and times it is the interop suites' (test/interop/support/upgrade-run.ts, supervisedSimdUpgrade),
 * and is called here as it is, for both of its variants: "download" (Plan.Info names simd v0.50's tarball on
 * loopback: both supervisors back up data/, download, verify, unpack, switch, start) and "staged" (simd v0.50
 * added under `upgrades/<name>/bin` before the start, an empty Plan.Info: the same pipeline without the
 * download). Each run also reads the supervisor process's own peak resident set (VmHWM, its nodes not
 * included) just before it is stopped, and its resident set in each step (idle supervising, downloading,
 * extracting, backing up: the harness's stepMemory); the medians of each variant's runs are compared.
 * The visor runs as an operator runs it: the package's bin (dist/apps/cli/xupgrade.cjs, built by
 * `npm run bench:peers`), its launcher and its V8 flags included.
 */
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { log, median } from "./util.js";

const HARNESS = "../../test/interop/support/upgrade-run.js";
const RELEASE = "../../test/interop/support/release.js";
const BIN = fileURLToPath(new URL("../../dist/apps/cli/xupgrade.cjs", import.meta.url));

/** The steps whose resident set is compared (the harness's UpgradeStep, "after" left out: the new node supervised). */
export const STEPS = ["idle", "download", "extract", "backup"] as const;
export type Step = (typeof STEPS)[number];

export type SupervisorName = "xupgrade-visor" | "cosmovisor";

export interface SidecarVariant {
  /** `download` and `staged`: simd v0.47 → v0.50; `appd v0.50 → v0.53`: our app across SDK lines (download). */
  variant: "download" | "staged" | "appd v0.50 → v0.53";
  status: "measured" | "pending" | "skipped";
  reason?: string;
  runs?: {
    supervisor: SupervisorName;
    haltToNewBinaryStart: number;
    haltToUpgradeBlock: number;
    haltToFirstNewBlock: number;
    peakRssMiB: number | undefined;
    /** The supervisor's resident set in each step it went through, MiB (peak inside the step). */
    stepsMiB?: Partial<Record<Step | "after", number>>;
  }[];
  /** Medians, ms. */
  xupgrade?: { haltToNewBinaryStart: number; haltToFirstNewBlock: number };
  cosmovisor?: { haltToNewBinaryStart: number; haltToFirstNewBlock: number };
  /** xupgrade visor ÷ cosmovisor, halt → first new block (target ≤ 1). */
  ratio?: number;
  /** Peak resident set of the supervisor process, MiB (medians), or why it was not read. */
  peakMemory?: SidecarMemory;
  /** Each step's resident set, medians of the runs, MiB (a step a supervisor has not: absent). */
  stepMemory?: { xupgrade: Partial<Record<Step, number>>; cosmovisor: Partial<Record<Step, number>> };
  /** The 1-, 5- and 15-minute load averages when the variant started and when it ended. */
  load?: { start: number[]; end: number[] };
}

export type SidecarMemory =
  { status: "measured"; xupgrade: number; cosmovisor: number; ratio: number; samples: number } | { status: "pending" | "skipped"; reason: string };

export interface SidecarResult {
  harness: string;
  /** What ran as `xupgrade visor`: the package's bin, or the tests' transpiled CLI when there is no build. */
  visor?: string;
  variants: SidecarVariant[];
}

export function sidecarPending(reason: string): SidecarResult {
  return {
    harness: "test/interop/support/upgrade-run.ts",
    variants: [
      { variant: "download", status: "skipped", reason },
      { variant: "staged", status: "skipped", reason },
      { variant: "appd v0.50 → v0.53", status: "skipped", reason },
    ],
  };
}

/** Each step's median over one supervisor's runs. */
function stepMedians(runs: NonNullable<SidecarVariant["runs"]>, s: SupervisorName): Partial<Record<Step, number>> {
  const out: Partial<Record<Step, number>> = {};
  for (const step of STEPS) {
    const v = runs.filter((r) => r.supervisor === s && r.stepsMiB?.[step] !== undefined).map((r) => r.stepsMiB![step]!);
    if (v.length > 0) out[step] = median(v);
  }
  return out;
}

/** The medians of the peak RSS read in one variant's runs, or why there are none. */
function peakMemory(runs: NonNullable<SidecarVariant["runs"]>): SidecarMemory {
  const of = (s: SupervisorName) => runs.filter((r) => r.supervisor === s && r.peakRssMiB !== undefined).map((r) => r.peakRssMiB!);
  const x = of("xupgrade-visor");
  const c = of("cosmovisor");
  if (x.length === 0 || c.length === 0) return { status: "pending", reason: "no /proc/<pid>/status to read VmHWM from on this system" };
  const xm = median(x);
  const cm = median(c);
  return { status: "measured", xupgrade: xm, cosmovisor: cm, ratio: xm / cm, samples: Math.min(x.length, c.length) };
}

export async function sidecarCase(
  peers: { simd047: string; simd050: string; cosmovisor: string; app050?: string; app053?: string },
  runs: number,
): Promise<SidecarResult> {
  if (!existsSync(fileURLToPath(new URL(HARNESS.replace(/\.js$/, ".ts"), import.meta.url)))) {
    return sidecarPending("pending: test/interop/support/upgrade-run.ts (the interop colleague's harness) is not in this checkout");
  }
  const harness = (await import(HARNESS)) as typeof import("../../test/interop/support/upgrade-run.js");
  const { serveRelease } = (await import(RELEASE)) as typeof import("../../test/interop/support/release.js");
  if (typeof harness.supervisedSimdUpgrade !== "function") return sidecarPending("pending: upgrade-run.ts has no supervisedSimdUpgrade()");

  const release = await serveRelease(peers.simd050, { name: "simd", label: "simd-v0.50.15" });
  // appd v0.50 → v0.53 (`v050-to-v053`), our own app across SDK lines: the same pipeline with SDK v0.53's binary.
  const app = peers.app050 && peers.app053 ? { old: peers.app050, new: peers.app053, name: "v050-to-v053", daemon: "appd" } : undefined;
  const appRelease = app ? await serveRelease(app.new, { name: "appd", label: "appd-v0.53.8" }) : undefined;
  const variants: SidecarVariant[] = [];
  const visorBin = existsSync(BIN) ? BIN : undefined;
  const load = () => loadavg().map((l) => +l.toFixed(2));
  try {
    for (const variant of ["download", "staged", "appd v0.50 → v0.53"] as const) {
      if (variant === "appd v0.50 → v0.53" && !app) {
        variants.push({ variant, status: "skipped", reason: "appd v0.50/v0.53 not built (npm run peers -- --only app-v050,app-v053)" });
        continue;
      }
      const measured: NonNullable<SidecarVariant["runs"]> = [];
      const loadAtStart = load();
      for (let i = 0; i < runs; i++) {
        const order: SupervisorName[] = i % 2 ? ["cosmovisor", "xupgrade-visor"] : ["xupgrade-visor", "cosmovisor"];
        for (const supervisor of order) {
          const r = await harness.supervisedSimdUpgrade(
            variant === "staged"
              ? { supervisor, peers, staged: true, visorBin }
              : variant === "download"
                ? { supervisor, peers, release, visorBin }
                : { supervisor, peers, pair: app, release: appRelease, visorBin },
          );
          measured.push({
            supervisor,
            haltToNewBinaryStart: r.haltToNewBinaryStart,
            haltToUpgradeBlock: r.haltToUpgradeBlock,
            haltToFirstNewBlock: r.haltToFirstNewBlock,
            peakRssMiB: r.supervisorPeakRssMiB,
            stepsMiB: r.supervisorStepsMiB,
          });
          const steps = r.supervisorStepsMiB
            ? Object.entries(r.supervisorStepsMiB)
                .map(([k, v]) => `${k} ${v}`)
                .join(", ")
            : "?";
          log(
            `  ${variant}, ${supervisor} (run ${i + 1}/${runs}): halt → new binary ${r.haltToNewBinaryStart} ms, → first new block ${r.haltToFirstNewBlock} ms, peak RSS ${r.supervisorPeakRssMiB ?? "?"} MiB (${steps})`,
          );
        }
      }
      const med = (s: SupervisorName) => {
        const rs = measured.filter((r) => r.supervisor === s);
        return { haltToNewBinaryStart: median(rs.map((r) => r.haltToNewBinaryStart)), haltToFirstNewBlock: median(rs.map((r) => r.haltToFirstNewBlock)) };
      };
      const x = med("xupgrade-visor");
      const c = med("cosmovisor");
      variants.push({
        variant,
        status: "measured",
        runs: measured,
        xupgrade: x,
        cosmovisor: c,
        ratio: x.haltToFirstNewBlock / c.haltToFirstNewBlock,
        peakMemory: peakMemory(measured),
        stepMemory: { xupgrade: stepMedians(measured, "xupgrade-visor"), cosmovisor: stepMedians(measured, "cosmovisor") },
        load: { start: loadAtStart, end: load() },
      });
    }
  } finally {
    await release.close();
    await appRelease?.close();
    // The harness runs the CLI transpiled into node_modules/.cache and keeps temporary homes: remove them.
    const helpers = await import("../../test/apps/cli/helpers.js");
    helpers.removeTempDirs();
  }
  return {
    harness: "test/interop/support/upgrade-run.ts",
    visor: visorBin ? "dist/apps/cli/xupgrade.cjs (the package's bin)" : "the tests' transpiled CLI (no build)",
    variants,
  };
}
