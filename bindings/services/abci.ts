/**
 * The ABCI query router (docs/spec/interfaces.md §4) behind a host's CometBFT-compatible `abci_query`:
 * `/<ns>.upgrade.v1beta1.Query/<Method>` with protobuf request/response bytes, the raw upgrade store
 * (`/store/upgrade/key`, `/store/upgrade/subspace`) and any extra routes the host adds (gov, auth…).
 * Errors carry baseapp's (code, codespace, log); the reported height is never 0.
 */
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { prefixEnd } from "../core/kv.js";
import { toInt64 } from "../module/input.js";
import { decodeRequest } from "./codec.js";
import type { QueryContext } from "./height.js";
import { QUERY_METHODS, type QueryMethod } from "./names.js";
import { queryBytes, type QueryEnv } from "./query.js";
import { answerFor, GrpcCode, QueryError, type AbciError } from "./status.js";

export interface AbciQueryResponse {
  code: number;
  codespace: string;
  log: string;
  info: string;
  index: bigint;
  key: Uint8Array;
  value: Uint8Array;
  height: bigint;
}

/** An extra route: gets the request data and the resolved state; returns the response value (and key). */
export type AbciRoute = (data: Uint8Array, ctx: QueryContext) => Uint8Array | { key?: Uint8Array; value: Uint8Array };

export interface AbciQueryRouter {
  /** Answers `abci_query(path, data, height)`; height 0/absent is the latest committed height. */
  query(path: string, data?: Uint8Array, height?: bigint | number): AbciQueryResponse;
}

const EMPTY = new Uint8Array(0);
const UPGRADE_STORE = "upgrade";

export function createAbciQueryRouter(env: QueryEnv, routes: Record<string, AbciRoute> = {}): AbciQueryRouter {
  const methods = new Map<string, QueryMethod>(QUERY_METHODS.map((m) => [env.names.methodPath(m), m]));
  for (const [path, route] of Object.entries(routes)) {
    if (typeof route !== "function") throw new TypeError(`ABCI route ${path} must be a function`);
    if (methods.has(path)) throw new TypeError(`ABCI route ${path} would shadow the upgrade Query service`);
  }

  const fail = (err: AbciError, height: bigint): AbciQueryResponse => ({
    code: err.code,
    codespace: err.codespace,
    log: err.log,
    info: "",
    index: 0n,
    key: EMPTY,
    value: EMPTY,
    height,
  });
  const ok = (value: Uint8Array, height: bigint, key: Uint8Array = EMPTY): AbciQueryResponse => ({
    code: 0,
    codespace: "",
    log: "",
    info: "",
    index: 0n,
    key,
    value,
    height,
  });

  return {
    query(path, data = EMPTY, height = 0n) {
      if (typeof path !== "string") throw new TypeError("path must be a string");
      if (!(data instanceof Uint8Array)) throw new TypeError("data must be a Uint8Array");
      const requested = toInt64(height, "height");

      let reported: bigint | undefined;
      try {
        const method = methods.get(path);
        const extra = method === undefined && Object.hasOwn(routes, path) ? routes[path] : undefined;
        const store = method === undefined && extra === undefined ? storePath(path) : undefined;
        if (method === undefined && extra === undefined && store === undefined) {
          throw unknownRequest("unknown query path");
        }
        if (store !== undefined && store.name !== UPGRADE_STORE) throw unknownRequest(`no such store: ${store.name}`);
        if (store !== undefined && store.sub !== "/key" && store.sub !== "/subspace") {
          throw unknownRequest(`unexpected query path: ${store.sub}`);
        }

        const ctx = env.heights.at(requested);
        reported = ctx.height;
        if (method !== undefined) return ok(queryBytes(method, ctx.keeper, decodeRequest(method, data)), ctx.height);
        if (extra !== undefined) {
          const out = extra(data, ctx);
          return out instanceof Uint8Array ? ok(out, ctx.height) : ok(out.value, ctx.height, out.key ?? EMPTY);
        }
        const kv = ctx.keeper.store;
        if (store!.sub === "/key") return ok(kv.get(data)?.slice() ?? EMPTY, ctx.height, data.slice());
        return ok(encodePairs(kv.iterate(data, prefixEnd(data))), ctx.height, data.slice());
      } catch (e) {
        return fail(answerFor(e, "abci", env.report).abci, reported ?? latestOr(env, requested));
      }
    },
  };
}

function unknownRequest(text: string): QueryError {
  return new QueryError(GrpcCode.UNKNOWN, text, { codespace: "sdk", code: 6, log: `${text}: unknown request` });
}

/** `/store/<name><sub>` → name and sub-path; undefined for other paths. */
function storePath(path: string): { name: string; sub: string } | undefined {
  if (!path.startsWith("/store/")) return undefined;
  const rest = path.slice("/store/".length);
  const slash = rest.indexOf("/");
  return slash < 0 ? { name: rest, sub: "" } : { name: rest.slice(0, slash), sub: rest.slice(slash) };
}

/** The height an error reports: the latest committed height (or the request's, if the host has none). */
function latestOr(env: QueryEnv, requested: bigint): bigint {
  try {
    return env.heights.latest();
  } catch {
    return requested > 0n ? requested : 1n;
  }
}

/** cosmos.base.kv.v1beta1.Pairs { repeated Pair pairs = 1 }, Pair { bytes key = 1; bytes value = 2 }. */
function encodePairs(entries: Iterable<[Uint8Array, Uint8Array]>): Uint8Array {
  const w = new BinaryWriter();
  for (const [key, value] of entries) {
    w.tag(1, WireType.LengthDelimited).fork();
    if (key.length > 0) w.tag(1, WireType.LengthDelimited).bytes(key);
    if (value.length > 0) w.tag(2, WireType.LengthDelimited).bytes(value);
    w.join();
  }
  return w.finish();
}
