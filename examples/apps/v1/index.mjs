// Example application v1 for `xupgrade devnet start --app examples/apps/v1`.
//
// Two modules with real data, so that v2 has something to migrate:
// - counter (consensus version 1, store "counter"): key "count" holds the number of blocks as decimal text;
// - notes   (consensus version 1, store "notes"):   every 5th block writes "note/<height>" → "block <height>".
// v1 knows no upgrade: when governance schedules "v2", this binary halts at the height (exit code 20) and
// writes upgrade-info.json for the v2 binary.
//
// The file imports nothing: the devnet hands every hook a context with the block's stores and a logger,
// so it works against the sources, the built package or a copy. Shape: AppDefinition (bindings/apps/devnet/chain/app.ts).

const enc = new TextEncoder();
const dec = new TextDecoder();
const COUNT = enc.encode("count");

/** @satisfies {import("xupgrade/devnet").AppDefinition} */
const app = {
  name: "example-v1",
  version: "1.0.0",
  modules: [
    {
      name: "counter",
      consensusVersion: 1,
      initGenesis(ctx) {
        ctx.store("counter").set(COUNT, enc.encode("0"));
      },
      endBlock(ctx) {
        const store = ctx.store("counter");
        const raw = store.get(COUNT);
        const n = raw === undefined ? 0n : BigInt(dec.decode(raw));
        store.set(COUNT, enc.encode(String(n + 1n)));
      },
    },
    {
      name: "notes",
      consensusVersion: 1,
      endBlock(ctx) {
        if (ctx.height % 5n === 0n) ctx.store("notes").set(enc.encode(`note/${ctx.height}`), enc.encode(`block ${ctx.height}`));
      },
    },
  ],
  upgrades: [],
};

export default app;
