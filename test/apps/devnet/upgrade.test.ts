/**
 * The whole upgrade lifecycle on an in-process devnet: governance schedules "v2", v1 halts at the height
 * (exit code 20, upgrade-info.json), a failing v2 handler halts with nothing committed (23), v2 loads its
 * stores once and migrates once, restarts do neither again, v1 refuses the upgraded chain (22); a binary
 * started too early halts (21); cancel and skip heights avoid the halt.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { UpgradeError } from "../../../bindings/core/errors.js";
import { createKeeper } from "../../../bindings/node.js";
import { exitCodeFor, startDevnet, type DevnetHandle, type GenesisKey } from "../../../bindings/apps/devnet/index.js";
import {
  EPHEMERAL,
  V1,
  V2,
  cancelUpgradeAny,
  captureLogger,
  clients,
  committedState,
  fixtureApp,
  newHome,
  openNodeStore,
  proposeAndPass,
  removeTempDirs,
  softwareUpgradeAny,
  waitUntil,
} from "./helpers.js";

afterAll(removeTempDirs);

const INFO = '{"binaries":{"any":"https://x.example/v2?a=1&checksum=sha256:00"}}';

/** Resolves with the exit code, or fails after `ms`. */
function exitWithin(node: DevnetHandle, ms = 20_000): Promise<number> {
  return Promise.race([node.done, new Promise<number>((_, reject) => setTimeout(() => reject(new Error(`the node did not stop within ${ms} ms`)), ms))]);
}

/** The committed state of a stopped node's database. */
async function inspect(home: string) {
  const ms = await openNodeStore(home);
  try {
    const keeper = await createKeeper({ store: ms.store("upgrade") });
    return {
      plan: keeper.getUpgradePlan(),
      done: keeper.getDoneHeight("v2"),
      versions: Object.fromEntries([...keeper.getModuleVersionMap()].map(([k, v]) => [k, Number(v)])),
      protocolVersion: keeper.getProtocolVersion(),
    };
  } finally {
    await ms.close();
  }
}

async function inspectAll(home: string) {
  return { ...(await inspect(home)), ...(await committedState(home)) };
}

