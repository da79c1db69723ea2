/**
 * A wake-up when a file may have changed: inotify on its directory (fs.watch), reporting changes of that
 * name. It only says "look now"; what the file says is always read and judged by the poll's own code
 * (watch.ts), so a missed or spurious event costs at most one poll interval, never a wrong decision. Where
 * the directory cannot be watched (missing, no inotify), it never wakes.
 */
import { watch, type FSWatcher } from "node:fs";
import { basename, dirname } from "node:path";

export interface FileWake {
  /** Resolves with `{kind: "wake"}` at the next change of the file (each call waits for the next one). */
  next(): Promise<{ kind: "wake" }>;
  close(): void;
}

export function fileWake(path: string): FileWake {
  const name = basename(path);
  let waiting: (() => void) | undefined;
  let pending = false;
  let w: FSWatcher | undefined;
  try {
    w = watch(dirname(path), (_event, file) => {
      // The keeper writes a temporary file and renames it over the name: the rename is the change.
      if (file !== null && String(file) !== name) return;
      if (waiting) {
        const r = waiting;
        waiting = undefined;
        r();
      } else pending = true;
    });
    w.on("error", () => w?.close());
  } catch {
    w = undefined;
  }
  return {
    next: () =>
      new Promise((resolve) => {
        if (pending) {
          pending = false;
          return resolve({ kind: "wake" });
        }
        waiting = () => resolve({ kind: "wake" });
      }),
    close: () => {
      w?.close();
      waiting = undefined;
    },
  };
}
