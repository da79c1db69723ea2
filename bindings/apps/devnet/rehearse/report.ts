/**
 * The rehearsal report as the CLI prints it (docs/spec/rehearse.md §4): JSON with stable snake_case fields
 * (heights and versions as decimal strings, like every JSON the CLI prints; counts and milliseconds as
 * numbers; keys and values as hex, with their text when it is printable), and a text form for people.
 * `sample` is how many keys of each kind (added, changed, deleted) are shown per store (`--verbose`: 5).
 */
import type { KeyChange, StoreChange } from "./diff.js";
import type { ModuleReport, RehearsalReport } from "./rehearse.js";
import { formatRfc3339NanoNs } from "../../../go/time.js";

/** The marker a rehearsal's JSON carries: how a supervisor knows that a binary supports `rehearse`. */
export const REHEARSAL_FORMAT = "xupgrade-rehearsal/1";

export interface FormatOptions {
  /** Keys of each kind shown per store (default 0: counts only). */
  sample?: number;
  /** Include the new binary's log lines (JSON only). */
  log?: boolean;
}

const hex = (b: Uint8Array) => Buffer.from(b.buffer, b.byteOffset, b.length).toString("hex");
const upperHex = (b: Uint8Array | undefined) => (b === undefined ? "" : hex(b).toUpperCase());
const ms = (n: number) => Math.round(n * 100) / 100;

/** The bytes as text when they are printable UTF-8 (no control characters), else undefined. */
function printable(b: Uint8Array): string | undefined {
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(b);
  } catch {
    return undefined;
  }
  // eslint-disable-next-line no-control-regex -- the controls are what it looks for
  return /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(text) ? undefined : text;
}

function bytesJson(field: string, b: Uint8Array | undefined): Record<string, string> {
  if (b === undefined) return {};
  const text = printable(b);
  return text === undefined ? { [field]: hex(b) } : { [field]: hex(b), [`${field}_text`]: text };
}

const keyJson = (c: KeyChange) => ({ ...bytesJson("key", c.key), ...bytesJson("before", c.before), ...bytesJson("after", c.after) });

function storeJson(s: StoreChange, sample: number) {
  return {
    name: s.name,
    status: s.status,
    keys_before: s.keysBefore,
    keys_after: s.keysAfter,
    added: s.added.length,
    changed: s.changed.length,
    deleted: s.deleted.length,
    ...(sample > 0
      ? {
          sample: {
            added: s.added.slice(0, sample).map(keyJson),
            changed: s.changed.slice(0, sample).map(keyJson),
            deleted: s.deleted.slice(0, sample).map(keyJson),
          },
        }
      : {}),
  };
}

function moduleJson(m: ModuleReport) {
  return {
    name: m.name,
    version_before: m.versionBefore?.toString() ?? "",
    version_after: m.versionAfter?.toString() ?? "",
    consensus_version: m.consensusVersion?.toString() ?? "",
    migrations: m.migrations.map((r) => ({ from: r.from.toString(), to: r.to.toString(), duration_ms: ms(r.durationMs), failed: r.failed })),
    init_genesis: m.initGenesis !== undefined,
    duration_ms: ms(m.durationMs),
  };
}

