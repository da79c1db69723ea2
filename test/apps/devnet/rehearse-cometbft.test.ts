/**
 * `devnet rehearse` on a CometBFT validator (docs/spec/rehearse.md §2): the node is the ABCI++ application of
 * a real CometBFT, with the same durable multistore and the same snapshot channel, so the rehearsal runs
 * alike — while the validator makes blocks, and after it stopped. Skipped (with the reason) when CometBFT
 * is not built (`npm run peers`); `npm run test:cometbft` requires it.
 */
import { afterAll, expect, it } from "vitest";
import { initTestnet, rehearseUpgrade, snapshotSocketPath, startDevnet, type RehearsalReport } from "../../../bindings/apps/devnet/index.js";
import { COMETBFT, describeCometbft } from "../../e2e/cometbft/helpers.js";
import { V1, V2, captureLogger, fixtureApp, removeTempDirs, tempDir } from "./helpers.js";
import { existsSync } from "node:fs";

afterAll(removeTempDirs);

describeCometbft("rehearsing on a CometBFT validator", { timeout: 90_000 }, () => {
  it("on the running validator (snapshot served by the app process) and after it stopped (copied)", async () => {
    const net = await initTestnet({ home: tempDir(), validators: 1, blockTime: "200ms" });
    const { home } = net.nodes[0];
    const node = await startDevnet({ home, app: V1, cometbft: COMETBFT, logger: captureLogger("comet") });
    let running: RehearsalReport;
    try {
      await node.waitForHeight(5n, 60_000);
      expect(existsSync(snapshotSocketPath(home))).toBe(true);
      running = await rehearseUpgrade({ home, app: V2, plan: "v2", height: node.height() + 50n });
      expect(running).toMatchObject({ ok: true, exitCode: 0, modulesMigrated: 3, snapshot: { source: "node", engine: "cometbft" }, plan: { source: "given" } });
      expect(running.snapshot.height).toBeGreaterThanOrEqual(5n);
      expect(running.storeUpgrades?.applied).toBe(true);
      const broken = await rehearseUpgrade({ home, app: fixtureApp("v2-broken"), plan: "v2", height: node.height() + 50n });
      expect(broken).toMatchObject({
        ok: false,
        exitCode: 23,
        error: "boom: the v2 handler failed after migrating",
        snapshot: { source: "node", engine: "cometbft" },
      });
    } finally {
      await node.stop();
    }
    expect(await node.done).toBe(0);
    expect(existsSync(snapshotSocketPath(home))).toBe(false);
    const stopped = await rehearseUpgrade({ home, app: V2, plan: "v2", height: running.snapshot.height + 100n });
    expect(stopped).toMatchObject({ ok: true, modulesMigrated: 3, snapshot: { source: "copy", engine: "cometbft" } });
    expect(stopped.snapshot.height).toBeGreaterThanOrEqual(running.snapshot.height);
  });
});
