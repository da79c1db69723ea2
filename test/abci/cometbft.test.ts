/**
 * Smoke test against a real CometBFT v0.38 node: the kvstore example app on our socket server makes
 * blocks, takes a transaction and answers a query; then it halts inside FinalizeBlock, CometBFT shuts itself
 * down, and on restart the handshake replays the halted block to the new app. Then the other halt: an
 * AbciConsensusHalt stops CometBFT's consensus at the block ("CONSENSUS FAILURE") while CometBFT stays up,
 * its RPC answering status, abci_query and CheckTx through the app, nothing of the block stored but the block
 * itself; stopped and restarted, it replays that block to the next app.
 *
 * Needs the CometBFT binary that `npm run peers` builds (~/.cache/xupgrade/peers/cometbft-v0.38.*); skipped
 * with the reason otherwise.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { freePorts } from "../../bindings/base/ports.js";
import { startAbciServer, type AbciServer, type AbciStopped } from "../../bindings/abci/index.js";
import { within } from "./client.js";
import { KvStoreApp, emptyDisk, type Disk } from "./kvstore.js";

// ---------------------------------------------------------------------------------------------------------
// Finding the binary: scripts/peers/paths.mjs when the checkout has it, else the peers cache folder.

async function findCometBft(): Promise<{ bin?: string; reason: string }> {
  const paths = resolve(fileURLToPath(import.meta.url), "../../../scripts/peers/paths.mjs");
  if (existsSync(paths)) {
    try {
      const mod = (await import(paths)) as { peerBinaries?: () => { cometbft?: string } };
      const bin = mod.peerBinaries?.().cometbft;
      if (bin) return { bin, reason: "" };
    } catch {
      /* fall through to the folder scan */
    }
  }
  const dir = process.env.XUPGRADE_PEERS_DIR ? resolve(process.env.XUPGRADE_PEERS_DIR) : join(homedir(), ".cache", "xupgrade", "peers");
  const patch = (name: string) => Number(/^cometbft-v0\.38\.(\d+)$/.exec(name)?.[1] ?? -1);
  const candidates = existsSync(dir)
    ? readdirSync(dir)
        .filter((n) => patch(n) >= 0 && existsSync(join(dir, n, "bin", "cometbft")))
        .sort((a, b) => patch(b) - patch(a))
    : [];
  if (candidates.length > 0) return { bin: join(dir, candidates[0], "bin", "cometbft"), reason: "" };
  return { reason: `no CometBFT v0.38 binary in ${dir}: run \`npm run peers -- --only cometbft\`` };
}

const { bin: cometbft, reason: missing } = await findCometBft();
if (!cometbft) console.warn(`skipping the CometBFT smoke test: ${missing}`);

// ---------------------------------------------------------------------------------------------------------
// Processes and RPC

