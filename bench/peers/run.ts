/**
 * `npm run bench:peers` (`-- --quick` or BENCH_QUICK=1 for the CI smoke run): xupgrade against the Go programs
 * users would run instead, each case side by side in one run, the figure a ratio xupgrade/peer:
 *   1. CLI cold start (cli.ts): `xupgrade query upgrade …` against `simd query upgrade …`, same node;
 *   2. query services (services.ts): REST and gRPC, req/s and latency, xupgrade's servers against simd v0.50's;
 *   3. sidecar (sidecar.ts): `xupgrade visor` against cosmovisor, through the interop suites' harness.
 * The peers come from `npm run peers` (simd v0.47 and v0.50, cosmovisor, ghz). A full run writes
 * bench/peers/results.json, bench/peers/results.svg and the table in bench/README.md; a quick run writes
 * bench/out/peers/ and proves only that every case still runs (without peers: xupgrade's side alone).
 * `--report` writes the table and the chart again from bench/peers/results.json (no measuring).
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import { fileURLToPath } from "node:url";
import { renderChart } from "../chart.js";
import type { Row } from "../report.js";
import { COSMOVISOR_VERSION, GHZ_VERSION, SDK_V047_VERSION, SDK_V050_VERSION, missingPeerReason, peerBinaries } from "../../scripts/peers/paths.mjs";
import { EXTRA_CA_CERTS, XUPGRADE_BIN, cliCase, cliCommands, meter, queryBundleCheck, stageQueryBin, type CliRow, type CliStat } from "./cli.js";
import { checkSameAnswers, endpoints, restClientCeiling, servicesCase, startXupgradeServer, type ServerState, type ServicesSummary } from "./services.js";
import { sidecarCase, sidecarPending, STEPS, type SidecarResult } from "./sidecar.js";
import { APPLIED_NAME, startSimdChain, type SimdChain } from "./simd.js";
import { log, pinning } from "./util.js";

const QUICK = process.argv.includes("--quick") || /^(1|true|yes)$/i.test(process.env.BENCH_QUICK ?? "");
const started = performance.now();
const here = (p: string) => fileURLToPath(new URL(p, import.meta.url));
const outDir = QUICK ? here("../out/peers/") : here("./");

const config = QUICK
  ? { cliRuns: 2, cliWarmup: 1, services: { concurrencies: [16], seconds: 0.5, warmupSeconds: 0, rounds: 1 }, ceilingSeconds: 0, sidecarRuns: 0 }
  : {
      cliRuns: 30,
      cliWarmup: 3,
      services: { concurrencies: [1, 16, 64], seconds: 1.5, warmupSeconds: 1, rounds: 3 },
      ceilingSeconds: 1.5,
      sidecarRuns: Math.max(0, Number(process.env.BENCH_PEERS_SIDECAR_RUNS ?? 1)),
    };

// `--report`: the table and the chart again from bench/peers/results.json, measuring nothing.
if (process.argv.includes("--report")) {
  const r = JSON.parse(readFileSync(here("./results.json"), "utf8"));
  writeFileSync(here("./results.svg"), chart(r.cli.rows, r.cli.floor.wallMedian, r.cli.runs, r.services.summary, r.sidecar, r.targets, r.meta));
  const table = markdown(r.cli.rows, r.cli.floor, r.cli.floorWithoutExtraCa, r.services.summary, r.sidecar);
  updateReadme(table, r.meta);
  console.log(table);
  process.exit(0);
}

// ---- peers ------------------------------------------------------------------------------------------------
const bins = peerBinaries();
const missing = (["simd-v047", "simd-v050", "cosmovisor", "ghz"] as const).map((k) => missingPeerReason(k)).filter((r): r is string => r !== undefined);
if (missing.length > 0 && !QUICK) {
  log(
    `bench:peers measures xupgrade against real peers built from the Go module proxy, and some are not built:\n  ${missing.join("\n  ")}\nRun \`npm run peers\` (Go ≥ 1.22.11; a few minutes the first time), then \`npm run bench:peers\` again.`,
  );
  process.exit(1);
}
if (!existsSync(XUPGRADE_BIN)) {
  log(`bench:peers: ${XUPGRADE_BIN} is missing: run \`npm run build\` first (\`npm run bench:peers\` does)`);
  process.exit(1);
}
const haveSimd = Boolean(bins.simd047 && bins.simd050);
if (missing.length > 0)
  log(`bench:peers --quick: peers missing, so only xupgrade's side runs (no ratios):\n  ${missing.join("\n  ")}\n  (\`npm run peers\` builds them)`);

const cpus = os.cpus();
const pin = pinning(cpus.length);
const m = meter();
log(
  `xupgrade bench:peers${QUICK ? " (quick)" : ""} on ${cpus[0]?.model ?? "?"} ×${cpus.length}, Node ${process.version}; ${pin?.note ?? "no CPU pinning (taskset missing or one core)"}; CLI meter: ${m}`,
);

// ---- the comparison node and xupgrade's servers on its state -----------------------------------------------
let chain: SimdChain | undefined;
let state: ServerState;
if (haveSimd) {
  log("simd: v0.47 chain → v047-to-v050 under simd v0.50 → next plan scheduled (~20 s) …");
  chain = await startSimdChain(bins.simd047!, bins.simd050!, { prefix: pin?.server });
  log(
    `  ready in ${chain.setupSeconds} s: applied ${APPLIED_NAME} at ${chain.appliedHeight}, plan ${chain.plan.name} at ${chain.plan.height}, ${chain.moduleVersions.length} module versions`,
  );
  const status = (await (await fetch(`${chain.rpc}/status`)).json()) as { result: { sync_info: { latest_block_height: string } } };
  state = {
    backend: "wasm",
    height: Number(status.result.sync_info.latest_block_height),
    applied: { name: APPLIED_NAME, height: chain.appliedHeight },
    plan: chain.plan,
    moduleVersions: chain.moduleVersions,
  };
} else {
  state = {
    backend: "wasm",
    height: 120,
    applied: { name: APPLIED_NAME, height: 55 },
    plan: { name: "v050-to-v053", height: "10000000", info: '{"binaries":{}}' },
    moduleVersions: [
      { name: "auth", version: "5" },
      { name: "bank", version: "4" },
      { name: "upgrade", version: "2" },
    ],
  };
}
const staged = stageQueryBin();
const xs = await startXupgradeServer(state, pin).catch(async (e: unknown) => {
  await chain?.stop();
  staged.remove();
  throw e;
});
const results: Record<string, unknown> = {};

try {
  // ---- 1. CLI cold start ------------------------------------------------------------------------------------
  log(`1. CLI cold start (${config.cliRuns} runs each, alternating, after ${config.cliWarmup} warm-up):`);
  const bundle = queryBundleCheck(staged.bundle);
  if (!bundle.ok) throw new Error(`the query bundle requires more than Node's built-ins: ${bundle.requires.join(", ")}`);
  log(
    `  the query bundle (${(bundle.bytes / 1024).toFixed(0)} KB, code cache ${bundle.cacheBytes ? `${(bundle.cacheBytes / 1024).toFixed(0)} KB` : "missing"}) requires only ${bundle.requires.join(", ")}`,
  );
  const cmds = cliCommands(staged.bin, chain?.node ?? xs.rpc, chain?.simd, APPLIED_NAME);
  const cli = cliCase(cmds, m, config.cliRuns, config.cliWarmup);
  log(`  node -e 0: ${cli.floor.wallMedian.toFixed(0)} ms, ${cli.floor.rssMedian?.toFixed(0) ?? "–"} MiB (Node's own floor)`);
  if (cli.floorWithoutExtraCa) log(`  node -e 0 without NODE_EXTRA_CA_CERTS (set here): ${cli.floorWithoutExtraCa.wallMedian.toFixed(0)} ms`);
  results.cli = {
    meter: m,
    runs: config.cliRuns,
    warmup: config.cliWarmup,
    bin: "dist/apps/cli/xupgrade.cjs",
    queryBundle: bundle,
    nodeExtraCaCerts: EXTRA_CA_CERTS,
    floor: cli.floor,
    floorWithoutExtraCa: cli.floorWithoutExtraCa,
    rows: cli.rows,
    raw: cli.raw,
  };

  // ---- 2. query services ------------------------------------------------------------------------------------
  log(`2. query services (${config.services.rounds} rounds of ${config.services.seconds} s per side, concurrency ${config.services.concurrencies.join("/")}):`);
  const eps = endpoints(APPLIED_NAME);
  const sameAnswers = chain ? await checkSameAnswers(eps, xs, { rest: chain.rest, grpc: chain.grpc }) : [];
  for (const a of sameAnswers.filter((x) => !x.same)) log(`  NOTE ${a.protocol} ${a.endpoint}: the answers differ: ${a.detail}`);
  const ceiling = config.ceilingSeconds > 0 ? await restClientCeiling(pin, Math.max(...config.services.concurrencies), config.ceilingSeconds) : undefined;
  if (ceiling) log(`  autocannon's own ceiling (a server that answers at once): ${ceiling.toFixed(0)} req/s`);
  if (!bins.ghz) log("  gRPC: skipped (ghz is not built: `npm run peers -- --only ghz`)");
  const services = await servicesCase({ x: xs, s: chain && { rest: chain.rest, grpc: chain.grpc }, ghz: bins.ghz, pin }, eps, config.services);
  results.services = { config: config.services, sameAnswers, restClientCeiling: ceiling, summary: services.summary, runs: services.runs };

  // ---- 3. sidecar -------------------------------------------------------------------------------------------
  let sidecar: SidecarResult;
  if (config.sidecarRuns === 0 || !bins.cosmovisor || !haveSimd) {
    sidecar = sidecarPending(
      QUICK
        ? "not run in --quick (a real upgrade per supervisor takes ~1 min)"
        : !haveSimd || !bins.cosmovisor
          ? "peers missing"
          : "BENCH_PEERS_SIDECAR_RUNS=0",
    );
    log(`3. sidecar: ${sidecar.variants[0].reason}`);
  } else {
    log(`3. sidecar (${config.sidecarRuns} run(s) per supervisor and variant: simd download and staged, appd v0.50 → v0.53; the interop harness):`);
    sidecar = await sidecarCase(
      { simd047: bins.simd047!, simd050: bins.simd050!, cosmovisor: bins.cosmovisor, app050: bins.app050, app053: bins.app053 },
      config.sidecarRuns,
    );
  }
  for (const v of sidecar.variants.filter((v) => v.status !== "measured")) log(`  ${v.variant}: ${v.status}: ${v.reason}`);
  for (const v of sidecar.variants) {
    const mem = v.peakMemory;
    if (mem === undefined) continue;
    log(
      mem.status === "measured"
        ? `  ${v.variant}: peak RSS of the supervisor (median of ${mem.samples}): xupgrade visor ${mem.xupgrade} MiB, cosmovisor ${mem.cosmovisor} MiB (${mem.ratio.toFixed(2)})`
        : `  ${v.variant}: peak RSS: ${mem.status}: ${mem.reason}`,
    );
  }
  results.sidecar = sidecar;

  // ---- targets, files ---------------------------------------------------------------------------------------
  const targets = checkTargets(cli.rows, services.summary, sidecar);
  const meta = {
    date: new Date().toISOString(),
    quick: QUICK,
    node: process.version,
    v8: process.versions.v8,
    os: `${os.type()} ${os.release()} ${os.arch()}`,
    cpu: { model: cpus[0]?.model ?? "unknown", cores: cpus.length },
    memoryGiB: +(os.totalmem() / 2 ** 30).toFixed(1),
    loadAverageAtStart: os.loadavg().map((l) => +l.toFixed(2)),
    peers: {
      simd: chain ? `${SDK_V047_VERSION} → ${SDK_V050_VERSION}` : null,
      ghz: bins.ghz ? GHZ_VERSION : null,
      cosmovisor: bins.cosmovisor ? COSMOVISOR_VERSION : null,
    },
    autocannon: JSON.parse(readFileSync(here("../../node_modules/autocannon/package.json"), "utf8")).version as string,
    pinning: pin?.note ?? "none",
    simdSetupSeconds: chain?.setupSeconds,
  };
  const seconds = +((performance.now() - started) / 1000).toFixed(1);
  mkdirSync(outDir, { recursive: true });
  writeFileSync(`${outDir}results.json`, `${JSON.stringify({ meta, targets, ...results, seconds }, null, 2)}\n`);
  writeFileSync(`${outDir}results.svg`, chart(cli.rows, cli.floor.wallMedian, config.cliRuns, services.summary, sidecar, targets, meta));
  const table = markdown(cli.rows, cli.floor, cli.floorWithoutExtraCa, services.summary, sidecar);
  if (!QUICK) updateReadme(table, meta);
  console.log(table);
  for (const t of targets) console.log(`${t.met === undefined ? "PENDING" : t.met ? "MET    " : "MISSED "} ${t.target}: ${t.detail}`);
  log(`wrote ${outDir}results.json and results.svg in ${seconds} s`);
} finally {
  await xs.stop();
  await chain?.stop();
  staged.remove();
}

// ---- report -------------------------------------------------------------------------------------------------
interface Target {
  target: string;
  /** undefined: pending (not measured). */
  met?: boolean;
  detail: string;
}

