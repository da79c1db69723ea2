/**
 * The CLI's saved trust roots (docs/spec/light-client.md §9.2): one JSON file per chain, `<home>/light/<chain-id>.json`
 * (or the one --trust-file names), holding the newest verified header, where trust began, and whether that root was
 * ever confirmed (light/saved-root-json.ts). Written atomically and durably, readable only by its owner.
 */
import { mkdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { writeFileAtomic } from "../../../base/file.js";
import { savedRootFromJson, savedRootToJson } from "../../../light/saved-root-json.js";
import type { RootStore, SavedRoot } from "../../../light/trust-root.js";
import { CliError } from "../errors.js";

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
      saved = savedRootFromJson(JSON.parse(text));
    } catch (e) {
      throw new CliError(`the trust file ${path} is not a trust file (${(e as Error).message}): remove it, or pass --trust-height and --trust-hash`);
    }
    if (saved.chainId !== chainId)
      throw new CliError(`the trust file ${path} is for chain ${JSON.stringify(saved.chainId)}, the node is on ${JSON.stringify(chainId)}`);
    return saved;
  }

  async save(root: SavedRoot): Promise<void> {
    const path = this.pathFor(root.chainId);
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
    await writeFileAtomic(path, `${JSON.stringify(savedRootToJson(root), null, 2)}\n`, { mode: 0o600 });
  }
}
