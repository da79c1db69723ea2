/**
 * `xupgrade watch` (the real CLI process) following three real chains at once (docs/spec/watch.md §10):
 *
 * - "devnet": the four-validator devnet under CometBFT v0.38 (`xupgrade devnet --engine cometbft`,
 *   test/e2e/cometbft/halt/net.ts), followed through a proxy in front of node 0 with node 1 as the witness, from a
 *   root given in the config; upgraded v1 → v2 by a gov proposal, each validator restarted on v2 after the halt;
 * - "simd": simd, upgraded v0.47 → v0.50 (`v047-to-v050`), so the chain runs simd v0.50 after it; one
 *   validator, so no witness (`without_witnesses`), a root given in the config;
 * - "appd": appd, upgraded v0.50 → v0.53 (`v050-to-v053`: the epochs store added, migrations run), so it runs
 *   appd v0.53 after it; one validator, no witness, trust on first use (its row amber: unconfirmed).
 *
 * Each upgrade produces its whole sequence — proposal passed (simd, appd: the devnet's gov store keeps no
 * voting-period index to prove), plan scheduled, readiness below the threshold (the devnet: the one chain with a
 * readiness tally, and no validator attesting), the three lead times, halt, still halted, resumed — to four local receivers (JSON, Slack, Discord, Telegram shapes), in order and exactly once,
 * with the watch stopped (SIGTERM) and started again in the middle. Then the devnet's primary lies (a forged
 * commit signature): its row turns red with the failed check, the others stay verified. The fleet view is
 * screenshotted in Chromium (docs/watch-fleet-e2e*.png).
 *
 * Heavy: run it alone, `flock /tmp/xupgrade-heavy.lock npx vitest run --config test/interop/vitest.config.ts test/e2e/watch-fleet.interop.ts`.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { APP_UPGRADE_V053, missingPeerReason, peerBinaries } from "../../scripts/peers/paths.mjs";
import { cliArgs } from "../apps/cli/helpers.js";
import type { FleetJson, FleetRowJson } from "../../bindings/apps/watch/fleet.js";
import { FaultNet, V1, type Proc } from "./cometbft/halt/net.js";
import { resumeOnV2, stopHalted } from "./cometbft/halt/checks.js";
import { appBinary, initAppNode } from "../interop/support/app-node.js";
import { passProposal, softwareUpgradeMsg, startSimd, waitForHalt, initSimd, type SimdNode } from "../interop/support/simd.js";
import { lyingNode, type LyingNode } from "../support/light/proxy.js";
import { spawnCollected, type CollectedChild } from "../support/child.js";
import { freePorts } from "../../bindings/base/ports.js";
import { removeTempDirs, tempDir } from "../support/temp.js";
import { waitUntil } from "../support/wait.js";
import { builtPage, launchChromium, openPage, shot } from "../examples/light-client/helpers.js";
import { discordShape, jsonShape, receiver, slackShape, telegramShape, type Receiver } from "../apps/watch/receivers.js";

const peers = peerBinaries() as Record<string, string | undefined>;
/** The binaries (peerBinaries' names) and the peers that build them. */
const NEEDED = { cometbft: "cometbft", simd047: "simd-v047", simd050: "simd-v050", app050: "app-v050", app053: "app-v053" } as const;
const missing = Object.entries(NEEDED).filter(([k]) => !peers[k]);
const LEADS = ["45s", "25s", "12s"];
/** The plans' heights are this far ahead of the proposals (seconds of blocks): the leads fit, with history before them. */
const AHEAD_S = 100;
/** Gov voting periods long enough that the watch surely sees each proposal in its voting period. */
const VOTING_S = 20;

async function rpc<T>(url: string, method: string, params: Record<string, string> = {}): Promise<T> {
  const q = new URLSearchParams(params);
  const res = await fetch(`${url}/${method}?${q}`);
  return ((await res.json()) as { result: T }).result;
}

