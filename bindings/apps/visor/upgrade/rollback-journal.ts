/**
 * The rollback's journal (rollback.ts), all that `visor run` needs of a rollback at its start: where the
 * journal is and whether an interrupted rollback left one. A file of its own so that the supervision loop
 * does not load the rollback (and the backup, the copies and the node's state with it) to ask.
 */
import { join } from "node:path";
import { exists } from "../../../base/file.js";
import type { Layout } from "../layout.js";

/** The journal of a rollback between its first rename and its end. */
export const ROLLBACK_JOURNAL = "rollback-in-progress.json";

export const journalPath = (layout: Layout): string => join(layout.root, ROLLBACK_JOURNAL);

/** An interrupted rollback (for `visor run`'s refusal): its journal's path, or undefined. */
export async function interruptedRollback(layout: Layout): Promise<string | undefined> {
  return (await exists(journalPath(layout))) ? journalPath(layout) : undefined;
}
