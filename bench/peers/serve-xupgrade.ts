/**
 * xupgrade's side of the services case, in a process of its own (run.ts starts it pinned to the server core):
 * `serveQueries` on a keeper holding the simd chain's state — the same plan, the same done record at the same
 * height, the same module versions — and the chain's height. It runs the sources through tsx, the same code tsc
 * emits into dist/ (dist/ is not used: another `npm run build` on the machine could delete it under the bench). The store is a MemoryStore: the devnet serves queries from the same in-memory copy of
 * its committed state (bindings/store/level.ts).
 *   node --import tsx bench/peers/serve-xupgrade.ts '<state JSON>'
 * prints `READY {"grpc":"127.0.0.1:…","rest":"http://127.0.0.1:…","rpc":"http://127.0.0.1:…"}` and serves until SIGTERM.
 * `rpc` is a stand-in CometBFT RPC (abci_query through the same services' ABCI router, and a made-up block meta
 * for `blockchain`), for the CLI case when there is no simd node (`--quick` without peers).
 */
import { createServer } from "node:http";
import { createKeeper } from "../../bindings/node.js";
import { serveQueries } from "../../bindings/services/index.js";
import type { ServerState } from "./services.js";

const state = JSON.parse(process.argv[2] ?? "") as ServerState;

const keeper = await createKeeper({ backend: state.backend });
keeper.setModuleVersionMap(Object.fromEntries(state.moduleVersions.map((m) => [m.name, BigInt(m.version)])));
keeper.setUpgradeHandler(state.applied.name, (_ctx, _plan, vm) => vm);
await keeper.applyUpgrade({ name: state.applied.name, height: BigInt(state.applied.height) }, BigInt(state.applied.height));
// applyUpgrade writes the handler's version map back: set the chain's again, as it stands after the migrations.
keeper.setModuleVersionMap(Object.fromEntries(state.moduleVersions.map((m) => [m.name, BigInt(m.version)])));
keeper.scheduleUpgrade({ name: state.plan.name, height: BigInt(state.plan.height), info: state.plan.info }, BigInt(state.height));

const height = BigInt(state.height);
const servers = await serveQueries({
  keeper,
  heightProvider: () => height,
  grpc: { address: "127.0.0.1:0" },
  rest: { address: "127.0.0.1:0" },
});

const b64 = (b: Uint8Array) => Buffer.from(b).toString("base64");
const HASH = "AB".repeat(32);
const blockId = { hash: HASH, parts: { total: 1, hash: HASH } };
const rpc = createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    const { id, method, params } = JSON.parse(body) as { id: number; method: string; params: Record<string, string> };
    let result: unknown;
    if (method === "abci_query") {
      const r = servers.abci.query(params.path, Buffer.from(params.data ?? "", "hex"), BigInt(params.height ?? "0"));
      result = {
        response: {
          code: r.code,
          log: r.log,
          info: r.info,
          index: r.index.toString(),
          key: b64(r.key),
          value: b64(r.value),
          height: r.height.toString(),
          codespace: r.codespace,
        },
      };
    } else {
      const h = params.minHeight ?? String(height);
      const header = Object.fromEntries(
        ["last_commit_hash", "data_hash", "validators_hash", "next_validators_hash", "consensus_hash", "app_hash", "last_results_hash", "evidence_hash"].map(
          (k) => [k, HASH],
        ),
      );
      const meta = {
        block_id: blockId,
        block_size: "595",
        header: {
          version: { block: "11" },
          chain_id: "bench",
          height: h,
          time: "2026-01-01T00:00:00Z",
          last_block_id: blockId,
          ...header,
          proposer_address: "AB".repeat(20),
        },
        num_txs: "0",
      };
      result = { last_height: String(height), block_metas: [meta] };
    }
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ jsonrpc: "2.0", id, result }));
  });
});
await new Promise<void>((r) => rpc.listen(0, "127.0.0.1", r));
const rpcUrl = `http://127.0.0.1:${(rpc.address() as { port: number }).port}`;
process.stdout.write(`READY ${JSON.stringify({ grpc: servers.grpc!.address, rest: servers.rest!.url, rpc: rpcUrl })}\n`);
const stop = () => void servers.close(500).then(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
