/**
 * `<home>/data/upgrade-readiness.json` (docs/spec/readiness.md §3): the sidecar writes its latest
 * attestation there, atomically; the node reads it whenever it extends a vote. A file rather than a socket:
 * the two processes start and stop independently (the sidecar restarts the node; a node may run without
 * one), the attestation must outlive either, and ExtendVote must never wait for another process. Node only.
 */
import { mkdir, readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../../base/file.js";
import type { ReadinessAttestation } from "./attestation.js";
import { attestationFromJson, READINESS_FILE, type ReadinessJson } from "./json.js";

export const readinessFilePath = (home: string) => join(home, "data", READINESS_FILE);

/** The largest file read (an attestation is well under 2 KiB). */
const MAX_FILE_BYTES = 64 * 1024;

export async function writeReadinessFile(home: string, json: ReadinessJson): Promise<void> {
  const dir = join(home, "data");
  await mkdir(dir, { recursive: true });
  await writeFileAtomic(join(dir, READINESS_FILE), JSON.stringify(json, null, 2) + "\n", { mode: 0o600 });
}

/** What the file holds now: nothing, an attestation, or why it cannot be used. */
export type ReadinessFileState =
  { kind: "none" } | { kind: "attestation"; attestation: ReadinessAttestation; json: ReadinessJson } | { kind: "invalid"; problem: string };

/**
 * Reads the file when it changed (its mtime, ctime, size or inode), else answers from the last read: the
 * node asks at every precommit. `changed` says whether this read saw a new version.
 */
export class ReadinessFileReader {
  private stamp = "";
  private state: ReadinessFileState = { kind: "none" };

  constructor(readonly path: string) {}

  async read(): Promise<{ state: ReadinessFileState; changed: boolean }> {
    let stamp: string;
    try {
      const s = await stat(this.path, { bigint: true });
      stamp = `${s.mtimeNs}/${s.ctimeNs}/${s.size}/${s.ino}`;
      if (stamp === this.stamp) return { state: this.state, changed: false };
      if (s.size > BigInt(MAX_FILE_BYTES)) return this.settle(stamp, { kind: "invalid", problem: `${s.size} bytes, more than ${MAX_FILE_BYTES}` });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === "ENOENT") return this.settle("", { kind: "none" });
      return this.settle(`error ${code}`, { kind: "invalid", problem: (e as Error).message });
    }
    let text: string;
    try {
      text = await readFile(this.path, "utf8");
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === "ENOENT") return this.settle("", { kind: "none" });
      return this.settle(stamp, { kind: "invalid", problem: (e as Error).message });
    }
    try {
      const json = JSON.parse(text) as ReadinessJson;
      return this.settle(stamp, { kind: "attestation", attestation: attestationFromJson(json), json });
    } catch (e) {
      return this.settle(stamp, { kind: "invalid", problem: (e as Error).message });
    }
  }

  private settle(stamp: string, state: ReadinessFileState): { state: ReadinessFileState; changed: boolean } {
    const changed = stamp !== this.stamp || state.kind !== this.state.kind;
    this.stamp = stamp;
    this.state = state;
    return { state, changed };
  }
}
