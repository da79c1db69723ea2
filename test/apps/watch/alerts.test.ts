/**
 * Alerts (bindings/apps/watch/alerts.ts, ledger.ts, delivery.ts): which facts make which alerts, in order; each
 * delivered to local receivers in its service's shape, retried with backoff, exactly once across a restart of the
 * dispatcher, and never holding the caller.
 */
import { afterAll, describe, expect, it } from "vitest";
import { dueAlerts, emptyMemory, type Alert, type AlertRules, type ChainMemory } from "../../../bindings/apps/watch/alerts.js";
import type { WebhookConfig } from "../../../bindings/apps/watch/config.js";
import { Dispatcher, hookKey } from "../../../bindings/apps/watch/delivery.js";
import { Ledger } from "../../../bindings/apps/watch/ledger.js";
import type { ChainSnapshot } from "../../../bindings/apps/watch/snapshot.js";
import { WatchState } from "../../../bindings/apps/watch/state.js";
import { removeTempDirs, tempDir } from "../../support/temp.js";
import { waitUntil } from "../../support/wait.js";
import { discordShape, jsonShape, receiver, slackShape, telegramShape } from "./receivers.js";

afterAll(removeTempDirs);
const T = Date.UTC(2026, 4, 4, 10);
const RULES: AlertRules = {
  leadsMs: [86_400_000, 7_200_000, 600_000],
  readinessThreshold: 2 / 3,
  readinessWithinMs: 7_200_000,
  stillHaltedAfterMs: 1_800_000,
  lateAfterMs: 15_000,
  pollMs: 5000,
};
const PLAN = { name: "v2", height: 10_000n, info: "" };

function snap(at: number, o: Partial<ChainSnapshot> & { height: bigint; etaAt?: number }): ChainSnapshot {
  const eta =
    o.etaAt === undefined
      ? undefined
      : {
          blocksLeft: o.plan ? Number(o.plan.height - o.height) : 1,
          p10: o.etaAt - 60_000,
          p50: o.etaAt,
          p90: o.etaAt + 60_000,
          method: "analogs" as const,
          analogs: 100,
          spanMs: 1,
        };
  return {
    name: "hub",
    chainId: "hub-1",
    at,
    status: "verified",
    root: { source: "given", confirmed: true, origin: { how: "given", node: "n", height: 1n, hash: "AB", at: "" } },
    witnesses: { without: false, confirmed: ["w"], faulty: [], unavailable: [] },
    header: { height: o.height, hash: "CD".repeat(32), time: new Date(at).toISOString(), ms: at, ageMs: 0, appVersion: 0n },
    plan: null,
    proposals: [],
    history: { samples: 10, spanMs: 1, covered: false },
    eta,
    ...o,
  };
}

/** Runs snapshots through dueAlerts with an in-memory ledger; returns the alerts' ids in order. */
function run(snaps: ChainSnapshot[], memory: ChainMemory = emptyMemory(), known = new Set<string>()): { ids: string[]; alerts: Alert[]; memory: ChainMemory } {
  const alerts: Alert[] = [];
  for (const s of snaps) {
    const r = dueAlerts(memory, s, RULES, (id) => known.has(id));
    for (const a of r.alerts) known.add(a.id);
    alerts.push(...r.alerts);
    memory = r.memory;
  }
  return { ids: alerts.map((a) => a.id), alerts, memory };
}

