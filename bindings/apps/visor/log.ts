/**
 * The visor's own log lines (docs/spec/sidecar.md §9): on stderr (never mixed into the node's stdout), one line per
 * event in the console form cosmovisor's logger uses — `<time> INF <message> key=value … module=visor` —
 * with the time in the configured Go layout (none when the layout is ""), colours only on a terminal.
 */
import type { LogFields, Logger } from "../../base/logger.js";
import { formatGoTime, TIME_LAYOUTS } from "../../go/time-layout.js";

/** The project's Logger (base/logger.ts) with `warn`, and whether it writes at all. */
export interface VisorLogger extends Logger {
  warn(msg: string, fields?: LogFields): void;
  /** Whether lines are written at all (progress output follows it). */
  readonly enabled: boolean;
}

export interface LoggerOptions {
  disabled?: boolean;
  color?: boolean;
  /** A layout name of COSMOVISOR_TIMEFORMAT_LOGS, or "" for none. */
  timeFormat?: string;
  write?: (line: string) => void;
  /** Colours are used only when this is a terminal (default: stderr's). */
  isTTY?: boolean;
}

const LEVELS = { info: ["INF", 32], warn: ["WRN", 33], error: ["ERR", 31] } as const;

function value(v: unknown): string {
  const s = typeof v === "string" ? v : typeof v === "bigint" ? v.toString() : v instanceof Error ? v.message : JSON.stringify(v);
  return s === "" || /[\s"=]/.test(s) ? JSON.stringify(s) : s;
}

export function createLogger(o: LoggerOptions = {}): VisorLogger {
  const write = o.write ?? ((line: string) => process.stderr.write(line));
  const color = (o.color ?? true) && (o.isTTY ?? process.stderr.isTTY === true);
  const layout = o.timeFormat === undefined ? TIME_LAYOUTS.kitchen : o.timeFormat === "" ? "" : (TIME_LAYOUTS[o.timeFormat] ?? o.timeFormat);
  const paint = (code: number, s: string) => (color ? `\x1b[${code}m${s}\x1b[0m` : s);
  const line =
    (level: keyof typeof LEVELS) =>
    (msg: string, fields: LogFields = {}) => {
      if (o.disabled) return;
      const [tag, code] = LEVELS[level];
      const parts: string[] = [];
      if (layout !== "") parts.push(paint(90, formatGoTime(new Date(), layout)));
      parts.push(paint(code, tag), msg);
      for (const [k, v] of Object.entries({ ...fields, module: "visor" })) {
        if (v === undefined) continue;
        parts.push(`${paint(36, k + "=")}${value(v)}`);
      }
      write(parts.join(" ") + "\n");
    };
  return { info: line("info"), warn: line("warn"), error: line("error"), enabled: !o.disabled };
}
