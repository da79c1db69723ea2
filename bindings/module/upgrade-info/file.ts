/**
 * `<home>/data/upgrade-info.json` on disk (docs/spec/keeper.md §7, §7.1): the file the old binary writes just
 * before it halts, and the sidecar reads to pick the new binary. Node only.
 */
import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { messageOf } from "../../base/errors.js";
import { writeFileAtomic } from "../../base/file.js";
import { errors } from "../../core/errors.js";
import { parseUpgradeInfo, type ParsedUpgradeInfo } from "./decode.js";
import { UPGRADE_INFO_FILE, encodeUpgradeInfo } from "./encode.js";

export function upgradeInfoPath(homePath: string): string {
  return join(homePath, "data", UPGRADE_INFO_FILE);
}

/**
 * Writes the file atomically and durably (D2, base/file.ts), mode exactly 0600. A crash leaves either the old
 * file, the new one, or no file, plus at worst a stray `.upgrade-info.json.*.tmp` that readers never look at.
 */
export async function writeUpgradeInfo(homePath: string | undefined, plan: { name: string; height: bigint; info?: string }): Promise<void> {
  const data = encodeUpgradeInfo(plan); // misuse is a TypeError (docs/spec/keeper.md §10), not a write failure
  if (homePath === undefined || homePath === "") throw errors.infoWriteFailed("homePath is not set");

  const dir = join(homePath, "data");
  try {
    await mkdir(dir, { recursive: true, mode: 0o777 });
  } catch (err) {
    // Go's wording for the same step (GetUpgradeInfoPath).
    throw errors.infoWriteFailed(`could not create directory "${dir}": ${messageOf(err)}`);
  }

  try {
    await writeFileAtomic(join(dir, UPGRADE_INFO_FILE), data, { mode: 0o600 });
  } catch (err) {
    throw errors.infoWriteFailed(messageOf(err));
  }
}

/**
 * docs/spec/keeper.md §7.1 steps 1–5. Returns undefined when the file does not exist (or no home is configured: nothing can
 * have been written then). Other I/O errors are rethrown unchanged, as Go returns os errors as they are.
 *
 * Step 6 (`Plan.ValidateBasic`) is NOT done here: the keeper runs it through its core on the result, so
 * e.g. `{"name":"x","heigh":"123"}` parses to height 0 and fails there with
 * `height must be greater than 0: invalid request`.
 */
export async function readUpgradeInfo(homePath: string | undefined): Promise<ParsedUpgradeInfo | undefined> {
  if (homePath === undefined || homePath === "") return undefined;
  const path = upgradeInfoPath(homePath);
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
  // ignoreBOM keeps a leading BOM in the text, so it is rejected as Go rejects it.
  return parseUpgradeInfo(new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes), path);
}