function checkTargets(cli: CliRow[], services: ServicesSummary[], sidecar: SidecarResult): Target[] {
  const t: Target[] = [];
  const x = (v: number) => v.toFixed(2);
  const cliRatios = cli.filter((r) => r.wallRatio !== undefined);
  t.push({
    target: "CLI: xupgrade/simd wall time ≤ 1.0 for every query command",
    met: cliRatios.length ? cliRatios.every((r) => r.wallRatio! <= 1) : undefined,
    detail: cliRatios.length ? cliRatios.map((r) => `${r.id} ${x(r.wallRatio!)}`).join(", ") : "no simd",
  });
  for (const p of ["rest", "grpc"] as const) {
    const rows = services.filter((s) => s.protocol === p && s.rpsRatio !== undefined);
    const bad = rows.filter((s) => s.rpsRatio! < 1 || s.p99Ratio! > 1);
    t.push({
      target: `Services (${p === "rest" ? "REST" : "gRPC"}): req/s ≥ simd's and p99 ≤ simd's at every concurrency`,
      met: rows.length ? bad.length === 0 : undefined,
      detail: rows.length
        ? bad.length === 0
          ? `req/s ×${x(Math.min(...rows.map((r) => r.rpsRatio!)))}–${x(Math.max(...rows.map((r) => r.rpsRatio!)))}, p99 ratio ${x(Math.min(...rows.map((r) => r.p99Ratio!)))}–${x(Math.max(...rows.map((r) => r.p99Ratio!)))}`
          : `missed: ${bad.map((s) => `${s.endpoint} c=${s.concurrency} (req/s ×${x(s.rpsRatio!)}, p99 ${x(s.p99Ratio!)})`).join("; ")}`
        : "not measured",
    });
  }
  for (const v of sidecar.variants) {
    t.push({
      target: `Sidecar (${v.variant}): halt → first new block ≤ cosmovisor's`,
      met: v.status === "measured" ? v.ratio! <= 1 : undefined,
      detail:
        v.status === "measured"
          ? `xupgrade visor ${v.xupgrade!.haltToFirstNewBlock} ms, cosmovisor ${v.cosmovisor!.haltToFirstNewBlock} ms (ratio ${x(v.ratio!)})`
          : `${v.status}: ${v.reason}`,
    });
  }
  // The visor's peak RSS ≤ 1.2× cosmovisor's staged, ≤ 1.5× when it downloads (the appd upgrade downloads too).
  for (const v of sidecar.variants) {
    const limit = v.variant === "staged" ? 1.2 : 1.5;
    const mem = v.peakMemory;
    t.push({
      target: `Sidecar (${v.variant}): the visor's peak RSS ≤ ${limit}× cosmovisor's`,
      met: mem?.status === "measured" ? mem.ratio <= limit : undefined,
      detail:
        mem?.status === "measured"
          ? `xupgrade visor ${mem.xupgrade.toFixed(1)} MiB, cosmovisor ${mem.cosmovisor.toFixed(1)} MiB (ratio ${x(mem.ratio)})`
          : (mem?.reason ?? `${v.status}: ${v.reason}`),
    });
  }
  return t;
}

