/**
 * `xupgrade visor rollback` (docs/spec/sidecar.md §13) on real files and real processes: a visor process
 * upgrades a node whose data is a real LevelDB (table files and all) and backs it up; the new binary's work
 * is then added to data/ (the upgrade's block committed, a new module's key — cosmovisor issue #20472), and
 * the rollback restores the data of the halt, points `current` back and keeps the replaced data. Every
 * refusal leaves the home exactly as it was; the validator's signed state never goes backwards.
 */
import { spawn } from "node:child_process";
import { existsSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ClassicLevel } from "classic-level";
import { afterAll, describe, expect, it } from "vitest";
import { BACKUP_MARKER } from "../../../bindings/apps/visor/upgrade/backup.js";
import { Layout } from "../../../bindings/apps/visor/layout.js";
import { committedHeight } from "../../../bindings/apps/visor/node/node-state.js";
import { ROLLED_BACK_MARKER } from "../../../bindings/apps/visor/reconcile.js";
import { rollback, ROLLBACK_JOURNAL } from "../../../bindings/apps/visor/upgrade/rollback.js";
import { removeTempDirs as removeCliBuild } from "../cli/helpers.js";
import { captureLog, config, httpServer, newHome, removeTempDirs, script, snapshot, stage, visor, waitUntil, type Home } from "./helpers.js";

afterAll(() => {
  removeTempDirs();
  removeCliBuild();
});

const H = 100n;
const NO_RPC = { DAEMON_RPC_ADDRESS: "http://127.0.0.1:9" };
const layoutOf = (h: Home) => new Layout({ home: h.home, name: h.name, disableRecase: false });
const data = (h: Home) => join(h.home, "data");
const cur = (h: Home) => readlinkSync(join(h.home, "cosmovisor", "current"));
const backupsIn = (h: Home) => readdirSync(h.home).filter((n) => n.startsWith("data-backup-"));
const keptIn = (h: Home) => readdirSync(h.home).filter((n) => n.startsWith("data-rolled-back-"));
const be64 = (n: bigint) => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, n);
  return b;
};
const enc = (s: string) => new TextEncoder().encode(s);

/** The node's application database: write, as a committing node does (this project's multistore keeps its height at `h`). */
async function commit(h: Home, height: bigint, extra: Record<string, string> = {}): Promise<void> {
  const db = new ClassicLevel<Uint8Array, Uint8Array>(join(data(h), "application.db"), { keyEncoding: "view", valueEncoding: "view" });
  await db.open();
  const batch = db.batch();
  for (let i = 0; i < 3000; i++) batch.put(enc(`k${height}-${i}`), new Uint8Array(512).fill(Number(height % 251n)));
  for (const [k, v] of Object.entries(extra)) batch.put(enc(k), enc(v));
  batch.put(Uint8Array.of(0x68), be64(height));
  await batch.write();
  await db.compactRange(new Uint8Array([0]), new Uint8Array([0xff])); // table files, as a node that has run a while has
  await db.close();
}

const signed = (h: Home, height: bigint, round = 0, step = 3) =>
  writeFileSync(join(data(h), "priv_validator_state.json"), JSON.stringify({ height: String(height), round, step, signature: "c2ln", signbytes: "00" }));
const signedHeight = (dir: string) => (JSON.parse(readFileSync(join(dir, "priv_validator_state.json"), "utf8")) as { height: string }).height;

/** A node halted at H under a visor process that backed up its data and switched to v2 (not restarted). */
async function upgraded(): Promise<{ h: Home; atHalt: Record<string, string> }> {
  const h = await newHome(`echo "old ran"`);
  await commit(h, H - 1n);
  signed(h, H); // CometBFT precommitted H before the old binary halted in its FinalizeBlock
  await stage(h, "v2", `[ "$1" = pre-upgrade ] && exit 0\necho "v2 ran"`);
  writeFileSync(join(data(h), "upgrade-info.json"), JSON.stringify({ name: "v2", time: "0001-01-01T00:00:00Z", height: Number(H) }));
  const atHalt = snapshot(data(h));
  const r = await visor(h, ["run", "start"], { ...NO_RPC, DAEMON_RESTART_AFTER_UPGRADE: "false" });
  expect(r.stderr).toContain("backup saved at");
  expect([r.code, cur(h)]).toEqual([0, "upgrades/v2"]);
  return { h, atHalt };
}

