/**
 * The snapshot a node holds for the rehearsals of its scheduled plan (docs/spec/rehearse.md §2.3,
 * docs/spec/readiness.md §4.3). Validators compare the app hashes their rehearsals reach, and those are
 * comparable only when every rehearsal ran on the state of the same height. So, on a chain that keeps a
 * readiness tally, each node takes an explicit LevelDB snapshot right after committing the first block in
 * which the plan is scheduled — the same block on every validator — and serves it to rehearsals of that plan
 * until the plan is applied, cancelled or replaced.
 *
 * The snapshot lives in memory: a node restarted later holds none for the plan until then and takes one at
 * its first commit after the restart (logged; its rehearsals then land in another group, by snapshot height).
 * While it is held, LevelDB keeps the values it sees (compaction cannot drop them): the cost grows with
 * what the chain overwrites before the height.
 */
import { messageOf } from "../../../base/errors.js";
import type { Logger } from "../../../base/logger.js";
import type { LevelDb } from "../../../store/level.js";

type Snapshot = ReturnType<LevelDb["snapshot"]>;

export interface PinnedSnapshot {
  /** The plan it is held for. */
  name: string;
  planHeight: bigint;
  /** The committed height it holds. */
  height: bigint;
  snapshot: Snapshot;
}

export class RehearsalPins {
  private pin: PinnedSnapshot | undefined;

  constructor(private readonly o: { db: LevelDb; logger: Required<Logger> }) {}

  /**
   * After a commit of `height`: holds a snapshot for `plan` (taking it now if none is held for it), and lets
   * go of one held for a plan that is no longer scheduled. `enabled`: the chain keeps a readiness tally.
   */
  update(plan: { name: string; height: bigint } | undefined, height: bigint, enabled: boolean): void {
    const held = this.pin;
    const want = enabled ? plan : undefined;
    if (held && want && held.name === want.name && held.planHeight === want.height) return;
    if (held) this.release(held, want ? "the scheduled plan changed" : "no plan is scheduled");
    if (!want) return;
    let snapshot: Snapshot;
    try {
      snapshot = this.o.db.snapshot();
    } catch (e) {
      this.o.logger.warn("cannot hold a state snapshot for rehearsals: they will use the latest state", { module: "rehearse", err: messageOf(e) });
      return;
    }
    this.pin = { name: want.name, planHeight: want.height, height, snapshot };
    this.o.logger.info(`holding the state of height ${height} for the rehearsals of upgrade "${want.name}"`, {
      module: "rehearse",
      height,
      upgrade: want.name,
      upgrade_height: want.height,
    });
  }

  /** The snapshot held for a plan, if any. */
  get(name: string, planHeight: bigint): PinnedSnapshot | undefined {
    const p = this.pin;
    return p && p.name === name && p.planHeight === planHeight ? p : undefined;
  }

  async close(): Promise<void> {
    const p = this.pin;
    this.pin = undefined;
    await p?.snapshot.close().catch(() => undefined);
  }

  private release(p: PinnedSnapshot, why: string): void {
    this.pin = undefined;
    this.o.logger.info(`released the state of height ${p.height} held for upgrade "${p.name}": ${why}`, { module: "rehearse", height: p.height });
    // Closing waits for a snapshot being served to finish.
    void p.snapshot.close().catch(() => undefined);
  }
}
