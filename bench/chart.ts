/**
 * bench/results.svg, written by hand (no chart library): one horizontal bar per implementation and case,
 * log-scaled median time per call, a whisker out to p99, and the wasm/js ratio at the right.
 */
import { type Impl, fmtNs } from "./harness.js";
import type { Row } from "./report.js";

const COLORS: Record<Impl, string> = {
  wasm: "#654ff0",
  js: "#e0a526",
  "wasm-raw": "#8f7ff5",
  loader: "#c23b7a",
  "cosmjs-types": "#2f8f5b",
  "bufbuild-reflect": "#3b7fc2",
  "bufbuild-wire": "#7fb2e6",
  "@confio/ics23": "#d2691e",
  xupgrade: "#654ff0",
  simd: "#2f8f5b",
  cosmovisor: "#7fb2e6",
};

/** What bench/peers changes (the keeper bench passes nothing): the ratio column and the axis label. */
export interface ChartOptions {
  /** The text at the right of a row and whether it meets its target (green) or not (red); undefined: none. */
  ratio?: (row: Row) => { text: string; ok?: boolean } | undefined;
  axisLabel?: string;
  /** Width of the ratio column (default 120). */
  ratioWidth?: number;
}

const esc = (s: string) => s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");

export function renderChart(rows: Row[], title: string, subtitle: string, footer: string[], options: ChartOptions = {}): string {
  const W = 1280;
  const LABEL_W = 470;
  const RATIO_W = options.ratioWidth ?? 120;
  const PLOT_X = LABEL_W + 10;
  const PLOT_W = W - PLOT_X - RATIO_W;
  const BAR = 11;
  const GAP = 9;
  const TOP = 104;

  const all = rows.flatMap((r) => Object.values(r.impls).flatMap((s) => [s.median, s.p99]));
  const lo = 10 ** Math.floor(Math.log10(Math.min(...all)));
  const hi = 10 ** Math.ceil(Math.log10(Math.max(...all)));
  const xOf = (ns: number) => PLOT_X + ((Math.log10(Math.max(ns, lo)) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * PLOT_W;

  const body: string[] = [];
  let y = TOP;
  let lastCase = 0;
  for (const row of rows) {
    const impls = Object.entries(row.impls) as [Impl, { median: number; p99: number }][];
    const h = impls.length * BAR;
    if (row.case !== lastCase) {
      body.push(`<line x1="10" x2="${W - 10}" y1="${y - GAP / 2 - 1}" y2="${y - GAP / 2 - 1}" stroke="#ccc"/>`);
      lastCase = row.case;
    }
    body.push(`<text x="${LABEL_W}" y="${y + h / 2 + 4}" text-anchor="end" class="label">${row.case}. ${esc(row.id)}</text>`);
    impls.forEach(([impl, s], i) => {
      const by = y + i * BAR;
      const x1 = xOf(s.median);
      body.push(
        `<rect x="${PLOT_X}" y="${by + 1}" width="${(x1 - PLOT_X).toFixed(1)}" height="${BAR - 2}" fill="${COLORS[impl]}">` +
          `<title>${esc(`${impl}: median ${fmtNs(s.median)}, p99 ${fmtNs(s.p99)}`)}</title></rect>`,
        `<line x1="${x1.toFixed(1)}" x2="${xOf(s.p99).toFixed(1)}" y1="${by + BAR / 2}" y2="${by + BAR / 2}" stroke="#333" stroke-width="1"/>`,
        `<text x="${(xOf(s.p99) + 4).toFixed(1)}" y="${by + BAR - 2}" class="small">${fmtNs(s.median)}</text>`,
      );
    });
    const custom = options.ratio?.(row);
    if (options.ratio) {
      if (custom) {
        const fill = custom.ok === undefined ? "#333" : custom.ok ? "#1b5e20" : "#b00020";
        body.push(`<text x="${W - 12}" y="${y + h / 2 + 4}" text-anchor="end" class="ratio" fill="${fill}">${esc(custom.text)}</text>`);
      }
      y += h + GAP;
      continue;
    }
    // Case 7 compares a wasm instantiation with a plain object: a size, not a target.
    const ratio = row.case === 7 ? undefined : (row.ratio ?? row.loaderRatio);
    if (ratio !== undefined) {
      const what = row.ratio !== undefined ? "wasm/js" : "loader/wasm";
      // Colour only where bench/README.md sets a wasm/js target: ≤ 1.0 on cases 1–4, ≤ 0.33 on case 5.
      const limit = row.case <= 4 ? 1 : row.case === 5 ? 1 / 3 : undefined;
      const fill = limit === undefined || row.ratio === undefined ? "#333" : row.ratio > limit ? "#b00020" : "#1b5e20";
      body.push(`<text x="${W - 12}" y="${y + h / 2 + 4}" text-anchor="end" class="ratio" fill="${fill}">${what} ${ratio.toFixed(2)}</text>`);
    }
    y += h + GAP;
  }

  const grid: string[] = [];
  for (let v = lo; v <= hi; v *= 10) {
    const gx = xOf(v).toFixed(1);
    grid.push(
      `<line x1="${gx}" x2="${gx}" y1="${TOP - 8}" y2="${y}" stroke="#e6e6e6"/>`,
      `<text x="${gx}" y="${TOP - 12}" text-anchor="middle" class="small">${fmtNs(v)}</text>`,
    );
  }
  // Each entry as wide as its name (~6 px a character at 10 px): every implementation's fits on the line.
  let lx = PLOT_X;
  const legend = (Object.keys(COLORS) as Impl[])
    .filter((impl) => rows.some((r) => r.impls[impl]))
    .map((impl) => {
      const entry = `<rect x="${lx}" y="50" width="12" height="10" fill="${COLORS[impl]}"/><text x="${lx + 16}" y="59" class="small">${esc(impl)}</text>`;
      lx += 16 + impl.length * 6 + 24;
      return entry;
    });
  const foot = footer.map((line, i) => `<text x="12" y="${y + 20 + i * 16}" class="small">${esc(line)}</text>`);
  const H = y + 28 + footer.length * 16;

  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" viewBox="0 0 ${W} ${H}" font-family="system-ui, sans-serif">
<style>.label{font-size:11px;fill:#222}.small{font-size:10px;fill:#555}.ratio{font-size:11px;font-weight:600}.title{font-size:16px;font-weight:600}</style>
<rect width="100%" height="100%" fill="#fff"/>
<text x="12" y="22" class="title">${esc(title)}</text>
<text x="12" y="40" class="small">${esc(subtitle)}</text>
${legend.join("\n")}
<text x="${PLOT_X}" y="${TOP - 30}" class="small">${esc(options.axisLabel ?? "median per call (log scale), whisker to p99")}</text>
${grid.join("\n")}
${body.join("\n")}
${foot.join("\n")}
</svg>
`;
}
