/**
 * The fault proxy of the CometBFT fault suite, on real loopback sockets: bytes cross a link whole and in
 * order whatever the jitter; nothing arrives before its delay; random drops and reset cuts close
 * connections (and a reset cut refuses new ones until it ends); a blackhole holds what is sent and lets it
 * through when the cut ends; regions put one delay inside and another between; a partition cuts only the
 * links that cross it; a seeded generator repeats the same faults. Only lower bounds of time are asserted: a
 * busy machine can only make things later.
 */
import { randomBytes } from "node:crypto";
import { connect, createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { FaultProxy } from "./fault-proxy.js";
import { rng } from "./random.js";
import { waitUntil } from "./wait.js";

const servers: Server[] = [];
const proxies: FaultProxy[] = [];

afterEach(async () => {
  await Promise.all(proxies.splice(0).map((p) => p.close()));
  await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
});

/** An echo server standing in for a node's p2p port. */
async function echoServer(): Promise<number> {
  const s = createServer((sock) => {
    sock.on("error", () => undefined);
    sock.pipe(sock);
  });
  servers.push(s);
  await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
  return (s.address() as { port: number }).port;
}

/** Two "nodes", a and b (b an echo server); the link a → b. */
async function twoNodes() {
  const port = await echoServer();
  const proxy = await FaultProxy.start([
    { name: "a", p2p: "127.0.0.1:1" },
    { name: "b", p2p: `127.0.0.1:${port}` },
  ]);
  proxies.push(proxy);
  return { proxy, link: proxy.link("a", "b") };
}

function dial(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: "127.0.0.1", port }, () => resolve(s));
    s.once("error", reject);
  });
}

/** Collects what a socket receives; `closed` resolves when it closes. */
function collect(s: Socket) {
  const chunks: { at: number; data: Buffer }[] = [];
  s.on("data", (d: Buffer) => chunks.push({ at: Date.now(), data: d }));
  s.on("error", () => undefined);
  const closed = new Promise<void>((r) => s.once("close", () => r()));
  return { chunks, bytes: () => Buffer.concat(chunks.map((c) => c.data)), closed };
}

