/**
 * Watching data/upgrade-info.json (docs/spec/sidecar.md §5.1–§5.2, §10.2 I9–I10): half-written files, change
 * detection, the trigger rules, skip heights, and the height gate of manual plans only (R2, R4).
 */
import { appendFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Layout } from "../../../bindings/apps/visor/layout.js";
import { addUpgrade } from "../../../bindings/apps/visor/setup.js";
import { InfoWatcher } from "../../../bindings/apps/visor/node/watch.js";
import { captureLog, newHome, removeTempDirs, silent, type Home } from "./helpers.js";

afterAll(removeTempDirs);

function watcher(h: Home, o: { skip?: bigint[]; height?: () => bigint | undefined } = {}) {
  const logs = captureLog();
  const w = new InfoWatcher({
    layout: new Layout({ home: h.home, name: h.name, disableRecase: false }),
    log: logs.log,
    skip: o.skip ?? [],
    nodeHeight: async () => o.height?.(),
  });
  return { w, logs, file: join(h.home, "data", "upgrade-info.json") };
}

describe("half-written and invalid files are retried, never fatal", () => {
  it("I9/R4: a file growing over three ticks gives one upgrade, once it is complete", async () => {
    const h = await newHome("echo v1");
    const { w, logs, file } = watcher(h);
    writeFileSync(file, '{"name":"chain2","hei');
    expect(await w.tick()).toBeUndefined();
    appendFileSync(file, 'ght":4');
    expect(await w.tick()).toBeUndefined();
    expect(await w.tick()).toBeUndefined(); // unchanged and still invalid: parsed again, logged once
    appendFileSync(file, "9}");
    expect(await w.tick()).toMatchObject({ name: "chain2", height: 49n });
    expect(await w.tick()).toBeUndefined();
    const errors = logs.lines.filter((l) => l.includes("ERR"));
    expect(errors).toHaveLength(2); // one per distinct content
    expect(errors[0]).toContain("unexpected end of JSON input");
  });

  it("garbage, an empty name and a height as a string: logged, no trigger, then a good file triggers", async () => {
    const h = await newHome("echo v1");
    const { w, logs, file } = watcher(h);
    for (const bad of ["garbage{", '{"name":"","height":5}', '{"name":"v2","height":"5"}', ""]) {
      writeFileSync(file, bad);
      expect(await w.tick()).toBeUndefined();
      expect(await w.pending()).toBeUndefined();
    }
    expect(logs.text()).toContain("invalid character 'g' looking for beginning of value");
    expect(logs.text()).toContain("name cannot be empty: invalid request");
    expect(logs.text()).toContain("json: cannot unmarshal string into Go struct field Plan.height of type int64");
    expect(logs.text()).toContain("empty upgrade-info.json in");
    writeFileSync(file, '{"name":"v2","height":5}');
    expect(await w.tick()).toMatchObject({ name: "v2", height: 5n });
  });
});

describe("change detection and triggers", () => {
  it("I10: a rewrite with the same mtime (and size) but a higher height is detected", async () => {
    const h = await newHome("echo v1");
    const { w, file } = watcher(h);
    w.currentName = "chain2";
    writeFileSync(file, '{"name":"chain2","height":49}');
    expect(await w.tick()).toBeUndefined(); // the current upgrade's own file
    const { atime, mtime } = statSync(file);
    writeFileSync(file, '{"name":"chain3","height":50}'); // in place: same inode, same size
    utimesSync(file, atime, mtime);
    expect(await w.tick()).toMatchObject({ name: "chain3", height: 50n });
  });

  it("first read: a name other than the current; afterwards only a higher height", async () => {
    const h = await newHome("echo v1");
    const { w, file } = watcher(h);
    w.currentName = "V2";
    writeFileSync(file, '{"name":"v2","height":10}');
    expect(await w.tick()).toBeUndefined(); // same name, case-insensitively
    writeFileSync(file, '{"name":"v3","height":10}');
    expect(await w.tick()).toBeUndefined(); // same height
    writeFileSync(file, '{"name":"v3","height":9}');
    expect(await w.tick()).toBeUndefined(); // lower
    writeFileSync(file, '{"name":"v3","height":11}');
    expect(await w.tick()).toMatchObject({ name: "v3", height: 11n });
    expect(await w.tick()).toBeUndefined(); // unchanged
  });

  it("a plan at a skipped height does not trigger (the node keeps running)", async () => {
    const h = await newHome("echo v1");
    const { w, logs, file } = watcher(h, { skip: [20n] });
    writeFileSync(file, '{"name":"v2","height":20}');
    expect(await w.tick()).toBeUndefined();
    expect(await w.pending()).toBeUndefined();
    expect(logs.text()).toContain('upgrade "v2" at height 20 is skipped (--unsafe-skip-upgrades): not stopping the node');
    writeFileSync(file, '{"name":"v3","height":30}');
    expect(await w.tick()).toMatchObject({ name: "v3" });
  });
});

describe("manual plans wait for the height; keeper plans are trusted (R2, D6 #10)", () => {
  it("R2: a manual plan at h with the node at h − 10 or the RPC down does not trigger; at h it does", async () => {
    const h = await newHome("echo v1");
    let height: bigint | undefined;
    const { w, logs } = watcher(h, { height: () => height });
    await addUpgrade({ home: h.home, name: h.name, disableRecase: false }, "manual1", join(h.src, "genesis"), { height: 100n }, silent);
    expect(await w.tick()).toBeUndefined(); // RPC down: "not yet"
    expect(await w.pending()).toBeUndefined();
    height = 90n;
    expect(await w.tick()).toBeUndefined();
    expect(logs.text()).toContain('manual upgrade "manual1" waits for height 100');
    height = 100n;
    expect(await w.tick()).toMatchObject({ name: "manual1", height: 100n });
  });

  it("a keeper-written file replacing the manual one is trusted without asking the node", async () => {
    const h = await newHome("echo v1");
    const { w, file } = watcher(h, { height: () => undefined });
    await addUpgrade({ home: h.home, name: h.name, disableRecase: false }, "manual1", join(h.src, "genesis"), { height: 100n }, silent);
    expect(await w.tick()).toBeUndefined();
    writeFileSync(file, '{"name":"gov2","time":"0001-01-01T00:00:00Z","height":60}');
    expect(await w.tick()).toMatchObject({ name: "gov2", height: 60n });
  });

  it("add-upgrade refuses to replace a pending plan without --force", async () => {
    const h = await newHome("echo v1");
    const cfg = { home: h.home, name: h.name, disableRecase: false };
    writeFileSync(join(h.home, "data", "upgrade-info.json"), '{"name":"gov2","height":60}');
    await expect(addUpgrade(cfg, "manual1", join(h.src, "genesis"), { height: 100n }, silent)).rejects.toThrow(
      /already holds the pending upgrade "gov2" at height 60; use --force/,
    );
    await addUpgrade(cfg, "manual1", join(h.src, "genesis"), { height: 100n, force: true }, silent);
  });
});
