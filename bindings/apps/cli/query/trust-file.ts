/**
 * The CLI's saved trust roots (docs/spec/light-client.md §9.2): one JSON file per chain, `<home>/light/<chain-id>.json`
 * (or the one --trust-file names), holding the newest verified header, where trust began, and whether that root was
 * ever confirmed. Written atomically (a temporary file renamed over the old one), readable only by its owner.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { RootStore, SavedRoot } from "../../../light/trust-root.js";
import { CliError } from "../errors.js";

/** The file's JSON: snake_case, heights as strings. */
interface TrustFileJson {
  chain_id: string;
  height: string;
  hash: string;
  time: string;
  /** Absent in files written before roots were confirmed: then a root from flags counts as confirmed, first use not. */
  confirmed?: boolean;
  origin: { how: "given" | "flags" | "link" | "first-use"; node: string; height: string; hash: string; at: string };
  updated_at: string;
}

const HEX64 = /^[0-9A-F]{64}$/;
const INT = /^[0-9]{1,19}$/;

function parse(text: string): SavedRoot {
  const f = JSON.parse(text) as TrustFileJson;
  const o = f?.origin;
  if (typeof f.chain_id !== "string" || !INT.test(String(f.height)) || !HEX64.test(String(f.hash)) || typeof o !== "object" || o === null) throw new Error("fields are missing");
  if (!INT.test(String(o.height)) || !HEX64.test(String(o.hash))) throw new Error("its origin is not a header");
  const how = o.how === "flags" ? "given" : o.how;
  if (how !== "given" && how !== "link" && how !== "first-use") throw new Error(`unknown origin ${JSON.stringify(o.how)}`);
  return {
    chainId: f.chain_id,
    height: BigInt(f.height),
    hash: f.hash,
    time: String(f.time ?? ""),
    origin: { how, node: String(o.node ?? ""), height: BigInt(o.height), hash: o.hash, at: String(o.at ?? "") },
    confirmed: typeof f.confirmed === "boolean" ? f.confirmed : how === "given",
    updatedAt: String(f.updated_at ?? ""),
  };
}

function format(r: SavedRoot): string {
  const f: TrustFileJson = {
    chain_id: r.chainId,
    height: r.height.toString(),
    hash: r.hash,
    time: r.time,
    confirmed: r.confirmed,
    origin: { how: r.origin.how, node: r.origin.node, height: r.origin.height.toString(), hash: r.origin.hash, at: r.origin.at },
    updated_at: r.updatedAt,
  };
  return `${JSON.stringify(f, null, 2)}\n`;
}

export class TrustFileStore implements RootStore {
  /** `file`: one file for every chain (--trust-file); else one per chain under `<home>/light/`. */
  constructor(
    private readonly home: string,
    private readonly file?: string,
  ) {}

  pathFor(chainId: string): string {
    return this.file ?? join(this.home, "light", `${chainId}.json`);
  }

  async load(chainId: string): Promise<SavedRoot | undefined> {
    const path = this.pathFor(chainId);
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw new CliError(`cannot read the trust file ${path}: ${(e as Error).message}`);
    }
    let saved: SavedRoot;
    try {
      saved = parse(text);
    } catch (e) {
      throw new CliError(`the trust file ${path} is not a trust file (${(e as Error).message}): remove it, or pass --trust-height and --trust-hash`);
    }
    if (saved.chainId !== chainId) throw new CliError(`the trust file ${path} is for chain ${JSON.stringify(saved.chainId)}, the node is on ${JSON.stringify(chainId)}`);
    return saved;
  }

  async save(root: SavedRoot): Promise<void> {
    const path = this.pathFor(root.chainId);
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    const tmp = `${path}.${process.pid}.tmp`;
    writeFileSync(tmp, format(root), { mode: 0o600 });
    renameSync(tmp, path);
  }
}
