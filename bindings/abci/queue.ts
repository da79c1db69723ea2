/**
 * The application lock. CometBFT's Go socket server holds one mutex around every application call, so the
 * four connections never run app code concurrently; this queue gives the same guarantee to async apps:
 * tasks run one at a time, in the order they were queued. Once stopped, tasks not yet started are dropped.
 */

/** What a dropped task resolves to. */
export const DROPPED: unique symbol = Symbol("dropped");

export class AppQueue {
  private tail: Promise<unknown> = Promise.resolve();
  private stoppedFlag = false;

  get stopped(): boolean {
    return this.stoppedFlag;
  }

  /** Runs `task` after every task queued before it; the task must not reject (failures are values here). */
  run<T>(task: () => Promise<T>): Promise<T | typeof DROPPED> {
    const result = this.tail.then<T | typeof DROPPED>(() => (this.stoppedFlag ? DROPPED : task()));
    this.tail = result.catch(() => undefined);
    return result;
  }

  /** No task starts after this; the one running (if any) finishes. */
  stop(): void {
    this.stoppedFlag = true;
  }

  /** Resolves when every task queued so far has finished or been dropped. */
  idle(): Promise<void> {
    return this.tail.then(() => undefined);
  }
}
