/**
 * CometBFT as the node's child process: `cometbft start --home <home> --proxy_app <our ABCI socket>`. Its
 * JSON log lines come through a pipe: errors and the few lines an operator looks for (the handshake, the
 * replay, the RPC) are logged as the node's own with `module: "cometbft/<its module>"`, the rest at debug;
 * the last lines are kept for a crash report. It dies with the node: SIGTERM from `stop()`, and when the
 * node process dies it loses both the ABCI connections and its output pipe, and exits by itself.
 */
import { spawn, type ChildProcess } from "node:child_process";
import type { Logger } from "../../../../../base/logger.js";

export interface CometProcessOptions {
  bin: string;
  home: string;
  /** `unix:///…` or `tcp://host:port` of the ABCI server. */
  proxyApp: string;
  /** Overrides config.toml's `[rpc] laddr` (tcp://host:port). */
  rpcLaddr?: string;
  logger: Required<Logger>;
}

export interface CometExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface CometProcess {
  readonly pid: number | undefined;
  readonly exited: Promise<CometExit>;
  readonly alive: boolean;
  /** The last lines CometBFT wrote (plain text). */
  tail(n?: number): string[];
  /** SIGTERM, then SIGKILL after `graceMs`; resolves once it is gone. */
  stop(graceMs?: number): Promise<CometExit>;
}

/** Lines worth an info record: the handshake, replays, the RPC listening. */
const NOTABLE = [/^ABCI Handshake App Info$/, /^ABCI Replay Blocks$/, /^Replay last block using /, /^Completed ABCI Handshake/, /^serve$/, /^This node is a validator$/];
const KEEP = 300;

export function spawnCometbft(o: CometProcessOptions): CometProcess {
  const args = ["start", "--home", o.home, "--proxy_app", o.proxyApp];
  if (o.rpcLaddr) args.push("--rpc.laddr", o.rpcLaddr);
  const child: ChildProcess = spawn(o.bin, args, { stdio: ["ignore", "pipe", "pipe"], env: process.env });
  const lines: string[] = [];
  const onLine = (line: string) => {
    if (line.trim() === "") return;
    lines.push(line);
    if (lines.length > KEEP) lines.shift();
    forward(line, o.logger);
  };
  for (const stream of [child.stdout!, child.stderr!]) {
    let partial = "";
    stream.setEncoding("utf8");
    stream.on("data", (d: string) => {
      const parts = (partial + d).split("\n");
      partial = parts.pop() ?? "";
      for (const l of parts) onLine(l);
    });
    stream.on("end", () => partial && onLine(partial));
  }
  let spawnError: Error | undefined;
  const exited = new Promise<CometExit>((resolve) => {
    child.once("error", (e) => {
      spawnError = e;
      resolve({ code: null, signal: null });
    });
    child.once("exit", (code, signal) => resolve({ code, signal }));
  });
  let gone = false;
  void exited.then(() => (gone = true));
  return {
    pid: child.pid,
    exited,
    get alive() {
      return !gone;
    },
    tail(n = 40) {
      return [...(spawnError ? [`cannot start ${o.bin}: ${spawnError.message}`] : []), ...lines.slice(-n)];
    },
    async stop(graceMs = 10_000) {
      if (!gone) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), graceMs);
        timer.unref();
        await exited;
        clearTimeout(timer);
      }
      return exited;
    },
  };
}

function forward(line: string, logger: Required<Logger>): void {
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(line) as Record<string, unknown>;
  } catch {
    logger.debug(line, { module: "cometbft" });
    return;
  }
  // CometBFT's JSON lines: `_msg` names the event, `msg` (when present) says it in full.
  const { _msg, msg, level, module, ts: _ts, ...fields } = rec;
  const name = typeof _msg === "string" ? _msg : "";
  const text = typeof msg === "string" && msg !== "" ? msg : name;
  const fieldsOut = { ...fields, module: `cometbft${typeof module === "string" ? `/${module}` : ""}` };
  if (level === "error") logger.warn(text, fieldsOut);
  else if (NOTABLE.some((re) => re.test(name))) logger.info(text, fieldsOut);
  else logger.debug(text, fieldsOut);
}
