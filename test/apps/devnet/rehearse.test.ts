/**
 * `xupgrade devnet rehearse` / `rehearseUpgrade` (docs/spec/rehearse.md) on real devnet processes:
 *
 * - the example v1 → v2 upgrade rehearsed on a running v1 node, before the height and at H - 1, and then
 *   done for real: the rehearsal at H - 1 reports exactly the changes the real upgrade makes (every key and
 *   value of every app store, the version map, the app hash), the early one the same upgrade on older state;
 * - broken v2s (a handler that throws, a missing migration step, a store rename of a store that does not
 *   exist, a forgotten added store) and the old binary itself, each rehearsed on the halted node and then
 *   started on a copy of it for real: the same error and exit code, and the node's home byte-identical;
 * - the CLI's text, JSON and exit codes; the snapshot channel's loopback fallback for long home paths.
 */
import { cpSync, existsSync, statSync } from "node:fs";
import { connect } from "node:net";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import {
  exitCodeFor,
  initDevnet,
  rehearseUpgrade,
  snapshotEndpointPath,
  snapshotSocketPath,
  startDevnet,
  type GenesisKey,
  type RehearsalReport,
} from "../../../bindings/apps/devnet/index.js";
import { runCli } from "../cli/helpers.js";
import { snapshot as fileTree } from "../visor/helpers.js";
import {
  EPHEMERAL,
  V1,
  V2,
  captureLogger,
  clients,
  fixtureApp,
  newHome,
  proposeAndPass,
  removeTempDirs,
  softwareUpgradeAny,
  startChild,
  tempDir,
  waitUntil,
  type DevnetChild,
} from "./helpers.js";
import { appState, changesBetween, changesOfReport, versionsAfter } from "./rehearse-helpers.js";

let v1: DevnetChild | undefined;
afterAll(async () => {
  await v1?.kill();
  removeTempDirs();
});

const INFO = '{"binaries":{"any":"https://x.example/v2?checksum=sha256:00"}}';
const hexUpper = (b: Uint8Array | undefined) =>
  Buffer.from(b ?? [])
    .toString("hex")
    .toUpperCase();

/** A copy of a stopped node's home (opening a LevelDB writes to it: the tests read copies, never the home itself). */
function copyOf(home: string): string {
  const copy = join(tempDir(), "home");
  cpSync(home, copy, { recursive: true });
  return copy;
}

/** The real upgrade: `app` started on a copy of the halted `home`; stopped right after `target` when it gets there. */
async function realUpgrade(home: string, app: string, target: bigint): Promise<{ code: number; error: string; copy: string; appHash?: string }> {
  const copy = copyOf(home);
  const logger = captureLogger("real");
  let node;
  try {
    node = await startDevnet({ home: copy, app, ...EPHEMERAL, logger });
  } catch (e) {
    return { code: exitCodeFor(e), error: (e as Error).message, copy };
  }
  if (
    await node.waitForHeight(target, 30_000).then(
      () => true,
      () => false,
    )
  )
    await node.stop();
  const code = await node.done;
  const halt = logger.records.find((r) => r.msg === "halting the node");
  const committed = logger.records.find((r) => r.msg === "committed block" && r.height === String(target));
  return { code, error: (halt?.err as string | undefined) ?? "", copy, appHash: committed?.app_hash as string | undefined };
}

