/**
 * Progress of the long steps (backup, download; docs/spec/sidecar.md §6 step 3, docs/spec/sidecar.md §7.2): a bar (cli-progress) when
 * stderr is a terminal — bytes, total, speed — and otherwise a log line at most every few seconds plus one
 * at the end, so redirected logs stay readable. Silenced with the visor's logs.
 *
 * cli-progress (and the terminal-width tables it brings, ~5 MB resident) is loaded only to draw a bar: a
 * visor run as a service, its stderr not a terminal, never loads it.
 */
import { createRequire } from "node:module";
import type CliProgress from "cli-progress";
import type { VisorLogger } from "./log.js";

export interface Progress {
  /** Bytes done so far; the total may become known late (a download without Content-Length has none). */
  update(done: number, total?: number): void;
  /** The last line (non-TTY) or the bar's final state. */
  finish(): void;
}

export interface ProgressOptions {
  log: VisorLogger;
  /** Where the bar goes (default stderr); a bar is drawn only on a terminal. */
  stream?: NodeJS.WriteStream;
  /** Seconds between progress lines when not on a terminal (default 2). */
  intervalMs?: number;
}

const UNITS = ["B", "KiB", "MiB", "GiB", "TiB"];

export function formatBytes(n: number): string {
  let v = n;
  let u = 0;
  while (v >= 1024 && u < UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${n} B` : `${v.toFixed(1)} ${UNITS[u]}`;
}

export function createProgress(label: string, o: ProgressOptions, initialTotal?: number): Progress {
  const stream = o.stream ?? process.stderr;
  const started = Date.now();
  let total = initialTotal;
  let done = 0;
  const speed = () => formatBytes(done / Math.max(0.001, (Date.now() - started) / 1000)) + "/s";
  const text = () => {
    const pct = total ? `${Math.min(100, Math.floor((done / total) * 100))}% ` : "";
    return `${label} progress ${pct}(${formatBytes(done)}${total ? ` of ${formatBytes(total)}` : ""}, ${speed()})`;
  };

  if (!o.log.enabled) return { update() {}, finish() {} };

  if (stream.isTTY) {
    const cliProgress = createRequire(import.meta.url)("cli-progress") as typeof CliProgress;
    const bar = new cliProgress.SingleBar(
      {
        stream,
        format: (options, params) => {
          const width = options.barsize ?? 30;
          const filled = params.total > 0 ? Math.round(Math.min(1, params.value / params.total) * width) : 0;
          const pct = params.total > 0 ? `${Math.floor(Math.min(1, params.value / params.total) * 100)}%`.padStart(4) : "  ?%";
          return `${label} [${"█".repeat(filled)}${"░".repeat(width - filled)}] ${pct} | ${formatBytes(params.value)}${total ? ` / ${formatBytes(total)}` : ""} | ${speed()}`;
        },
        barsize: 30,
        hideCursor: null,
        clearOnComplete: false,
        fps: 8,
      },
      cliProgress.Presets.shades_classic,
    );
    bar.start(total ?? 0, 0);
    return {
      update(d, t) {
        done = d;
        if (t !== undefined && t !== total) {
          total = t;
          bar.setTotal(t);
        }
        bar.update(d);
      },
      finish() {
        if (total === undefined) bar.setTotal(done);
        bar.update(done);
        bar.stop();
      },
    };
  }

  const every = o.intervalMs ?? 2000;
  let last = Date.now();
  return {
    update(d, t) {
      done = d;
      if (t !== undefined) total = t;
      if (Date.now() - last >= every) {
        last = Date.now();
        o.log.info(text());
      }
    },
    finish() {
      if (total === undefined) total = done;
      o.log.info(text());
    },
  };
}