/** The report as the CLI's `-o json` prints it. */
export function rehearsalToJson(r: RehearsalReport, o: FormatOptions = {}) {
  const sample = o.sample ?? 0;
  return {
    format: REHEARSAL_FORMAT,
    rehearsed: true,
    ok: r.ok,
    exit_code: r.exitCode,
    error: r.error,
    halted_in: r.haltedIn ?? "",
    plan: { name: r.plan.name, height: r.plan.height.toString(), info: r.plan.info, source: r.plan.source },
    app: { name: r.app.name, version: r.app.version },
    snapshot: {
      height: r.snapshot.height.toString(),
      source: r.snapshot.source,
      engine: r.snapshot.engine,
      entries: r.snapshot.entries ?? null,
      bytes: r.snapshot.bytes ?? null,
      duration_ms: ms(r.snapshot.durationMs),
      pinned: r.snapshot.pinned,
    },
    block: { height: r.block.height.toString(), time: formatRfc3339NanoNs(r.block.timeNs) },
    app_hash_before: upperHex(r.appHashBefore),
    app_hash_after: upperHex(r.appHashAfter),
    store_upgrades: r.storeUpgrades
      ? {
          applied: r.storeUpgrades.applied,
          added: r.storeUpgrades.added ?? [],
          renamed: (r.storeUpgrades.renamed ?? []).map((x) => ({ old_key: x.oldKey, new_key: x.newKey })),
          deleted: r.storeUpgrades.deleted ?? [],
        }
      : null,
    modules_migrated: r.modulesMigrated,
    modules: r.modules.map(moduleJson),
    stores: r.stores.map((s) => storeJson(s, sample)),
    warnings: r.warnings,
    timings: {
      snapshot_ms: ms(r.timings.snapshotMs),
      prepare_ms: ms(r.timings.prepareMs),
      start_ms: ms(r.timings.startMs),
      block_ms: ms(r.timings.blockMs),
      commit_ms: ms(r.timings.commitMs),
      diff_ms: ms(r.timings.diffMs),
    },
    upgrade_ms: ms(r.timings.blockMs + r.timings.commitMs),
    duration_ms: ms(r.durationMs),
    ...(o.log ? { log: r.log } : {}),
  };
}

/** The JSON of a rehearsal that could not run (`rehearsed: false`), so that a supervisor can tell it from an unsupported binary. */
export function failedRehearsalJson(error: string) {
  return { format: REHEARSAL_FORMAT, rehearsed: false, ok: false, exit_code: 1, error };
}

function duration(n: number): string {
  if (n < 1) return `${n.toFixed(2)} ms`;
  if (n < 1000) return `${n.toFixed(n < 10 ? 1 : 0)} ms`;
  return `${(n / 1000).toFixed(2)} s`;
}