describe("rehearsing the example v1 → v2 upgrade", { timeout: 180_000 }, () => {
  let home: string;
  let keys: GenesisKey[];
  let target: bigint;
  let early: RehearsalReport;
  let atHeight: RehearsalReport;

  it("on a running node before the height: the chain's plan, a snapshot served by the node, the v2 changes", async () => {
    ({ home, keys } = await newHome({ blockTime: "400ms" }));
    v1 = startChild(home, V1); // lives through the tests below until it halts (afterAll kills it on a failure)
    const serving = await v1.waitFor((r) => r.msg === "serving");
    const c = await clients(serving.rpc as string);
    // Room for the rehearsals and CLI runs below before the height (400 ms blocks); on a busy machine the node may
    // still get there first, and the tests after this one say what holds then too.
    target = BigInt((await c.comet.status()).syncInfo.latestBlockHeight) + 60n;
    await proposeAndPass(c, keys, [softwareUpgradeAny("v2", target, INFO)]);
    await waitUntil(async () => (await c.upgrade.CurrentPlan({})).plan, 10_000, "the plan");
    c.comet.disconnect();
    expect(existsSync(snapshotSocketPath(home))).toBe(true);
    expect(statSync(snapshotSocketPath(home)).mode & 0o777).toBe(0o600);

    early = await rehearseUpgrade({ home, app: V2 });
    expect(early).toMatchObject({
      ok: true,
      exitCode: 0,
      error: "",
      plan: { name: "v2", height: target, info: INFO, source: "chain" },
      app: { name: "example-v2", version: "2.0.0" },
    });
    expect(early.snapshot).toMatchObject({ source: "node", engine: "local" });
    expect(early.snapshot.height).toBeLessThan(target - 1n);
    expect(early.block.height).toBe(target);
    expect(early.storeUpgrades).toEqual({ added: ["tags"], renamed: [{ oldKey: "notes", newKey: "memos" }], applied: true });
    expect(early.modulesMigrated).toBe(3);
    expect(versionsAfter(early)).toEqual(["auth=5", "bank=4", "counter=2", "gov=5", "notes=2", "staking=5", "tags=1", "upgrade=2"]);
    const counter = early.modules.find((m) => m.name === "counter")!;
    expect(counter).toMatchObject({ versionBefore: 1n, versionAfter: 2n, consensusVersion: 2n });
    expect(counter.migrations).toEqual([{ from: 1n, to: 2n, durationMs: expect.any(Number), failed: false }]);
    expect(early.modules.find((m) => m.name === "tags")).toMatchObject({ versionBefore: undefined, versionAfter: 1n, initGenesis: { failed: false } });
    expect(Object.fromEntries(early.stores.filter((s) => s.status !== "unchanged").map((s) => [s.name, s.status]))).toEqual({
      counter: "changed",
      memos: "added",
      notes: "deleted",
      tags: "added",
      upgrade: "changed",
    });
    expect(early.warnings).toEqual([]);
    // One height: the v1 counter is the number of blocks, so the count the migration read is the snapshot's height.
    const count = early.stores.find((s) => s.name === "counter")!.deleted.find((c) => Buffer.from(c.key).toString() === "count")!;
    expect(Buffer.from(count.before!).toString()).toBe(String(early.snapshot.height));
    const notes = early.stores.find((s) => s.name === "notes")!;
    expect(notes.keysBefore).toBe(Number(early.snapshot.height / 5n));
    expect(early.appHashAfter).toHaveLength(32);
    expect(early.log.map((r) => r.msg)).toEqual(
      expect.arrayContaining(["migrating module counter from version 1 to version 2", "adding a new module: tags", "upgrade applied"]),
    );
  });

  it("the CLI prints the same rehearsal as JSON (snake_case, heights as strings) and as text, and exits 0", async () => {
    const json = await runCli(["devnet", "rehearse", "--home", home, "--app", V2, "-o", "json"]);
    expect(json.stderr).toBe("");
    expect(json.code).toBe(0);
    const r = JSON.parse(json.stdout) as Record<string, unknown>;
    expect(r).toMatchObject({
      format: "xupgrade-rehearsal/1",
      rehearsed: true,
      ok: true,
      exit_code: 0,
      error: "",
      halted_in: "",
      plan: { name: "v2", height: String(target), info: INFO, source: "chain" },
      app: { name: "example-v2", version: "2.0.0" },
      snapshot: { height: expect.stringMatching(/^\d+$/) },
      block: { height: String(target) },
      store_upgrades: { applied: true, added: ["tags"], renamed: [{ old_key: "notes", new_key: "memos" }], deleted: [] },
      modules_migrated: 3,
      warnings: [],
    });
    // Served by the running node, or — once it has halted at the height — read from a copy of its home.
    expect(["node", "copy"]).toContain((r.snapshot as { source: string }).source);
    expect((r.modules as Record<string, unknown>[]).find((m) => m.name === "notes")).toMatchObject({
      version_before: "1",
      version_after: "2",
      consensus_version: "2",
      migrations: [{ from: "1", to: "2", failed: false }],
    });
    expect((r.stores as Record<string, unknown>[]).find((s) => s.name === "tags")).toEqual({
      name: "tags",
      status: "added",
      keys_before: 0,
      keys_after: 1,
      added: 1,
      changed: 0,
      deleted: 0,
    });

    const text = await runCli(["devnet", "rehearse", "--home", home, "--app", V2, "--verbose"]);
    expect(text.code).toBe(0);
    for (const line of [
      `rehearsal of upgrade "v2" at height ${target} with example-v2 2.0.0`,
      "store loader:  add tags, rename notes → memos",
      "  counter        1 → 2    migration 1 → 2 in ",
      "  tags           – → 1    new module: default genesis in ",
      "  unchanged: auth 5, bank 4, gov 5, staking 5, upgrade 2",
      '      + "tag/first" = "created at height ' + target + '"',
      "result:        the upgrade would succeed: 3 modules migrated in ",
    ]) {
      expect(text.stdout).toContain(line);
    }
  });

  it("at H - 1 on the running node: the snapshot is of that height", async () => {
    await v1!.waitFor((r) => r.msg === "committed block" && r.height === String(target - 1n), 30_000);
    atHeight = await rehearseUpgrade({ home, app: V2 });
    // The node halts at H one block later: a rehearsal that asks after that reads a copy of the halted home, which is
    // of the same height. Either way the snapshot is of H - 1.
    expect(["node", "copy"]).toContain(atHeight.snapshot.source);
    expect(atHeight.snapshot.height).toBe(target - 1n);
    expect(atHeight.ok).toBe(true);
    expect(await v1!.exited).toBe(20);
  });

  it("broken v2s and the old binary: the rehearsal gives the real upgrade's error and exit code; the home is untouched", async () => {
    const before = fileTree(home);
    const cases: [app: string, code: number, error: string | RegExp][] = [
      [fixtureApp("v2-broken"), 23, "boom: the v2 handler failed after migrating"],
      [fixtureApp("v2-missing-migration"), 23, "no migration found for module counter from version 2 to version 3: not found"],
      [
        fixtureApp("v2-store-mismatch"),
        1,
        `version of store tags mismatch root store's version; expected ${target - 1n} got 0; new stores should be added using StoreUpgrades`,
      ],
      [V1, 20, `UPGRADE "v2" NEEDED at height: ${target}: ${INFO}`],
    ];
    for (const [app, code, error] of cases) {
      const r = await rehearseUpgrade({ home, app });
      const real = await realUpgrade(home, app, target);
      expect({ app, code: r.exitCode, error: r.error }).toEqual({ app, code: real.code, error: real.error });
      expect({ app, code: r.exitCode, error: r.error }).toEqual({ app, code, error });
      expect(r).toMatchObject({ ok: false, stores: [] });
      expect(r.appHashAfter).toBeUndefined();
      expect(r.snapshot).toMatchObject({ source: "copy", height: target - 1n });
      expect((await appState(real.copy)).height).toBe(target - 1n); // the real one committed nothing either
    }
    // What ran before the handler failed is reported (and, like the real halt, committed nowhere).
    const broken = await rehearseUpgrade({ home, app: fixtureApp("v2-broken") });
    expect(broken.haltedIn).toBe("block");
    expect(broken.modules.find((m) => m.name === "notes")!.migrations).toEqual([{ from: 1n, to: 2n, durationMs: expect.any(Number), failed: false }]);
    const missing = await rehearseUpgrade({ home, app: fixtureApp("v2-missing-migration") });
    expect(missing.modules.find((m) => m.name === "counter")!.migrations.map((x) => `${x.from}→${x.to}`)).toEqual(["1→2"]);
    expect((await rehearseUpgrade({ home, app: fixtureApp("v2-store-mismatch") })).haltedIn).toBe("start");

    // A rename of a store that does not exist: Cosmos' loader and this one let it pass, so the real upgrade
    // succeeds (and leaves the v1 notes in a store no module mounts); the rehearsal says so, with the same changes.
    const renamed = await rehearseUpgrade({ home, app: fixtureApp("v2-rename-missing") });
    const real = await realUpgrade(home, fixtureApp("v2-rename-missing"), target);
    expect({ code: renamed.exitCode, error: renamed.error }).toEqual({ code: real.code, error: real.error });
    expect(renamed.ok).toBe(true);
    expect(renamed.warnings).toEqual([
      'the store upgrade renames store "nots", which does not exist on chain: "memos" starts empty',
      `store "notes" (${Number((target - 1n) / 5n)} keys) stays on chain but no module of example-v2-rename-missing mounts it: its data is unreachable`,
    ]);
    expect(changesOfReport(renamed)).toEqual(changesBetween((await appState(copyOf(home))).stores, (await appState(real.copy)).stores));

    // The CLI: the report, and the real upgrade's exit code as its own.
    const cli = await runCli(["devnet", "rehearse", "--home", home, "--app", fixtureApp("v2-broken"), "-o", "json"]);
    expect(cli.code).toBe(23);
    expect(JSON.parse(cli.stdout)).toMatchObject({
      rehearsed: true,
      ok: false,
      exit_code: 23,
      error: "boom: the v2 handler failed after migrating",
      halted_in: "block",
      app_hash_after: "",
    });
    const text = await runCli(["devnet", "rehearse", "--home", home, "--app", fixtureApp("v2-store-mismatch")]);
    expect(text.code).toBe(1);
    expect(text.stdout).toContain(`result:        the node would HALT at start-up with exit code 1: version of store tags mismatch root store's version;`);
    expect(text.stderr).toBe("");

    expect(fileTree(home)).toEqual(before);
  });

  it("the real upgrade makes exactly the changes rehearsed at H - 1: every key and value, the version map, the app hash", async () => {
    const before = await appState(copyOf(home));
    expect(before.height).toBe(target - 1n);
    const real = await realUpgrade(home, V2, target);
    expect(real.code).toBe(0);
    const after = await appState(real.copy);
    expect(after.height).toBe(target);
    const changes = changesBetween(before.stores, after.stores);
    expect(Object.keys(changes).sort()).toEqual(["counter", "memos", "notes", "tags", "upgrade"]);
    expect(changesOfReport(atHeight)).toEqual(changes);
    const realVersions = [...after.stores.get("upgrade")!]
      .filter(([k]) => k.startsWith("02"))
      .map(([k, v]) => `${Buffer.from(k.slice(2), "hex").toString()}=${BigInt(`0x${v}`)}`)
      .sort();
    expect(versionsAfter(atHeight)).toEqual(realVersions);
    expect(hexUpper(atHeight.appHashAfter)).toBe(real.appHash);

    // The early rehearsal: the same upgrade on older state (same stores touched, same versions, same keys where
    // they do not depend on the height).
    expect(versionsAfter(early)).toEqual(realVersions);
    expect(Object.keys(changesOfReport(early)).sort()).toEqual(Object.keys(changes).sort());
    expect(changesOfReport(early).tags).toEqual(changes.tags);
  });

  it("a plan given on the command line is scheduled on the copy only; an applied one cannot be rehearsed again", async () => {
    const r = await rehearseUpgrade({ home, app: V2, plan: "v2", height: target + 10n });
    expect(r).toMatchObject({ ok: true, plan: { name: "v2", height: target + 10n, info: INFO, source: "given" } }); // the chain's info for the same name
    expect(r.warnings).toEqual([`the chain's plan "v2" at height ${target} was replaced on the copy by the plan given`]);
    expect(r.modules.find((m) => m.name === "upgrade")).toMatchObject({ versionBefore: 2n, versionAfter: 2n });
    const done = await runCli([
      "devnet",
      "rehearse",
      "--home",
      (await realUpgrade(home, V2, target)).copy,
      "--app",
      V2,
      "--plan",
      "v2",
      "--height",
      String(target + 5n),
    ]);
    expect(done.code).toBe(1);
    expect(done.stderr).toMatch(
      /^Error: cannot rehearse: cannot schedule "v2" at height \d+ on the copy: upgrade with name v2 has already been completed: invalid request\n$/,
    );
    const none = await runCli(["devnet", "rehearse", "--home", home, "--app", V2, "--height", "x"]);
    expect(none.stderr).toBe('Error: invalid --height "x": must be a positive integer\n');
  });
});

