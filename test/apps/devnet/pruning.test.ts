/**
 * Pruning on a real devnet (docs/spec/store.md §3): with `pruning: custom, keep-recent 50` the node keeps
 * the latest height and the 50 before it (50 blocks of 100 ms: room for a busy machine between asking the
 * latest height and asking about an older one). Those answer and prove; an older one answers as a v0.50 node whose
 * store pruned it — over ABCI (`version does not exist`, or the failed proof), gRPC-style paths and REST
 * (sdk/18 `failed to load state …`).
 */
import { afterAll, beforeAll, expect, it } from "vitest";
import { startDevnet, type DevnetHandle } from "../../../bindings/apps/devnet/index.js";
import { provenQuery } from "../../support/proofs.js";
import { EPHEMERAL, V1, captureLogger, clients, newHome, removeTempDirs } from "./helpers.js";

let node: DevnetHandle;
let c: Awaited<ReturnType<typeof clients>>;
const utf8 = (t: string) => new TextEncoder().encode(t);

beforeAll(async () => {
  const { home } = await newHome();
  node = await startDevnet({ home, app: V1, ...EPHEMERAL, blockTime: "100ms", pruning: "custom", pruningKeepRecent: 50, logger: captureLogger("pruning") });
  c = await clients(node.rpcUrl);
  await node.waitForHeight(70);
}, 60_000);

afterAll(async () => {
  c?.comet.disconnect();
  await node?.stop();
  removeTempDirs();
});

it("keeps the latest height and the 50 before it; an older one answers as a pruned height of the SDK", async () => {
  const latest = (await c.comet.status()).syncInfo.latestBlockHeight;
  // Still kept (the node moves on meanwhile, so the oldest kept height is left alone).
  const kept = await provenQuery(c.comet, "counter", utf8("count"), latest - 1);
  expect(new TextDecoder().decode(kept.value)).toBe(String(latest - 1));

  const old = latest - 65;
  const raw = await c.comet.abciQuery({ path: "/store/counter/key", data: utf8("count"), height: old });
  expect([raw.code ?? 0, raw.log, raw.value.length]).toEqual([0, "version does not exist", 0]);
  const proven = await c.comet.abciQuery({ path: "/store/counter/key", data: utf8("count"), height: old, prove: true });
  expect([proven.code, proven.log]).toEqual([18, "proof is unexpectedly empty; ensure height has not been pruned: invalid request"]);

  const pruned = `failed to load state at height ${old}; version mismatch on immutable IAVL tree; version does not exist. Version has either been pruned, or is for a future block height (latest height: `;
  await expect(c.query.queryAbci("/cosmos.upgrade.v1beta1.Query/CurrentPlan", new Uint8Array(0), old)).rejects.toThrow(`Query failed with (18): ${pruned}`);
  const res = await fetch(`${node.restUrl}/cosmos/upgrade/v1beta1/module_versions`, { headers: { "x-cosmos-block-height": String(old) } });
  expect(res.status).toBe(500);
  expect(((await res.json()) as { message: string }).message).toContain(`codespace sdk code 18: invalid request: ${pruned}`);
  // A kept height answers the same way the latest does.
  const ok = await fetch(`${node.restUrl}/cosmos/upgrade/v1beta1/module_versions`, { headers: { "x-cosmos-block-height": String(latest - 1) } });
  expect(ok.status).toBe(200);
});
