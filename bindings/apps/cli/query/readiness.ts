/**
 * `xupgrade query upgrade readiness [name] [--plan-height h] [--warn-blocks n]` (docs/spec/readiness.md §8–§9):
 * the stake-weighted readiness of the scheduled plan (or the named one) as the chain tallied it from its
 * validators' vote extensions. Text: the power ready as a bar, who is not ready and why, the rehearsed app
 * hashes by group; `-o json`: the REST gateway's JSON. Warnings go to stderr and never change the exit code.
 */
import type { Command } from "commander";
import { toHex } from "@cosmjs/encoding";
import { DEFAULT_READINESS_WARN_BLOCKS, percentOf, queryReadiness, readinessWarnings } from "../../../client/readiness.js";
import {
  DEFAULT_READINESS_PARAMS,
  preflightText,
  readinessResponseJson,
  type ReadinessParams,
  type ReadinessTally,
  type ValidatorReadiness,
} from "../../../module/readiness/index.js";
import { Context } from "../context.js";
import { CliError } from "../errors.js";
import { expectArgs, type QueryOpts } from "../flags.js";
import { toJson } from "../output.js";
import { toYaml, type JsonValue } from "../yaml.js";
import { warn } from "../tx/window.js";

export interface ReadinessOpts extends QueryOpts {
  planHeight?: string;
  warnBlocks?: string;
}

const decimal = (flag: string, v: string | undefined, def: bigint): bigint => {
  if (v === undefined) return def;
  if (!/^[0-9]{1,18}$/.test(v)) throw new CliError(`invalid --${flag} ${JSON.stringify(v)}: must be a non-negative integer`);
  return BigInt(v);
};

/** The flags both the plain and the verified query read. */
export function readinessFlags(opts: ReadinessOpts, name: string): { planHeight: bigint; warnBlocks: bigint } {
  const planHeight = decimal("plan-height", opts.planHeight, 0n);
  if (planHeight > 0n && name === "") throw new CliError("--plan-height needs the upgrade's name");
  return { planHeight, warnBlocks: decimal("warn-blocks", opts.warnBlocks, DEFAULT_READINESS_WARN_BLOCKS) };
}

export async function readiness(opts: ReadinessOpts, cmd: Command): Promise<void> {
  const [name = ""] = expectArgs(cmd, 0, 1);
  const ctx = new Context(opts);
  const { planHeight, warnBlocks } = readinessFlags(opts, name);
  const r = await queryReadiness(ctx.rpc(), { name, height: planHeight }, ctx.height);
  if (!r.tally) {
    if (r.params.voteExtensionsEnableHeight === 0n)
      throw new CliError("this chain keeps no readiness tally: its vote extensions are off (see docs/spec/readiness.md §6.1)");
    throw new CliError(
      name === "" ? "no upgrade scheduled" : `no readiness tally for upgrade ${JSON.stringify(name)}${planHeight > 0n ? ` at height ${planHeight}` : ""}`,
    );
  }
  printReadiness(r.tally, r.height, ctx.output, warnBlocks, r.params);
}

/** The tally read at `height`, as text or the REST JSON (plus `height`), and its warnings on stderr. */
export function printReadiness(
  tally: ReadinessTally,
  height: bigint,
  output: "text" | "json",
  warnBlocks: bigint,
  params: ReadinessParams = DEFAULT_READINESS_PARAMS,
  /** With --verify: what the tally was proven against (docs/spec/light-client.md §9.2). */
  verification?: JsonValue,
): void {
  const extra: Record<string, JsonValue> = verification === undefined ? {} : { verification };
  if (output === "json") process.stdout.write(toJson({ ...readinessResponseJson({ tally, params }), height: height.toString(), ...extra }) + "\n");
  else process.stdout.write(formatReadiness(tally, height) + (verification === undefined ? "" : toYaml(extra)));
  for (const w of readinessWarnings(tally, height, warnBlocks)) warn(w);
}

const STATUS_TEXT: Record<ValidatorReadiness["status"], string> = {
  ready: "ready",
  different_binary: "different binary",
  failed: "failed",
  not_rehearsed: "not rehearsed",
  no_attestation: "no attestation",
};

const short = (b: Uint8Array, n = 8) => (b.length === 0 ? "-" : `${toHex(b).toUpperCase().slice(0, n)}…`);

/** A bar of `width` cells for a share of the power. */
export function powerBar(part: bigint, total: bigint, width = 24): string {
  const full = total > 0n ? Number((part * BigInt(width) + total / 2n) / total) : 0;
  return `[${"█".repeat(full)}${"░".repeat(width - full)}]`;
}

function why(v: ValidatorReadiness): string {
  const a = v.attestation;
  if (!a) return "nothing attested for this plan";
  const parts = [`${a.platform} ${short(a.binarySha256)}`];
  if (a.binaryVersion) parts.push(a.binaryVersion);
  parts.push(preflightText(a));
  if (a.rehearsal === "passed") parts.push(`rehearsed at ${a.snapshotHeight} → ${short(a.appHash)}`);
  else if (a.rehearsal === "failed") parts.push(`rehearsal at ${a.snapshotHeight} would halt with exit code ${a.rehearsalExitCode}`);
  else parts.push("not rehearsed");
  return `${parts.join(", ")} (since block ${v.attestedHeight})`;
}

export function formatReadiness(t: ReadinessTally, height: bigint): string {
  const away = t.planHeight - height;
  const where = away > 0n ? `${away} blocks away` : away === 0n ? "due now" : `${-away} blocks ago`;
  const pct = (p: bigint) => `${percentOf(p, t.totalPower)}%`;
  const lines = [
    `upgrade:     "${t.planName}" at height ${t.planHeight} (${where}; state of block ${height}, tally last changed at ${t.updatedHeight})`,
    `ready:       ${powerBar(t.readyPower, t.totalPower)} ${pct(t.readyPower)} of the voting power (${t.readyPower} of ${t.totalPower})`,
    `not ready:   different binary ${pct(t.differentBinaryPower)}, failed ${pct(t.failedPower)}, not rehearsed ${pct(t.notRehearsedPower)}, no attestation ${pct(t.noAttestationPower)}`,
    "validators:",
  ];
  const nameWidth = Math.max(4, ...t.validators.map((v) => v.name.length));
  for (const v of t.validators) {
    lines.push(
      `  ${(v.name || "-").padEnd(nameWidth)}  ${short(v.address, 10)}  ${v.power.toString().padStart(6)}  ${STATUS_TEXT[v.status].padEnd(16)}  ${why(v)}`,
    );
  }
  if (t.expectedBinaries.length > 0) {
    lines.push("expected binary:");
    for (const e of t.expectedBinaries)
      lines.push(
        `  ${e.platform}  ${toHex(e.sha256)}  (${e.source === "plan_info" ? "Plan.Info's sha256 checksum" : "the hash attested with the most power: Plan.Info names none"})`,
      );
  }
  lines.push(`app hashes:  ${t.appHashGroups.length === 0 ? "none rehearsed yet" : t.appHashesDisagree ? "DISAGREE" : "agree"}`);
  const byName = new Map(t.validators.map((v) => [toHex(v.address), v.name || short(v.address, 10)]));
  for (const g of t.appHashGroups) {
    lines.push(
      `  snapshot ${g.snapshotHeight}  ${toHex(g.appHash).toUpperCase()}  ${pct(g.power).padStart(6)}  ${g.validators.map((a) => byName.get(toHex(a)) ?? short(a, 10)).join(", ")}`,
    );
  }
  return lines.join("\n") + "\n";
}
