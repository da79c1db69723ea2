/**
 * The upgrade queries through two CLIs against the same node: simd's own (`simd query upgrade …`) and
 * `xupgrade query upgrade …`, in JSON and text output. Records keep the exit code, stdout and stderr.
 */
import { existsSync } from "node:fs";
import { runCli } from "../../apps/cli/helpers.js";
import { tempDir } from "../../support/temp.js";
import { nodeFlags, run } from "./simd.js";
import type { StateSpec } from "./wire.js";

export type CliTool = "simd" | "simd047" | "xupgrade";

export interface CliRecord {
  /** `<tool> <command words>`, e.g. `simd plan -o json`. */
  id: string;
  /** `simd`: simd v0.50's CLI (autocli); `simd047`: simd v0.47's (the legacy cobra commands); `xupgrade`. */
  tool: CliTool;
  /** The arguments after `query upgrade`, without the node flags. */
  args: string[];
  code: number | null;
  stdout: string;
  stderr: string;
}

/** The `query upgrade` argument lists compared, for both tools. */
export function cliQueries(s: StateSpec): string[][] {
  const out: string[][] = [];
  for (const o of ["json", "text"]) {
    out.push(["plan", "-o", o]);
    out.push(["applied", s.known, "-o", o]);
    out.push(["applied", "never-applied", "-o", o]);
    out.push(["module_versions", "-o", o]);
    out.push(["module_versions", "bank", "-o", o]);
    out.push(["module_versions", "foo", "-o", o]);
    out.push(["authority", "-o", o]);
  }
  return out;
}

export interface CliTarget {
  /** simd v0.50's binary (for its own CLI); omitted against a devnet. */
  simd?: string;
  /** simd v0.47's binary: its CLI queries a v0.50 node as well (abci_query paths and RPC are the same). */
  simd047?: string;
  rpcUrl: string;
  home?: string;
  chainId: string;
}

const rpcPort = (rpcUrl: string) => Number(new URL(rpcUrl).port);

/**
 * simd's CLI runs with HOME in a temporary directory (its usage text names `$HOME/.simapp`, and it creates
 * that folder), and the records say `$HOME` instead, so they do not depend on the machine.
 */
let simdHome: string | undefined;
function homeOf(): string {
  if (!simdHome || !existsSync(simdHome)) simdHome = tempDir("xupgrade-interop-cli-home-");
  return simdHome;
}

export async function runQuery(tool: CliTool, t: CliTarget, args: string[]): Promise<CliRecord> {
  const id = `${tool} ${args.join(" ")}`;
  if (tool !== "xupgrade") {
    const bin = tool === "simd" ? t.simd : t.simd047;
    if (!bin) throw new Error(`no binary for ${tool}`);
    const home = homeOf();
    const r = await run(bin, ["query", "upgrade", ...args, ...nodeFlags({ ports: { rpc: rpcPort(t.rpcUrl) } })], { env: { HOME: home } });
    const clean = (s: string) => s.split(home).join("$HOME");
    return { id, tool, args, code: r.code, stdout: clean(r.stdout), stderr: clean(r.stderr) };
  }
  const r = await runCli(["query", "upgrade", ...args, "--node", t.rpcUrl]);
  return { id, tool, args, code: r.code, stdout: r.stdout, stderr: r.stderr };
}

/** Every query of cliQueries() with each tool. */
export async function captureCli(t: CliTarget, s: StateSpec, tools: CliTool[] = ["simd", "simd047", "xupgrade"]): Promise<CliRecord[]> {
  const out: CliRecord[] = [];
  for (const args of cliQueries(s)) for (const tool of tools) out.push(await runQuery(tool, t, args));
  return out;
}