describe("the fault proxy", () => {
  it("links every ordered pair of nodes, each on its own port", async () => {
    const proxy = await FaultProxy.start(["a", "b", "c"].map((name, i) => ({ name, p2p: `127.0.0.1:${1000 + i}` })));
    proxies.push(proxy);
    expect(proxy.links.map((l) => `${l.from}→${l.to}`).sort()).toEqual(["a→b", "a→c", "b→a", "b→c", "c→a", "c→b"]);
    expect(new Set(proxy.links.map((l) => l.port)).size).toBe(6);
    expect(() => proxy.link("a", "a")).toThrow("no link a → a");
    await expect(
      FaultProxy.start([
        { name: "x", p2p: "nowhere" },
        { name: "y", p2p: "127.0.0.1:1" },
      ]),
    ).rejects.toThrow('not a host:port: "nowhere"');
  });

  it("keeps every byte and its order under jitter, and delivers nothing before its delay", async () => {
    const { proxy, link } = await twoNodes();
    proxy.setFaults({ delayMs: 40, jitterMs: 30 });
    const s = await dial(link.port);
    const got = collect(s);
    const payload = randomBytes(64 * 1024);
    const sentAt: number[] = [];
    for (let off = 0; off < payload.length; off += 1024) {
      sentAt.push(Date.now());
      s.write(payload.subarray(off, off + 1024));
      await new Promise((r) => setTimeout(r, 1));
    }
    await waitUntil(() => got.bytes().length >= payload.length, 20_000, "the echo");
    expect(got.bytes().equals(payload)).toBe(true);
    // Two crossings (there and back through the echo), each at least delay - jitter = 10 ms.
    expect(got.chunks[0].at - sentAt[0]).toBeGreaterThanOrEqual(2 * 10 - 1);
    expect(link.stats).toMatchObject({ connections: 1, dropped: 0, refused: 0, bytes: 2 * payload.length });
    s.destroy();
  });

  it("drops connections at random, each after its own lifetime", async () => {
    const { proxy, link } = await twoNodes();
    proxy.setFaults({ dropMeanMs: 30 });
    for (let i = 0; i < 3; i++) {
      const s = await dial(link.port);
      await collect(s).closed;
    }
    expect(link.stats.dropped).toBe(3);
  });

  it("a reset cut closes the connections and refuses new ones until it ends", async () => {
    const { proxy, link } = await twoNodes();
    const before = await dial(link.port);
    const c = collect(before);
    before.write("hello");
    await waitUntil(() => c.bytes().toString() === "hello", 10_000, "the first echo");
    proxy.cut("b", 60_000, "reset");
    await c.closed;
    const during = collect(await dial(link.port));
    await during.closed;
    expect(during.bytes().length).toBe(0);
    expect(link.stats).toMatchObject({ dropped: 1, refused: 1 });
    proxy.heal("b");
    const after = await dial(link.port);
    const a = collect(after);
    after.write("again");
    await waitUntil(() => a.bytes().toString() === "again", 10_000, "the echo after the cut");
    after.destroy();
  });

  it("a blackhole holds what is sent and lets it through, in order, when the cut ends", async () => {
    const { proxy, link } = await twoNodes();
    const s = await dial(link.port);
    const got = collect(s);
    const cutAt = Date.now();
    proxy.cut("a", 300, "blackhole");
    s.write("one ");
    s.write("two");
    await waitUntil(() => got.bytes().toString() === "one two", 10_000, "the held bytes");
    expect(got.chunks[0].at - cutAt).toBeGreaterThanOrEqual(300 - 1);
    expect(link.stats.dropped).toBe(0);
    s.destroy();
  });

  it("regions: one delay inside a region, another between regions; every node in exactly one", async () => {
    const proxy = await FaultProxy.start(["a", "b", "c", "d"].map((name, i) => ({ name, p2p: `127.0.0.1:${1000 + i}` })));
    proxies.push(proxy);
    proxy.regions(
      [
        ["a", "b"],
        ["c", "d"],
      ],
      { delayMs: 20, jitterMs: 10 },
      { delayMs: 225, jitterMs: 75 },
    );
    expect(proxy.link("a", "b").faults).toEqual({ delayMs: 20, jitterMs: 10 });
    expect(proxy.link("d", "c").faults).toEqual({ delayMs: 20, jitterMs: 10 });
    for (const [from, to] of [
      ["a", "c"],
      ["c", "a"],
      ["b", "d"],
      ["d", "a"],
    ])
      expect(proxy.link(from, to).faults).toEqual({ delayMs: 225, jitterMs: 75 });
    expect(() =>
      proxy.regions(
        [
          ["a", "b"],
          ["b", "c", "d"],
        ],
        {},
        {},
      ),
    ).toThrow("b is in two regions");
    expect(() => proxy.regions([["a", "b"], ["c"]], {}, {})).toThrow("d is in no region");
  });

  it("a partition cuts the links across it and leaves each side's own links up", async () => {
    const port = await echoServer();
    const proxy = await FaultProxy.start([
      { name: "a", p2p: "127.0.0.1:1" },
      { name: "b", p2p: `127.0.0.1:${port}` },
      { name: "c", p2p: `127.0.0.1:${port}` },
    ]);
    proxies.push(proxy);
    proxy.partition(["a", "b"], 60_000, "reset");
    expect(proxy.link("a", "b").cut).toBe(false);
    expect(proxy.link("b", "a").cut).toBe(false);
    for (const [from, to] of [
      ["a", "c"],
      ["c", "a"],
      ["b", "c"],
      ["c", "b"],
    ])
      expect(proxy.link(from, to).cut).toBe(true);
    // Inside the group bytes flow; across it the connection is refused.
    const inside = await dial(proxy.link("a", "b").port);
    const got = collect(inside);
    inside.write("ping");
    await waitUntil(() => got.bytes().toString() === "ping", 10_000, "the echo inside the group");
    inside.destroy();
    const across = collect(await dial(proxy.link("a", "c").port));
    await across.closed;
    expect(proxy.link("a", "c").stats.refused).toBe(1);
    proxy.heal();
    expect(proxy.links.some((l) => l.cut)).toBe(false);
  });

  it("draws its jitter and drops from the generator it is given: the same seed, the same faults", () => {
    const draws = async (seed: number) => {
      const proxy = await FaultProxy.start(
        ["a", "b"].map((name, i) => ({ name, p2p: `127.0.0.1:${1000 + i}` })),
        { random: rng(seed) },
      );
      proxies.push(proxy);
      return [0, 1, 2].map(() => proxy.link("a", "b").random());
    };
    return Promise.all([draws(7), draws(7), draws(8)]).then(([x, y, z]) => {
      expect(x).toEqual(y);
      expect(x).not.toEqual(z);
    });
  });
});
