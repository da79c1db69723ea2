/**
 * The same requests to two nodes, recorded the same way: the REST gateway (status, the headers that
 * matter, body bytes) and gRPC (status code, details, response bytes as hex). Both sides of every
 * comparison, simd and the devnet, are captured by these functions, so a difference in a record is a
 * difference on the wire.
 */
import * as grpc from "@grpc/grpc-js";
import { grpcClient, rawGet, rawUnary } from "../../services/helpers.js";

export type StateName = "none" | "scheduled" | "applied";

/** What the compared chains hold in each state (the same on both sides). */
export interface StateSpec {
  state: StateName;
  /** The name `applied_plan/{name}` is asked for as "known": the applied upgrade, else the scheduled plan's. */
  known: string;
}

export interface RestRequest {
  id: string;
  path: string;
  method?: string;
  headers?: Record<string, string>;
}

export interface RestRecord {
  id: string;
  method: string;
  path: string;
  status: number;
  /** content-type, location and allow as sent; the block-height headers as `<h>` when present (their values differ by chain). */
  headers: Record<string, string>;
  body: string;
}

const P = "/cosmos/upgrade/v1beta1";

/** Every REST request of one state. Odd names are raw path segments (never normalised by the client). */
export function restRequests(s: StateSpec): RestRequest[] {
  const applied = (id: string, seg: string): RestRequest => ({ id: `applied_plan/${id}`, path: `${P}/applied_plan/${seg}` });
  return [
    { id: "current_plan", path: `${P}/current_plan` },
    { id: "current_plan?query", path: `${P}/current_plan?foo=bar` },
    applied("known", encodeURIComponent(s.known)),
    applied("unknown", "never-applied"),
    applied("known-uppercased", encodeURIComponent(s.known.toUpperCase())),
    applied("space", "a%20b"),
    applied("nul", "%00"),
    applied("euro", "%E2%82%AC"),
    applied("long-300", "a".repeat(300)),
    applied("dot", "."),
    applied("dotdot", ".."),
    applied("dotdot-escaped", "%2e%2e"),
    applied("slash-escaped", "%2F"),
    applied("empty", ""),
    applied("two-segments", "a/b"),
    applied("bad-escape", "%zz"),
    applied("not-utf8", "%ff"),
    { id: "module_versions", path: `${P}/module_versions` },
    { id: "module_versions?bank", path: `${P}/module_versions?module_name=bank` },
    { id: "module_versions?upgrade", path: `${P}/module_versions?module_name=upgrade` },
    { id: "module_versions?runtime", path: `${P}/module_versions?module_name=runtime` },
    { id: "module_versions?unknown", path: `${P}/module_versions?module_name=foo` },
    { id: "module_versions?empty", path: `${P}/module_versions?module_name=` },
    { id: "authority", path: `${P}/authority` },
    { id: "upgraded_consensus_state/5", path: `${P}/upgraded_consensus_state/5` },
    { id: "upgraded_consensus_state/abc", path: `${P}/upgraded_consensus_state/abc` },
    { id: "route/unknown", path: `${P}/nope` },
    { id: "route/trailing-slash", path: `${P}/current_plan/` },
    { id: "route/double-slash", path: `/${P}/current_plan` },
    { id: "route/outside", path: "/nope" },
    { id: "method/POST", path: `${P}/current_plan`, method: "POST" },
    { id: "method/DELETE", path: `${P}/authority`, method: "DELETE" },
    { id: "height/future", path: `${P}/current_plan`, headers: { "x-cosmos-block-height": "999999999" } },
    { id: "height/not-a-number", path: `${P}/current_plan`, headers: { "x-cosmos-block-height": "abc" } },
  ];
}

const KEPT = ["content-type", "location", "allow"];
const HEIGHT = ["grpc-metadata-x-cosmos-block-height", "x-cosmos-block-height"];

/** One request with Node's HTTP client and a raw path; the record keeps what both sides can be compared on. */
export async function captureRestOne(baseUrl: string, r: RestRequest): Promise<RestRecord> {
  const res = await rawGet(baseUrl, r.path, { method: r.method, headers: r.headers });
  const headers: Record<string, string> = {};
  for (const k of KEPT) {
    const v = res.headers[k];
    if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(", ") : v;
  }
  for (const k of HEIGHT) if (res.headers[k] !== undefined) headers[k] = "<h>";
  return { id: r.id, method: r.method ?? "GET", path: r.path, status: res.status, headers, body: res.body };
}

export async function captureRest(baseUrl: string, s: StateSpec): Promise<RestRecord[]> {
  const out: RestRecord[] = [];
  for (const r of restRequests(s)) out.push(await captureRestOne(baseUrl, r));
  return out;
}

