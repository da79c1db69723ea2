/**
 * `Watch` end to end on synthetic Cosmos SDK nodes (test/support/light/synthetic-sdk.ts: real headers, commits
 * and store proofs over JSON-RPC): two chains followed at once — "alpha" from a given root with a witness, "beta"
 * on first use without witnesses (unconfirmed everywhere). Alpha's upgrade makes the whole alert sequence in
 * order, exactly once, across a restart of the watch in the middle; beta's node then lies and its row turns
 * failed with the check while alpha stays verified. The fleet rows, the calendar feed and /metrics are read
 * from the watch's own server with real parsers. (The same on real chains: test/e2e/watch-fleet.test.ts.)
 */
import ICAL from "ical.js";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterAll, describe, expect, it } from "vitest";
import { loadCore } from "../../../bindings/core/index.js";
import { parseWatchConfig } from "../../../bindings/apps/watch/config.js";
import type { FleetJson } from "../../../bindings/apps/watch/fleet.js";
import { Watch } from "../../../bindings/apps/watch/watch.js";
import { lyingNode } from "../../support/light/proxy.js";
import { serveJsonRpc } from "../../support/light/rpc-server.js";
import { hexOf, syntheticSdkNode, type SdkNode } from "../../support/light/synthetic-sdk.js";
import { removeTempDirs, tempDir } from "../../support/temp.js";
import { waitUntil } from "../../support/wait.js";
import { jsonShape, receiver, slackShape } from "./receivers.js";

afterAll(removeTempDirs);
const S = 1_000_000_000n;
const GENESIS_NS = BigInt(Date.now() - 3_600_000) * 1_000_000n;

async function node(chainId: string): Promise<SdkNode> {
  return syntheticSdkNode({ chain: { chainId, validators: 4, genesisNs: GENESIS_NS, intervalNs: S, latest: 20n }, state: {} });
}