/** The header hash at `height`, from the node itself: an operator's own node is where a root comes from. */
async function rootOf(url: string, height: number): Promise<{ trust_height: number; trust_hash: string }> {
  const c = await rpc<{ signed_header: { commit: { block_id: { hash: string } } } }>(url, "commit", { height: String(height) });
  return { trust_height: height, trust_hash: c.signed_header.commit.block_id.hash };
}

/** Mean ms per block over the last blocks. */
async function pace(url: string): Promise<number> {
  const top = Number((await rpc<{ sync_info: { latest_block_height: string } }>(url, "status")).sync_info.latest_block_height);
  const t = async (h: number) => Date.parse((await rpc<{ block: { header: { time: string } } }>(url, "block", { height: String(h) })).block.header.time);
  const from = Math.max(2, top - 20);
  return Math.max(50, ((await t(top)) - (await t(from))) / Math.max(1, top - from));
}

/**
 * The ids each chain's upgrade must produce, in order. `proposal`: the gov proposal seen in its voting period (the
 * SDK's gov store indexes those under 0x04; the devnet's does not, so its proposals cannot be proven there).
 */
function sequence(chain: string, name: string, H: number, o: { proposal?: string; readinessLow?: boolean } = {}): string[] {
  const p = `${name}@${H}`;
  return [
    ...(o.proposal ? [`proposal_passed/${chain}/${o.proposal}`] : []),
    `plan_scheduled/${chain}/${p}`,
    ...(o.readinessLow ? [`readiness_low/${chain}/${p}`] : []),
    ...LEADS.map((l) => `lead/${chain}/${p}/${l}`),
    `halt/${chain}/${p}`,
    `still_halted/${chain}/${p}`,
    `resumed/${chain}/${p}`,
  ];
}

afterAll(() => {
  removeTempDirs();
});

const suite = missing.length ? describe.skip : describe;
if (missing.length) console.warn(`skipping the watch fleet e2e: ${missing.map(([, peer]) => missingPeerReason(peer) ?? `${peer} is not built`).join("; ")}`);

