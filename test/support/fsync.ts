/**
 * What a piece of code flushed to the disk: every FileHandle.sync() in this process, each with the path its
 * descriptor names at that moment (read from /proc/self/fd, so Linux only; `supported` says whether it is).
 * The real sync still runs: this observes, it does not stand in.
 */
import { existsSync, readlinkSync } from "node:fs";
import { open, type FileHandle } from "node:fs/promises";
import { tmpdir } from "node:os";

export const FSYNC_OBSERVABLE = existsSync("/proc/self/fd");

export interface SyncRecorder {
  /** The paths synced, in order. */
  readonly paths: string[];
  restore(): void;
}

export async function recordSyncs(): Promise<SyncRecorder> {
  const probe = await open(tmpdir(), "r");
  const proto = Object.getPrototypeOf(probe) as FileHandle;
  await probe.close();
  const original = proto.sync;
  const paths: string[] = [];
  proto.sync = function (this: FileHandle) {
    paths.push(readlinkSync(`/proc/self/fd/${this.fd}`));
    return original.call(this);
  };
  return { paths, restore: () => void (proto.sync = original) };
}