// ---- gRPC ----

export interface GrpcCall {
  id: string;
  /** `/cosmos.upgrade.v1beta1.Query/<Method>` */
  path: string;
  /** The request message as hex. */
  request: string;
  metadata?: Record<string, string>;
}

export interface GrpcRecord {
  id: string;
  path: string;
  request: string;
  /** The gRPC status code (0 OK). */
  code: number;
  /** The status message ("" when OK). */
  details: string;
  /** The response message as hex (absent on error). */
  response?: string;
  /** `<h>` when the response headers carry x-cosmos-block-height. */
  height_header?: string;
}

const Q = "/cosmos.upgrade.v1beta1.Query";
/** A protobuf message with one string field 1 (the requests' only field), as hex. */
export const stringField1 = (s: string) => {
  const b = Buffer.from(s, "utf8");
  if (b.length > 127) throw new Error("only short strings");
  return b.length === 0 ? "" : Buffer.concat([Buffer.of(0x0a, b.length), b]).toString("hex");
};

export function grpcCalls(s: StateSpec): GrpcCall[] {
  return [
    { id: "CurrentPlan", path: `${Q}/CurrentPlan`, request: "" },
    { id: "AppliedPlan/known", path: `${Q}/AppliedPlan`, request: stringField1(s.known) },
    { id: "AppliedPlan/unknown", path: `${Q}/AppliedPlan`, request: stringField1("never-applied") },
    { id: "AppliedPlan/empty", path: `${Q}/AppliedPlan`, request: "" },
    { id: "AppliedPlan/empty-explicit", path: `${Q}/AppliedPlan`, request: "0a00" },
    { id: "AppliedPlan/space", path: `${Q}/AppliedPlan`, request: stringField1("a b") },
    { id: "AppliedPlan/nul", path: `${Q}/AppliedPlan`, request: stringField1("\0") },
    { id: "AppliedPlan/dotdot", path: `${Q}/AppliedPlan`, request: stringField1("..") },
    { id: "AppliedPlan/slash", path: `${Q}/AppliedPlan`, request: stringField1("/") },
    { id: "AppliedPlan/not-utf8", path: `${Q}/AppliedPlan`, request: "0a01ff" },
    { id: "ModuleVersions", path: `${Q}/ModuleVersions`, request: "" },
    { id: "ModuleVersions/bank", path: `${Q}/ModuleVersions`, request: stringField1("bank") },
    { id: "ModuleVersions/runtime", path: `${Q}/ModuleVersions`, request: stringField1("runtime") },
    { id: "ModuleVersions/unknown", path: `${Q}/ModuleVersions`, request: stringField1("foo") },
    { id: "Authority", path: `${Q}/Authority`, request: "" },
    { id: "UpgradedConsensusState/5", path: `${Q}/UpgradedConsensusState`, request: "0805" },
    { id: "bytes/undecodable", path: `${Q}/CurrentPlan`, request: "ff" },
    { id: "bytes/truncated", path: `${Q}/AppliedPlan`, request: "0a05616263" },
    { id: "method/unknown", path: `${Q}/Nope`, request: "" },
    { id: "service/unknown", path: "/cosmos.upgrade.v1beta1.Nope/CurrentPlan", request: "" },
    { id: "height/future", path: `${Q}/CurrentPlan`, request: "", metadata: { "x-cosmos-block-height": "999999999" } },
    { id: "height/not-a-number", path: `${Q}/CurrentPlan`, request: "", metadata: { "x-cosmos-block-height": "abc" } },
  ];
}

export async function captureGrpcOne(client: grpc.Client, c: GrpcCall): Promise<GrpcRecord> {
  const md = new grpc.Metadata();
  for (const [k, v] of Object.entries(c.metadata ?? {})) md.set(k, v);
  const { err, value, headers } = await rawUnary(client, c.path, Buffer.from(c.request, "hex"), md);
  const rec: GrpcRecord = { id: c.id, path: c.path, request: c.request, code: err ? err.code : 0, details: err ? err.details : "" };
  if (!err) rec.response = Buffer.from(value ?? []).toString("hex");
  if (headers && headers.get("x-cosmos-block-height").length > 0) rec.height_header = "<h>";
  return rec;
}

export async function captureGrpc(address: string, s: StateSpec): Promise<GrpcRecord[]> {
  const client = grpcClient(address);
  try {
    const out: GrpcRecord[] = [];
    for (const c of grpcCalls(s)) out.push(await captureGrpcOne(client, c));
    return out;
  } finally {
    client.close();
  }
}
