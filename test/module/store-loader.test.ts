/** docs/spec/keeper.md §8.1 and acceptance cases L1–L8 (docs/spec/keeper.md §11.6), on real LevelDB multistores. */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ClassicLevel } from "classic-level";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { UpgradeError } from "../../bindings/core/errors.js";
import type { KVStore } from "../../bindings/core/kv.js";
import { defaultStoreLoader, upgradeStoreLoader, type StoreLoader } from "../../bindings/module/store-loader.js";
import type { StoreUpgrades } from "../../bindings/core/types.js";
import { startChild, type Child } from "../store/fixtures/spawn-child.js";
import {
  STORE_KINDS,
  bytes,
  commitHistory,
  openMultiStore,
  text,
  upgradeBlock,
  upgradeLoader,
  upgradeMounted,
  type StoreKind,
  type TestMultiStore,
} from "../store/fixtures/store-scenario.js";

const dirs: string[] = [];
const open: TestMultiStore[] = [];
const children: Child[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) await c.kill();
  for (const ms of open.splice(0)) await ms.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "xupgrade-loader-"));
  dirs.push(d);
  return d;
}
/** The multistore the suite runs on (both kinds run every case). */
let kind: StoreKind = "durable";
/** Versions a commit multistore keeps here: few, so that pruning runs within a case. */
const KEEP_RECENT = 2;
async function reopen(dir: string): Promise<TestMultiStore> {
  const ms = await openMultiStore(kind, dir, KEEP_RECENT);
  open.push(ms);
  return ms;
}
async function close(ms: TestMultiStore): Promise<void> {
  open.splice(open.indexOf(ms), 1);
  await ms.close();
}

/** docs/spec/keeper.md §11.6 history: store foo gets key=value at height 1, then heights up to `last` are committed. */
async function history(last = 4n): Promise<string> {
  const dir = tempDir();
  const ms = await reopen(dir);
  ms.store("foo").set(bytes("key"), bytes("value"));
  await ms.commit(1n);
  for (let h = 2n; h <= last; h++) await ms.commit(h);
  await close(ms);
  return dir;
}

const rows = (st: KVStore) => [...st.iterate(new Uint8Array(0), undefined)].map(([k, v]) => `${text(k)}=${text(v)}`);

/** Restart: reopen the database and run `loader` mounting `mounted`. */
async function start(dir: string, loader: StoreLoader, mounted: string[]) {
  const ms = await reopen(dir);
  return { ms, ...loader(ms, mounted) };
}

function loaderError(fn: () => unknown): UpgradeError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(UpgradeError);
    const err = e as UpgradeError;
    expect(err.kind).toBe("store-loader");
    expect(err.codespace).toBe("undefined");
    expect(err.code).toBe(1);
    return err;
  }
  throw new Error("expected a store-loader error");
}

const mismatch = (name: string, last: bigint) =>
  `version of store ${name} mismatch root store's version; expected ${last} got 0; new stores should be added using StoreUpgrades`;

