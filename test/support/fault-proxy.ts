/**
 * A userspace TCP fault proxy for the links between a testnet's validators (the kernel here has no netem,
 * and neither iptables nor nft is installed). One `Link` per directed pair of nodes listens on a loopback
 * port and forwards every connection to the other node's p2p port; a node's `persistent_peers` point at its
 * own links, so every byte between two validators crosses one. On the links:
 *
 * - delay with jitter: each chunk is delivered `delayMs ± jitterMs` (uniform) after it arrived, and never
 *   before a chunk that arrived earlier on the same direction (TCP keeps order; only the timing changes);
 * - random drops: each connection is destroyed after an exponentially distributed lifetime of mean
 *   `dropMeanMs`, both sockets at once (the peers see a reset connection and dial again);
 * - cuts: every link to or from a node stops for a while. `reset` destroys the connections and refuses new
 *   ones (accepted and closed at once) until the cut ends; `blackhole` forwards nothing either way, holding
 *   what arrives, and lets it all through when the cut ends (a pulled cable: whether a connection survives
 *   is up to the peers' own timeouts).
 *
 * Faults are set on every link (`setFaults`), on the links of a group of nodes (`regions`: one delay inside each
 * region, another between them) or on one link, and apply from then on; a `partition` cuts only the links
 * that cross between a group and the rest. The randomness (jitter, drop lifetimes) comes from one generator,
 * seeded when the caller wants two runs to see the same faults. A link's counters say what it did.
 *
 * Network namespaces would give a partition in the kernel (a veth set down), but this kernel has no netem
 * qdisc and no iptables, so delays cannot be added there: the proxy does both, one way.
 */
import { createServer, connect, type Server, type Socket } from "node:net";

export interface LinkFaults {
  /** Added delay per chunk, milliseconds (default 0). */
  delayMs?: number;
  /** Uniform jitter around the delay, ± milliseconds (default 0; the delay never goes below 0). */
  jitterMs?: number;
  /** Mean lifetime of a connection before it is dropped, milliseconds (default: never dropped). */
  dropMeanMs?: number;
}

export type CutMode = "reset" | "blackhole";

export interface LinkStats {
  connections: number;
  /** Connections destroyed by a random drop or a reset cut. */
  dropped: number;
  /** Connections refused during a reset cut. */
  refused: number;
  bytes: number;
}

/** Stop reading a side while this many bytes wait to be delivered to the other. */
const HIGH_WATER = 4 * 1024 * 1024;

class Pipe {
  private queue: { at: number; chunk: Buffer }[] = [];
  private queued = 0;
  private lastAt = 0;
  private timer: NodeJS.Timeout | undefined;
  private ended = false;

  constructor(
    private readonly from: Socket,
    private readonly to: Socket,
    private readonly link: Link,
  ) {
    from.on("data", (chunk: Buffer) => this.push(chunk));
    from.on("end", () => {
      this.ended = true;
      this.flush();
    });
  }

  private push(chunk: Buffer): void {
    const f = this.link.faults;
    const jitter = f.jitterMs ? (this.link.random() * 2 - 1) * f.jitterMs : 0;
    // Never before the previous chunk of this direction: the stream keeps its order.
    const at = Math.max(this.lastAt, Date.now() + Math.max(0, (f.delayMs ?? 0) + jitter));
    this.lastAt = at;
    this.queue.push({ at, chunk });
    this.queued += chunk.length;
    this.link.stats.bytes += chunk.length;
    if (this.queued > HIGH_WATER) this.from.pause();
    this.flush();
  }

  /** Delivers what is due, unless the link is blackholed; re-arms the timer for the next chunk. */
  flush(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.to.destroyed) return;
    if (this.link.blackholed) return; // the cut's end calls flush() again
    const now = Date.now();
    while (this.queue.length > 0 && this.queue[0].at <= now) {
      const { chunk } = this.queue.shift()!;
      this.queued -= chunk.length;
      this.to.write(chunk);
    }
    if (this.queued <= HIGH_WATER / 2 && this.from.isPaused()) this.from.resume();
    if (this.queue.length > 0) {
      this.timer = setTimeout(() => this.flush(), this.queue[0].at - now);
      this.timer.unref();
    } else if (this.ended && !this.to.writableEnded) {
      this.to.end();
    }
  }

  stop(): void {
    clearTimeout(this.timer);
    this.queue = [];
  }
}

class Conn {
  private pipes: Pipe[] = [];
  private dropTimer: NodeJS.Timeout | undefined;

  constructor(
    readonly inbound: Socket,
    readonly outbound: Socket,
    private readonly link: Link,
  ) {
    for (const s of [inbound, outbound]) {
      s.setNoDelay(true);
      s.on("error", () => this.destroy());
      s.on("close", () => this.destroy());
    }
    this.pipes = [new Pipe(inbound, outbound, link), new Pipe(outbound, inbound, link)];
    const mean = link.faults.dropMeanMs;
    if (mean !== undefined && mean > 0) {
      this.dropTimer = setTimeout(
        () => {
          link.stats.dropped++;
          this.destroy();
        },
        -Math.log(1 - link.random()) * mean,
      );
      this.dropTimer.unref();
    }
  }

  flush(): void {
    for (const p of this.pipes) p.flush();
  }

  destroy(): void {
    clearTimeout(this.dropTimer);
    for (const p of this.pipes) p.stop();
    this.inbound.destroy();
    this.outbound.destroy();
    this.link.conns.delete(this);
  }
}

export class Link {
  faults: LinkFaults = {};
  readonly stats: LinkStats = { connections: 0, dropped: 0, refused: 0, bytes: 0 };
  readonly conns = new Set<Conn>();
  private cutUntil = 0;
  private cutMode: CutMode = "reset";
  private healTimer: NodeJS.Timeout | undefined;
  port = 0;