/** The new binary applied the upgrade (a module added) and committed `to`. */
const newBinaryRan = (h: Home, to = H) => commit(h, to, { "modules/added": "v2's new module" });

/** Everything under the home: what a refusal must leave as it was. */
const sealHome = (h: Home) => snapshot(h.home);

describe("visor rollback", () => {
  it("#20472: restores the data of the halt (hard-linked), points current back, keeps the replaced data; the upgrade is not retried until a fixed binary is staged", async () => {
    const { h, atHalt } = await upgraded();
    await newBinaryRan(h);
    const afterUpgrade = snapshot(data(h));

    // Told to a local webhook receiver.
    const told: { event: string; plan: unknown; details: Record<string, unknown> }[] = [];
    const hook = await httpServer(async (req, res) => {
      let body = "";
      for await (const chunk of req) body += chunk;
      told.push(JSON.parse(body) as (typeof told)[number]);
      res.writeHead(204);
      res.end();
    });
    const r = await visor(h, ["rollback"], { ...NO_RPC, DAEMON_WEBHOOK_URL: `${hook.url}/hook` }).finally(() => hook.close());
    expect(told).toEqual([
      expect.objectContaining({
        event: "rollback",
        plan: { name: "v2", height: "100" },
        details: expect.objectContaining({ current: "genesis", forced: false, data_kept: expect.stringContaining("data-rolled-back-v2-") }),
      }),
    ]);
    expect(r.code).toBe(0);
    expect(r.stderr).toMatch(
      /INF rollback of "v2" at height 100: data\/ committed=100, the backup committed=99; signed height 100 round 0 step 3, the backup height 100 round 0 step 3 /,
    );
    expect(r.stderr).toMatch(
      /INF rolled back "v2": data\/ restored from .*data-backup-\d+-\d+-\d+; the replaced data is kept at .*data-rolled-back-v2-\d+-\d+-\d+ \(delete it when done\)/,
    );

    // data/ is the halt's, the old binary is current, the new binary's data is kept.
    expect(cur(h)).toBe("genesis");
    expect(snapshot(data(h))).toEqual(atHalt);
    expect(await committedHeight(layoutOf(h))).toMatchObject({ height: H - 1n });
    const kept = join(h.home, keptIn(h)[0]);
    expect(snapshot(kept)).toEqual(afterUpgrade);
    // The restore hard-linked the backup's table files: same inodes, no bytes copied for them.
    const backup = join(h.home, backupsIn(h)[0]);
    const tables = readdirSync(join(data(h), "application.db")).filter((n) => n.endsWith(".ldb"));
    expect(tables.length).toBeGreaterThan(0);
    for (const t of tables) expect(statSync(join(data(h), "application.db", t)).ino).toBe(statSync(join(backup, "application.db", t)).ino);
    // The upgrade is marked rolled back, no longer switched to.
    const v2 = join(h.home, "cosmovisor/upgrades/v2");
    expect(JSON.parse(readFileSync(join(v2, ROLLED_BACK_MARKER), "utf8"))).toMatchObject({
      name: "v2",
      height: "100",
      from: "upgrades/v2",
      to: "genesis",
      forced: false,
    });
    expect(existsSync(join(v2, "upgrade-info.json"))).toBe(false);
    expect(existsSync(join(h.home, "cosmovisor", ROLLBACK_JOURNAL))).toBe(false);

    // A start does not upgrade to it again, and says how to go on; neither binary runs.
    const again = await visor(h, ["run", "start"], NO_RPC);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(
      /Error: cannot start: upgrade "v2" at height 100 was rolled back .*add-upgrade v2 <binary> --force.*--unsafe-skip-upgrades 100/,
    );
    expect(again.stdout).toBe("");
    // The chain skipping it: the old binary runs.
    const skipped = await visor(h, ["run", "start", "--unsafe-skip-upgrades", "100"], NO_RPC);
    expect([skipped.code, skipped.stdout]).toEqual([0, "old ran\n"]);
    expect(cur(h)).toBe("genesis");
    // A fixed binary clears the roll-back; the next start upgrades again, reusing the backup (data/ is the halt's).
    const fixed = await visor(
      h,
      ["add-upgrade", "v2", script(join(h.src, "v2-fixed"), `[ "$1" = pre-upgrade ] && exit 0\necho "v2 fixed ran"`), "--force"],
      NO_RPC,
    );
    expect(fixed.code).toBe(0);
    expect(fixed.stderr).toContain('the upgrade "v2" was rolled back; with this binary the visor upgrades to it again');
    expect(existsSync(join(v2, ROLLED_BACK_MARKER))).toBe(false);
    const retried = await visor(h, ["run", "start"], NO_RPC);
    expect(retried.stderr).toContain('backup for "v2" at height 100 already taken, reusing it');
    expect([retried.code, retried.stdout, cur(h)]).toEqual([0, "v2 fixed ran\n", "upgrades/v2"]);
  }, 180_000);

  it("refused while the node runs (its database locked by a real process); nothing changed", async () => {
    const { h } = await upgraded();
    await newBinaryRan(h);
    // A node process holding data/application.db open, as the node does while it runs.
    const holder = spawn(
      process.execPath,
      [
        "-e",
        `const { ClassicLevel } = require("classic-level"); const db = new ClassicLevel(${JSON.stringify(join(data(h), "application.db"))}); db.open().then(() => console.log("open"), (e) => { console.error(e); process.exit(1); }); setInterval(() => {}, 1000);`,
      ],
      { cwd: process.cwd(), stdio: ["ignore", "pipe", "inherit"] },
    );
    try {
      let out = "";
      holder.stdout.on("data", (d) => (out += d));
      await waitUntil(() => out.includes("open"), 60_000, "the node process to open its database");
      const before = sealHome(h);
      const r = await visor(h, ["rollback", "--force"], NO_RPC);
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(
        `Error: cannot roll back: the node is running (data/application.db/LOCK is locked by process ${holder.pid}); stop it (and its visor) first\n`,
      );
      expect(sealHome(h)).toEqual(before);
    } finally {
      holder.kill("SIGKILL");
    }
  }, 180_000);

  it("refused without a backup of the upgrade, and when current records no upgrade; nothing changed", async () => {
    const h = await newHome(`echo "old ran"`);
    await commit(h, H - 1n);
    await stage(h, "v2", `[ "$1" = pre-upgrade ] && exit 0\necho "v2 ran"`);
    const atGenesis = sealHome(h);
    const none = await visor(h, ["rollback"], NO_RPC);
    expect(none.stderr).toContain("Error: cannot roll back: current → genesis records no upgrade (current/upgrade-info.json); there is nothing to roll back\n");
    expect(sealHome(h)).toEqual(atGenesis);

    writeFileSync(join(data(h), "upgrade-info.json"), JSON.stringify({ name: "v2", time: "0001-01-01T00:00:00Z", height: Number(H) }));
    const up = await visor(h, ["run", "start"], { ...NO_RPC, DAEMON_RESTART_AFTER_UPGRADE: "false", UNSAFE_SKIP_BACKUP: "true" });
    expect([up.code, cur(h), backupsIn(h)]).toEqual([0, "upgrades/v2", []]);
    const before = sealHome(h);
    const r = await visor(h, ["rollback"], NO_RPC);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(
      /Error: cannot roll back: no backup of the upgrade "v2" in .* \(DAEMON_DATA_BACKUP_DIR\) holds .*\/data; was UNSAFE_SKIP_BACKUP on\?/,
    );
    const named = await visor(h, ["rollback", "--backup", "data-backup-2020-1-1"], NO_RPC);
    expect(named.stderr).toContain(`Error: cannot roll back: data-backup-2020-1-1 is not a complete backup of ${data(h)} for the upgrade "v2" in ${h.home}\n`);
    expect(sealHome(h)).toEqual(before);
  }, 180_000);

  it("refused without --force when the new binary committed blocks past H; --force restores and keeps them aside", async () => {
    const { h, atHalt } = await upgraded();
    await newBinaryRan(h, H + 5n);
    const before = sealHome(h);
    const r = await visor(h, ["rollback"], NO_RPC);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(
      'Error: cannot roll back "v2" without --force: the new binary committed blocks 101…105 past the upgrade height 100; the rollback loses them',
    );
    expect(sealHome(h)).toEqual(before);

    const forced = await visor(h, ["rollback", "--force"], NO_RPC);
    expect(forced.code).toBe(0);
    expect(forced.stderr).toContain("WRN --force: the new binary committed blocks 101…105");
    expect(snapshot(data(h))).toEqual(atHalt);
    expect(await committedHeight(layoutOf(h), join(h.home, keptIn(h)[0]))).toMatchObject({ height: H + 5n });
    expect(JSON.parse(readFileSync(join(h.home, "cosmovisor/upgrades/v2", ROLLED_BACK_MARKER), "utf8"))).toMatchObject({ forced: true });
  }, 180_000);

  it("refused without --force when the validator signed after the backup; with --force the signed state never goes backwards", async () => {
    const { h, atHalt } = await upgraded();
    await newBinaryRan(h);
    signed(h, H + 2n, 1, 2); // the new binary's validator prevoted at H+2
    const before = sealHome(h);
    const r = await visor(h, ["rollback"], NO_RPC);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain("without --force: the validator signed height 102 round 1 step 2 after the backup was taken (height 100 round 0 step 3)");
    expect(sealHome(h)).toEqual(before);

    const forced = await visor(h, ["rollback", "--force", "--backup", backupsIn(h)[0]], NO_RPC);
    expect(forced.code).toBe(0);
    expect(forced.stderr).toContain("kept the node's priv_validator_state.json (height 102 round 1 step 2): the signed state never goes backwards");
    expect(signedHeight(data(h))).toBe("102");
    // Everything else is the halt's.
    expect(snapshot(data(h), ["priv_validator_state.json"])).toEqual(
      Object.fromEntries(Object.entries(atHalt).filter(([k]) => k !== "priv_validator_state.json")),
    );
    expect(signedHeight(join(h.home, backupsIn(h)[0]))).toBe("100"); // the backup itself is untouched
  }, 180_000);

  it("a crash between the renames: the start refuses, a second rollback finishes it", async () => {
    const { h, atHalt } = await upgraded();
    await newBinaryRan(h);
    const crash = new Error("crash after data/ was moved aside");
    const err = await rollback(config(h, NO_RPC), {
      log: captureLog().log,
      afterStep: async (s) => {
        if (s === "aside") throw crash;
      },
    }).catch((e: unknown) => e);
    expect(err).toBe(crash);
    expect(existsSync(data(h))).toBe(false);
    expect(cur(h)).toBe("upgrades/v2");

    const start = await visor(h, ["run", "start"], NO_RPC);
    expect(start.code).toBe(1);
    expect(start.stderr).toMatch(
      /Error: cannot start: a rollback was interrupted \(.*rollback-in-progress\.json\); run `xupgrade visor rollback` again to finish it/,
    );
    expect(start.stdout).toBe("");

    const finish = await visor(h, ["rollback"], NO_RPC);
    expect(finish.code).toBe(0);
    expect(finish.stderr).toContain('finishing the rollback of "v2" an earlier run started');
    expect([cur(h), snapshot(data(h))]).toEqual(["genesis", atHalt]);
    expect(keptIn(h)).toHaveLength(1);
    expect(readdirSync(h.home).filter((n) => n.startsWith(".data-rollback-"))).toEqual([]);
    expect(existsSync(join(h.home, backupsIn(h)[0], BACKUP_MARKER))).toBe(true);
  }, 180_000);
});