class Node {
  readonly lines: string[] = [];
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private constructor(readonly child: ChildProcess) {
    let partial = "";
    const onData = (chunk: Buffer) => {
      const text = partial + chunk.toString("utf8");
      const parts = text.split("\n");
      partial = parts.pop() ?? "";
      this.lines.push(...parts);
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    this.exited = new Promise((r) => child.once("exit", (code, signal) => r({ code, signal })));
  }

  static start(home: string, proxyApp: string, rpcPort: number, p2pPort: number): Node {
    const args = ["start", "--home", home, "--proxy_app", proxyApp, "--rpc.laddr", `tcp://127.0.0.1:${rpcPort}`, "--p2p.laddr", `tcp://127.0.0.1:${p2pPort}`];
    const node = new Node(spawn(cometbft as string, args, { stdio: ["ignore", "pipe", "pipe"] }));
    running.add(node);
    void node.exited.then(() => running.delete(node));
    return node;
  }

  get alive(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  find(re: RegExp): string | undefined {
    return this.lines.find((l) => re.test(l));
  }

  tail(n = 40): string {
    return this.lines.slice(-n).join("\n");
  }

  async stop(): Promise<void> {
    if (!this.alive) return;
    this.child.kill("SIGTERM");
    const t = setTimeout(() => this.child.kill("SIGKILL"), 10_000);
    await this.exited;
    clearTimeout(t);
  }
}

/** ABCI_SMOKE_LOG=<prefix>: write CometBFT's output to <prefix>.{first,restart}.log and print the request sequences. */
const dump = process.env.ABCI_SMOKE_LOG;
const show = (label: string, value: unknown) => dump && console.log(label, value);

const running = new Set<Node>();
const servers: AbciServer[] = [];
const home = mkdtempSync(join(tmpdir(), "abci-comet-"));

afterAll(async () => {
  await Promise.all([...running].map((n) => n.stop()));
  await Promise.all(servers.map((s) => s.close()));
  rmSync(home, { recursive: true, force: true });
}, 30_000);

async function freePort(): Promise<number> {
  return (await freePorts(1))[0];
}

async function rpc<T = Record<string, unknown>>(port: number, method: string, params: Record<string, unknown> = {}): Promise<T> {
  const res = await fetch(`http://127.0.0.1:${port}/`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: unknown };
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result as T;
}

async function height(port: number): Promise<number> {
  const s = await rpc<{ sync_info: { latest_block_height: string } }>(port, "status");
  return Number(s.sync_info.latest_block_height);
}

/** Polls `check` until it returns a value (not undefined); a thrown error counts as "not yet". */
async function waitFor<T>(what: string, check: () => Promise<T | undefined> | T | undefined, timeoutMs: number, node?: Node): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (e) {
      last = e;
    }
    if (node && !node.alive) throw new Error(`CometBFT exited while waiting for ${what}:\n${node.tail()}`);
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ""}${node ? `\n${node.tail()}` : ""}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

// ---------------------------------------------------------------------------------------------------------

interface Seen {
  conn: number;
  role?: string;
  method: string;
}

async function serveApp(app: KvStoreApp, socket: string): Promise<{ server: AbciServer; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = await startAbciServer({
    address: `unix://${socket}`,
    app,
    logger: {
      info: () => {},
      error: () => {},
      warn: (m) => console.warn(m),
      debug: (msg, f) => {
        if (msg === "ABCI request" && f) seen.push({ conn: f.conn as number, role: f.role as string | undefined, method: f.method as string });
      },
    },
  });
  servers.push(server);
  return { server, seen };
}

/** The methods each connection received, in order, with runs collapsed ("checkTx×3"). */
function perConnection(seen: Seen[], limit = 14): Record<string, string> {
  const out: Record<string, string[]> = {};
  const roleOf = new Map<number, string>();
  for (const s of seen) if (s.role) roleOf.set(s.conn, s.role);
  for (const s of seen) (out[`${s.conn}:${roleOf.get(s.conn) ?? "?"}`] ??= []).push(s.method);
  const collapse = (ms: string[]) => {
    const runs: string[] = [];
    for (let i = 0; i < ms.length;) {
      let j = i;
      while (j < ms.length && ms[j] === ms[i]) j++;
      runs.push(j - i > 1 ? `${ms[i]}×${j - i}` : ms[i]);
      i = j;
    }
    return runs.slice(0, limit).join(" ") + (runs.length > limit ? " …" : "");
  };
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, collapse(v)]));
}