  constructor(
    /** The node that dials through this link. */
    readonly from: string,
    /** The node it reaches. */
    readonly to: string,
    private readonly target: { host: string; port: number },
    /** Numbers in [0, 1): the jitter and the drops draw from it. */
    readonly random: () => number = Math.random,
    private readonly server: Server = createServer(),
  ) {
    this.server.on("connection", (s) => this.accept(s));
  }

  get cut(): boolean {
    return Date.now() < this.cutUntil;
  }

  get blackholed(): boolean {
    return this.cut && this.cutMode === "blackhole";
  }

  listen(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(0, "127.0.0.1", () => {
        this.port = (this.server.address() as { port: number }).port;
        resolve();
      });
    });
  }

  private accept(inbound: Socket): void {
    if (this.cut && this.cutMode === "reset") {
      this.stats.refused++;
      inbound.destroy();
      return;
    }
    this.stats.connections++;
    const outbound = connect({ host: this.target.host, port: this.target.port });
    this.conns.add(new Conn(inbound, outbound, this));
  }

  /** Cuts this link for `ms`: see the module comment for the two modes. */
  cutFor(ms: number, mode: CutMode): void {
    this.cutUntil = Math.max(this.cutUntil, Date.now() + ms);
    this.cutMode = mode;
    if (mode === "reset") {
      for (const c of [...this.conns]) {
        this.stats.dropped++;
        c.destroy();
      }
    }
    clearTimeout(this.healTimer);
    this.healTimer = setTimeout(() => this.heal(), this.cutUntil - Date.now());
    this.healTimer.unref();
  }

  /** Ends a cut now; a blackholed link delivers what it held. */
  heal(): void {
    clearTimeout(this.healTimer);
    this.cutUntil = 0;
    for (const c of this.conns) c.flush();
  }

  async close(): Promise<void> {
    clearTimeout(this.healTimer);
    for (const c of [...this.conns]) c.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

export interface ProxyNode {
  name: string;
  /** `127.0.0.1:<port>` the node's p2p listens on. */
  p2p: string;
}

export interface ProxyOptions {
  /** Numbers in [0, 1) for the jitter and the drops (test/support/random.ts `rng(seed)` repeats a run's faults); default Math.random. */
  random?: () => number;
}

/** Links between every ordered pair of nodes. */
export class FaultProxy {
  private constructor(readonly links: Link[]) {}

  static async start(nodes: readonly ProxyNode[], o: ProxyOptions = {}): Promise<FaultProxy> {
    const links: Link[] = [];
    for (const a of nodes) {
      for (const b of nodes) {
        if (a === b) continue;
        const [host, port] = splitHostPort(b.p2p);
        links.push(new Link(a.name, b.name, { host, port }, o.random));
      }
    }
    const proxy = new FaultProxy(links);
    try {
      await Promise.all(links.map((l) => l.listen()));
    } catch (e) {
      await proxy.close();
      throw e;
    }
    return proxy;
  }

  /** The link `from` dials to reach `to`. */
  link(from: string, to: string): Link {
    const l = this.links.find((x) => x.from === from && x.to === to);
    if (!l) throw new Error(`no link ${from} → ${to}`);
    return l;
  }

  /** Sets the faults of every link (new chunks and connections follow them at once). */
  setFaults(faults: LinkFaults): void {
    for (const l of this.links) l.faults = { ...faults };
  }

  /**
   * Two or more regions: `inside` on the links within a region, `between` on the links from one to another. Every
   * node must be in exactly one region.
   */
  regions(groups: readonly (readonly string[])[], inside: LinkFaults, between: LinkFaults): void {
    const regionOf = new Map<string, number>();
    for (const [i, g] of groups.entries()) {
      for (const n of g) {
        if (regionOf.has(n)) throw new Error(`${n} is in two regions`);
        regionOf.set(n, i);
      }
    }
    for (const l of this.links) {
      const a = regionOf.get(l.from);
      const b = regionOf.get(l.to);
      if (a === undefined || b === undefined) throw new Error(`${a === undefined ? l.from : l.to} is in no region`);
      l.faults = { ...(a === b ? inside : between) };
    }
  }

  /** Cuts every link to or from `node` for `ms`. */
  cut(node: string, ms: number, mode: CutMode = "reset"): void {
    for (const l of this.links) if (l.from === node || l.to === node) l.cutFor(ms, mode);
  }

  /** Cuts, for `ms`, every link between a node of `group` and a node outside it: each side still reaches its own. */
  partition(group: readonly string[], ms: number, mode: CutMode = "reset"): void {
    const inGroup = new Set(group);
    for (const l of this.links) if (inGroup.has(l.from) !== inGroup.has(l.to)) l.cutFor(ms, mode);
  }

  /** Ends the cuts of every link (or of `node`'s links). */
  heal(node?: string): void {
    for (const l of this.links) if (node === undefined || l.from === node || l.to === node) l.heal();
  }

  /** Every link's counters added up. */
  totals(): LinkStats {
    const t: LinkStats = { connections: 0, dropped: 0, refused: 0, bytes: 0 };
    for (const l of this.links) for (const k of Object.keys(t) as (keyof LinkStats)[]) t[k] += l.stats[k];
    return t;
  }

  async close(): Promise<void> {
    await Promise.all(this.links.map((l) => l.close().catch(() => undefined)));
  }
}

function splitHostPort(addr: string): [string, number] {
  const i = addr.lastIndexOf(":");
  const port = Number(addr.slice(i + 1));
  if (i < 1 || !Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`not a host:port: ${JSON.stringify(addr)}`);
  return [addr.slice(0, i), port];
}
