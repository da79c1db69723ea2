/**
 * `tx upgrade software-upgrade` plan-info validation (docs/spec/interfaces.md §9), the deterministic variant of the
 * SDK's x/upgrade/plan: blank check, one level of URL indirection, Go-style JSON parsing, the binaries
 * map checked entry by entry with every problem reported, then every binary downloaded in parallel,
 * checksum-verified and required to yield `bin/<daemon>` (or `<daemon>`).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { messageOf } from "../../base/errors.js";
import { checkBinaries, compareUtf8, type CheckedUrl } from "./check.js";
import type { DownloadLimits } from "./download.js";
import { PlanInfoError } from "./errors.js";
import { fetchBinary, resolveInfo } from "./fetch.js";

export interface PlanInfoOptions {
  enforceChecksum: boolean;
  daemonName: string;
  limits: DownloadLimits;
}

export async function validatePlanInfo(info: string, opts: PlanInfoOptions): Promise<void> {
  const work = await mkdtemp(join(tmpdir(), "xupgrade-plan-info-"));
  try {
    await validateIn(work, info, opts);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function validateIn(work: string, info: string, opts: PlanInfoOptions): Promise<void> {
  const binaries = await resolveInfo(info, work, { limits: opts.limits, enforceChecksum: opts.enforceChecksum });
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
    await fetchBinary(url, dir, { daemonName: opts.daemonName, limits: opts.limits });
    return undefined;
  } catch (e) {
    return messageOf(e);
  }
}