describe.skipIf(!cometbft)(`a real CometBFT v0.38 node (${cometbft ?? missing})`, () => {
  const socket = join(home, "app.sock");
  const disk: Disk = emptyDisk();
  let rpcPort = 0;
  let haltHeight = 0n;
  let first: { node: Node; app: KvStoreApp; server: AbciServer; seen: Seen[] } | undefined;

  it("makes blocks, takes a transaction and answers a query", { timeout: 60_000 }, async () => {
    const init = spawnSync(cometbft as string, ["init", "--home", home], { encoding: "utf8" });
    expect(init.status, init.stderr).toBe(0);
    const configPath = join(home, "config", "config.toml");
    const config = readFileSync(configPath, "utf8").replace(/^timeout_commit = .*$/m, 'timeout_commit = "200ms"');
    writeFileSync(configPath, config);

    const app = new KvStoreApp(disk);
    const { server, seen } = await serveApp(app, socket);
    rpcPort = await freePort();
    const node = Node.start(home, server.address, rpcPort, await freePort());
    first = { node, app, server, seen };

    await waitFor("height 3", async () => ((await height(rpcPort)) >= 3 ? true : undefined), 40_000, node);
    expect(node.find(/ABCI Handshake App Info/)).toMatch(/height=0/);

    const tx = Buffer.from("upgrade=v2").toString("base64");
    const committed = await rpc<{ check_tx: { code: number }; tx_result: { code: number }; height: string }>(rpcPort, "broadcast_tx_commit", { tx });
    expect(committed.check_tx.code).toBe(0);
    expect(committed.tx_result.code).toBe(0);
    expect(Number(committed.height)).toBeGreaterThan(0);

    const q = await rpc<{ response: { code: number; value: string; log: string } }>(rpcPort, "abci_query", {
      path: "",
      data: Buffer.from("upgrade").toString("hex"),
    });
    expect(q.response.code).toBe(0);
    expect(Buffer.from(q.response.value, "base64").toString()).toBe("v2");
    expect(q.response.log).toBe("exists");

    // The first calls: Info on the query connection, InitChain, then the block cycle on the consensus one.
    const methods = app.calls.map((c) => c.method);
    expect(methods.slice(0, 2)).toEqual(["info", "initChain"]);
    const firstBlock = app.calls.filter((c) => c.height === 1n && c.method !== "initChain").map((c) => c.method);
    expect(firstBlock).toEqual(["prepareProposal", "processProposal", "finalizeBlock", "commit"]);
    // A connection is named by the first method only it sends (the mempool one, before any CheckTx, only gets flushes).
    const roles = new Set(seen.map((s) => s.role).filter((r) => r !== undefined));
    expect(roles).toEqual(new Set(["query", "mempool", "consensus"]));
    expect(app.infoRequest?.abciVersion).toBe("2.0.0");
    show("request sequence per connection (first run):", perConnection(seen));
  });

  it("halts inside FinalizeBlock: exception, CometBFT shuts itself down, stopped resolves", { timeout: 60_000 }, async () => {
    expect(first, "the first step did not start the node").toBeDefined();
    const { node, app, server } = first!;
    haltHeight = BigInt(await height(rpcPort)) + 2n;
    app.haltAt = haltHeight;

    const stopped: AbciStopped = await within(server.stopped, 40_000, `the server to stop at height ${haltHeight}`);
    expect(stopped.reason).toBe("halt");
    expect(stopped.method).toBe("finalizeBlock");
    expect(stopped.error?.message).toBe(`UPGRADE "v2" NEEDED at height: ${haltHeight}`);

    // CometBFT notices, logs it, SIGTERMs itself and exits without being killed by us.
    const exit = await within(node.exited, 30_000, "CometBFT to exit by itself");
    if (dump) writeFileSync(`${dump}.first.log`, node.lines.join("\n"));
    // CometBFT reports the first of its ABCI connections to notice: the consensus one with the app's message, or (seen
    // under CI load) another one's EOF; the app's message is in the consensus failure line below either way.
    const crashLine = node.find(/connection terminated\. Did the application crash\?/);
    expect(crashLine).toMatch(
      /consensus connection terminated\. Did the application crash\? Please restart CometBFT .*err="UPGRADE \\"v2\\" NEEDED at height: \d+"|(mempool|query|snapshot) connection terminated\. Did the application crash\? Please restart CometBFT .*err="read message: EOF"/,
    );
    expect(node.find(/CONSENSUS FAILURE!!!/)).toMatch(/failed to apply block; error UPGRADE/);
    expect(node.find(/signal trapped/)).toMatch(/captured terminated, exiting/);
    // CometBFT traps its own SIGTERM and stops gracefully, exiting 0.
    expect(exit).toEqual({ code: 0, signal: null });
    // The app never committed the halted block.
    expect(disk.height).toBe(haltHeight - 1n);
  });

  it("on restart, the handshake replays the halted block to the new app and the chain goes on", { timeout: 60_000 }, async () => {
    expect(haltHeight, "the halt step did not run").toBeGreaterThan(0n);
    const app = new KvStoreApp(disk);
    const { server, seen } = await serveApp(app, socket);
    const node = Node.start(home, server.address, rpcPort, await freePort());

    await waitFor(`height ${haltHeight + 2n}`, async () => ((await height(rpcPort)) >= Number(haltHeight) + 2 ? true : undefined), 40_000, node);
    expect(node.find(/ABCI Handshake App Info/)).toMatch(new RegExp(`height=${haltHeight - 1n}\\b`));
    expect(node.find(/ABCI Replay Blocks/)).toMatch(new RegExp(`appHeight=${haltHeight - 1n} storeHeight=${haltHeight} stateHeight=${haltHeight - 1n}`));
    expect(node.find(/Replay last block using real app/)).toBeDefined();

    // Info says H-1; CometBFT then sends FinalizeBlock(H) + Commit before any new proposal.
    expect(app.calls.slice(0, 3)).toEqual([{ method: "info" }, { method: "finalizeBlock", height: haltHeight }, { method: "commit", height: haltHeight }]);
    expect(disk.height).toBeGreaterThanOrEqual(haltHeight + 1n);
    const q = await rpc<{ response: { value: string } }>(rpcPort, "abci_query", { path: "", data: Buffer.from("upgrade").toString("hex") });
    expect(Buffer.from(q.response.value, "base64").toString()).toBe("v2");
    show("request sequence per connection (restart):", perConnection(seen));

    await node.stop();
    if (dump) writeFileSync(`${dump}.restart.log`, node.lines.join("\n"));
    expect((await server.close()).reason).toBe("closed");
  });

  let consensusHeight = 0n;

  it(
    "an AbciConsensusHalt stops consensus at the block and nothing else: CometBFT stays up and its RPC answers through the app",
    { timeout: 60_000 },
    async () => {
      expect(haltHeight, "the restart step did not run").toBeGreaterThan(0n);
      const app = new KvStoreApp(disk);
      const { server } = await serveApp(app, socket);
      // From the height it starts at: CometBFT reports a block as its latest once stored, before the app commits it,
      // so comparing with the app's height as it moves would catch only that moment.
      const from = Number(disk.height);
      const node = Node.start(home, server.address, rpcPort, await freePort());
      await waitFor("the node to make blocks", async () => ((await height(rpcPort)) > from ? true : undefined), 40_000, node);
      consensusHeight = disk.height + 3n;
      app.consensusHaltAt = consensusHeight;

      const halt = await within(server.consensusHalt, 40_000, `the consensus halt at ${consensusHeight}`);
      expect(halt.message).toBe(`UPGRADE "v3" NEEDED at height: ${consensusHeight}`);
      await waitFor("CONSENSUS FAILURE in CometBFT's log", () => node.find(/CONSENSUS FAILURE!!!/), 20_000, node);
      expect(node.find(/CONSENSUS FAILURE!!!/)).toMatch(/expected tx results length to match size of transactions in block/);
      // No exception: the connections stay up, CometBFT does not kill itself, and it keeps answering.
      expect(node.find(/connection terminated/)).toBeUndefined();
      await new Promise((r) => setTimeout(r, 1000));
      expect(node.alive).toBe(true);
      expect(server.connectionCount).toBe(4);
      const status = await rpc<{ sync_info: { latest_block_height: string; latest_app_hash: string } }>(rpcPort, "status");
      // The block is in the block store (saved before it is executed); its state never was.
      expect(BigInt(status.sync_info.latest_block_height)).toBe(consensusHeight);
      const q = await rpc<{ response: { value: string; height: string } }>(rpcPort, "abci_query", { path: "", data: Buffer.from("upgrade").toString("hex") });
      expect(Buffer.from(q.response.value, "base64").toString()).toBe("v2");
      expect(BigInt(q.response.height)).toBe(consensusHeight - 1n);
      const sync = await rpc<{ code: number }>(rpcPort, "broadcast_tx_sync", { tx: Buffer.from("after=halt").toString("base64") });
      expect(sync.code).toBe(0);
      await expect(rpc(rpcPort, "block_results", { height: String(consensusHeight) })).rejects.toThrow(/could not find results for height/);
      expect(disk.height).toBe(consensusHeight - 1n);
      expect(app.calls.filter((c) => c.method === "commit" && c.height === consensusHeight)).toEqual([]);

      await node.stop();
      expect(node.find(/captured terminated, exiting/)).toBeDefined();
      expect((await server.close()).reason).toBe("closed");
      expect(disk.height).toBe(consensusHeight - 1n);
    },
  );

  it("restarted, CometBFT replays the block where consensus stopped to the next app, and the chain goes on", { timeout: 60_000 }, async () => {
    expect(consensusHeight, "the consensus halt step did not run").toBeGreaterThan(0n);
    const app = new KvStoreApp(disk);
    const { server } = await serveApp(app, socket);
    const node = Node.start(home, server.address, rpcPort, await freePort());
    await waitFor(`height ${consensusHeight + 2n}`, async () => ((await height(rpcPort)) >= Number(consensusHeight) + 2 ? true : undefined), 40_000, node);
    expect(node.find(/ABCI Replay Blocks/)).toMatch(
      new RegExp(`appHeight=${consensusHeight - 1n} storeHeight=${consensusHeight} stateHeight=${consensusHeight - 1n}`),
    );
    expect(app.calls.slice(0, 3)).toEqual([
      { method: "info" },
      { method: "finalizeBlock", height: consensusHeight },
      { method: "commit", height: consensusHeight },
    ]);
    await node.stop();
    expect((await server.close()).reason).toBe("closed");
  });
});
