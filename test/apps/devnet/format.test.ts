/**
 * A node home made before the commit multistore (its application database a DurableMultiStore, whose app
 * hash was a hash chain over block writes) is refused at start with a clear message, before any block: it
 * would compute different app hashes (docs/spec/store.md §4).
 */
import { afterAll, expect, it } from "vitest";
import { appDbPath, exitCodeFor, startDevnet } from "../../../bindings/apps/devnet/index.js";
import { openNodeMultiStore } from "../../../bindings/store/level-node.js";
import { EPHEMERAL, V1, captureLogger, committedState, newHome, removeTempDirs } from "./helpers.js";

afterAll(removeTempDirs);

it("an old node home is refused with a clear message, and its database is left as it was", async () => {
  const { home } = await newHome();
  const old = await openNodeMultiStore(appDbPath(home));
  old.store("upgrade").set(Uint8Array.of(0x00), Uint8Array.of(1, 2, 3));
  old.store("_node").set(new TextEncoder().encode("app_hash"), new Uint8Array(32));
  await old.commit(7n);
  await old.close();

  const logger = captureLogger("old home");
  const err = await startDevnet({ home, app: V1, ...EPHEMERAL, logger }).then(
    () => undefined,
    (e: unknown) => e as Error,
  );
  expect(err).toBeInstanceOf(Error);
  expect(err!.message).toContain("the database was written by an older xupgrade");
  expect(err!.message).toContain("Start a new home (xupgrade devnet init)");
  expect(exitCodeFor(err)).toBe(1);

  // Nothing was written: the old store still reads as it was.
  const again = await openNodeMultiStore(appDbPath(home));
  expect(again.lastCommittedHeight).toBe(7n);
  expect(again.store("upgrade").get(Uint8Array.of(0x00))).toEqual(Uint8Array.of(1, 2, 3));
  await again.close();
  await expect(committedState(home)).rejects.toThrow("older xupgrade");
});