function display(b: Uint8Array | undefined, max = 60): string {
  if (b === undefined) return "";
  const text = printable(b);
  const s = text === undefined ? `0x${hex(b)}` : JSON.stringify(text);
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

function modulesText(mods: ModuleReport[], ok: boolean): string[] {
  const lines: string[] = [];
  const same: string[] = [];
  for (const m of mods) {
    const b = m.versionBefore?.toString() ?? "–";
    const a = ok ? (m.versionAfter?.toString() ?? "–") : (m.consensusVersion?.toString() ?? "–");
    const what: string[] = [];
    for (const r of m.migrations) what.push(`migration ${r.from} → ${r.to} ${r.failed ? "FAILED after" : "in"} ${duration(r.durationMs)}`);
    if (m.initGenesis) what.push(`new module: default genesis ${m.initGenesis.failed ? "FAILED after" : "in"} ${duration(m.initGenesis.durationMs)}`);
    if (what.length === 0 && b === a) {
      same.push(`${m.name} ${b}`);
      continue;
    }
    lines.push(`  ${m.name.padEnd(12)} ${b.padStart(3)} → ${a.padEnd(4)} ${what.join(", ") || (ok ? "version changed by the handler" : "not reached")}`);
  }
  if (same.length > 0) lines.push(`  unchanged: ${same.join(", ")}`);
  return lines;
}

function storesText(stores: StoreChange[], sample: number): string[] {
  const changed = stores.filter((s) => s.status !== "unchanged");
  const lines = [`  ${"store".padEnd(22)} ${"added".padStart(7)} ${"changed".padStart(8)} ${"deleted".padStart(8)}   keys`];
  for (const s of changed) {
    const label = s.status === "added" ? `${s.name} (new)` : s.status === "deleted" ? `${s.name} (removed)` : s.name;
    lines.push(
      `  ${label.padEnd(22)} ${String(s.added.length).padStart(7)} ${String(s.changed.length).padStart(8)} ${String(s.deleted.length).padStart(8)}   ${s.keysBefore} → ${s.keysAfter}`,
    );
    if (sample > 0) {
      for (const c of s.added.slice(0, sample)) lines.push(`      + ${display(c.key, 40)} = ${display(c.after)}`);
      for (const c of s.changed.slice(0, sample)) lines.push(`      ~ ${display(c.key, 40)}: ${display(c.before, 40)} → ${display(c.after, 40)}`);
      for (const c of s.deleted.slice(0, sample)) lines.push(`      - ${display(c.key, 40)} (was ${display(c.before, 40)})`);
      const more =
        s.added.length +
        s.changed.length +
        s.deleted.length -
        Math.min(s.added.length, sample) -
        Math.min(s.changed.length, sample) -
        Math.min(s.deleted.length, sample);
      if (more > 0) lines.push(`      … and ${more} more`);
    }
  }
  const untouched = stores.length - changed.length;
  if (untouched > 0) lines.push(`  ${untouched} other store${untouched === 1 ? "" : "s"} unchanged`);
  return lines;
}

/** The report for people (what `xupgrade devnet rehearse` prints without `-o json`). */
export function formatRehearsal(r: RehearsalReport, o: FormatOptions = {}): string {
  const row = (k: string, v: string) => `${(k + ":").padEnd(15)}${v}`;
  const snapWhere =
    r.snapshot.source === "node"
      ? `served by the running node${r.snapshot.pinned ? ", the state it holds for this plan's rehearsals" : ""} (${r.snapshot.entries} entries, ${r.snapshot.bytes} bytes)`
      : "copied from the stopped node's database";
  const lines = [
    `rehearsal of upgrade "${r.plan.name}" at height ${r.plan.height} with ${r.app.name}${r.app.version ? ` ${r.app.version}` : ""}`,
    row(
      "plan",
      r.plan.source === "chain"
        ? `scheduled on chain${r.plan.info ? `, info ${display(new TextEncoder().encode(r.plan.info), 70)}` : ""}`
        : "given on the command line (scheduled on the copy only)",
    ),
    row("snapshot", `height ${r.snapshot.height}, ${snapWhere}, in ${duration(r.snapshot.durationMs)} (${r.snapshot.engine} engine)`),
    row("block", `${r.block.height} at ${formatRfc3339NanoNs(r.block.timeNs)} (no txs)`),
  ];
  const su = r.storeUpgrades;
  if (su) {
    const parts = [
      ...(su.added ?? []).map((s) => `add ${s}`),
      ...(su.renamed ?? []).map((x) => `rename ${x.oldKey} → ${x.newKey}`),
      ...(su.deleted ?? []).map((s) => `delete ${s}`),
    ];
    lines.push(row("store loader", `${parts.join(", ") || "nothing"}${su.applied ? "" : " (not applied)"}`));
  }
  lines.push(r.ok ? "modules:" : "modules (what ran before the halt; nothing of the block is committed):", ...modulesText(r.modules, r.ok));
  if (r.ok) {
    lines.push("stores:", ...storesText(r.stores, o.sample ?? 0));
    lines.push(row("app hash", `${upperHex(r.appHashBefore)} → ${upperHex(r.appHashAfter)}`));
  } else {
    lines.push(row("app hash", `${upperHex(r.appHashBefore)} (before)`));
  }
  for (const w of r.warnings) lines.push(row("warning", w));
  const upgradeMs = r.timings.blockMs + r.timings.commitMs;
  lines.push(
    row(
      "time",
      `upgrade block ${duration(upgradeMs)} (start-up ${duration(r.timings.startMs)}), snapshot ${duration(r.timings.snapshotMs)}, rehearsal ${duration(r.durationMs)} in all`,
    ),
  );
  lines.push(
    r.ok
      ? row("result", `the upgrade would succeed: ${r.modulesMigrated} module${r.modulesMigrated === 1 ? "" : "s"} migrated in ${duration(upgradeMs)}`)
      : row(
          "result",
          `the node would HALT${r.haltedIn === "start" ? " at start-up" : r.haltedIn === "commit" ? " at the commit" : ""} with exit code ${r.exitCode}: ${r.error}`,
        ),
  );
  return lines.join("\n") + "\n";
}
