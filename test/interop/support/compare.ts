/**
 * Comparing records side by side: identical, or a difference that docs/spec/interop.md lists with its reason
 * (./differences.ts holds the same list for the tests). Drift between a fixture and a fresh capture of simd
 * ignores only what changes from run to run on the same software (block hashes, times, sizes of blocks).
 */
import type { CliRecord } from "./cli.js";
import type { GrpcRecord, RestRecord } from "./wire.js";

export type AnyRecord = RestRecord | GrpcRecord | CliRecord;

/** The part of a record that must match byte for byte. */
export function comparable(r: AnyRecord): Record<string, unknown> {
  if ("status" in r) return { status: r.status, headers: r.headers, body: r.body };
  if ("code" in r && "path" in r) return { code: r.code, details: r.details, response: r.response ?? null, height_header: r.height_header ?? null };
  const c = r;
  return { code: c.code, stdout: c.stdout, stderr: c.stderr };
}

export interface Pair<R extends AnyRecord> {
  id: string;
  simd: R;
  ours: R;
  same: boolean;
}

/** Pairs the records of both sides by id (the same request lists made them). */
export function pairUp<R extends AnyRecord>(simd: R[], ours: R[]): Pair<R>[] {
  const byId = new Map(ours.map((r) => [r.id, r]));
  return simd.map((s) => {
    const o = byId.get(s.id);
    if (!o) throw new Error(`no record ${s.id} on our side`);
    return { id: s.id, simd: s, ours: o, same: JSON.stringify(comparable(s)) === JSON.stringify(comparable(o)) };
  });
}

/**
 * What varies between two captures of the same simd on the same software: block and app hashes,
 * addresses of proposers, times, block sizes (they contain those), node ids and the block height header.
 */
export function normaliseVolatile(text: string): string {
  return text
    .replace(/"[0-9A-F]{64}"/g, '"<HASH>"')
    .replace(/"[0-9A-F]{40}"/g, '"<ADDR>"')
    .replace(/(hash|_hash|proposer_address): [0-9A-F]{40,64}/g, "$1: <HEX>")
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, "<TIME>")
    .replace(/"block_size": ?"\d+"/g, '"block_size":"<N>"')
    .replace(/block_size: "\d+"/g, 'block_size: "<N>"');
}

/**
 * An error Status as a gateway wrote it, without the space protojson puts after a comma in some builds and not
 * in others (google.golang.org/protobuf internal/detrand: by a hash of the binary; docs/spec/interop.md REST-8).
 */
export const stableStatusBody = (body: string): string => (body.startsWith('{"code":') ? body.replace(/, "(message|details)":/g, ',"$1":') : body);

/** Records of two captures of a peer side by side, as text with volatile parts normalised (and REST-8's space). */
export function driftText(r: AnyRecord): string {
  const c = comparable(r);
  if ("status" in r) c.body = stableStatusBody(r.body);
  return JSON.stringify(Object.fromEntries(Object.entries(c).map(([k, v]) => [k, typeof v === "string" ? normaliseVolatile(v) : v])));
}
