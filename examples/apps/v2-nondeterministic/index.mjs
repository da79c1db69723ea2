// Example application v2 with a determinism bug: the same upgrade as examples/apps/v2, except that its
// counter migration stamps the machine's clock into the state (the bug: wall-clock time instead of the
// block's). Every validator running it reaches its own app hash at the upgrade height, and the chain
// cannot agree. Its rehearsal shows it before the height: the app hash it reaches differs from the other
// validators' (docs/spec/readiness.md §4.3). `npm run demo:testnet` gives it to one validator first.
import v2 from "../v2/index.mjs";

const enc = new TextEncoder();

/** @type {import("xupgrade/devnet").AppDefinition} */
const app = {
  ...v2,
  name: "example-v2-nondeterministic",
  modules: v2.modules.map((m) => {
    if (m.name !== "counter") return m;
    const migrate = m.migrations?.[1];
    if (!migrate) throw new Error("examples/apps/v2's counter has no migration from version 1");
    return {
      ...m,
      migrations: {
        1: async (ctx) => {
          await migrate(ctx);
          ctx.store("counter").set(enc.encode("migrated_at"), enc.encode(new Date().toISOString()));
        },
      },
    };
  }),
};

export default app;
