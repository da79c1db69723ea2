/** A look at something every interval while wanted, never two at once (chain-watch.ts, prestart.ts). */
export class Poller {
  private timer: NodeJS.Timeout | undefined;
  private busy = false;

  constructor(
    private readonly intervalMs: number,
    private readonly look: () => Promise<void>,
  ) {}

  start(): void {
    this.stop();
    this.timer = setInterval(() => void this.tick(), Math.max(1, this.intervalMs));
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** One look now, unless one is under way. */
  async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      await this.look();
    } finally {
      this.busy = false;
    }
  }
}