describe("which alerts, in which order", () => {
  it("a proposal passes, the plan is followed through every lead, halts, stays halted, resumes — each once", () => {
    const H = 10_000n;
    const eta = T + 3 * 86_400_000;
    const prop = { id: 7n, plan: PLAN, votingEnd: undefined, title: "v2" };
    const { ids, alerts } = run([
      snap(T, { height: 9000n, proposals: [prop] }),
      snap(T + 1000, { height: 9001n, plan: PLAN, etaAt: eta }),
      snap(T + 2000, { height: 9002n, plan: PLAN, etaAt: eta }),
      // Each lead is reached when the band's early edge (p10, a minute before the median here) is that far.
      snap(eta - 60_000 - 86_400_000, { height: 9500n, plan: PLAN, etaAt: eta }),
      snap(eta - 60_000 - 86_400_000 + 5000, { height: 9501n, plan: PLAN, etaAt: eta }),
      snap(eta - 60_000 - 7_200_000, {
        height: 9900n,
        plan: PLAN,
        etaAt: eta,
        readiness: { readyPower: 90n, totalPower: 100n, share: 0.9, updatedHeight: 9899n },
      }),
      snap(eta - 60_000 - 600_000, {
        height: 9990n,
        plan: PLAN,
        etaAt: eta,
        readiness: { readyPower: 50n, totalPower: 100n, share: 0.5, updatedHeight: 9989n },
      }),
      snap(eta, { height: H, plan: PLAN, halted: { height: H, upgrade: "v2", sinceMs: eta }, etaAt: eta }),
      snap(eta + 1_900_000, { height: H, plan: PLAN, halted: { height: H, upgrade: "v2", sinceMs: eta }, etaAt: eta }),
      snap(eta + 2_000_000, { height: H + 1n, plan: null, applied: { name: "v2", height: H }, protocolVersion: 1n }),
      snap(eta + 2_005_000, { height: H + 2n, plan: null, applied: { name: "v2", height: H } }),
    ]);
    expect(ids).toEqual([
      "proposal_passed/hub/7",
      "plan_scheduled/hub/v2@10000",
      "lead/hub/v2@10000/24h",
      "lead/hub/v2@10000/2h",
      "lead/hub/v2@10000/10m",
      "readiness_low/hub/v2@10000",
      "halt/hub/v2@10000",
      "still_halted/hub/v2@10000",
      "resumed/hub/v2@10000",
    ]);
    expect(alerts.every((a) => !a.late)).toBe(true);
    expect(alerts[2].facts).toEqual(expect.arrayContaining([["band (p10–p90)", expect.stringMatching(/ – /)]]));
  });

  it("a lead that passed before the ETA was known is not sent; one missed while the watch was down is sent late, once", () => {
    const eta = T + 3_600_000; // first seen one hour before: the 24h and 2h leads had passed
    const first = run([snap(T, { height: 9000n, plan: PLAN, etaAt: eta })]);
    expect(first.ids).toEqual(["plan_scheduled/hub/v2@10000"]);
    expect(first.memory.armed).toEqual([600_000]);
    // The watch was stopped from T until 5 minutes before the ETA: the 10m lead is late.
    const later = run(
      [snap(eta - 300_000, { height: 9950n, plan: PLAN, etaAt: eta }), snap(eta - 290_000, { height: 9951n, plan: PLAN, etaAt: eta })],
      first.memory,
      new Set(first.ids),
    );
    expect(later.ids).toEqual(["lead/hub/v2@10000/10m"]);
    expect(later.alerts[0]).toMatchObject({ late: true, title: expect.stringMatching(/late: the watch was not running then/) });
  });

  it("a plan changed, then cancelled; a failed check alerts once per episode; an unconfirmed root is said in every alert", () => {
    const other = { name: "v2b", height: 12_000n, info: "" };
    const unconfirmed = { source: "first-use", confirmed: false, origin: { how: "first-use" as const, node: "n", height: 1n, hash: "AB", at: "" } };
    const failed = (at: number): ChainSnapshot => ({
      ...snap(at, { height: 0n }),
      status: "failed",
      failure: { check: "signature", height: 9003n, message: "commit signature #0 is wrong" },
      header: undefined,
      plan: undefined,
    });
    const { ids, alerts } = run([
      snap(T, { height: 9000n, plan: PLAN, root: unconfirmed }),
      snap(T + 1000, { height: 9001n, plan: other, root: unconfirmed }),
      failed(T + 2000),
      failed(T + 3000),
      snap(T + 4000, { height: 9004n, plan: null, root: unconfirmed }),
      failed(T + 5000),
    ]);
    expect(ids).toEqual([
      "plan_scheduled/hub/v2@10000",
      "plan_changed/hub/v2@10000->v2b@12000",
      "verification_failed/hub/1",
      "plan_cancelled/hub/v2b@12000",
      "verification_failed/hub/2",
    ]);
    for (const a of alerts.filter((x) => x.kind !== "verification_failed"))
      expect(a).toMatchObject({ unconfirmed: true, title: expect.stringMatching(/\[unconfirmed root\]$/) });
  });
});

