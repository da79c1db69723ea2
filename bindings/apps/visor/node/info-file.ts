/**
 * Reading `upgrade-info.json` for the visor (docs/spec/sidecar.md §4): the keeper's own parser
 * (bindings/upgrade-info.ts parseUpgradeInfo: Go's json.Unmarshal into Plan, its error texts), then
 * ValidateBasic wrapped as `invalid upgrade-info.json content: <err>`, then the name recased. Also the file's
 * change stamp, the current upgrade's record, the manual-plan record and the node's skip heights.
 */
import { readFile, stat } from "node:fs/promises";
import { errors, type UpgradeError } from "../../../core/errors.js";
import { VisorError } from "../errors.js";
import { parseUpgradeInfo } from "../../../module/upgrade-info/decode.js";
import { recase } from "../names.js";

export interface VisorPlan {
  /** Recased (unless COSMOVISOR_DISABLE_RECASE): the name used for directories and comparisons. */
  name: string;
  /** As written in the file (the custom pre-upgrade script gets this one). */
  rawName: string;
  height: bigint;
  info: string;
}

/** A file that parses but fails ValidateBasic: `check` is the one that failed (`invalid upgrade-info.json content: <err>`). */
export class InvalidPlanError extends VisorError {
  override name = "InvalidPlanError";
  constructor(
    readonly check: "time" | "name" | "height",
    cause: UpgradeError,
  ) {
    super(`invalid upgrade-info.json content: ${cause.message}`, { cause });
  }
}

/** ValidateBasic in the order Go checks (time, name, height); `upgraded_client_state` is refused by the parser. */
function validateBasic(name: string, height: bigint, timeIsZero: boolean): void {
  if (!timeIsZero) throw new InvalidPlanError("time", errors.timeDeprecated());
  if (name.length === 0) throw new InvalidPlanError("name", errors.nameEmpty());
  if (height <= 0n) throw new InvalidPlanError("height", errors.heightNotPositive());
}

/** Parses and validates the file's text; throws with the messages of docs/spec/sidecar.md §4. */
export function planFromText(text: string, path: string, disableRecase: boolean): VisorPlan {
  const parsed = parseUpgradeInfo(text, path);
  validateBasic(parsed.name, parsed.height, parsed.timeIsZero);
  return { name: disableRecase ? parsed.name : recase(parsed.name), rawName: parsed.name, height: parsed.height, info: parsed.info };
}

/** The file's text, or undefined when it does not exist (other I/O errors are thrown). */
export async function readText(path: string): Promise<string | undefined> {
  try {
    return new TextDecoder("utf-8", { ignoreBOM: true }).decode(await readFile(path));
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return undefined;
    throw e;
  }
}

/** The plan in the file, undefined when there is no file; throws for an empty, partial or invalid file. */
export async function readPlanFile(path: string, disableRecase: boolean): Promise<VisorPlan | undefined> {
  const text = await readText(path);
  return text === undefined ? undefined : planFromText(text, path, disableRecase);
}

/** What identifies one version of the file: mtime (ns), ctime (ns), size and inode. */
export interface Stamp {
  mtimeNs: bigint;
  ctimeNs: bigint;
  size: bigint;
  ino: bigint;
}

export async function stampOf(path: string): Promise<Stamp | undefined> {
  try {
    const st = await stat(path, { bigint: true });
    return { mtimeNs: st.mtimeNs, ctimeNs: st.ctimeNs, size: st.size, ino: st.ino };
  } catch (e) {
    if ((e as { code?: string }).code === "ENOENT") return undefined;
    throw e;
  }
}

export const sameStamp = (a: Stamp | undefined, b: Stamp | undefined): boolean =>
  a !== undefined && b !== undefined && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs && a.size === b.size && a.ino === b.ino;

/** The name recorded in `current/upgrade-info.json`; "" when there is no such file or it is unreadable. */
export async function readCurrentName(path: string): Promise<string> {
  let text: string | undefined;
  try {
    text = await readText(path);
  } catch {
    return "";
  }
  if (text === undefined) return "";
  try {
    return parseUpgradeInfo(text, path).name;
  } catch {
    return "";
  }
}

/**
 * The heights of the node's `--unsafe-skip-upgrades` (docs/spec/sidecar.md §5.2): numeric tokens after the flag, as separate
 * words or comma-separated, up to the next `-…` word; other tokens are skipped. `--unsafe-skip-upgrades=1,2`
 * counts too.
 */
export function skipHeights(args: readonly string[]): bigint[] {
  const out: bigint[] = [];
  const take = (word: string) => {
    for (const t of word.split(",")) if (/^[0-9]+$/.test(t.trim())) out.push(BigInt(t.trim()));
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a.startsWith("--unsafe-skip-upgrades=")) {
      take(a.slice("--unsafe-skip-upgrades=".length));
      continue;
    }
    if (a !== "--unsafe-skip-upgrades") continue;
    for (i = i + 1; i < args.length && !args[i].startsWith("-"); i++) take(args[i]);
    i--;
  }
  return out;
}

/** The manual plan of `add-upgrade --upgrade-height` (cosmovisor/manual-upgrade.json). */
export interface ManualRecord {
  name: string;
  height: bigint;
  info: string;
}

export async function readManualRecord(path: string): Promise<ManualRecord | undefined> {
  try {
    const doc = JSON.parse(await readFile(path, "utf8")) as { name?: unknown; height?: unknown; info?: unknown };
    if (typeof doc.name !== "string" || typeof doc.height !== "string" || !/^[0-9]+$/.test(doc.height)) return undefined;
    return { name: doc.name, height: BigInt(doc.height), info: typeof doc.info === "string" ? doc.info : "" };
  } catch {
    return undefined;
  }
}

/** Whether the file holds exactly the visor-authored manual plan (then, and only then, it is height-gated). */
export const isManual = (plan: VisorPlan, rec: ManualRecord | undefined): boolean =>
  rec !== undefined && rec.name === plan.rawName && rec.height === plan.height && rec.info === plan.info;
