/**
 * Every server of the project that answers the network, assembled as the devnet host assembles them: the
 * REST gateway with the devnet's extra routes and its /ui page, gRPC (with reflection), the ABCI router and
 * the devnet's CometBFT RPC over it. The chain behind the devnet routes is a stub (a chain at height 1 with
 * no block stored): the suites here test the servers' transports and error paths, not the chain.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Chain } from "../../bindings/apps/devnet/node/rpc/chain.js";
import { devnetRestRoutes } from "../../bindings/apps/devnet/node/rest.js";
import { startRpcServer, type RpcServerHandle } from "../../bindings/apps/devnet/node/rpc/server.js";
import { devnetUiRoutes } from "../../bindings/apps/devnet/node/ui.js";
import type { UpgradeKeeper } from "../../bindings/module/keeper.js";
import type { HttpLimits, QueryServers } from "../../bindings/services/index.js";
import { tempDir } from "../support/temp.js";
import { richKeeper, serve } from "./helpers.js";

/** A file next to the /ui directory that no path may reach, and its content. */
export const SECRET = "TOP-SECRET-7f3a9c: never served";

export interface LogRecord {
  level: string;
  msg: string;
  fields: Record<string, unknown>;
}

export interface AllServers {
  /** The keeper behind the query services (the "rich" fixture of helpers.ts). */
  keeper: UpgradeKeeper;
  queries: QueryServers;
  rpc: RpcServerHandle;
  /** The page directory served at /ui (index.html, app.js, assets/core-1.wasm) and its parent. */
  uiDir: string;
  parent: string;
  /** Unexpected errors the query services reported (error, surface). */
  reported: { error: unknown; surface: string }[];
  /** What the RPC server logged. */
  rpcLog: LogRecord[];
  close(): Promise<void>;
}

/** A chain stub with what the RPC methods and the devnet REST routes read; `throwing` makes every read throw. */
export function chainStub(o: { throwing?: Error } = {}): Chain {
  const fail = () => {
    if (o.throwing) throw o.throwing;
  };
  const stub = {
    chainId: "hostile-1",
    get height() {
      fail();
      return 1n;
    },
    get latest() {
      fail();
      return undefined;
    },
    appVersion: 0n,
    validators: [{ addressHex: "AB".repeat(20), key: { publicKey: new Uint8Array(32) }, power: 10n }],
    get mempool() {
      fail();
      return [];
    },
    getBlock: () => (fail(), undefined),
    checkTx: () => (fail(), { code: 2, log: "tx parse error", codespace: "sdk", hash: "00".repeat(32) }),
    onCommit: () => () => undefined,
    findTx: () => (fail(), undefined),
    allTxs: () => (fail(), []),
    appHash: () => (fail(), new Uint8Array(32)),
  };
  return stub as unknown as Chain;
}

/** What the devnet's REST block route reads: height 1, no block stored (or every read throwing). */
function blockSource(throwing?: Error): Parameters<typeof devnetRestRoutes>[0] {
  const fail = () => {
    if (throwing) throw throwing;
  };
  return { height: () => (fail(), 1n), block: () => (fail(), undefined) };
}

export async function startAll(o: { http?: HttpLimits; throwing?: Error; heightProvider?: () => bigint } = {}): Promise<AllServers> {
  const parent = tempDir();
  const uiDir = join(parent, "ui");
  mkdirSync(join(uiDir, "assets"), { recursive: true });
  writeFileSync(join(uiDir, "index.html"), "<!doctype html><title>light client</title>");
  writeFileSync(join(uiDir, "app.js"), "console.log('page');");
  writeFileSync(join(uiDir, "assets", "core-1.wasm"), Uint8Array.of(0, 0x61, 0x73, 0x6d));
  writeFileSync(join(parent, "secret.txt"), SECRET);
  writeFileSync(join(uiDir, ".env"), SECRET);

  const { keeper, chain: heights } = await richKeeper("js");
  const chain = chainStub({ throwing: o.throwing });
  const reported: AllServers["reported"] = [];
  const rpcLog: LogRecord[] = [];
  let rpcUrl = "";
  const queries = await serve(keeper, heights, {
    heightProvider: o.heightProvider ?? heights.provider,
    onInternalError: (error, surface) => void reported.push({ error, surface }),
    grpc: { address: "127.0.0.1:0", ...o.http },
    rest: {
      address: "127.0.0.1:0",
      ...o.http,
      routes: [...devnetRestRoutes(blockSource(o.throwing)), ...devnetUiRoutes({ dir: uiDir, config: () => ({ chain_id: "hostile-1", rpc: rpcUrl }) })],
    },
  });
  const add =
    (level: string) =>
    (msg: string, fields: Record<string, unknown> = {}) =>
      void rpcLog.push({ level, msg, fields });
  const rpc = await startRpcServer({
    address: "127.0.0.1:0",
    chain,
    abci: queries.abci,
    nodeId: "ab".repeat(20),
    moniker: "hostile",
    appName: "xupgrade-devnet",
    appVersionText: "v1",
    logger: { debug: add("debug"), info: add("info"), warn: add("warn"), error: add("error") },
    http: o.http,
  });
  rpcUrl = rpc.url;
  return {
    keeper,
    queries,
    rpc,
    uiDir,
    parent,
    reported,
    rpcLog,
    close: async () => {
      await Promise.all([queries.close(500), rpc.close(500)]);
    },
  };
}
