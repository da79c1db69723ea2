/**
 * Reconciliation at every start (docs/spec/sidecar.md §5.1): the decision table row by row, the committed
 * height read from a copy of a real LevelDB (this project's multistore key and the SDK's) without touching
 * the node's files, and the visor's starts in each state — with the one log line, and neither binary
 * started when the state cannot be resolved.
 */
import { existsSync, mkdirSync, readdirSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ClassicLevel } from "classic-level";
import { afterAll, describe, expect, it } from "vitest";
import { Layout } from "../../../bindings/apps/visor/layout.js";
import { committedHeight } from "../../../bindings/apps/visor/node/node-state.js";
import { decide, type Decision, type StartState } from "../../../bindings/apps/visor/reconcile.js";
import type { VisorPlan } from "../../../bindings/apps/visor/node/info-file.js";
import { newHome, removeTempDirs, runVisorIn, snapshot, stage, type Home } from "./helpers.js";

afterAll(() => removeTempDirs());

const P: VisorPlan = { name: "v2", rawName: "v2", height: 100n, info: "" };

function state(o: Partial<StartState> & { n?: bigint; cur?: string; manual?: boolean; file?: "none" | "invalid" }): StartState {
  const info = o.file === "none" ? undefined : o.file === "invalid" ? { invalid: "unexpected end of JSON input" } : { plan: P, manual: o.manual ?? false };
  return {
    info,
    current: o.current ?? { target: o.cur === "v2" ? "upgrades/v2" : "genesis", name: o.cur ?? "" },
    switched: o.switched ?? false,
    done: o.done ?? false,
    rolledBack: o.rolledBack ?? false,
    staged: o.staged ?? false,
    committed: o.n === undefined ? { source: "unknown" } : { height: o.n, source: "test" },
    skip: o.skip ?? [],
  };
}

const act = (d: Decision) => d.action;

describe("the decision table", () => {
  const rows: [string, Parameters<typeof state>[0], Decision["action"]][] = [
    ["no file", { file: "none", n: 5n }, "run"],
    ["a half-written file (set aside)", { file: "invalid", n: 99n }, "run"],
    ["current is P, data at H−1 (the new binary applies it)", { cur: "v2", n: 99n }, "run"],
    ["current is P, data at H (applied)", { cur: "v2", n: 100n }, "run"],
    ["current is P, height unknown", { cur: "v2" }, "run"],
    ["current is P, data before the upgrade", { cur: "v2", n: 50n }, "stop"],
    ["current is not a link", { current: { problem: "symlink genesis current: file exists" } }, "stop"],
    ["skipped height", { n: 99n, skip: [100n] }, "run"],
    ["rolled back", { n: 99n, rolledBack: true }, "stop"],
    ["halted at H (data at H−1): #25861", { n: 99n }, "upgrade"],
    ["halted, height unknown: the keeper's file is trusted", {}, "upgrade"],
    ["manual plan, height unknown: the RPC gate decides", { manual: true }, "run"],
    ["manual plan, node below H", { manual: true, n: 60n }, "run"],
    ["manual plan, node at H", { manual: true, n: 100n }, "upgrade"],
    ["a stale file, data far below H: #22167", { n: 60n }, "run"],
    ["data past H, P switched to before: current is stale", { n: 150n, switched: true }, "repoint"],
    ["data past H, P staged (a snapshot of an upgraded node)", { n: 150n, staged: true }, "repoint"],
    ["data past H, P's first block seen before", { n: 150n, done: true }, "repoint"],
    ["data past H, nothing known", { n: 150n }, "stop"],
    ["height unknown, P switched to before", { switched: true }, "repoint"],
  ];
  for (const [what, s, want] of rows) it(`${what} → ${want}`, () => expect(act(decide(state(s)))).toBe(want));

  it("a stale file primes the watcher at H−1 (only the keeper's rewrite at H triggers); a skipped one at H", () => {
    expect(decide(state({ n: 60n }))).toMatchObject({ action: "run", primeHeight: 99n });
    expect(decide(state({ n: 99n, skip: [100n] }))).toMatchObject({ action: "run", primeHeight: 100n });
  });

  it("every stop says what to do", () => {
    expect(decide(state({ n: 99n, rolledBack: true })).reason).toContain("xupgrade visor add-upgrade v2 <binary> --force");
    expect(decide(state({ cur: "v2", n: 50n })).reason).toContain("xupgrade visor rollback");
    expect(decide(state({ n: 150n })).reason).toContain("remove data/upgrade-info.json");
  });
});

/** A LevelDB at data/application.db holding `key → value` (as the node writes it). */
async function appDb(h: Home, key: Uint8Array, value: Uint8Array): Promise<void> {
  const db = new ClassicLevel<Uint8Array, Uint8Array>(join(h.home, "data", "application.db"), { keyEncoding: "view", valueEncoding: "view" });
  await db.open();
  // Enough data for table files, so the probe's hard links are exercised.
  const batch = db.batch();
  for (let i = 0; i < 3000; i++) batch.put(new TextEncoder().encode(`k${i}`), new Uint8Array(512).fill(i % 251));
  await batch.write();
  await db.put(key, value);
  await db.compactRange(new Uint8Array([0]), new Uint8Array([0xff]));
  await db.put(key, value);
  await db.close();
}

const be64 = (n: bigint) => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, n);
  return b;
};

