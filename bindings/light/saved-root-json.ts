/**
 * A saved trust root as JSON (docs/spec/light-client.md §2.1) — snake_case, heights as strings — the one form the
 * CLI's trust file and the watch's state keep. Reading checks every field: a root that does not read is refused, never
 * half-used. Roots saved before confirmation existed read as they were meant: from flags (`"flags"`) confirmed, first
 * use not.
 */
import type { RootOrigin, SavedRoot } from "./trust-root.js";
import { SavedRootError } from "./errors.js";

export interface SavedRootJson {
  chain_id: string;
  height: string;
  hash: string;
  time: string;
  confirmed?: boolean;
  origin: { how: RootOrigin | "flags"; node: string; height: string; hash: string; at: string };
  updated_at: string;
}

const HEX64 = /^[0-9A-F]{64}$/;
const INT = /^[0-9]{1,19}$/;

export function savedRootToJson(r: SavedRoot): SavedRootJson {
  return {
    chain_id: r.chainId,
    height: r.height.toString(),
    hash: r.hash,
    time: r.time,
    confirmed: r.confirmed,
    origin: { how: r.origin.how, node: r.origin.node, height: r.origin.height.toString(), hash: r.origin.hash, at: r.origin.at },
    updated_at: r.updatedAt,
  };
}

/** The saved root in `value`, or a SavedRootError saying which field does not read. */
export function savedRootFromJson(value: unknown): SavedRoot {
  const f = value as Partial<SavedRootJson> | null;
  const o = f?.origin;
  if (typeof f !== "object" || f === null || typeof f.chain_id !== "string" || !INT.test(String(f.height)) || !HEX64.test(String(f.hash)))
    throw new SavedRootError("fields are missing");
  if (typeof o !== "object" || o === null || !INT.test(String(o.height)) || !HEX64.test(String(o.hash))) throw new SavedRootError("its origin is not a header");
  const how = o.how === "flags" ? "given" : o.how;
  if (how !== "given" && how !== "link" && how !== "first-use") throw new SavedRootError(`unknown origin ${JSON.stringify(o.how)}`);
  return {
    chainId: f.chain_id,
    height: BigInt(f.height!),
    hash: f.hash!,
    time: String(f.time ?? ""),
    origin: { how, node: String(o.node ?? ""), height: BigInt(o.height), hash: o.hash, at: String(o.at ?? "") },
    confirmed: typeof f.confirmed === "boolean" ? f.confirmed : how === "given",
    updatedAt: String(f.updated_at ?? ""),
  };
}