function ms(v: number | undefined, d = 0): string {
  return v === undefined || Number.isNaN(v) ? "–" : `${v.toFixed(d)} ms`;
}
function mib(v: number | undefined): string {
  return v === undefined ? "–" : `${v.toFixed(0)} MiB`;
}
function ratio(v: number | undefined): string {
  return v === undefined ? "–" : `**${v.toFixed(2)}**`;
}

function markdown(cli: CliRow[], floor: CliStat, floorWithoutExtraCa: CliStat | undefined, services: ServicesSummary[], sidecar: SidecarResult): string {
  const lines: string[] = [];
  lines.push("| CLI, whole process | xupgrade median / p99 | simd median / p99 | xupgrade/simd | peak RSS xupgrade / simd |", "|---|---|---|---|---|");
  for (const r of cli) {
    lines.push(
      `| \`query upgrade ${r.id}\` | ${ms(r.xupgrade.wallMedian)} / ${ms(r.xupgrade.wallP99)} | ${r.simd ? `${ms(r.simd.wallMedian)} / ${ms(r.simd.wallP99)}` : "–"} | ${ratio(r.wallRatio)} | ${mib(r.xupgrade.rssMedian)} / ${mib(r.simd?.rssMedian)} |`,
    );
  }
  lines.push(
    `| \`node -e 0\` (Node's floor${floorWithoutExtraCa ? "; NODE_EXTRA_CA_CERTS set" : ""}) | ${ms(floor.wallMedian)} | | | ${mib(floor.rssMedian)} |`,
  );
  if (floorWithoutExtraCa)
    lines.push(`| \`node -e 0\` without NODE_EXTRA_CA_CERTS | ${ms(floorWithoutExtraCa.wallMedian)} | | | ${mib(floorWithoutExtraCa.rssMedian)} |`);
  lines.push(
    "",
    "| service | c | xupgrade req/s | simd req/s | req/s x/simd | xupgrade p50 / p99 | simd p50 / p99 | p99 x/simd |",
    "|---|---|---|---|---|---|---|---|",
  );
  for (const s of services) {
    lines.push(
      `| ${s.protocol === "rest" ? "REST" : "gRPC"} \`${s.endpoint}\` | ${s.concurrency} | ${s.xupgrade.rps.toFixed(0)} | ${s.simd ? s.simd.rps.toFixed(0) : "–"} | ${ratio(s.rpsRatio)} | ${ms(s.xupgrade.p50, 2)} / ${ms(s.xupgrade.p99, 2)} | ${s.simd ? `${ms(s.simd.p50, 2)} / ${ms(s.simd.p99, 2)}` : "–"} | ${ratio(s.p99Ratio)} |`,
    );
  }
  lines.push("", "| sidecar, simd v0.47 → v0.50 | xupgrade visor | cosmovisor | x/cosmovisor |", "|---|---|---|---|");
  for (const v of sidecar.variants) {
    if (v.status === "measured") {
      lines.push(
        `| ${v.variant}: halt → first new block (median of ${v.runs!.length / 2}) | ${ms(v.xupgrade!.haltToFirstNewBlock)} | ${ms(v.cosmovisor!.haltToFirstNewBlock)} | ${ratio(v.ratio)} |`,
      );
    } else lines.push(`| ${v.variant} | ${v.status} | ${v.status} | – |`);
  }
  for (const v of sidecar.variants) {
    const mem = v.peakMemory;
    if (mem?.status === "measured") {
      lines.push(
        `| ${v.variant}: peak RSS of the supervisor process (median of ${mem.samples}) | ${mem.xupgrade.toFixed(1)} MiB | ${mem.cosmovisor.toFixed(1)} MiB | ${ratio(mem.ratio)} |`,
      );
    }
    // Each step's resident set (the highest read inside it); cosmovisor unpacks inside its download step.
    const steps = v.stepMemory;
    if (!steps) continue;
    for (const step of STEPS) {
      const xm = steps.xupgrade[step];
      const cm = step === "extract" ? (steps.cosmovisor.download ?? steps.cosmovisor.extract) : steps.cosmovisor[step];
      if (xm === undefined && cm === undefined) continue;
      const what = { idle: "idle supervising", download: "downloading", extract: "extracting", backup: "backing up" }[step];
      const c =
        step === "extract" && steps.cosmovisor.extract === undefined && cm !== undefined
          ? `${cm.toFixed(1)} MiB (in its download)`
          : cm === undefined
            ? "–"
            : `${cm.toFixed(1)} MiB`;
      lines.push(
        `| ${v.variant}: RSS ${what} | ${xm === undefined ? "–" : `${xm.toFixed(1)} MiB`} | ${c} | ${xm !== undefined && cm !== undefined ? ratio(xm / cm) : "–"} |`,
      );
    }
    if (v.load) lines.push(`| ${v.variant}: load average (1, 5, 15 min) at start → end | ${v.load.start.join(", ")} → ${v.load.end.join(", ")} | | |`);
  }
  return lines.join("\n");
}