describe("a node that stops at the height", () => {
  const down = (at: number): ChainSnapshot => ({
    ...snap(at, { height: 0n }),
    status: "unreachable",
    failure: { check: "provider", message: "connection refused" },
    header: undefined,
    plan: undefined,
  });
  it("silence within two polls' blocks of the plan's height is the halt, and stays it; silence far below is not", () => {
    const eta = T + 10_000;
    // 400 ms blocks: the last verified poll saw height 9,990 with ten blocks (4 s) left.
    const seen = run([snap(T, { height: 9900n, plan: PLAN, etaAt: T + 40_000 }), snap(T + 36_000, { height: 9990n, plan: PLAN, etaAt: eta })]);
    expect(seen.memory.last).toMatchObject({ height: "9990", blockMs: 400 });
    const after = run([down(eta + 1000), down(eta + 1_800_000 + 40_000)], seen.memory, new Set(seen.ids));
    expect(after.ids).toEqual(["halt/hub/v2@10000", "still_halted/hub/v2@10000"]);
    expect(after.alerts[0].facts).toEqual(
      expect.arrayContaining([["last verified header", `9990 at ${new Date(T + 36_000).toISOString().replace(/\.\d{3}Z$/, "Z")}`]]),
    );
    const early = run([snap(T, { height: 9000n, plan: PLAN, etaAt: T + 400_000 }), down(T + 5000)]);
    expect(early.ids).toEqual(["plan_scheduled/hub/v2@10000"]);
  });
});

const alert = (i: number): Alert => ({
  id: `plan_scheduled/hub/v${i}@${1000 + i}`,
  kind: "plan_scheduled",
  chain: "hub",
  chainId: "hub-1",
  at: T + i,
  title: `hub: upgrade v${i}`,
  facts: [["plan", `v${i}`]],
  unconfirmed: false,
});