describe("watch: two chains, an upgrade, a restart, a lying node", { timeout: 120_000 }, () => {
  it("alpha's alert sequence arrives once and in order across a restart; beta's lie turns only beta failed", async () => {
    const core = await loadCore("js");
    const alpha = await node("alpha-1");
    const beta = await node("beta-1");
    const witness = await serveJsonRpc((m, p) => alpha.chain.handle(m, p));
    const betaProxy = await lyingNode(beta.url, { mode: "none" });
    const json = await receiver(jsonShape);
    const slack = await receiver(slackShape);
    const dir = tempDir("xupgrade-watch-");
    // The clock: half a block after alpha's latest header (both chains keep the same pace).
    const now = () => Number(alpha.chain.timeNs(alpha.chain.latest) / 1_000_000n) + 500 + skew;
    let skew = 0;
    const config = parseWatchConfig({
      poll: "50ms",
      leads: ["40s", "20s", "10s"],
      still_halted_after: "30s",
      max_age: "0s",
      webhook_backoff: "20ms",
      chains: [
        { name: "alpha", chain_id: "alpha-1", rpc: alpha.url, witnesses: [witness.url], trust_height: 20, trust_hash: hexOf(alpha.chain.hash(20n)) },
        { name: "beta", rpc: betaProxy.url, without_witnesses: true, trust_on_first_use: true },
      ],
      webhooks: [
        { url: json.url, format: "json" },
        { url: slack.url, format: "slack", chains: ["alpha"] },
      ],
    });
    const start = () => Watch.start({ config, stateDir: dir, listen: "127.0.0.1:0", now });
    let watch = await start();
    const advance = async (n = 1) => {
      for (let i = 0; i < n; i++) {
        await alpha.advance();
        await beta.advance();
        await watch.polled(2);
      }
    };
    const fleet = async () => (await (await fetch(`${watch.url}/fleet.json`)).json()) as FleetJson;
    const row = async (name: string) => (await fleet()).chains.find((c) => c.name === name)!;
    try {
      await advance(30); // 30 blocks of history
      const H = alpha.chain.latest + 60n;
      const up = alpha.stores.store("upgrade");
      up.set(core.planKey(), core.encodePlan({ name: "v2", height: H, info: "" }));
      await advance(5);
      await waitUntil(async () => (await row("alpha")).eta !== null, 10_000, "alpha's ETA");
      const a = await row("alpha");
      expect(a).toMatchObject({
        status: "verified",
        plan: { name: "v2", height: H.toString() },
        trust_root: { confirmed: true },
        witnesses: { without: false, confirmed: [witness.url] },
      });
      const b = await row("beta");
      expect(b).toMatchObject({
        status: "verified",
        trust_root: { source: "first-use", confirmed: false, warning: expect.stringMatching(/^UNCONFIRMED TRUST ROOT/) },
        witnesses: { without: true },
      });

      // Blocks until the 40 s lead, then a restart of the watch between it and the 20 s lead.
      while (alpha.chain.latest < H - 38n) await advance();
      await waitUntil(() => json.got.some((g) => g.id.startsWith("lead/alpha/v2@") && g.id.endsWith("/40s")), 10_000, "the 40s lead");
      await watch.stop();
      watch = await start();
      while (alpha.chain.latest < H) await advance();
      await waitUntil(async () => (await row("alpha")).halted !== null, 10_000, "alpha's halt");
      skew = 31_000; // half a minute without a block
      await watch.polled(2);
      await waitUntil(() => json.got.some((g) => g.id.startsWith("still_halted/alpha/")), 10_000, "still halted");
      skew = 0;
      // The new binary: the plan is cleared and its Done record written at H; the chain goes on.
      up.delete(core.planKey());
      up.set(Uint8Array.of(0x01, ...core.encodeInt64BE(H), ...new TextEncoder().encode("v2")), Uint8Array.of(1));
      await advance(2);
      await waitUntil(() => json.got.some((g) => g.id.startsWith("resumed/alpha/")), 10_000, "resumed");

      const ids = json.got.filter((g) => g.body.chain === "alpha").map((g) => g.id);
      expect(ids).toEqual([
        `plan_scheduled/alpha/v2@${H}`,
        `lead/alpha/v2@${H}/40s`,
        `lead/alpha/v2@${H}/20s`,
        `lead/alpha/v2@${H}/10s`,
        `halt/alpha/v2@${H}`,
        `still_halted/alpha/v2@${H}`,
        `resumed/alpha/v2@${H}`,
      ]);
      expect(slack.got.map((g) => g.id)).toEqual(ids);
      expect(json.got.filter((g) => g.body.chain === "beta")).toEqual([]);

      // Beta's node lies: a forged signature above the heights it served so far.
      betaProxy.options.above = beta.chain.latest;
      betaProxy.options.mode = "forge-signature";
      await advance(2);
      await waitUntil(async () => (await row("beta")).status === "failed", 10_000, "beta failed");
      const [ra, rb] = [await row("alpha"), await row("beta")];
      expect(rb).toMatchObject({ status: "failed", failure: { check: "signature" }, plan: "unknown", header: null });
      expect(ra).toMatchObject({ status: "verified" });
      await waitUntil(() => json.got.some((g) => g.id === "verification_failed/beta/1"), 10_000, "beta's failure alert");

      // The feeds, read with real parsers.
      const ics = await (await fetch(`${watch.url}/chains/alpha.ics`)).text();
      const vevents = new ICAL.Component(ICAL.parse(ics)).getAllSubcomponents("vevent").map((v) => new ICAL.Event(v));
      expect(vevents.map((e) => e.summary)).toEqual([`alpha: upgrade v2 applied at height ${H}`]);
      expect(vevents[0].sequence).toBeGreaterThanOrEqual(1);
      const metrics = parsePrometheusTextFormat(await (await fetch(`${watch.url}/metrics`)).text());
      const gauge = (name: string, chain: string) => metrics.find((m) => m.name === name)?.metrics.find((m) => m.labels?.chain === chain)?.value;
      expect(gauge("xupgrade_watch_verified", "alpha")).toBe("1");
      expect(gauge("xupgrade_watch_verified", "beta")).toBe("0");
      expect(gauge("xupgrade_watch_trust_root_confirmed", "beta")).toBe("0");
      expect(Number(gauge("xupgrade_watch_verified_height", "alpha"))).toBeGreaterThan(Number(H));
      expect(
        metrics
          .find((m) => m.name === "xupgrade_watch_verification_failures_total")
          ?.metrics.find((m) => m.labels?.chain === "beta" && m.labels.check === "signature"),
      ).toBeDefined();
    } finally {
      await watch.stop();
      for (const s of [json, slack, witness, betaProxy]) await s.close();
      await alpha.close();
      await beta.close();
    }
  });

  it("a chain whose only witness stops answering is unreachable with the witness check, not failed: no alert", async () => {
    const gamma = await node("gamma-1");
    const witness = await serveJsonRpc((m, p) => gamma.chain.handle(m, p));
    const json = await receiver(jsonShape);
    const config = parseWatchConfig({
      poll: "50ms",
      max_age: "0s",
      webhook_backoff: "20ms",
      chains: [{ name: "gamma", chain_id: "gamma-1", rpc: gamma.url, witnesses: [witness.url], trust_height: 20, trust_hash: hexOf(gamma.chain.hash(20n)) }],
      webhooks: [{ url: json.url, format: "json" }],
    });
    const now = () => Number(gamma.chain.timeNs(gamma.chain.latest) / 1_000_000n) + 500;
    const watch = await Watch.start({ config, stateDir: tempDir("xupgrade-watch-"), listen: "127.0.0.1:0", now });
    const row = async () => ((await (await fetch(`${watch.url}/fleet.json`)).json()) as FleetJson).chains[0];
    try {
      await gamma.advance();
      await waitUntil(async () => (await row()).status === "verified", 10_000, "gamma verified");
      await witness.close();
      await gamma.advance();
      await waitUntil(async () => (await row()).status !== "verified", 10_000, "gamma no longer verified");
      await watch.polled(3);
      const r = await row();
      expect(r).toMatchObject({ status: "unreachable", failure: { check: "witness" }, header: null });
      expect(r.failure!.message).toMatch(/^at height \d+: no witness confirmed the header — unavailable: .*connection refused/);
      expect(json.got.map((g) => g.id)).toEqual([]);
    } finally {
      await watch.stop();
      await json.close();
      await gamma.close();
    }
  });
});
