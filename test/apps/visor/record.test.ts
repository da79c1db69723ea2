/**
 * The record before the switch (docs/spec/sidecar.md §6 steps 6–7): `upgrades/<name>/upgrade-info.json` is on the
 * disk — the file flushed, renamed into place, its directory flushed — before `current` moves, so a crash
 * right after the switch never finds the new binary without the record of the upgrade it runs. The visor
 * used to write it without any fsync.
 */
import { readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Supervisor } from "../../../bindings/apps/visor/node/child.js";
import { VisorError } from "../../../bindings/apps/visor/errors.js";
import { InvalidPlanError, planFromText } from "../../../bindings/apps/visor/node/info-file.js";
import { Layout } from "../../../bindings/apps/visor/layout.js";
import { runPipeline } from "../../../bindings/apps/visor/upgrade/pipeline.js";
import { FSYNC_OBSERVABLE, recordSyncs } from "../../support/fsync.js";
import { CHAIN2_DUMMYD, GENESIS_DUMMYD, config, newHome, removeTempDirs, runVisorIn, silent, stage } from "./helpers.js";

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
      const r = await runVisorIn(
        h,
        ["a", "b", "c", infoFile],
        { DAEMON_RESTART_AFTER_UPGRADE: "false", UNSAFE_SKIP_BACKUP: "true" },
        {
          hooks: {
            beforeRename: () => {
              atSwitch = {
                current: readlinkSync(join(h.home, "cosmovisor", "current")),
                syncs: [...syncs.paths],
                record: readFileSync(join(upgradeDir, "upgrade-info.json"), "utf8"),
              };
            },
          },
        },
      );
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

describe("the pipeline decides on typed errors, not on their text", () => {
  it("a plan file that fails ValidateBasic is an InvalidPlanError naming the check", () => {
    const check = (text: string) => {
      try {
        planFromText(text, "upgrade-info.json", false);
      } catch (e) {
        expect(e).toBeInstanceOf(InvalidPlanError);
        expect(e).toBeInstanceOf(VisorError);
        return [(e as InvalidPlanError).check, (e as Error).message];
      }
      return undefined;
    };
    expect(check('{"name":"","height":5}')).toEqual(["name", "invalid upgrade-info.json content: name cannot be empty: invalid request"]);
    expect(check('{"name":"v2","height":0}')).toEqual(["height", "invalid upgrade-info.json content: height must be greater than 0: invalid request"]);
    expect(check('{"name":"","height":5,"time":"2020-01-01T00:00:00Z"}')?.[0]).toBe("time");
    expect(check('{"name":"v2","height":5}')).toBeUndefined();
  });

  it("a plan file whose name went empty before the backup: `upgrade-info.json is empty`, current untouched", async () => {
    const h = await newHome(GENESIS_DUMMYD);
    await stage(h, "chain2", CHAIN2_DUMMYD);
    writeFileSync(join(h.home, "data", "upgrade-info.json"), '{"name":"","height":49}');
    const cfg = config(h);
    const layout = new Layout(cfg);
    await layout.resolveCurrent();
    const ctx = { cfg, layout, log: silent, supervisor: new Supervisor({ log: silent, killGraceMs: 1000 }) };
    const failed = await runPipeline(ctx, { name: "chain2", rawName: "chain2", height: 49n, info: "" }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(failed).toBeInstanceOf(VisorError);
    expect((failed as Error).message).toBe("upgrade-info.json is empty");
    expect(readlinkSync(join(h.home, "cosmovisor", "current"))).toBe("genesis");
  });
});
