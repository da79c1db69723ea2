/**
 * The halt under faults on a real four-validator CometBFT network, each case of test/e2e/cometbft/halt/cases.ts
 * once (`npm run test:faults -- --runs N` repeats them and reports N/N): a validator SIGKILLed at H-1, in
 * FinalizeBlock(H), and just after its precommit for H; a validator's network cut for 30 s across H; delay,
 * jitter and dropped connections between all of them; four `xupgrade visor`s, and four cosmovisor v1.5.0.
 * While three validators are halted and waiting for the killed one, the CLI and the light-client page (in
 * Chromium) say the node is halted at H, waiting for v2; `tx bank send` broadcasts nothing and says the chain
 * is halted for the upgrade, and with --wait-upgrade waits through the switch and sends once.
 */
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import type { Browser } from "playwright";
import { missingPeerReason, peerBinaries } from "../../../scripts/peers/paths.mjs";
import { launchChromium, openPage, shot, trustFirstUse, waitState, waitText } from "../../examples/light-client/helpers.js";
import { ROOT } from "../../support/paths.js";
import { spawnCollected, type CollectedChild } from "../../support/child.js";
import { cliArgs } from "../../apps/cli/helpers.js";
import { clients } from "../../apps/devnet/helpers.js";
import { waitUntil } from "../../support/wait.js";
import { removeTempDirs, runCli } from "../helpers.js";
import { CASES, netOptions, type CaseContext } from "./halt/cases.js";
import { FaultNet } from "./halt/net.js";
import { COMETBFT, describeCometbft } from "./helpers.js";

let browser: Browser | undefined;

afterAll(async () => {
  await browser?.close();
  removeTempDirs();
});

/** A `tx bank send … --wait-upgrade` started at the halt: checked once the chain runs v2. */
let waiting: { child: CollectedChild<string>; H: number; bob: string; before: bigint; rpc: string } | undefined;

async function stakeOf(rpc: string, address: string): Promise<bigint> {
  const c = await clients(rpc);
  try {
    return BigInt((await c.query.bank.balance(address, "stake")).amount);
  } finally {
    c.comet.disconnect();
  }
}

/** What the CLI says about sending while the chain is halted at H; a waiting send is started for after the switch. */
async function sendsAtTheHalt(net: FaultNet, H: number): Promise<void> {
  const bob = net.key("bob").address;
  const keyring = ["--keyring-backend", "test", "--home", net.dir];
  const r = await runCli(["tx", "bank", "send", "alice", bob, "1stake", ...keyring, "--node", net.nodes[0].rpc, "-y", "-o", "json"]);
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(
    new RegExp(
      `^Error: the chain halted at height ${H} for upgrade "v2": tx [0-9A-F]{64} was not broadcast; the chain takes transactions again once validators run a binary with the "v2" upgrade handler; to wait for the switch and broadcast it then, pass --wait-upgrade <duration>\n$`,
    ),
  );
  const rpc = net.nodes[1].rpc;
  const before = await stakeOf(rpc, bob);
  const child = spawnCollected("node", [
    ...cliArgs(),
    "tx",
    "bank",
    "send",
    "alice",
    bob,
    "2stake",
    ...keyring,
    "--node",
    rpc,
    "-y",
    "-o",
    "json",
    "--wait-upgrade",
    "5m",
  ]);
  await waitUntil(
    () =>
      child.stderr().includes(`the chain halted at height ${H} for upgrade "v2": waiting up to 5m0s for it to resume on the new binary`) ||
      child.proc.exitCode !== null,
    60_000,
    "the waiting send to see the halt",
  );
  expect(child.proc.exitCode, child.stderr()).toBe(null);
  waiting = { child, H, bob, before, rpc };
}

/** The waiting send, once the chain runs v2: in a block past H, the coins moved once. */
async function sentAfterTheSwitch(): Promise<void> {
  if (!waiting) return;
  const { child, H, bob, before, rpc } = waiting;
  waiting = undefined;
  const code = await Promise.race([
    child.exited,
    new Promise((_, reject) => setTimeout(() => reject(new Error(`the waiting send did not end: ${child.stderr()}`)), 120_000)),
  ]);
  expect(code, child.stderr()).toBe(0);
  const out = JSON.parse(child.records.join("")) as { code: number; height: string };
  expect(out.code).toBe(0);
  expect(Number(out.height)).toBeGreaterThan(H);
  expect(await stakeOf(rpc, bob)).toBe(before + 2n);
  expect(child.stderr()).toMatch(/the chain resumed: height \d+\n/);
}

/** What the CLI and the page say about validator 0 while it is halted at H. */
async function saysHalted(net: FaultNet, H: number): Promise<void> {
  await sendsAtTheHalt(net, H);
  const r = await runCli(["query", "upgrade", "plan", "-o", "json", "--node", net.nodes[0].rpc]);
  expect(r.code, r.stderr).toBe(0);
  expect(JSON.parse(r.stdout)).toMatchObject({ name: "v2", height: String(H) });
  expect(r.stderr).toBe(
    `halted at height ${H}, waiting for v2: the node reached the upgrade height and stopped; it resumes once a binary with the "v2" upgrade handler runs\n`,
  );

  browser ??= await launchChromium();
  const { page, errors, context } = await openPage(browser, `${net.restOf(0)}/ui?poll=300`);
  try {
    await trustFirstUse(page); // a fresh browser has no root for the chain: the node's own, unverified (amber)
    await waitState(page, "halted", 30_000);
    await waitText(page, "banner-headline", `Halted at height ${H}, waiting for v2.`);
    await waitText(page, "countdown", `halted at height ${H}, waiting for v2`);
    await shot(page, "cometbft-halted");
    expect(errors).toEqual([]);
  } finally {
    await context.close();
  }
}

describeCometbft("the halt under faults, on four CometBFT validators", { timeout: 400_000 }, () => {
  const ctx: CaseContext = { cosmovisor: (peerBinaries() as { cosmovisor?: string }).cosmovisor, whileHalted: saysHalted };
  const missingCosmovisor = ctx.cosmovisor ? "" : (missingPeerReason("cosmovisor") ?? "cosmovisor is not built: run `npm run peers`");
  // The four-validator cases: the seven-validator net and the transaction window run in `npm run test:faults`.
  for (const c of CASES.filter((x) => x.net === "four")) {
    // Without cosmovisor its case is skipped, unless the peers are required (npm run test:cometbft, CI): then it fails, saying why.
    const skip = c.needs === "cosmovisor" && missingCosmovisor !== "" && process.env.XUPGRADE_REQUIRE_COMETBFT !== "1";
    it.skipIf(skip)(`${c.name}: ${c.title}`, async () => {
      if (c.needs === "cosmovisor" && missingCosmovisor) throw new Error(missingCosmovisor);
      const net = await FaultNet.create(COMETBFT!, netOptions(c));
      let timer: NodeJS.Timeout | undefined;
      try {
        // Below the test's own timeout, so that a run that hangs still stops its processes and leaves its logs.
        const limit = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("no result after 360 s")), 360_000)));
        const measures = await Promise.race([c.run(net, ctx), limit]);
        await sentAfterTheSwitch();
        console.log(`${c.name}: ${JSON.stringify(measures)}`);
      } catch (e) {
        net.saveLogs(join(ROOT, "test-output", "faults", c.name));
        throw e;
      } finally {
        clearTimeout(timer);
        await waiting?.child.kill();
        waiting = undefined;
        await net.close();
      }
    });
  }
});
