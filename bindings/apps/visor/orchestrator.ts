/**
 * Orchestrator mode (docs/spec/sidecar.md §12.2): in a container an image cannot replace its own binary
 * (cosmovisor issue #12920), so with `DAEMON_ORCHESTRATOR_IMAGE_FILE` set the visor does not switch binaries
 * at the halt. After the backup and the custom pre-upgrade it writes the image tag named in Plan.Info's
 * `docker` key (`{"docker":"ghcr.io/chain/node:v2"}`, or a map by platform like `binaries`) to that file, one
 * line, atomically; records the plan it handed over in `cosmovisor/orchestrator-upgrade.json`; and exits
 * with ORCHESTRATOR_EXIT_CODE (75). The orchestrator restarts the container with that image; the visor
 * there takes the recorded plan for the current upgrade, so it runs the new image's binary instead of
 * handing the same plan over again.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../../base/file.js";
import { ORCHESTRATOR_EXIT_CODE } from "./config/index.js";
import { VisorError } from "./errors.js";
import type { VisorPlan } from "./node/info-file.js";
import type { Layout } from "./layout.js";
import type { VisorLogger } from "./log.js";
import type { VisorEvents } from "./telling/events.js";
import { osArch } from "./names.js";

const ORCHESTRATOR_RECORD = "orchestrator-upgrade.json";

const orchestratorRecordPath = (layout: Layout): string => join(layout.root, ORCHESTRATOR_RECORD);

/** The image tag of Plan.Info's `docker` key: a string, or this platform's (else `any`) entry of a map. */
export function imageOf(info: string, platform = osArch()): string {
  let doc: unknown;
  try {
    doc = JSON.parse(info);
  } catch {
    throw new VisorError('orchestrator mode: the plan\'s info is not JSON, so it names no "docker" image');
  }
  const entry = typeof doc === "object" && doc !== null ? Object.entries(doc).find(([k]) => k.toLowerCase() === "docker")?.[1] : undefined;
  let tag: unknown = entry;
  if (typeof entry === "object" && entry !== null) tag = (entry as Record<string, unknown>)[platform] ?? (entry as Record<string, unknown>).any;
  if (typeof tag !== "string" || tag.trim() === "")
    throw new VisorError(
      `orchestrator mode: the plan's info has no "docker" image tag${typeof entry === "object" && entry !== null ? ` for ${platform} or any` : ""}`,
    );
  if (/\s/.test(tag.trim())) throw new VisorError(`orchestrator mode: the "docker" image tag ${JSON.stringify(tag)} has spaces`);
  return tag.trim();
}

/** Writes the image tag and the record; the caller exits with ORCHESTRATOR_EXIT_CODE. */
export async function handOver(
  ctx: { cfg: { orchestratorImageFile: string }; layout: Layout; log: VisorLogger; events?: VisorEvents },
  plan: VisorPlan,
): Promise<void> {
  const image = imageOf(plan.info);
  await writeFileAtomic(ctx.cfg.orchestratorImageFile, `${image}\n`, { mode: 0o644 });
  await writeFileAtomic(
    orchestratorRecordPath(ctx.layout),
    JSON.stringify({ name: plan.name, height: plan.height.toString(), image, at: new Date().toISOString() }) + "\n",
    { mode: 0o600 },
  );
  ctx.log.info(
    `upgrade "${plan.name}" handed to the orchestrator: image ${image} written to ${ctx.cfg.orchestratorImageFile}; exiting with ${ORCHESTRATOR_EXIT_CODE}`,
    { height: plan.height },
  );
  ctx.events?.emit("switch", plan, { image, file: ctx.cfg.orchestratorImageFile });
}

/** The plan last handed to the orchestrator, or "" (the current upgrade's name in orchestrator mode). */
export async function handedOverName(layout: Layout): Promise<string> {
  try {
    const doc = JSON.parse(await readFile(orchestratorRecordPath(layout), "utf8")) as { name?: unknown };
    return typeof doc.name === "string" ? doc.name : "";
  } catch {
    return "";
  }
}
