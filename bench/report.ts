/** Turns task results into comparison rows, checks the targets of bench/README.md and prints a Markdown table. */
import type { MemoryRun } from "./cases/memory.js";
import { type Impl, type TaskResult, fmtNs } from "./harness.js";

export interface Stat {
  median: number;
  p99: number;
}

export interface Row {
  case: number;
  id: string;
  /** Side by side in the main process. */
  impls: Partial<Record<Impl, Stat>>;
  /** wasm median / js median in the main process. */
  ratio?: number;
  /** Each backend in its own process. */
  child?: Partial<Record<"wasm" | "js", Stat>>;
  childRatio?: number;
  /** Case 6: each core against cosmjs-types; case 9: loader against the bindings. */
  vsCosmjs?: { wasm?: number; js?: number };
  loaderRatio?: number;
}

export interface Target {
  target: string;
  met: boolean;
  detail: string;
}

const stat = (r: TaskResult): Stat => ({ median: r.median, p99: r.p99 });

export function makeRows(main: TaskResult[], children: Record<"wasm" | "js", TaskResult[]>): Row[] {
  const rows = new Map<string, Row>();
  for (const r of main) {
    const key = `${r.case}|${r.id}`;
    let row = rows.get(key);
    if (!row) rows.set(key, (row = { case: r.case, id: r.id, impls: {} }));
    row.impls[r.impl] = stat(r);
  }
  for (const backend of ["wasm", "js"] as const) {
    for (const r of children[backend]) {
      const row = rows.get(`${r.case}|${r.id}`);
      if (row) (row.child ??= {})[backend] = stat(r);
    }
  }
  for (const row of rows.values()) {
    const { wasm, js, loader } = row.impls;
    const cosmjs = row.impls["cosmjs-types"];
    if (wasm && js) row.ratio = wasm.median / js.median;
    if (row.child?.wasm && row.child?.js) row.childRatio = row.child.wasm.median / row.child.js.median;
    if (cosmjs) row.vsCosmjs = { wasm: wasm && wasm.median / cosmjs.median, js: js && js.median / cosmjs.median };
    if (loader && wasm) row.loaderRatio = loader.median / wasm.median;
  }
  return [...rows.values()];
}

const x = (ratio: number) => `${ratio.toFixed(2)}`;

