/** Keeper cases that touch upgrade-info.json (docs/spec/keeper.md K15, B2, B12, B13, B18, B19), on both cores. */
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createKeeper, MemoryStore, UpgradeError, type KeeperOptions } from "../../bindings/node.js";
import { expectError, INVALID } from "../core/cases.js";

const homes: string[] = [];
const newHome = () => {
  const home = mkdtempSync(join(tmpdir(), "xupgrade-home-"));
  homes.push(home);
  return home;
};
afterEach(() => {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});
const noop = (_c: unknown, _p: unknown, vm: Map<string, bigint>) => vm;

describe.each(["wasm", "js"] as const)("upgrade-info.json through the keeper (%s)", (backend) => {
  const S = (options: KeeperOptions = {}) => createKeeper({ backend, store: new MemoryStore(), homePath: newHome(), ...options });

  it("K15 dump and read", async () => {
    const k = await S();
    expect(await k.readUpgradeInfoFromDisk()).toBeUndefined();
    await k.dumpUpgradeInfoToDisk(101, { name: "test_upgrade", height: 100 });
    expect(await k.readUpgradeInfoFromDisk()).toEqual({ name: "test_upgrade", height: 101n, info: "" });
    writeFileSync(join(k.homePath!, "data", "upgrade-info.json"), '{"time":"0001-01-01T00:00:00Z","height":101}');
    await expectError(() => k.readUpgradeInfoFromDisk(), "name cannot be empty: invalid request", INVALID);
    await expectError(() => k.dumpUpgradeInfoToDisk(101, { name: "", height: 100 }), "name cannot be empty: invalid request", INVALID);
    writeFileSync(join(k.homePath!, "data", "upgrade-info.json"), '{"name":"x","time":"1970-01-01T00:00:00Z","height":5}');
    await expectError(() => k.readUpgradeInfoFromDisk(), "time-based upgrades have been deprecated in the SDK: invalid request");
    writeFileSync(join(k.homePath!, "data", "upgrade-info.json"), '{"name":"x","hei');
    const err = await expectError(() => k.readUpgradeInfoFromDisk(), /^invalid upgrade-info.json in ".*": /);
    expect((err as UpgradeError).codespace).toBe("xupgrade");
  });

  it("B2/B12/B13 the halt writes upgrade-info.json, then the new binary applies", async () => {
    const logs: string[] = [];
    const k = await S({ logger: { info: (m) => logs.push("I " + m), error: (m) => logs.push("E " + m) } });
    k.scheduleUpgrade({ name: "test", height: 11 }, 10);
    const err = await expectError(() => k.preBlock(11), 'UPGRADE "test" NEEDED at height: 11: ', { codespace: "undefined", code: 1 });
    expect((err as UpgradeError).exitCode).toBe(20);
    const file = join(k.homePath!, "data", "upgrade-info.json");
    expect(readFileSync(file, "utf8")).toBe('{"name":"test","time":"0001-01-01T00:00:00Z","height":11}');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(await k.readUpgradeInfoFromDisk()).toEqual({ name: "test", height: 11n, info: "" });
    expect(logs).toEqual(['E UPGRADE "test" NEEDED at height: 11: ']);
    k.setUpgradeHandler("test", noop);
    expect(await k.preBlock(11)).toEqual({ consensusParamsChanged: true });
    expect(k.getDoneHeight("test")).toBe(11n);
    expect(logs.at(-1)).toBe('I applying upgrade "test" at height: 11');
    rmSync(file);
    expect(existsSync(file)).toBe(false);
  });

  it("carries the info, escaped as Go does", async () => {
    const k = await S();
    const info = '{"binaries":{"linux/amd64":"https://example.com/app.tar.gz?checksum=sha256:aa"}} <&>';
    k.scheduleUpgrade({ name: "v2", height: 11, info }, 10);
    await expectError(() => k.preBlock(11), `UPGRADE "v2" NEEDED at height: 11: ${info}`);
    expect(readFileSync(join(k.homePath!, "data", "upgrade-info.json"), "utf8")).toBe(
      '{"name":"v2","time":"0001-01-01T00:00:00Z","height":11,"info":"{\\"binaries\\":{\\"linux/amd64\\":\\"https://example.com/app.tar.gz?checksum=sha256:aa\\"}} \\u003c\\u0026\\u003e"}',
    );
  });

  it("B18 an unwritable home halts with the write error", async () => {
    const home = join(newHome(), "file");
    writeFileSync(home, "not a directory");
    const k = await createKeeper({ backend, homePath: home });
    k.scheduleUpgrade({ name: "test", height: 11 }, 10);
    const err = await expectError(() => k.preBlock(11), /^unable to write upgrade info to filesystem: /);
    expect((err as UpgradeError).exitCode).toBe(24);
    const none = await createKeeper({ backend });
    none.scheduleUpgrade({ name: "test", height: 11 }, 10);
    await expectError(() => none.preBlock(11), "unable to write upgrade info to filesystem: homePath is not set");
  });

  it("B19 the info file carries the block height of the halt", async () => {
    const k = await S();
    k.scheduleUpgrade({ name: "x", height: 10 }, 10);
    await expectError(() => k.preBlock(11), 'UPGRADE "x" NEEDED at height: 10: ');
    expect(await k.readUpgradeInfoFromDisk()).toEqual({ name: "x", height: 11n, info: "" });
  });

  it("keeps an existing data directory and its files", async () => {
    const home = newHome();
    mkdirSync(join(home, "data"));
    writeFileSync(join(home, "data", "other"), "x");
    const k = await S({ homePath: home });
    await k.dumpUpgradeInfoToDisk(5, { name: "a", height: 5 });
    expect(readFileSync(join(home, "data", "other"), "utf8")).toBe("x");
  });
});