function updateReadme(table: string, meta: { cpu: { model: string; cores: number }; node: string; date: string }): void {
  const readme = here("../README.md");
  const text = readFileSync(readme, "utf8");
  if (!text.includes("<!-- peers:start -->")) return;
  const next = text.replace(
    /(<!-- peers:start -->)[\s\S]*?(<!-- peers:end -->)/,
    `$1\n_${meta.cpu.model} ×${meta.cpu.cores}, Node ${meta.node}, simd ${SDK_V050_VERSION}, ${meta.date.slice(0, 16).replace("T", " ")} UTC._\n\n${table}\n$2`,
  );
  writeFileSync(readme, next);
}

function chart(
  cli: CliRow[],
  floorMs: number,
  cliRuns: number,
  services: ServicesSummary[],
  sidecar: SidecarResult,
  targets: Target[],
  meta: { quick: boolean; cpu: { model: string; cores: number }; os: string; node: string; date: string; pinning: string },
): string {
  const NS = 1e6;
  const rows: (Row & { text?: { text: string; ok?: boolean } })[] = [];
  for (const r of cli) {
    rows.push({
      case: 1,
      id: `CLI query upgrade ${r.id} (wall)`,
      impls: {
        xupgrade: { median: r.xupgrade.wallMedian * NS, p99: r.xupgrade.wallP99 * NS },
        ...(r.simd ? { simd: { median: r.simd.wallMedian * NS, p99: r.simd.wallP99 * NS } } : {}),
      },
      text: r.wallRatio !== undefined ? { text: `x/simd ${r.wallRatio.toFixed(2)}`, ok: r.wallRatio <= 1 } : undefined,
    });
  }
  for (const s of services) {
    rows.push({
      case: 2,
      id: `${s.protocol === "rest" ? "REST" : "gRPC"} ${s.endpoint} c=${s.concurrency} (latency)`,
      impls: {
        xupgrade: { median: s.xupgrade.p50 * NS, p99: s.xupgrade.p99 * NS },
        ...(s.simd ? { simd: { median: s.simd.p50 * NS, p99: s.simd.p99 * NS } } : {}),
      },
      text:
        s.rpsRatio !== undefined
          ? { text: `req/s ×${s.rpsRatio.toFixed(2)} · p99 ${s.p99Ratio!.toFixed(2)}`, ok: s.rpsRatio >= 1 && s.p99Ratio! <= 1 }
          : undefined,
    });
  }
  for (const v of sidecar.variants.filter((v) => v.status === "measured")) {
    rows.push({
      case: 3,
      id: `sidecar ${v.variant}: halt → first new block`,
      impls: {
        xupgrade: { median: v.xupgrade!.haltToFirstNewBlock * NS, p99: v.xupgrade!.haltToFirstNewBlock * NS },
        cosmovisor: { median: v.cosmovisor!.haltToFirstNewBlock * NS, p99: v.cosmovisor!.haltToFirstNewBlock * NS },
      },
      text: { text: `x/cosmovisor ${v.ratio!.toFixed(2)}`, ok: v.ratio! <= 1 },
    });
  }
  const byRow = new Map(rows.map((r) => [r, r.text]));
  return renderChart(
    rows,
    `xupgrade against the Go programs it replaces${meta.quick ? " (quick smoke run: not representative)" : ""}`,
    `${meta.cpu.model} ×${meta.cpu.cores} · ${meta.os} · Node ${meta.node} · simd ${SDK_V050_VERSION} · ${meta.date.slice(0, 10)} · ${meta.pinning}`,
    [
      `CLI: whole process, ${cliRuns} runs each alternating; Node's own floor (node -e 0) ${floorMs.toFixed(0)} ms. Services: latency p50 (bar) to p99 (whisker); ratios xupgrade/simd.`,
      ...targets.map((t) => `${t.met === undefined ? "…" : t.met ? "✔" : "✘"} ${t.target}`),
    ],
    {
      ratio: (row) => byRow.get(row),
      axisLabel: "median (log scale), whisker to p99; CLI: wall time of the whole process, services: latency per request",
      ratioWidth: 170,
    },
  );
}
