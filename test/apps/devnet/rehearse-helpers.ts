/**
 * Shared pieces of the rehearsal suites (rehearse*.test.ts): a stopped node's app stores read straight from
 * its database, the changes between two such states computed here independently of the rehearsal's own
 * diff, the same changes read off a rehearsal report, and the commit intervals of a node's log.
 */
import type { RehearsalReport } from "../../../bindings/apps/devnet/index.js";
import { openNodeStore, type LogRecord } from "./helpers.js";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

/** A stopped node's app stores (names not starting with `_`): store → hex key → hex value; and its height. */
export async function appState(home: string): Promise<{ height: bigint; stores: Map<string, Map<string, string>> }> {
  const ms = await openNodeStore(home);
  try {
    const stores = new Map<string, Map<string, string>>();
    for (const name of ms.committedStores()) {
      if (name.startsWith("_")) continue;
      const m = new Map<string, string>();
      for (const [k, v] of ms.store(name).iterate(new Uint8Array(0), undefined)) m.set(hex(k), hex(v));
      stores.set(name, m);
    }
    return { height: ms.lastCommittedHeight, stores };
  } finally {
    await ms.close();
  }
}

/** Per store, sorted `+key=value`, `~key=before>after`, `-key=value` lines; stores without changes left out. */
export type Changes = Record<string, string[]>;

export function changesBetween(before: Map<string, Map<string, string>>, after: Map<string, Map<string, string>>): Changes {
  const out: Changes = {};
  for (const name of new Set([...before.keys(), ...after.keys()])) {
    const b = before.get(name) ?? new Map<string, string>();
    const a = after.get(name) ?? new Map<string, string>();
    const lines: string[] = [];
    for (const [k, v] of a) {
      if (!b.has(k)) lines.push(`+${k}=${v}`);
      else if (b.get(k) !== v) lines.push(`~${k}=${b.get(k)}>${v}`);
    }
    for (const [k, v] of b) if (!a.has(k)) lines.push(`-${k}=${v}`);
    if (lines.length > 0) out[name] = lines.sort();
  }
  return out;
}

/** The same lines from a rehearsal report (which must hold every change: the library keeps them all). */
export function changesOfReport(r: RehearsalReport): Changes {
  const out: Changes = {};
  for (const s of r.stores) {
    const lines = [
      ...s.added.map((c) => `+${hex(c.key)}=${hex(c.after!)}`),
      ...s.changed.map((c) => `~${hex(c.key)}=${hex(c.before!)}>${hex(c.after!)}`),
      ...s.deleted.map((c) => `-${hex(c.key)}=${hex(c.before!)}`),
    ];
    if (lines.length > 0) out[s.name] = lines.sort();
  }
  return out;
}

/** The module versions after the upgrade as `name=version`, from a report. */
export const versionsAfter = (r: RehearsalReport) => r.modules.filter((m) => m.versionAfter !== undefined).map((m) => `${m.name}=${m.versionAfter}`);

/** Milliseconds between consecutive `committed block` records (their `time` fields) with `time` in [from, to]. */
export function commitIntervals(records: LogRecord[], from: number, to: number): number[] {
  const times = records.filter((r) => r.msg === "committed block").map((r) => Date.parse(r.time as string));
  const out: number[] = [];
  for (let i = 1; i < times.length; i++) if (times[i - 1] >= from && times[i] <= to) out.push(times[i] - times[i - 1]);
  return out;
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const s = [...values].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}
