/**
 * The local visor's state, where one runs on this machine for a chain (docs/spec/watch.md §4.3): its loopback
 * endpoint's `/metrics` (docs/spec/sidecar.md §11.2) — the stage it is in, the upgrade `current` points at, the
 * node's height. This machine's word, not verified: shown beside the verified facts, never as one of them.
 */
import type { VisorFact } from "./snapshot.js";

export interface VisorReader {
  read(): Promise<VisorFact>;
}

/** `name{label="value"} number` lines of the exposition text, for the few series read here. */
function series(text: string, name: string): { labels: Record<string, string>; value: number }[] {
  const out: { labels: Record<string, string>; value: number }[] = [];
  for (const line of text.split("\n")) {
    if (!line.startsWith(name)) continue;
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/.exec(line);
    if (!m || m[1] !== name) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      labels[l[1]] = l[2].replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
    out.push({ labels, value: Number(m[3]) });
  }
  return out;
}

export function visorReader(url: string, timeoutMs = 3000): VisorReader {
  const base = url.replace(/\/+$/, "");
  return {
    async read(): Promise<VisorFact> {
      try {
        const res = await fetch(`${base}/metrics`, { signal: AbortSignal.timeout(timeoutMs) });
        if (!res.ok) return { problem: `the visor's /metrics answered HTTP ${res.status}` };
        const text = await res.text();
        const stage = series(text, "xupgrade_visor_stage").find((s) => s.value === 1)?.labels.stage;
        const current = series(text, "xupgrade_visor_current_upgrade").find((s) => s.value === 1)?.labels.name;
        const height = series(text, "xupgrade_visor_node_height")[0]?.value;
        return { stage, current, nodeHeight: Number.isFinite(height) ? height : undefined };
      } catch (e) {
        return { problem: `the visor at ${base} did not answer: ${(e as Error).message}` };
      }
    },
  };
}