describe("the upgrade lifecycle (v1 → v2) in-process", { timeout: 60_000 }, () => {
  let home: string;
  let keys: GenesisKey[];
  let target: bigint;

  it("v1: a proposal signed with DirectSecp256k1Wallet passes; the plan is scheduled; the node halts at the height with 20 and upgrade-info.json", async () => {
    ({ home, keys } = await newHome());
    const logger = captureLogger("v1");
    const node = await startDevnet({ home, app: V1, ...EPHEMERAL, logger, progressIntervalMs: 200 });
    const c = await clients(node.rpcUrl);
    target = node.height() + 50n;
    const id = await proposeAndPass(c, keys, [softwareUpgradeAny("v2", target, INFO)]);
    expect(id).toBe(1n);
    const plan = await waitUntil(async () => (await c.upgrade.CurrentPlan({})).plan, 10_000, "the plan");
    expect(plan).toMatchObject({ name: "v2", height: target, info: INFO });
    expect((await c.gov.Proposal({ proposalId: id })).proposal!.status).toBe(3); // PASSED
    c.comet.disconnect();

    expect(await exitWithin(node)).toBe(20);
    const halt = logger.records.find((r) => r.level === "error" && r.module === "x/upgrade");
    expect(halt?.msg).toBe(`UPGRADE "v2" NEEDED at height: ${target}: ${INFO}`);
    const progress = logger.records.filter((r) => r.progress === true);
    expect(progress.length).toBeGreaterThan(0);
    expect(progress[0]).toMatchObject({ name: "v2", target: String(target), eta: expect.any(String) });
    expect(progress[0].msg).toMatch(/^waiting for upgrade "v2": height \d+, target \d+, \d+ blocks left, ETA /);
    expect(readFileSync(join(home, "data", "upgrade-info.json"), "utf8")).toBe(
      `{"name":"v2","time":"0001-01-01T00:00:00Z","height":${target},"info":"{\\"binaries\\":{\\"any\\":\\"https://x.example/v2?a=1\\u0026checksum=sha256:00\\"}}"}`,
    );
    const s = await inspectAll(home);
    expect(s.height).toBe(target - 1n); // the halting block is never committed
    expect(s.plan).toEqual({ name: "v2", height: target, info: INFO });
  });

  it("v1 restarted halts again at once (20) without committing", async () => {
    const node = await startDevnet({ home, app: V1, ...EPHEMERAL, logger: captureLogger("v1b") });
    expect(await exitWithin(node)).toBe(20);
    expect((await inspectAll(home)).height).toBe(target - 1n);
  });

  it("v2 with a failing handler halts with 23; nothing from the upgrade (stores, migrations, versions) is committed", async () => {
    const logger = captureLogger("v2-broken");
    const node = await startDevnet({ home, app: fixtureApp("v2-broken"), ...EPHEMERAL, logger });
    expect(await exitWithin(node)).toBe(23);
    expect(logger.records.find((r) => r.msg === "halting the node")).toMatchObject({
      level: "error",
      exit_code: 23,
      height: String(target),
      err: "boom: the v2 handler failed after migrating",
    });
    const s = await inspectAll(home);
    expect(s.height).toBe(target - 1n);
    expect(s.stores).toContain("notes");
    expect(s.stores).not.toContain("memos");
    expect(s.stores).not.toContain("tags");
    expect(s.get("counter", "count")).toBe(String(target - 1n)); // still the v1 encoding
    expect(s.get("counter", "migrations/1-2")).toBeUndefined();
    expect(s.plan?.name).toBe("v2");
    expect(s.done).toBe(0n);
    expect(s.versions).toMatchObject({ counter: 1, notes: 1 });
    expect(s.protocolVersion).toBe(0n);
  });

  it("v2: the store loader applies the StoreUpgrades once, migrations run once, the chain resumes", async () => {
    const logger = captureLogger("v2");
    const node = await startDevnet({ home, app: V2, ...EPHEMERAL, logger });
    await node.waitForHeight(target + 3n, 15_000);
    const c = await clients(node.rpcUrl);
    expect((await c.upgrade.AppliedPlan({ name: "v2" })).height).toBe(target);
    expect((await c.upgrade.CurrentPlan({})).plan).toBeUndefined();
    const mv = (await c.upgrade.ModuleVersions({ moduleName: "" })).moduleVersions.map((m) => `${m.name}=${m.version}`);
    expect(mv).toEqual(["auth=5", "bank=4", "counter=2", "gov=5", "notes=2", "staking=5", "tags=1", "upgrade=2"]);
    const status = await c.comet.status();
    expect(status.nodeInfo.protocolVersion.app).toBe(1); // the version setter raised the app version
    const applied = (await c.comet.blockchain(Number(target), Number(target))).blockMetas[0];
    expect(applied.header.height).toBe(Number(target));
    expect((await c.comet.block(Number(target) + 1)).block.header.version.app).toBe(1);
    c.comet.disconnect();
    await node.stop();
    expect(await node.done).toBe(0);

    const msgs = logger.messages();
    expect(msgs.filter((m) => m.startsWith("store loader applied the store upgrades"))).toHaveLength(1);
    expect(msgs.filter((m) => m === "migrating module counter from version 1 to version 2")).toHaveLength(1);
    expect(msgs.filter((m) => m === "migrating module notes from version 1 to version 2")).toHaveLength(1);
    expect(msgs.filter((m) => m === "adding a new module: tags")).toHaveLength(1);
    expect(msgs).toContain(`applying upgrade "v2" at height: ${target}`);

    const s = await inspectAll(home);
    expect(s.stores).toEqual(expect.arrayContaining(["memos", "tags", "counter"]));
    expect(s.stores).not.toContain("notes");
    expect(s.done).toBe(target);
    expect(s.protocolVersion).toBe(1n);
    expect(s.get("counter", "count")).toBeUndefined();
    expect(s.get("counter", "migrations/1-2")).toBe("1");
    expect(s.get("memos", "migrations/1-2")).toBe("1");
    expect(s.get("tags", "tag/first")).toBe(`created at height ${target}`);
    const memo5 = new Uint8Array(8);
    new DataView(memo5.buffer).setBigUint64(0, 5n);
    expect(JSON.parse(s.get("memos", memo5)!)).toEqual({ height: "5", text: "block 5" });
  });

  it("v2 restarted: no store loading, no migrations; the chain goes on", async () => {
    const logger = captureLogger("v2b");
    const node = await startDevnet({ home, app: V2, ...EPHEMERAL, logger });
    const from = node.height();
    await node.waitForHeight(from + 3n);
    await node.stop();
    expect(await node.done).toBe(0);
    const msgs = logger.messages();
    expect(msgs.some((m) => m.startsWith("store loader applied"))).toBe(false);
    expect(msgs.some((m) => m.startsWith("migrating module"))).toBe(false);
    expect((await inspectAll(home)).get("counter", "migrations/1-2")).toBe("1");
  });

  it("v1 on the upgraded chain refuses to start: wrong app version (22)", async () => {
    const logger = captureLogger("v1-after");
    const err = await startDevnet({ home, app: V1, ...EPHEMERAL, logger }).then(
      () => undefined,
      (e) => e,
    );
    expect(err).toBeInstanceOf(UpgradeError);
    expect(err.message).toBe("wrong app version 1, upgrade handler is missing for v2 upgrade plan");
    expect(exitCodeFor(err)).toBe(22);
  });
});

