// Example application v2: the binary that handles the "v2" upgrade scheduled on a v1 chain.
//
// Against v1 it
// - ADDS a store:  module "tags" (new, consensus version 1, store "tags"), initialised by RunMigrations;
// - RENAMES one:   the notes module's store "notes" becomes "memos" (StoreUpgrades.renamed);
// - BUMPS two module versions with real data migrations:
//     counter 1 → 2: "count" (decimal text) becomes key 0x01 → 8-byte big-endian integer;
//     notes   1 → 2: "note/<h>" → "block <h>" becomes key BE64(h) → {"height":"<h>","text":"block <h>"}.
// Each migration also increments a run counter in its store (key "migrations/<from>-<to>"): committed
// exactly once, whatever crashes happen during the upgrade block.
//
// The store loader applies the StoreUpgrades when this binary starts at the height written to
// upgrade-info.json by v1, and only then (docs/spec/keeper.md §8.2). The handler runs the migrations
// (RunMigrations, docs/spec/keeper.md §8.3) and returns the new version map.

const enc = new TextEncoder();
const dec = new TextDecoder();
const COUNT_V1 = enc.encode("count");
const COUNT_V2 = Uint8Array.of(0x01);

const be64 = (n) => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt(n));
  return b;
};
const readBe64 = (b) => new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0);
const prefixEnd = (p) => {
  const e = p.slice();
  e[e.length - 1]++;
  return e;
};

/** Increments the run counter of a migration (proof that it ran, and how often, in committed state). */
function countRun(store, name) {
  const key = enc.encode(`migrations/${name}`);
  const raw = store.get(key);
  store.set(key, enc.encode(String((raw === undefined ? 0 : Number(dec.decode(raw))) + 1)));
}

function migrateCounter1to2(ctx) {
  const store = ctx.store("counter");
  const raw = store.get(COUNT_V1);
  if (raw === undefined) throw new Error("counter: no v1 count to migrate");
  const n = BigInt(dec.decode(raw));
  store.delete(COUNT_V1);
  store.set(COUNT_V2, be64(n));
  countRun(store, "1-2");
  ctx.logger.info(`counter: migrated count ${n} to the v2 encoding`, { module: "counter" });
}

function migrateNotes1to2(ctx) {
  // The store loader already renamed "notes" to "memos": the v1 entries are here.
  const store = ctx.store("memos");
  const prefix = enc.encode("note/");
  const old = [...store.iterate(prefix, prefixEnd(prefix))].map(([k, v]) => [k.slice(), dec.decode(v)]);
  for (const [key, text] of old) {
    const height = dec.decode(key.subarray(prefix.length));
    store.delete(key);
    store.set(be64(height), enc.encode(JSON.stringify({ height, text })));
  }
  countRun(store, "1-2");
  ctx.logger.info(`notes: migrated ${old.length} notes to the v2 encoding in store "memos"`, { module: "notes" });
}

/** @satisfies {import("xupgrade/devnet").AppDefinition} */
const app = {
  name: "example-v2",
  version: "2.0.0",
  modules: [
    {
      name: "counter",
      consensusVersion: 2,
      migrations: { 1: migrateCounter1to2 },
      initGenesis(ctx) {
        ctx.store("counter").set(COUNT_V2, be64(0));
      },
      endBlock(ctx) {
        const store = ctx.store("counter");
        const raw = store.get(COUNT_V2);
        store.set(COUNT_V2, be64((raw === undefined ? 0n : readBe64(raw)) + 1n));
      },
    },
    {
      name: "notes",
      consensusVersion: 2,
      stores: ["memos"],
      migrations: { 1: migrateNotes1to2 },
      endBlock(ctx) {
        if (ctx.height % 5n === 0n) {
          ctx.store("memos").set(be64(ctx.height), enc.encode(JSON.stringify({ height: String(ctx.height), text: `block ${ctx.height}` })));
        }
      },
    },
    {
      name: "tags",
      consensusVersion: 1,
      initGenesis(ctx) {
        ctx.store("tags").set(enc.encode("tag/first"), enc.encode(`created at height ${ctx.height}`));
        ctx.logger.info("tags: initialised", { module: "tags", height: ctx.height });
      },
    },
  ],
  upgrades: [
    {
      name: "v2",
      storeUpgrades: { added: ["tags"], renamed: [{ oldKey: "notes", newKey: "memos" }] },
      async handler(ctx, plan, fromVM) {
        ctx.logger.info(`v2 upgrade handler: running migrations at height ${ctx.blockHeight}`, { module: "app", plan: plan.name });
        return ctx.runMigrations(fromVM);
      },
    },
  ],
};

export default app;