export function checkTargets(rows: Row[], memory: MemoryRun[]): Target[] {
  const targets: Target[] = [];
  const ratioRows = (cases: number[]) => rows.filter((r) => cases.includes(r.case) && r.ratio !== undefined);

  const slow = ratioRows([1, 2, 3, 4]).filter((r) => r.ratio! > 1);
  targets.push({
    target: "wasm/js ≤ 1.0 on cases 1–4 at every size",
    met: slow.length === 0,
    detail: slow.length === 0 ? "every row" : `missed: ${slow.map((r) => `${r.id} (${x(r.ratio!)})`).join("; ")}`,
  });

  // Case 2 with history: the apply must not grow with the number of past upgrades in the store.
  const history = rows.filter((r) => r.case === 2 && / past upgrades$/.test(r.id) && r.impls.wasm && r.impls.js);
  if (history.length > 1) {
    const spread = (["wasm", "js"] as const).map((b) => {
      const ms = history.map((r) => r.impls[b]!.median);
      return { b, spread: Math.max(...ms) / Math.min(...ms) };
    });
    targets.push({
      target: "an apply with 10, 1,000 and 10,000 past upgrades costs the same within 20 % (case 2, history rows)",
      met: spread.every((s) => s.spread <= 1.2),
      detail: spread.map((s) => `${s.b}: slowest/fastest ${x(s.spread)}`).join("; "),
    });
  }

  const batch = ratioRows([5]);
  const notFast = batch.filter((r) => r.ratio! > 1 / 3);
  targets.push({
    target: "wasm ≥ 3× faster than js on case 5 (ratio ≤ 0.33)",
    met: notFast.length === 0,
    detail: batch.map((r) => `${r.id}: ${x(r.ratio!)}`).join("; "),
  });

  const proto = rows.filter((r) => r.case === 6 && r.vsCosmjs);
  const protoMiss = proto.flatMap((r) =>
    (["wasm", "js"] as const).filter((b) => (r.vsCosmjs![b] ?? 0) > 0.5).map((b) => `${r.id} ${b} (${x(r.vsCosmjs![b]!)})`),
  );
  targets.push({
    target: "both cores ≥ 2× faster than cosmjs-types on case 6 (ratio to cosmjs ≤ 0.5)",
    met: protoMiss.length === 0,
    detail:
      protoMiss.length === 0
        ? proto.map((r) => `${r.id}: wasm ${x(r.vsCosmjs!.wasm!)}, js ${x(r.vsCosmjs!.js!)}`).join("; ")
        : `missed: ${protoMiss.join("; ")}`,
  });

  for (const layer of ["core session", "keeper"]) {
    const pre = rows.filter((r) => r.case === 1 && r.id.endsWith(layer));
    const over = pre.flatMap((r) =>
      (["wasm", "js"] as const).filter((b) => (r.impls[b]?.median ?? 0) >= 100).map((b) => `${r.id} ${b} ${fmtNs(r.impls[b]!.median)}`),
    );
    targets.push({
      target: `preBlock with nothing due < 100 ns in both backends (${layer})`,
      met: over.length === 0,
      detail:
        over.length === 0
          ? pre.map((r) => `${r.id}: wasm ${fmtNs(r.impls.wasm!.median)}, js ${fmtNs(r.impls.js!.median)}`).join("; ")
          : `missed: ${over.join("; ")}`,
    });
  }

  const ics = ratioRows([10]);
  const icsSlow = ics.filter((r) => r.ratio! > 1);
  targets.push({
    target: "ICS23 store proofs and SHA-256: wasm/js ≤ 1.0 (case 10)",
    met: ics.length > 0 && icsSlow.length === 0,
    detail: ics.map((r) => `${r.id}: ${x(r.ratio!)}`).join("; "),
  });

  const wasmRun = memory.find((m) => m.backend === "wasm");
  const growth = wasmRun?.wasmGrowthBytes ?? NaN;
  targets.push({
    target: "WebAssembly memory grows ≤ 1 MiB over case 8",
    met: growth <= 1024 * 1024,
    detail: `${(growth / 1024).toFixed(0)} KiB growth (${wasmRun?.preBlocks} preBlock + ${wasmRun?.cycles} cycles)`,
  });
  return targets;
}

const cell = (s?: Stat) => (s ? `${fmtNs(s.median)} / ${fmtNs(s.p99)}` : "–");

/** The README's table: median / p99 per call, side by side, with the ratios. */
export function markdownTable(rows: Row[]): string {
  const lines = ["| # | case | wasm median / p99 | js median / p99 | wasm/js | wasm/js (own processes) | other |", "|---|---|---|---|---|---|---|"];
  for (const r of rows) {
    const others = (Object.entries(r.impls) as [Impl, Stat][]).filter(([impl]) => impl !== "wasm" && impl !== "js").map(([impl, s]) => `${impl} ${cell(s)}`);
    if (r.vsCosmjs) others.push(`÷cosmjs: wasm ${x(r.vsCosmjs.wasm!)}, js ${x(r.vsCosmjs.js!)}`);
    if (r.loaderRatio) others.push(`loader/bindings ${x(r.loaderRatio)}`);
    lines.push(
      `| ${r.case} | ${r.id} | ${cell(r.impls.wasm)} | ${cell(r.impls.js)} | ${r.ratio === undefined ? "–" : `**${x(r.ratio)}**`} | ${
        r.childRatio === undefined ? "–" : x(r.childRatio)
      } | ${others.join("<br>")} |`,
    );
  }
  return lines.join("\n");
}