describe("before the upgrade height", { timeout: 60_000 }, () => {
  it("a binary started too early halts with BINARY UPDATED BEFORE TRIGGER! (21); a cancel proposal removes the plan and v1 passes the height", async () => {
    const { home, keys } = await newHome();
    let node = await startDevnet({ home, app: V1, ...EPHEMERAL, logger: captureLogger("v1") });
    let c = await clients(node.rpcUrl);
    // Far enough for two proposals (≈ 25 blocks each at 50 ms with a 1 s voting period) before the height.
    const target = node.height() + 120n;
    await proposeAndPass(c, keys, [softwareUpgradeAny("v2", target)]);
    await waitUntil(async () => (await c.upgrade.CurrentPlan({})).plan, 10_000, "the plan");
    c.comet.disconnect();
    await node.stop();
    const stoppedAt = (await inspectAll(home)).height;
    expect(stoppedAt).toBeLessThan(target - 60n);

    // v2 adds stores: it cannot load them yet, and the reason is reported as the keeper would.
    const early = await startDevnet({ home, app: V2, ...EPHEMERAL, logger: captureLogger("v2-early") }).then(
      () => undefined,
      (e) => e,
    );
    expect(early).toBeInstanceOf(UpgradeError);
    expect(early.message).toBe('BINARY UPDATED BEFORE TRIGGER! UPGRADE "v2" - in binary but not executed on chain. Downgrade your binary');
    expect(exitCodeFor(early)).toBe(21);

    // A binary with v1's stores and a v2 handler: the keeper's PreBlock halts at its first block.
    const logger = captureLogger("handler-only");
    node = await startDevnet({ home, app: fixtureApp("v2-handler-only"), ...EPHEMERAL, logger });
    expect(await exitWithin(node)).toBe(21);
    expect(logger.records.some((r) => r.level === "error" && r.msg.startsWith("BINARY UPDATED BEFORE TRIGGER!"))).toBe(true);
    expect((await inspectAll(home)).height).toBe(stoppedAt);

    node = await startDevnet({ home, app: V1, ...EPHEMERAL, logger: captureLogger("v1-cancel") });
    c = await clients(node.rpcUrl);
    await proposeAndPass(c, keys, [cancelUpgradeAny()]);
    await waitUntil(async () => (await c.upgrade.CurrentPlan({})).plan === undefined, 10_000, "the plan to be cancelled");
    await node.waitForHeight(target + 2n, 20_000);
    expect((await c.upgrade.AppliedPlan({ name: "v2" })).height).toBe(0n);
    c.comet.disconnect();
    await node.stop();
    expect(await node.done).toBe(0);
    expect(existsSync(join(home, "data", "upgrade-info.json"))).toBe(false);
  });

  it("a skip height (--unsafe-skip-upgrades): the plan is cleared at the height, not done, no halt, no file", async () => {
    const { home, keys } = await newHome();
    const logger = captureLogger("skip");
    const node = await startDevnet({ home, app: V1, ...EPHEMERAL, logger, skipUpgradeHeights: [] });
    const c = await clients(node.rpcUrl);
    const target = node.height() + 40n;
    c.comet.disconnect();
    await node.stop();

    const skipping = await startDevnet({ home, app: V1, ...EPHEMERAL, logger, skipUpgradeHeights: [target] });
    const c2 = await clients(skipping.rpcUrl);
    await proposeAndPass(c2, keys, [softwareUpgradeAny("v2", target)]);
    await waitUntil(async () => (await c2.upgrade.CurrentPlan({})).plan, 10_000, "the plan");
    await skipping.waitForHeight(target + 2n, 20_000);
    expect((await c2.upgrade.CurrentPlan({})).plan).toBeUndefined();
    expect((await c2.upgrade.AppliedPlan({ name: "v2" })).height).toBe(0n);
    expect(logger.messages()).toContain(`UPGRADE "v2" SKIPPED at ${target}: `);
    c2.comet.disconnect();
    await skipping.stop();
    expect(await skipping.done).toBe(0);
    expect(existsSync(join(home, "data", "upgrade-info.json"))).toBe(false);
  });
});