describe("the snapshot channel on a long home path: a loopback port with a token", { timeout: 60_000 }, () => {
  it("serves the rehearsal, refuses a request without the token, and removes its endpoint file", async () => {
    const home = join(tempDir(), "a-home-path-too-long-for-a-unix-socket-".padEnd(90, "x"));
    await initDevnet({ home, blockTime: "50ms" });
    const node = await startDevnet({ home, app: V1, ...EPHEMERAL, logger: captureLogger("long") });
    try {
      await node.waitForHeight(3n);
      expect(existsSync(snapshotSocketPath(home))).toBe(false);
      expect(statSync(snapshotEndpointPath(home)).mode & 0o777).toBe(0o600);
      const r = await rehearseUpgrade({ home, app: V2, plan: "v2", height: node.height() + 100n });
      expect(r).toMatchObject({ ok: true, snapshot: { source: "node" }, modulesMigrated: 3 });
      const { address } = JSON.parse((await import("node:fs")).readFileSync(snapshotEndpointPath(home), "utf8")) as { address: string };
      const port = Number(address.split(":").pop());
      const answer = await new Promise<string>((resolve) => {
        const s = connect(port, "127.0.0.1", () => s.write('{"op":"snapshot"}\n'));
        let got = "";
        s.on("data", (d) => (got += d.toString("latin1")));
        s.on("close", () => resolve(got));
      });
      expect(answer).toContain('{"error":"a token is required (see snapshot.endpoint.json)"}');
    } finally {
      await node.stop();
    }
    expect(await node.done).toBe(0);
    expect(existsSync(snapshotEndpointPath(home))).toBe(false);
  });
});
