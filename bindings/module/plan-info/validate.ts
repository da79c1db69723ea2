/**
 * `tx upgrade software-upgrade` plan-info validation (docs/spec/interfaces.md §9), the deterministic variant of the
 * SDK's x/upgrade/plan: blank check, one level of URL indirection, Go-style JSON parsing, the binaries
 * map checked entry by entry with every problem reported, then every binary downloaded in parallel,
 * checksum-verified and required to yield `bin/<daemon>` (or `<daemon>`).
 */
import { mkdir, mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { goQuote } from "../../go/quote.js";
import { archiveKind, installBinary } from "./archive.js";
import { checkBinaries, checkUrl, compareUtf8, type CheckedUrl } from "./check.js";
import { download, fileNameOf, type DownloadLimits } from "./download.js";
import { PlanInfoError } from "./errors.js";
import { parseInfoJson } from "./parse.js";

export interface PlanInfoOptions {
  enforceChecksum: boolean;
  daemonName: string;
  limits: DownloadLimits;
}

/** Info documents fetched by URL are read into memory: cap them well below the binary limit. */
const MAX_INFO_BYTES = 16 * 1024 * 1024;

const URL_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:/;

export async function validatePlanInfo(info: string, opts: PlanInfoOptions): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), "xupgrade-plan-info-"));
  try {
    await validateIn(work, info, opts);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function validateIn(work: string, info: string, opts: PlanInfoOptions): Promise<void> {
  let text = info.trim();
  if (text === "") throw new PlanInfoError("plan info must not be blank");

  if (URL_FORM.test(text) || text.startsWith("/")) {
    const url = text;
    const checked = checkUrl(url, opts.enforceChecksum);
    if ("problem" in checked) throw new PlanInfoError(`invalid url ${goQuote(url)}: ${checked.problem}`);
    try {
      const { file } = await download(checked, join(work, "info-" + fileNameOf(url)), { ...opts.limits, maxBytes: Math.min(opts.limits.maxBytes, MAX_INFO_BYTES) });
      text = (await readFile(file, "utf8")).trim();
    } catch (e) {
      throw new PlanInfoError(`could not download url ${goQuote(url)}: ${(e as Error).message}`);
    }
    if (text === "") throw new PlanInfoError(`no content returned by ${goQuote(url)}`);
  }

  const binaries = parseInfoJson(text);
  if (binaries.size === 0) throw new PlanInfoError('no "binaries" entries found');

  const { urls, problems } = checkBinaries(binaries, opts.enforceChecksum);
  if (problems.length > 0) throw new PlanInfoError(`invalid plan info:\n${problems.join("\n")}`);

  const keys = [...urls.keys()].sort(compareUtf8);
  const results = await Promise.all(keys.map((key, i) => downloadCheck(join(work, `bin-${i}`), urls.get(key)!, opts)));
  const failures = keys.flatMap((key, i) => (results[i] === undefined ? [] : [`error downloading binary for os/arch ${key}: ${results[i]}`]));
  if (failures.length > 0) throw new PlanInfoError(failures.join("\n"));
}

/** Downloads one binary entry and checks its layout; returns the error text, or undefined when fine. */
async function downloadCheck(dir: string, url: CheckedUrl, opts: PlanInfoOptions): Promise<string | undefined> {
  try {
    const kind = archiveKind(url.raw);
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const { file } = await download(url, join(dir, fileNameOf(url.raw)), opts.limits);
    await installBinary(file, kind, join(dir, "result"), opts.daemonName, url.raw, opts.limits);
    return undefined;
  } catch (e) {
    return (e as Error).message;
  }
}