suite("xupgrade watch: the devnet under CometBFT, simd v0.50, appd v0.53", { timeout: 1_200_000 }, () => {
  it("three upgrades, each alert sequence once and in order across a restart; a lying node turns only its row red", async () => {
    const dir = tempDir("xupgrade-watch-e2e-");
    const rx: Record<string, Receiver> = {
      json: await receiver(jsonShape),
      slack: await receiver(slackShape),
      discord: await receiver(discordShape),
      telegram: await receiver(telegramShape),
    };
    const net = await FaultNet.create(peers.cometbft!, { votingS: VOTING_S });
    let simd: SimdNode | undefined;
    let appd: SimdNode | undefined;
    let proxy: LyingNode | undefined;
    let watch: CollectedChild<string> | undefined;
    const [port] = await freePorts(1);
    const url = `http://127.0.0.1:${port}`;
    const startWatch = () =>
      spawnCollected("node", [...cliArgs(), "watch", "--config", join(dir, "watch.json"), "--state-dir", join(dir, "state")], {
        env: { XUPGRADE_UI_DIR: builtPage() },
      });
    const fleet = async () => (await (await fetch(`${url}/fleet.json`)).json()) as FleetJson;
    const row = async (name: string): Promise<FleetRowJson | undefined> => (await fleet().catch(() => undefined))?.chains.find((c) => c.name === name);
    const got = (chain: string) => rx.json.got.filter((g) => g.body.chain === chain).map((g) => g.id);
    try {
      // The three chains, started side by side.
      const devnet = upgradeScheduledLater(net);
      const simdHome = await initSimd({ binary: peers.simd047!, chainId: "simd-e2e", votingPeriod: `${VOTING_S}s` });
      simd = startSimd(simdHome);
      const appHome = await initAppNode("v0.50", { chainId: "appd-e2e", votingPeriod: `${VOTING_S}s` });
      appd = startSimd(appHome);
      await Promise.all([simd.ready(180_000), appd.ready(180_000), devnet.started]);
      proxy = await lyingNode(net.nodes[0].rpc, { mode: "none" });
      const config = {
        poll: "1s",
        leads: LEADS,
        still_halted_after: "8s",
        listen: `127.0.0.1:${port}`,
        webhook_backoff: "200ms",
        chains: [
          { name: "devnet", chain_id: "xupgrade-devnet-1", rpc: proxy.url, witnesses: [net.nodes[1].rpc], ...(await rootOf(net.nodes[1].rpc, 2)) },
          { name: "simd", chain_id: "simd-e2e", rpc: simdHome.rpcUrl, without_witnesses: true, ...(await rootOf(simdHome.rpcUrl, 2)) },
          { name: "appd", rpc: appHome.rpcUrl, without_witnesses: true, trust_on_first_use: true },
        ],
        webhooks: [
          { url: rx.json.url, format: "json" },
          { url: rx.slack.url, format: "slack" },
          { url: rx.discord.url, format: "discord" },
          { url: rx.telegram.url, format: "telegram", chat_id: "-1001" },
        ],
      };
      writeFileSync(join(dir, "watch.json"), JSON.stringify(config, null, 1));
      watch = startWatch();
      await waitUntil(async () => (await fleet().catch(() => undefined))?.chains.every((c) => c.status === "verified"), 120_000, "every chain verified");

      // The three proposals; the plans AHEAD_S seconds of blocks ahead.
      const simdH = (await simd.height()) + Math.ceil((AHEAD_S * 1000) / (await pace(simdHome.rpcUrl)));
      const appdH = (await appd.height()) + Math.ceil((AHEAD_S * 1000) / (await pace(appHome.rpcUrl)));
      const [devnetUp, simdProp, appdProp] = await Promise.all([
        devnet.propose(),
        passProposal(simdHome, peers.simd047!, softwareUpgradeMsg({ name: "v047-to-v050", height: simdH }), 120_000),
        passProposal(appHome, appHome.binary, softwareUpgradeMsg({ name: APP_UPGRADE_V053, height: appdH }), 120_000),
      ]);
      const want = {
        // The devnet keeps a readiness tally (updated every block from the vote extensions): no validator runs a
        // visor that attests, so 0 % is ready from the block after the plan — below the threshold, well before H.
        devnet: sequence("devnet", "v2", devnetUp.H, { readinessLow: true }),
        simd: sequence("simd", "v047-to-v050", simdH, { proposal: String(simdProp.id) }),
        appd: sequence("appd", APP_UPGRADE_V053, appdH, { proposal: String(appdProp.id) }),
      };

      // The watch stopped and started again between the first and the second lead of every chain.
      await waitUntil(() => Object.keys(want).every((c) => got(c).some((id) => id.endsWith(`/${LEADS[0]}`))), 300_000, "the first lead of every chain");
      watch.proc.kill("SIGTERM");
      expect(await watch.exited).toBe(0);
      watch = startWatch();

      // The halts; each held until the watch said "still halted", then the new binaries.
      const simdHalt = waitForHalt(simd.child, "v047-to-v050", 600_000);
      const appdHalt = waitForHalt(appd.child, APP_UPGRADE_V053, 600_000);
      await Promise.all([
        (async () => {
          await simdHalt;
          await waitUntil(() => got("simd").some((id) => id.startsWith("still_halted/")), 180_000, "simd still halted");
          await simd.stop();
          simd = startSimd(simdHome, peers.simd050);
          await simd.ready(180_000);
        })(),
        (async () => {
          await appdHalt;
          await waitUntil(() => got("appd").some((id) => id.startsWith("still_halted/")), 180_000, "appd still halted");
          await appd.stop();
          appd = startSimd(appHome, appBinary("v0.53"));
          await appd.ready(180_000);
        })(),
        (async () => {
          await devnetUp.halted;
          await waitUntil(() => got("devnet").some((id) => id.startsWith("still_halted/")), 180_000, "the devnet still halted");
          await devnetUp.resume();
        })(),
      ]);
      await waitUntil(() => Object.keys(want).every((c) => got(c).some((id) => id.startsWith("resumed/"))), 300_000, "every chain resumed");

      for (const [chain, ids] of Object.entries(want)) expect(got(chain)).toEqual(ids);
      const all = Object.values(want).flat();
      // The wait above watched the JSON receiver; each receiver gets its own POST, and the last may still be on its way.
      await waitUntil(() => Object.values(rx).every((r) => r.got.length >= all.length), 60_000, "every receiver's alerts");
      for (const r of Object.values(rx)) expect(r.got.map((g) => g.id).sort()).toEqual([...all].sort());
      // Order per chain holds on every receiver too.
      for (const r of Object.values(rx))
        for (const [chain, ids] of Object.entries(want)) expect(r.got.map((g) => g.id).filter((id) => id.split("/")[1] === chain)).toEqual(ids);
      // Past the heights, on the new binaries: verified, no plan (its absence proven), the roots as configured.
      for (const [name, confirmed] of [
        ["devnet", true],
        ["simd", true],
        ["appd", false],
      ] as const)
        expect(await row(name)).toMatchObject({ status: "verified", plan: null, trust_root: { confirmed } });

      const browser = await launchChromium();
      try {
        const { page, context } = await openPage(browser, `${url}/fleet.html`);
        await page.waitForFunction(() => document.querySelectorAll('tr[data-status="verified"]').length === 3, undefined, { timeout: 60_000 });
        await shot(page, "fleet-e2e-honest", "watch-fleet.png");
        // The devnet's primary lies from the next header on.
        proxy.options.above = BigInt((await row("devnet"))!.header!.height);
        proxy.options.mode = "forge-signature";
        await page.waitForFunction(() => document.querySelector('tr[data-chain="devnet"]')?.getAttribute("data-status") === "failed", undefined, {
          timeout: 120_000,
        });
        const r = (await fleet()).chains;
        expect(r.find((c) => c.name === "devnet")).toMatchObject({ status: "failed", failure: { check: "signature" } });
        expect(r.filter((c) => c.name !== "devnet").map((c) => c.status)).toEqual(["verified", "verified"]);
        await shot(page, "fleet-e2e-lying", "watch-fleet-lying.png");
        await context.close();
      } finally {
        await browser.close();
      }
      await waitUntil(() => got("devnet").includes("verification_failed/devnet/1"), 60_000, "the devnet's failure alert");
    } finally {
      if (watch) {
        watch.proc.kill("SIGTERM");
        await Promise.race([watch.exited, new Promise((r) => setTimeout(r, 15_000))]);
        await watch.kill();
      }
      await simd?.stop();
      await appd?.stop();
      await proxy?.close();
      await net.close();
      for (const r of Object.values(rx)) await r.close();
    }
  });
});

/** The devnet's four validators on v1; its upgrade proposed when asked (`v2`, AHEAD_S ahead), halted, resumed on v2. */
function upgradeScheduledLater(net: FaultNet) {
  let procs: Proc[] = [];
  const started = (async () => {
    procs = await Promise.all(net.all.map((i) => net.start(i, V1)));
    await net.allAt(net.all, 3);
  })();
  return {
    started,
    async propose() {
      const H = await net.proposeUpgrade("v2", AHEAD_S);
      const halted = Promise.all(procs.map((p) => p.waitFor((r) => r.msg === "halting the node" && Number(r.height) === H, 600_000)));
      return {
        H,
        halted,
        resume: async () => {
          await stopHalted(net, procs, H);
          await resumeOnV2(net, H);
        },
      };
    },
  };
}
