/**
 * Durability under SIGKILL: a real child process writes to a LevelDB multistore and is killed without
 * warning; reopening must show exactly the last committed block.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startChild, type Child } from "./fixtures/spawn-child.js";
import { LOOP_KEYS, STORE_KINDS, be64, bytes, loopKey, openMultiStore, text, type StoreKind } from "./fixtures/store-scenario.js";

const dirs: string[] = [];
const children: Child[] = [];
afterEach(async () => {
  for (const c of children.splice(0)) await c.kill();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "xupgrade-crash-"));
  dirs.push(d);
  return d;
}
function start(mode: string, dir: string, kind: StoreKind): Child {
  const c = startChild(mode, dir, kind);
  children.push(c);
  return c;
}

describe.each(STORE_KINDS)("SIGKILL during a block (%s multistore)", (kind) => {
  it("reopens at exactly block 1 when killed while block 2 is being written", async () => {
    const dir = tempDir();
    const child = start("mid-block", dir, kind);
    await child.waitFor((l) => l === "ready");
    await child.kill();
    expect(child.proc.signalCode).toBe("SIGKILL");

    const ms = await openMultiStore(kind, dir);
    expect(ms.lastCommittedHeight).toBe(1n);
    expect(ms.committedStores()).toEqual(["bank"]);
    const rows = [...ms.store("bank").iterate(new Uint8Array(0), undefined)].map(([k, v]) => [text(k), text(v)]);
    const expected = Array.from({ length: 100 }, (_, i) => [`a${i}`, `block1-${i}`]).sort(([x], [y]) => (x < y ? -1 : 1));
    expect(rows).toEqual(expected);
    expect(ms.store("other").get(bytes("x"))).toBeUndefined();
    // The store carries on from block 1.
    ms.store("bank").set(bytes("next"), bytes("2"));
    await ms.commit(2n);
    await ms.close();
  });

  it("never shows a torn commit when killed at a random point of a commit loop", async () => {
    for (let round = 0; round < 3; round++) {
      const dir = tempDir();
      const child = start("commit-loop", dir, kind);
      await child.waitFor((l) => l === "committed 3");
      await new Promise((r) => setTimeout(r, 5 + round * 20)); // land somewhere in a later block
      await child.kill();
      const printed = Math.max(...child.records.map((l) => Number(l.split(" ")[1])));

      const ms = await openMultiStore(kind, dir);
      const h = ms.lastCommittedHeight;
      // Everything the child reported as committed is there; at most the one in flight more.
      expect(h).toBeGreaterThanOrEqual(BigInt(printed));
      expect(h).toBeLessThanOrEqual(BigInt(printed) + 1n);
      const bank = ms.store("bank");
      expect(bank.get(bytes("height"))).toEqual(be64(h));
      for (let i = 0; i < LOOP_KEYS; i++) expect(bank.get(loopKey(i))).toEqual(be64(h));
      await ms.close();
    }
  });
});
