/**
 * The ABCI query router (docs/spec/interfaces.md §4) behind a host's CometBFT-compatible `abci_query`:
 * `/<ns>.upgrade.v1beta1.Query/<Method>` with protobuf request/response bytes, the raw stores
 * (`/store/<name>/key` — with the SDK's proof when asked — and `/store/<name>/subspace`) and any extra
 * routes the host adds (gov, auth…). A host without committed stores (`storesAtHeight`) serves the
 * upgrade store alone, unproven. Errors carry baseapp's (code, codespace, log); the reported height is
 * never 0.
 */
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import type { ProofOp } from "../core/ics23.js";
import { prefixEnd } from "../core/kv.js";
import { toInt64 } from "../module/input.js";
import { decodeRequest } from "./codec.js";
import type { QueryContext, StoresAt } from "./height.js";
import { QUERY_METHODS, type QueryMethod } from "./names.js";
import { queryBytes, type QueryEnv } from "./query.js";
import { answerFor, GrpcCode, QueryError, sdkError, type AbciError } from "./status.js";

export interface AbciQueryResponse {
  code: number;
  codespace: string;
  log: string;
  info: string;
  index: bigint;
  key: Uint8Array;
  value: Uint8Array;
  height: bigint;
  /** `/store/<name>/key` with prove: `ics23:iavl` for the key in the store, then `ics23:simple` for the store. */
  proofOps?: readonly ProofOp[];
}

/** An extra route: gets the request data and the resolved state; returns the response value (and key). */
export type AbciRoute = (data: Uint8Array, ctx: QueryContext) => Uint8Array | { key?: Uint8Array; value: Uint8Array };

export interface AbciQueryRouter {
  /** Answers `abci_query(path, data, height, prove)`; height 0/absent is the latest committed height. */
  query(path: string, data?: Uint8Array, height?: bigint | number, prove?: boolean): AbciQueryResponse;
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
  const ok = (value: Uint8Array, height: bigint, key: Uint8Array = EMPTY, log = ""): AbciQueryResponse => ({
    code: 0,
    codespace: "",
    log,
    info: "",
    index: 0n,
    key,
    value,
    height,
  });

  /**
   * `/store/<name>/<sub>` over the host's committed stores, as baseapp and cosmossdk.io/store answer it:
   * the store must exist now; a height it has no version for answers "version does not exist" (code 0),
   * or, with prove, fails.
   */
  const storeQuery = (
    stores: StoresAt,
    name: string,
    sub: string,
    data: Uint8Array,
    requested: bigint,
    prove: boolean,
    report: (h: bigint) => void,
  ): AbciQueryResponse => {
    const latest = env.heights.latest();
    if (requested < 0n) throw sdkError("sdk", 18, "invalid request", "cannot query with height < 0; please provide a valid height");
    const height = requested === 0n ? latest : requested;
    report(height);
    if (prove && height <= 1n) throw proofTooLow();
    if (!stores(latest)?.has(name)) throw unknownRequest(`no such store: ${name}`);
    if (data.length === 0) throw sdkError("sdk", 2, "tx parse error", "query cannot be zero length");
    if (sub !== "/key" && sub !== "/subspace") throw unknownRequest(`unexpected query path: ${sub}`);
    const at = height > latest ? undefined : stores(height);
    if (!at?.has(name)) {
      if (prove && sub === "/key") throw sdkError("sdk", 18, "invalid request", "proof is unexpectedly empty; ensure height has not been pruned");
      return ok(EMPTY, height, data.slice(), "version does not exist");
    }
    if (sub === "/subspace") return ok(encodePairs(at.store(name).iterate(data, prefixEnd(data))), height, data.slice());
    if (!prove) return ok(at.store(name).get(data)?.slice() ?? EMPTY, height, data.slice());
    const { value, ops } = at.prove(name, data);
    return { ...ok(value?.slice() ?? EMPTY, height, data.slice()), proofOps: ops };
  };

  return {
    query(path, data = EMPTY, height = 0n, prove = false) {
      if (typeof path !== "string") throw new TypeError("path must be a string");
      if (!(data instanceof Uint8Array)) throw new TypeError("data must be a Uint8Array");
      if (typeof prove !== "boolean") throw new TypeError("prove must be a boolean");
      const requested = toInt64(height, "height");

      let reported: bigint | undefined;
      try {
        const method = methods.get(path);
        const extra = method === undefined && Object.hasOwn(routes, path) ? routes[path] : undefined;
        const store = method === undefined && extra === undefined ? storePath(path) : undefined;
        if (method === undefined && extra === undefined && store === undefined) {
          throw unknownRequest("unknown query path");
        }
        if (store !== undefined && env.stores !== undefined) {
          return storeQuery(env.stores, store.name, store.sub, data, requested, prove, (h) => (reported = h));
        }
        if (store !== undefined && store.name !== UPGRADE_STORE) throw unknownRequest(`no such store: ${store.name}`);
        if (store !== undefined && store.sub !== "/key" && store.sub !== "/subspace") {
          throw unknownRequest(`unexpected query path: ${store.sub}`);
        }

        // baseapp's CreateQueryContext refuses a proof at height 1 or below.
        if (prove && requested >= 0n && (requested === 0n ? env.heights.latest() : requested) <= 1n) throw proofTooLow();
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

function proofTooLow(): QueryError {
  return sdkError("sdk", 18, "invalid request", "cannot query with proof when height <= 1; please provide a valid height");
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