describe.each(STORE_KINDS)("store loader (docs/spec/keeper.md §11.6, upgrade height 5) on the %s multistore", (k) => {
  beforeEach(() => {
    kind = k;
  });

  it("L1: a plain load keeps foo's data through block 5", async () => {
    const dir = await history();
    const { ms, upgraded, stores } = await start(dir, defaultStoreLoader, ["foo"]);
    expect(upgraded).toBe(false);
    expect(ms.lastCommittedHeight).toBe(4n);
    await ms.commit(5n);
    expect(text(stores.get("foo")!.get(bytes("key")))).toBe("value");
    await close(ms);
    const again = await start(dir, defaultStoreLoader, ["foo"]);
    expect(again.ms.lastCommittedHeight).toBe(5n);
    expect(rows(again.stores.get("foo")!)).toEqual(["key=value"]);
  });

  it("L2: a rename fires at 4 + 1: bar has foo's data after block 5, foo is gone", async () => {
    const dir = await history();
    const loader = upgradeStoreLoader(5, { renamed: [{ oldKey: "foo", newKey: "bar" }] });
    const { ms, upgraded, stores } = await start(dir, loader, ["bar"]);
    expect(upgraded).toBe(true);
    expect(rows(stores.get("bar")!)).toEqual(["key=value"]);
    await ms.commit(5n);
    expect(ms.committedStores()).toEqual(["bar"]);
    await close(ms);

    const after = await start(dir, defaultStoreLoader, ["bar"]);
    expect(after.ms.lastCommittedHeight).toBe(5n);
    expect(rows(after.stores.get("bar")!)).toEqual(["key=value"]);
    expect(after.ms.committedStores()).toEqual(["bar"]);
    expect(rows(after.ms.store("foo"))).toEqual([]);
    // foo no longer exists: mounting it again is a version mismatch.
    await close(after.ms);
    const ms3 = await reopen(dir);
    expect(loaderError(() => defaultStoreLoader(ms3, ["foo"])).message).toBe(mismatch("foo", 5n));
  });

  it("L3: the same loader does not fire when the last committed height is 5", async () => {
    const dir = await history(5n);
    const loader = upgradeStoreLoader(5n, { renamed: [{ oldKey: "foo", newKey: "bar" }] });
    const { ms, upgraded, stores } = await start(dir, loader, ["foo"]);
    expect(upgraded).toBe(false);
    expect(rows(stores.get("foo")!)).toEqual(["key=value"]);
    expect(ms.hasPendingChanges).toBe(false);
    // Not fired, so bar is not a new store and cannot be mounted.
    expect(loaderError(() => loader(ms, ["bar"])).message).toBe(mismatch("bar", 5n));
  });

  it("L3: nor when the upgrade height is further ahead or behind", async () => {
    const dir = await history();
    for (const h of [3n, 4n, 6n, 100n]) {
      const loader = upgradeStoreLoader(h, { renamed: [{ oldKey: "foo", newKey: "bar" }] });
      const { ms, upgraded } = await start(dir, loader, ["foo"]);
      expect(upgraded).toBe(false);
      expect(ms.hasPendingChanges).toBe(false);
      await close(ms);
    }
  });

  it("L4: empty store upgrades are a plain load", async () => {
    const dir = await history();
    for (const upgrades of [{}, { added: [], renamed: [], deleted: [] }] as StoreUpgrades[]) {
      const { ms, upgraded, stores } = await start(dir, upgradeStoreLoader(5n, upgrades), ["foo"]);
      expect(upgraded).toBe(false);
      expect(rows(stores.get("foo")!)).toEqual(["key=value"]);
      await close(ms);
    }
  });

  it("L5: a new store loads empty when listed in added", async () => {
    const dir = await history();
    const { ms, upgraded, stores } = await start(dir, upgradeStoreLoader(5n, { added: ["baz"] }), ["foo", "baz"]);
    expect(upgraded).toBe(true);
    expect(rows(stores.get("baz")!)).toEqual([]);
    expect(rows(stores.get("foo")!)).toEqual(["key=value"]);
    await ms.commit(5n); // baz exists from height 5 on, even though it holds no keys
    await close(ms);
    const after = await start(dir, defaultStoreLoader, ["foo", "baz"]);
    expect(after.ms.committedStores()).toEqual(["baz", "foo"]);
    expect(rows(after.stores.get("baz")!)).toEqual([]);
  });

  it("L5: a new store not listed in added is a version mismatch, and nothing changes", async () => {
    const dir = await history();
    const ms = await reopen(dir);
    const loader = upgradeStoreLoader(5n, { added: ["other"], deleted: ["foo"] });
    expect(loaderError(() => loader(ms, ["foo", "baz"])).message).toBe(
      "version of store baz mismatch root store's version; expected 4 got 0; new stores should be added using StoreUpgrades",
    );
    expect(loaderError(() => defaultStoreLoader(ms, ["baz"])).message).toBe(mismatch("baz", 4n));
    // The failed load deleted nothing.
    expect(ms.hasPendingChanges).toBe(false);
    expect(rows(ms.store("foo"))).toEqual(["key=value"]);
  });

  it("L5: a fresh chain (height 0) mounts any store", async () => {
    const ms = await reopen(tempDir());
    const { upgraded, stores } = defaultStoreLoader(ms, ["a", "b"]);
    expect(upgraded).toBe(false);
    expect([...stores.keys()]).toEqual(["a", "b"]);
    await ms.commit(1n);
    expect(ms.committedStores()).toEqual(["a", "b"]);
  });

  it("L6: a deleted store's data is gone after block 5", async () => {
    const dir = await history();
    const { ms, upgraded, stores } = await start(dir, upgradeStoreLoader(5n, { deleted: ["foo"], added: ["bar"] }), ["bar"]);
    expect(upgraded).toBe(true);
    expect(ms.mountedStores()).toEqual(["bar"]); // foo was unmounted by the delete
    stores.get("bar")!.set(bytes("b"), bytes("1"));
    await ms.commit(5n);
    expect(ms.committedStores()).toEqual(["bar"]);
    await close(ms);

    const after = await reopen(dir);
    expect(after.committedStores()).toEqual(["bar"]);
    // A commit multistore keeps a deleted store's nodes while a retained version uses them: once the
    // versions up to 4 are pruned, they are gone.
    for (let h = 6n; h <= 7n; h++) await after.commit(h);
    expect(rows(after.store("foo"))).toEqual([]); // (mounting it here; never committed)
    await close(after);
    // Not even a key of foo is left in the database.
    const db = new ClassicLevel<Uint8Array, Uint8Array>(dir, { keyEncoding: "view", valueEncoding: "view" });
    const keys: string[] = [];
    for await (const k of db.keys()) keys.push(Buffer.from(k).toString("latin1"));
    await db.close();
    expect(keys.filter((k) => k.includes("foo"))).toEqual([]);
  });

  it("L7: invalid store upgrades are refused with the exact messages", () => {
    expect(loaderError(() => upgradeStoreLoader(5n, { added: ["a", "a"] })).message).toBe("store upgrade has duplicate key a in added");
    expect(loaderError(() => upgradeStoreLoader(5n, { deleted: ["b", "b"] })).message).toBe("store upgrade has duplicate key b in deleted");
    expect(loaderError(() => upgradeStoreLoader(5n, { added: ["c"], deleted: ["c"] })).message).toBe("store upgrade has key c in both added and deleted");
    expect(loaderError(() => upgradeStoreLoader(5n, null as unknown as StoreUpgrades)).message).toBe("store upgrades cannot be nil");
    expect(loaderError(() => upgradeStoreLoader(5n, undefined as unknown as StoreUpgrades)).message).toBe("store upgrades cannot be nil");
  });

  it("refuses bad upgrade heights", () => {
    expect(() => upgradeStoreLoader(0, { added: ["a"] })).toThrow(TypeError);
    expect(() => upgradeStoreLoader(-5n, { added: ["a"] })).toThrow(TypeError);
    expect(() => upgradeStoreLoader(1.5, { added: ["a"] })).toThrow(TypeError);
    expect(() => upgradeStoreLoader(1n << 63n, { added: ["a"] })).toThrow(TypeError);
  });

  it("L8: SIGKILL before block 5 commits: the loader fires again and the final state is identical", async () => {
    // Reference: the same history and upgrade, never interrupted.
    const refDir = tempDir();
    {
      const ms = await reopen(refDir);
      await commitHistory(ms);
      const { upgraded, stores } = upgradeLoader()(ms, upgradeMounted);
      expect(upgraded).toBe(true);
      upgradeBlock(stores);
      await ms.commit(5n);
      await close(ms);
    }

    const dir = tempDir();
    {
      const ms = await reopen(dir);
      await commitHistory(ms);
      await close(ms);
    }
    // The new binary starts, the loader fires, block 5 runs … and the process is killed.
    const child = startChild("loader", dir, kind);
    children.push(child);
    expect(await child.waitFor((l) => l.startsWith("ready"))).toBe("ready upgraded=true");
    await child.kill();
    expect(child.proc.signalCode).toBe("SIGKILL");

    // Restart: nothing of block 5 was committed, so the loader fires again.
    {
      const ms = await reopen(dir);
      expect(ms.lastCommittedHeight).toBe(4n);
      expect(ms.committedStores()).toEqual(["foo", "old"]);
      expect(text(ms.store("foo").get(bytes("key")))).toBe("value");
      const { upgraded, stores } = upgradeLoader()(ms, upgradeMounted);
      expect(upgraded).toBe(true);
      upgradeBlock(stores);
      await ms.commit(5n);
      await close(ms);
    }
    expect(await dump(dir)).toEqual(await dump(refDir));

    // A restart after the commit does not fire (again in a child, killed while "running" block 6).
    const later = startChild("loader", dir, kind);
    children.push(later);
    expect(await later.waitFor((l) => l.startsWith("ready"))).toBe("ready upgraded=false");
    await later.kill();
    expect(await dump(dir)).toEqual(await dump(refDir));
    const ms = await reopen(dir);
    expect(ms.lastCommittedHeight).toBe(5n);
    expect(ms.committedStores()).toEqual(["bar", "baz"]);
    expect(text(ms.store("bar").get(bytes("key")))).toBe("value");
    expect(text(ms.store("bar").get(bytes("migrated")))).toBe("yes");
  });
});

/** Every raw entry of a LevelDB directory, hex-encoded. */
async function dump(dir: string): Promise<string[]> {
  const db = new ClassicLevel<Uint8Array, Uint8Array>(dir, { keyEncoding: "view", valueEncoding: "view" });
  const out: string[] = [];
  for await (const [k, v] of db.iterator()) out.push(`${Buffer.from(k).toString("hex")}=${Buffer.from(v).toString("hex")}`);
  await db.close();
  return out;
}
