/**
 * The record before the switch (docs/spec/sidecar.md §6 steps 6–7): `upgrades/<name>/upgrade-info.json` is on the
 * disk — the file flushed, renamed into place, its directory flushed — before `current` moves, so a crash
 * right after the switch never finds the new binary without the record of the upgrade it runs. The visor
 * used to write it without any fsync.
 */
import { readFileSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { FSYNC_OBSERVABLE, recordSyncs } from "../../support/fsync.js";
import { CHAIN2_DUMMYD, GENESIS_DUMMYD, newHome, removeTempDirs, runVisorIn, stage } from "./helpers.js";

afterAll(removeTempDirs);

describe("the upgrade record before the switch", () => {
  it("upgrades/<name>/upgrade-info.json is written, flushed and its directory flushed before current moves", async () => {
    if (!FSYNC_OBSERVABLE) return void console.log("[record] /proc/self/fd is not available here: the fsync order is not observable");
    const h = await newHome(GENESIS_DUMMYD);
    await stage(h, "chain2", CHAIN2_DUMMYD);
    const upgradeDir = join(h.home, "cosmovisor", "upgrades", "chain2");
    const infoFile = join(h.home, "data", "upgrade-info.json");
    const syncs = await recordSyncs();
    let atSwitch: { current: string; syncs: string[]; record: string } | undefined;
    try {
      const r = await runVisorIn(h, ["a", "b", "c", infoFile], { DAEMON_RESTART_AFTER_UPGRADE: "false", UNSAFE_SKIP_BACKUP: "true" }, {
        hooks: {
          beforeRename: () => {
            atSwitch = {
              current: readlinkSync(join(h.home, "cosmovisor", "current")),
              syncs: [...syncs.paths],
              record: readFileSync(join(upgradeDir, "upgrade-info.json"), "utf8"),
            };
          },
        },
      });
      expect(r.code).toBe(0);
    } finally {
      syncs.restore();
    }
    expect(atSwitch).toBeDefined();
    expect(atSwitch!.current).toBe("genesis");
    expect(JSON.parse(atSwitch!.record)).toMatchObject({ name: "chain2", height: 49 });
    const file = atSwitch!.syncs.findIndex((p) => p.startsWith(upgradeDir + "/") && /\/\.upgrade-info\.json\.\d+\.[0-9a-f]+\.tmp$/.test(p));
    expect(file).toBeGreaterThanOrEqual(0);
    expect(atSwitch!.syncs.indexOf(upgradeDir, file)).toBeGreaterThan(file);
    expect(readlinkSync(join(h.home, "cosmovisor", "current"))).toBe("upgrades/chain2");
  });
});