describe("delivery", () => {
  it("each receiver gets its documented shape, in order; a refusing one is retried with backoff until it takes them", async () => {
    const checks = { slack: slackShape, discord: discordShape, telegram: telegramShape, json: jsonShape };
    const rx = Object.fromEntries(await Promise.all(Object.entries(checks).map(async ([k, c]) => [k, await receiver(c)] as const)));
    rx.discord.failNext = 3;
    const hooks: WebhookConfig[] = Object.keys(checks).map((f) => ({
      url: rx[f].url,
      format: f as WebhookConfig["format"],
      chatId: f === "telegram" ? "-100" : undefined,
    }));
    const ledger = new Ledger();
    let writes = 0;
    const d = new Dispatcher({ hooks, ledger, persist: async () => void writes++, retries: 5, backoffMs: 20, timeoutMs: 60_000 });
    try {
      for (let i = 1; i <= 3; i++) ledger.add(alert(i), hooks.map(hookKey));
      d.kick();
      await waitUntil(() => Object.values(rx).every((r) => r.got.length === 3), 20_000, "every receiver to have the three alerts");
      for (const r of Object.values(rx)) expect(r.got.map((g) => g.id)).toEqual([1, 2, 3].map((i) => alert(i).id));
      expect(rx.discord.requests).toBe(6);
      expect(ledger.entries.every((e) => Object.values(e.deliveries).every((x) => x.state === "sent"))).toBe(true);
      expect(ledger.entries[0].deliveries[hookKey(hooks[1])].attempts).toBe(4);
      expect(writes).toBeGreaterThanOrEqual(12);
    } finally {
      await d.close(1000);
      for (const r of Object.values(rx)) await r.close();
    }
  });

  it("exactly once across a restart: what was sent is not sent again, what was pending goes out next start, in order", async () => {
    const dir = tempDir("xupgrade-watch-ledger-");
    const rx = await receiver(jsonShape);
    const hooks: WebhookConfig[] = [{ url: rx.url, format: "json" }];
    let state = WatchState.open(dir);
    let ledger = new Ledger(state.alerts);
    const persist = (s: WatchState, l: Ledger) => async () => {
      s.alerts = l.entries;
      await s.flush();
    };
    let d = new Dispatcher({ hooks, ledger, persist: persist(state, ledger), retries: 50, backoffMs: 20, timeoutMs: 60_000 });
    for (let i = 1; i <= 2; i++) ledger.add(alert(i), hooks.map(hookKey));
    await persist(state, ledger)();
    d.kick();
    await waitUntil(() => rx.got.length === 2, 10_000, "the first two alerts");
    // The receiver goes down; two more alerts are made; the watch stops while they are still pending.
    rx.failNext = 1_000;
    for (let i = 3; i <= 4; i++) ledger.add(alert(i), hooks.map(hookKey));
    await persist(state, ledger)();
    d.kick();
    await waitUntil(() => rx.requests >= 3, 10_000, "a refused attempt");
    await d.close(100);
    // A new process: the state as written.
    rx.failNext = 0;
    state = WatchState.open(dir);
    ledger = new Ledger(state.alerts);
    expect(ledger.has(alert(1).id) && ledger.has(alert(4).id)).toBe(true);
    expect(ledger.pending(hookKey(hooks[0])).map((e) => e.alert.id)).toEqual([alert(3).id, alert(4).id]);
    d = new Dispatcher({ hooks, ledger, persist: persist(state, ledger), retries: 5, backoffMs: 20, timeoutMs: 60_000 });
    d.kick();
    try {
      await waitUntil(() => rx.got.length === 4, 10_000, "the two pending alerts after the restart");
      expect(rx.got.map((g) => g.id)).toEqual([1, 2, 3, 4].map((i) => alert(i).id));
      // The receiver's 2xx comes before the ledger's write: a stop waits for that write, so the state says "sent".
      await d.close(10_000);
      expect(WatchState.open(dir).alerts.every((e) => e.deliveries[hookKey(hooks[0])].state === "sent")).toBe(true);
    } finally {
      await d.close(1000);
      await rx.close();
    }
  });

  it("a receiver that never answers holds neither the caller nor the other receivers, and is given up after its retries", async () => {
    const dead = await receiver();
    dead.hang = true;
    const live = await receiver();
    const hooks: WebhookConfig[] = [
      { url: dead.url, format: "json" },
      { url: live.url, format: "json" },
    ];
    const ledger = new Ledger();
    const d = new Dispatcher({ hooks, ledger, persist: async () => {}, retries: 1, backoffMs: 10, timeoutMs: 200 });
    try {
      ledger.add(alert(1), hooks.map(hookKey));
      const t0 = performance.now();
      d.kick();
      expect(performance.now() - t0).toBeLessThan(50);
      await waitUntil(() => live.got.length === 1, 10_000, "the live receiver");
      await waitUntil(() => ledger.entries[0].deliveries[hookKey(hooks[0])].state === "failed", 10_000, "the dead receiver given up");
      expect(ledger.entries[0].deliveries[hookKey(hooks[0])]).toMatchObject({ attempts: 2, error: expect.stringMatching(/no answer within 200 ms/) });
    } finally {
      await d.close(100);
      await dead.close();
      await live.close();
    }
  });
});