describe("the committed height, from a copy of data/application.db", () => {
  it("this project's multistore (key h) and the SDK's (s/latest): read, the node's files untouched", async () => {
    const ours = await newHome("echo v1");
    await appDb(ours, Uint8Array.of(0x68), be64(119n));
    const before = snapshot(join(ours.home, "data"));
    expect(readdirSync(join(ours.home, "data", "application.db")).some((n) => n.endsWith(".ldb"))).toBe(true);
    const layout = new Layout({ home: ours.home, name: ours.name, disableRecase: false });
    expect(await committedHeight(layout)).toEqual({ height: 119n, source: "data/application.db" });
    expect(snapshot(join(ours.home, "data"))).toEqual(before);
    expect(readdirSync(layout.tmpDir)).toEqual([]);

    const sdk = await newHome("echo v1");
    await appDb(sdk, new TextEncoder().encode("s/latest"), Uint8Array.of(0x08, 0xc6, 0x01)); // Int64Value{198}
    expect(await committedHeight(new Layout({ home: sdk.home, name: sdk.name, disableRecase: false }))).toEqual({
      height: 198n,
      source: "data/application.db (s/latest)",
    });
  });

  it("no database, or one without a known key: unknown, said why", async () => {
    const none = await newHome("echo v1");
    expect(await committedHeight(new Layout({ home: none.home, name: none.name, disableRecase: false }))).toEqual({
      source: "no LevelDB at data/application.db",
    });
    const other = await newHome("echo v1");
    await appDb(other, new TextEncoder().encode("x"), Uint8Array.of(1));
    expect((await committedHeight(new Layout({ home: other.home, name: other.name, disableRecase: false }))).height).toBeUndefined();
  });
});

describe("starts in each state (the old binary logs `old ran`, the new one `v2 ran`)", () => {
  async function home(committed: bigint | undefined, o: { current?: "v2"; file?: boolean } = {}) {
    const h = await newHome(`echo "old ran"`);
    await stage(h, "v2", `[ "$1" = pre-upgrade ] && { echo pre >> "${"$"}3/pre-upgrade-ran"; exit 0; }\necho "v2 ran"`);
    if (committed !== undefined) await appDb(h, Uint8Array.of(0x68), be64(committed));
    if (o.file !== false) writeFileSync(join(h.home, "data/upgrade-info.json"), '{"name":"v2","time":"0001-01-01T00:00:00Z","height":100}');
    if (o.current === "v2") {
      mkdirSync(join(h.home, "cosmovisor/upgrades/v2"), { recursive: true });
      writeFileSync(join(h.home, "cosmovisor/upgrades/v2/upgrade-info.json"), '{"name":"v2","time":"0001-01-01T00:00:00Z","height":100}');
      const { symlinkSync, rmSync } = await import("node:fs");
      rmSync(join(h.home, "cosmovisor/current"));
      symlinkSync("upgrades/v2", join(h.home, "cosmovisor/current"));
    }
    return h;
  }
  const cur = (h: Home) => readlinkSync(join(h.home, "cosmovisor/current"));
  const backups = (h: Home) => readdirSync(h.home).filter((n) => n.startsWith("data-backup-"));
  const line = (logs: string) => logs.split("\n").find((l) => l.includes(" start: found "));

  it("halted at H (data at H−1): upgrades first; the old binary never runs", async () => {
    const h = await home(99n);
    const r = await runVisorIn(h, []);
    expect([r.code, r.stdout]).toEqual([0, "v2 ran\n"]);
    expect(line(r.logs)).toMatch(
      /INF start: found upgrade-info\.json=v2@100 current=genesis switched=no done=no staged=yes committed=99; pending upgrade "v2" at height 100: upgrading before starting the node reason="the node halted at 100 \(data\/ at 99\)"/,
    );
    expect(cur(h)).toBe("upgrades/v2");
  });

  it("#22167: a stale file far above the node: runs the old binary, no switch, no backup", async () => {
    const h = await home(60n);
    const r = await runVisorIn(h, []);
    expect([r.code, r.stdout]).toEqual([0, "old ran\n"]);
    expect(line(r.logs)).toContain("committed=60; running genesis");
    expect([cur(h), backups(h)]).toEqual(["genesis", []]);
  });

  it("current stale (data already past H, P staged): re-pointed without backup or pre-upgrade, then P runs", async () => {
    const h = await home(150n);
    const r = await runVisorIn(h, []);
    expect([r.code, r.stdout]).toEqual([0, "v2 ran\n"]);
    expect(line(r.logs)).toContain('pointing current at "v2"');
    expect([cur(h), backups(h), existsSync(join(h.home, "pre-upgrade-ran"))]).toEqual(["upgrades/v2", [], false]);
  });

  it("current is P but data/ is from before the upgrade: stops, starting neither binary", async () => {
    const h = await home(40n, { current: "v2" });
    const r = await runVisorIn(h, []);
    expect(r.error).toMatch(/^cannot start: current → upgrades\/v2 is the binary of "v2" at height 100, but data\/ is at height 40, before the upgrade/);
    expect(r.stdout).toBe("");
    expect(line(r.logs)).toContain("starting nothing");
  });

  it("data past H with nothing saying which binary applied it: stops", async () => {
    const h = await newHome(`echo "old ran"`);
    await appDb(h, Uint8Array.of(0x68), be64(150n));
    writeFileSync(join(h.home, "data/upgrade-info.json"), '{"name":"v2","time":"0001-01-01T00:00:00Z","height":100}');
    const r = await runVisorIn(h, []);
    expect(r.error).toContain('cannot start: data/ is at height 150, past "v2" at height 100');
    expect(r.stdout).toBe("");
  });

  it("no file: runs current, and says so", async () => {
    const h = await home(undefined, { file: false });
    const r = await runVisorIn(h, []);
    expect(r.stdout).toBe("old ran\n");
    expect(line(r.logs)).toContain("start: found upgrade-info.json=none current=genesis committed=unknown (not read (no plan)); running genesis");
  });
});
