/**
 * Where a sidecar's upgrade time goes, per node and for the network: from the node's halt at H to the first
 * block on v2 (H+1), through the sidecar noticing the halt, stopping the node and switching, the new process
 * booting and opening its store, CometBFT starting and replaying H (the upgrade applied) in its handshake,
 * the node serving, and the first round of consensus on v2 (which needs more than 2/3 of the power).
 *
 * Times are milliseconds since the epoch: a node's own records carry `time`; a sidecar's lines are read from
 * its log (the visor's stderr, with COSMOVISOR_TIMEFORMAT_LOGS=rfc3339nano) or from the moment the suite
 * received them (`at`: cosmovisor logs whole seconds only).
 */
export interface StampedRecord {
  msg: string;
  time?: unknown;
  /** When the suite received the line (ms since the epoch). */
  at?: number;
  [k: string]: unknown;
}

export interface NodeTimeline {
  node: number;
  power: number;
  /** The node halted at H (its `halting the node` record). */
  halt?: number;
  /** The sidecar noticed the halt (the file). */
  noticed?: number;
  /** The sidecar started the new binary. */
  relaunch?: number;
  /** The new process had booted and opened its store (`starting devnet`). */
  boot?: number;
  /** It started CometBFT. */
  comet?: number;
  /** CometBFT's handshake completed: H replayed into v2, the upgrade applied. */
  handshake?: number;
  /** CometBFT's RPC answers. */
  serving?: number;
  /** It committed H+1. */
  firstBlock?: number;
  /** It waited for the CometBFT of the stopped node to exit. */
  waitedForCometbft: boolean;
}

export type SidecarKind = "visor" | "cosmovisor";

const stamp = (r: StampedRecord): number | undefined => {
  if (typeof r.time === "string") {
    const t = Date.parse(r.time);
    if (!Number.isNaN(t)) return t;
  }
  return r.at;
};

/** The visor's own lines: `<rfc3339nano> INF <message> …`, as [time, message]. */
export function visorLines(stderr: string): [number, string][] {
  const out: [number, string][] = [];
  for (const line of stderr.split("\n")) {
    const m = /^(\d{4}-\d\d-\d\dT\S+) (?:INF|WRN|ERR) (.*)$/.exec(line);
    if (!m) continue;
    const t = Date.parse(m[1]);
    if (!Number.isNaN(t)) out.push([t, m[2]]);
  }
  return out;
}

/** A node's timeline from what its sidecar process printed (stdout records, stamped; stderr text). */
export function nodeTimeline(o: {
  node: number;
  power: number;
  H: number;
  kind: SidecarKind;
  records: readonly StampedRecord[];
  stderr: string;
  /** When the node's keeper wrote upgrade-info.json (what the sidecar acts on); else its `halting the node` record. */
  halt?: number;
}): NodeTimeline {
  const t: NodeTimeline = { node: o.node, power: o.power, waitedForCometbft: false, halt: o.halt };
  let v2 = false;
  for (const r of o.records) {
    const at = stamp(r);
    if (at === undefined) continue;
    const msg = String(r.msg);
    if (msg === "halting the node" && Number(r.height) === o.H) t.halt ??= at;
    else if (msg === "starting devnet" && r.app === "example-v2") {
      v2 = true;
      t.boot ??= at;
    } else if (v2 && msg === "started CometBFT") t.comet ??= at;
    else if (v2 && msg.startsWith("Completed ABCI Handshake")) t.handshake ??= at;
    else if (v2 && msg === "serving") t.serving ??= at;
    else if (v2 && msg === "waiting for the CometBFT of an earlier run to stop") t.waitedForCometbft = true;
    else if (msg === "committed block" && Number(r.height) === o.H + 1) t.firstBlock ??= at;
    else if (o.kind === "cosmovisor" && r.level === "text") {
      // cosmovisor's lines come through its stdout, as text
      if (msg.includes("daemon shutting down in an attempt to restart")) t.noticed ??= at;
      else if (msg.includes("upgrade detected, relaunching")) t.relaunch ??= at;
    }
  }
  if (o.kind === "visor") {
    for (const [at, msg] of visorLines(o.stderr)) {
      if (msg.startsWith(`upgrade "v2" needed at height ${o.H}`)) t.noticed ??= at;
      else if (msg.startsWith("upgrade detected, relaunching")) t.relaunch ??= at;
    }
  }
  return t;
}

const median = (xs: number[]): number | undefined => (xs.length === 0 ? undefined : [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)]);

/** The step between two marks on each node that has both, as a median over the nodes. */
function step(ts: readonly NodeTimeline[], from: keyof NodeTimeline, to: keyof NodeTimeline): number | undefined {
  const d = ts.flatMap((t) => (typeof t[from] === "number" && typeof t[to] === "number" ? [t[to] - t[from]] : []));
  const m = median(d);
  return m === undefined ? undefined : Math.round(m);
}

/** The first moment the nodes at a mark hold more than 2/3 of the power (undefined if they never do). */
export function quorumAt(ts: readonly NodeTimeline[], mark: keyof NodeTimeline): number | undefined {
  const total = ts.reduce((a, t) => a + t.power, 0);
  let power = 0;
  for (const t of [...ts].filter((x) => typeof x[mark] === "number").sort((a, b) => (a[mark] as number) - (b[mark] as number))) {
    power += t.power;
    if (3 * power > 2 * total) return t[mark] as number;
  }
  return undefined;
}

/**
 * The network's figures: from the first halt to the first block on v2 (and to the moment more than 2/3 of the
 * power serves on v2, the rest being consensus finding itself again), how far apart the halts were, and
 * each step's median over the nodes.
 */
export function networkMeasures(ts: readonly NodeTimeline[]): Record<string, number> {
  const halts = ts.flatMap((t) => (t.halt === undefined ? [] : [t.halt]));
  const blocks = ts.flatMap((t) => (t.firstBlock === undefined ? [] : [t.firstBlock]));
  const out: Record<string, number> = {};
  const put = (k: string, v: number | undefined) => {
    if (v !== undefined && Number.isFinite(v)) out[k] = Math.round(v);
  };
  if (halts.length > 0) {
    const first = Math.min(...halts);
    put("halt_spread_ms", Math.max(...halts) - first);
    if (blocks.length > 0) put("halt_to_first_new_block_ms", Math.min(...blocks) - first);
    const q = quorumAt(ts, "serving");
    put("halt_to_quorum_serving_ms", q === undefined ? undefined : q - first);
    if (q !== undefined && blocks.length > 0) put("quorum_serving_to_block_ms", Math.min(...blocks) - q);
  }
  put("detect_ms", step(ts, "halt", "noticed"));
  put("switch_ms", step(ts, "noticed", "relaunch"));
  put("boot_ms", step(ts, "relaunch", "boot"));
  put("comet_start_ms", step(ts, "boot", "comet"));
  put("handshake_ms", step(ts, "comet", "handshake"));
  put("serve_ms", step(ts, "handshake", "serving"));
  put("halt_to_serving_ms", step(ts, "halt", "serving"));
  put("waited_for_old_cometbft", ts.filter((t) => t.waitedForCometbft).length);
  return out;
}
