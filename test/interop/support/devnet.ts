/**
 * The devnet side of the comparisons: an in-process devnet (local engine) running the simd stand-in apps
 * (./apps.ts) on free loopback ports, brought into the same three states as the simd chain:
 *
 * - `none`: a fresh chain with simd v0.50's module versions;
 * - `scheduled`: SCHEDULED_PLAN passed through gov;
 * - `applied`: the v0.47 stand-in halts at `v047-to-v050` (exit 20, upgrade-info.json written), the v0.50
 *   stand-in applies it at the same height as simd did.
 */
import type { DevnetHandle } from "../../../bindings/apps/devnet/index.js";
import { initDevnet, startDevnet } from "../../../bindings/apps/devnet/index.js";
import { captureLogger, clients, proposeAndPass, softwareUpgradeAny } from "../../apps/devnet/helpers.js";
import { tempDir } from "../../support/temp.js";
import { waitUntil } from "../../support/wait.js";
import { SIMD_V047_APP, SIMD_V050_APP } from "./apps.js";
import type { StateName } from "./wire.js";

/** The devnet apps that stand in for a line before and after its upgrade (./lines.ts), and that upgrade. */
export interface StandIns {
  apps: { old: typeof SIMD_V047_APP; node: typeof SIMD_V047_APP };
  upgrade: { name: string };
}

/** The plan of the `scheduled` state, on both chains: far ahead, with a realistic binaries info. */
export const SCHEDULED_PLAN = {
  name: "interop-v2",
  height: 1_000_000,
  info: '{"binaries":{"linux/amd64":"https://example.invalid/simd-v2.tar.gz?checksum=sha256:0d5b9f8a5bbf7c2c1b1d4c0e7c1e8a4f1e2d3c4b5a69788796a5b4c3d2e1f001"}}',
} as const;

/** The upgrade of the `applied` state: simd v0.47 → v0.50 (test/peers/README.md), at this height unless a fixture says otherwise. */
export const APPLIED_UPGRADE = { name: "v047-to-v050", height: 40 } as const;

const EPHEMERAL = { rpc: "127.0.0.1:0", rest: "127.0.0.1:0", grpc: "127.0.0.1:0" } as const;

export interface DevnetState {
  node: DevnetHandle;
  home: string;
  stop(): Promise<void>;
}

async function freshHome(blockTime = "50ms", votingPeriod = "1s"): Promise<{ home: string; keys: Awaited<ReturnType<typeof initDevnet>>["keys"] }> {
  const home = tempDir("xupgrade-interop-devnet-");
  // The devnet's default chain id: the cosmjs signing helpers of test/apps/devnet sign for it (no answer compared here names it).
  const r = await initDevnet({ home, validators: 1, blockTime, votingPeriod, depositPeriod: "1s" });
  return { home, keys: r.keys };
}

async function pass(node: DevnetHandle, keys: Awaited<ReturnType<typeof initDevnet>>["keys"], name: string, height: bigint, info = ""): Promise<void> {
  const c = await clients(node.rpcUrl);
  // A plan a few blocks ahead (50 ms blocks) can be scheduled and reached, and the node halted for it, between two
  // queries of a loaded machine: its exit counts too (the caller checks that it was the upgrade's, 20).
  let stopped = false;
  void node.done.then(() => (stopped = true));
  try {
    await proposeAndPass(c, keys, [softwareUpgradeAny(name, height, info)], ["validator0"]);
    await waitUntil(async () => stopped || (await c.upgrade.CurrentPlan({})).plan?.name === name, 60_000, `plan ${name} on the devnet`);
  } finally {
    c.comet.disconnect();
  }
}

const SIMD_STAND_INS: StandIns = { apps: { old: SIMD_V047_APP, node: SIMD_V050_APP }, upgrade: APPLIED_UPGRADE };

/**
 * A devnet in `state`, standing in for a line (default simd v0.50's); `appliedHeight` is the height the
 * line's peer applied its upgrade at (the fixture's).
 */
export async function devnetInState(state: StateName, appliedHeight: number = APPLIED_UPGRADE.height, line: StandIns = SIMD_STAND_INS): Promise<DevnetState> {
  // The applied state's plan is at the peer's height (40 in the fixtures): at 50 ms blocks, a loaded machine's
  // proposal could end past it, and a vote signed after the proposal's block could miss 1 s of voting. 300 ms
  // blocks (12 s to height 40) and 3 s of voting leave room for both.
  const { home, keys } = state === "applied" ? await freshHome("300ms", "3s") : await freshHome();
  const logger = captureLogger(`devnet ${state}`);
  if (state !== "applied") {
    const node = await startDevnet({ home, app: line.apps.node, ...EPHEMERAL, logger });
    try {
      await node.waitForHeight(2);
      if (state === "scheduled") await pass(node, keys, SCHEDULED_PLAN.name, BigInt(SCHEDULED_PLAN.height), SCHEDULED_PLAN.info);
    } catch (e) {
      await node.stop();
      throw e;
    }
    return { node, home, stop: () => node.stop() };
  }
  const old = await startDevnet({ home, app: line.apps.old, ...EPHEMERAL, logger });
  try {
    await old.waitForHeight(2);
    if (old.height() + 5n >= BigInt(appliedHeight)) throw new Error(`the devnet is at ${old.height()}, too close to ${appliedHeight}`);
    await pass(old, keys, line.upgrade.name, BigInt(appliedHeight));
  } catch (e) {
    await old.stop();
    throw e;
  }
  const code = await old.done;
  if (code !== 20) throw new Error(`the ${line.apps.old.name} stand-in stopped with exit code ${code}, not 20 (upgrade needed)`);
  const node = await startDevnet({ home, app: line.apps.node, ...EPHEMERAL, logger });
  await node.waitForHeight(appliedHeight + 1);
  return { node, home, stop: () => node.stop() };
}
