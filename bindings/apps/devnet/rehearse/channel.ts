/**
 * The snapshot channel (docs/spec/rehearse.md §2): a running node hands a rehearsal on the same machine a
 * consistent copy of its committed application database, without stopping and without blocking its commits.
 *
 * Why the node must do it: LevelDB locks its directory, so no other process can open a running node's
 * database, and copying the files under a live LevelDB is not consistent (a compaction can delete or
 * replace files the copy has not read yet). The node itself can: a classic-level iterator reads from a
 * LevelDB snapshot taken synchronously when the iterator is created, and every block is ONE atomic batch
 * (CommitMultiStore.commit), so the snapshot holds exactly one committed height — the `h` key it carries —
 * never part of a block, and never the multistore's in-memory view of a block being executed or committed.
 * Reading runs on libuv's thread pool; the node's event loop only frames the entries and writes them to the
 * socket (with backpressure), so its blocks go on meanwhile.
 *
 * Where: a unix socket `<home>/snapshot.sock` (mode 0600: the file system decides who may read the state,
 * as it does for the database itself). When that path is too long for a unix socket, a loopback TCP port,
 * named with a random token in `<home>/snapshot.endpoint.json` (mode 0600); a request must carry the token.
 *
 * Protocol: the client sends one JSON line `{"op":"snapshot"[,"plan":{"name":…,"height":"…"}][,"token":"…"]}`;
 * the node answers with frames `E u32(key length) u32(value length) key value` (every entry of the database,
 * in key order), then `D u32(n) {"entries":…,"bytes":…,"height":"…","pinned":…}` — or `X u32(n) {"error":"…"}`
 * at any point. With a plan, and a snapshot held for that plan's rehearsals (pin.ts), that snapshot is served
 * (`pinned: true`); otherwise the state as of the request.
 */
import { randomBytes, timingSafeEqual } from "node:crypto";
import { chmod, lstat, readFile, rm, unlink, writeFile } from "node:fs/promises";
import { connect, createServer, type Server, type Socket } from "node:net";
import { join } from "node:path";
import type { LevelDb } from "../../../store/level.js";
import { messageOf } from "../../../base/errors.js";
import type { Logger } from "../../../base/logger.js";
import { DevnetError } from "../shared/errors.js";
import type { PinnedSnapshot } from "./pin.js";

export const snapshotSocketPath = (home: string) => join(home, "snapshot.sock");
export const snapshotEndpointPath = (home: string) => join(home, "snapshot.endpoint.json");

/** The longest unix socket path used (sun_path holds 108 bytes on Linux, 104 on macOS). */
const MAX_SOCKET_PATH = 100;
/** Snapshots served at once; more are refused (a rehearsal is an operator's tool, not a service). */
const MAX_CONCURRENT = 2;
const REQUEST_LIMIT = 4096;
const FLUSH_BYTES = 256 * 1024;
const VIEW = { keyEncoding: "view", valueEncoding: "view" } as const;
const HEIGHT_KEY = 0x68; // 'h': the commit multistore's last committed height

const FRAME_ENTRY = 0x45; // 'E'
const FRAME_DONE = 0x44; // 'D'
const FRAME_ERROR = 0x58; // 'X'

export interface SnapshotServer {
  /** `unix://<path>` or `tcp://127.0.0.1:<port>`. */
  readonly address: string;
  /** Stops serving (snapshots in flight are cut off) and removes the socket or endpoint file. */
  close(): Promise<void>;
}

export interface SnapshotStats {
  /** The committed height the snapshot holds. */
  height: bigint;
  entries: number;
  /** Bytes of keys and values. */
  bytes: number;
  /** The snapshot the node holds for the plan's rehearsals (pin.ts), not the state as of the request. */
  pinned: boolean;
}

/** The plan a rehearsal is for, as the snapshot request names it. */
export interface SnapshotPlan {
  name: string;
  height: bigint;
}

/** Serves snapshots of `db` (the node's application database) for `home`. */
export async function serveSnapshots(o: {
  home: string;
  db: LevelDb;
  logger: Required<Logger>;
  /** The snapshot held for a plan's rehearsals, if any. */
  pinned?: (name: string, height: bigint) => PinnedSnapshot | undefined;
}): Promise<SnapshotServer> {
  const { home, db, logger } = o;
  const socketPath = snapshotSocketPath(home);
  const endpointPath = snapshotEndpointPath(home);
  const useUnix = Buffer.byteLength(socketPath) <= MAX_SOCKET_PATH && process.platform !== "win32";
  const token = useUnix ? "" : randomBytes(32).toString("hex");
  const sockets = new Set<Socket>();
  let active = 0;

  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => undefined);
    void readRequest(socket).then(
      (req) => {
        if (useUnix === false && !tokenMatches(req.token, token)) return refuse(socket, "a token is required (see snapshot.endpoint.json)");
        if (req.op !== "snapshot") return refuse(socket, `unknown op ${JSON.stringify(req.op)}`);
        if (active >= MAX_CONCURRENT) return refuse(socket, `busy: ${active} snapshots are being served`);
        const plan = requestedPlan(req.plan);
        const pin = plan && o.pinned?.(plan.name, plan.height);
        active++;
        const started = performance.now();
        return streamSnapshot(db, socket, pin?.snapshot)
          .then(
            (s) =>
              logger.info("served a state snapshot", {
                module: "rehearse",
                height: s.height,
                pinned: s.pinned,
                entries: s.entries,
                bytes: s.bytes,
                duration_ms: round(performance.now() - started),
              }),
            (e: unknown) => logger.warn("a state snapshot was not completed", { module: "rehearse", err: messageOf(e) }),
          )
          .finally(() => active--);
      },
      (e: unknown) => refuse(socket, messageOf(e)),
    );
  });

  let address: string;
  if (useUnix) {
    // The database is open, so no other node of this home runs: a socket file left here is stale.
    await unlink(socketPath).catch(() => undefined);
    await listen(server, { path: socketPath });
    await chmod(socketPath, 0o600);
    address = `unix://${socketPath}`;
  } else {
    await listen(server, { host: "127.0.0.1", port: 0 });
    const port = (server.address() as { port: number }).port;
    address = `tcp://127.0.0.1:${port}`;
    await writeFile(endpointPath, JSON.stringify({ address, token }) + "\n", { mode: 0o600 });
  }
  let closing: Promise<void> | undefined;
  return {
    address,
    close() {
      closing ??= (async () => {
        for (const s of sockets) s.destroy();
        await new Promise<void>((resolve) => server.close(() => resolve()));
        if (!useUnix) await rm(endpointPath, { force: true });
      })();
      return closing;
    },
  };
}

function listen(server: Server, where: { path: string } | { host: string; port: number }): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(where, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/** The request's plan, when it names one well; anything else asks for the latest state. */
function requestedPlan(p: unknown): SnapshotPlan | undefined {
  if (typeof p !== "object" || p === null) return undefined;
  const { name, height } = p as { name?: unknown; height?: unknown };
  if (typeof name !== "string" || typeof height !== "string" || !/^[1-9][0-9]{0,18}$/.test(height)) return undefined;
  return { name, height: BigInt(height) };
}

function tokenMatches(given: unknown, expected: string): boolean {
  if (typeof given !== "string" || given.length !== expected.length) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}

/** The request line: one JSON object, at most REQUEST_LIMIT bytes, within 5 s. */
function readRequest(socket: Socket): Promise<{ op?: unknown; token?: unknown; plan?: unknown }> {
  return new Promise((resolve, reject) => {
    let buf = "";
    const timer = setTimeout(() => fail(new Error("no request within 5 s")), 5000);
    const fail = (e: Error) => {
      cleanup();
      reject(e);
    };
    const onData = (d: Buffer) => {
      buf += d.toString("utf8");
      const nl = buf.indexOf("\n");
      if (nl < 0) {
        if (buf.length > REQUEST_LIMIT) fail(new Error("request too long"));
        return;
      }
      cleanup();
      try {
        const req = JSON.parse(buf.slice(0, nl)) as unknown;
        if (typeof req !== "object" || req === null) throw new Error("not an object");
        resolve(req);
      } catch {
        reject(new Error("the request is not a JSON object"));
      }
    };
    const onEnd = () => fail(new Error("the connection closed before the request"));
    const cleanup = () => {
      clearTimeout(timer);
      socket.off("data", onData);
      socket.off("end", onEnd);
    };
    socket.on("data", onData);
    socket.on("end", onEnd);
  });
}

function frame(type: number, json: unknown): Buffer {
  const body = Buffer.from(JSON.stringify(json), "utf8");
  const head = Buffer.alloc(5);
  head[0] = type;
  head.writeUInt32BE(body.length, 1);
  return Buffer.concat([head, body]);
}

function refuse(socket: Socket, error: string): void {
  if (!socket.destroyed) socket.end(frame(FRAME_ERROR, { error }));
}

/** Streams every entry of `db` as of NOW (the iterator's implicit snapshot), or of a held snapshot, then the summary. */
async function streamSnapshot(db: LevelDb, socket: Socket, held?: ReturnType<LevelDb["snapshot"]>): Promise<SnapshotStats> {
  // Created synchronously here: this is the moment of the snapshot (classic-level takes a LevelDB snapshot
  // in the iterator's constructor), between two atomic block batches — unless one is held already.
  const it = db.iterator({ ...VIEW, highWaterMarkBytes: 1 << 20, ...(held ? { snapshot: held } : {}) } as Parameters<LevelDb["iterator"]>[0]);
  let entries = 0;
  let bytes = 0;
  let height: bigint | undefined;
  let gone = false;
  const onClose = () => (gone = true);
  socket.once("close", onClose);
  try {
    // Frames are copied into one buffer per FLUSH_BYTES: a few allocations per chunk, not three per entry.
    let chunk = Buffer.allocUnsafe(FLUSH_BYTES);
    let used = 0;
    const flush = async () => {
      if (used === 0) return;
      const out = chunk.subarray(0, used);
      chunk = Buffer.allocUnsafe(FLUSH_BYTES);
      used = 0;
      if (!socket.write(out)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            socket.off("drain", done);
            socket.off("close", done);
            resolve();
          };
          socket.on("drain", done);
          socket.on("close", done);
        });
      }
    };
    for (;;) {
      const batch = (await it.nextv(1000)) as [Uint8Array, Uint8Array][];
      if (gone) throw new DevnetError("snapshot", "the client went away");
      if (batch.length === 0) break;
      for (const [k, v] of batch) {
        const size = 9 + k.length + v.length;
        if (used + size > chunk.length) {
          await flush();
          if (gone) throw new DevnetError("snapshot", "the client went away");
          if (size > chunk.length) chunk = Buffer.allocUnsafe(size);
        }
        chunk[used] = FRAME_ENTRY;
        chunk.writeUInt32BE(k.length, used + 1);
        chunk.writeUInt32BE(v.length, used + 5);
        chunk.set(k, used + 9);
        chunk.set(v, used + 9 + k.length);
        used += size;
        entries++;
        bytes += k.length + v.length;
        if (k.length === 1 && k[0] === HEIGHT_KEY && v.length === 8) height = Buffer.from(v.buffer, v.byteOffset, 8).readBigUInt64BE(0);
      }
    }
    await flush();
    if (height === undefined) throw new DevnetError("snapshot", "the database has no committed height");
    socket.end(frame(FRAME_DONE, { entries, bytes, height: height.toString(), pinned: held !== undefined }));
    return { height, entries, bytes, pinned: held !== undefined };
  } catch (e) {
    refuse(socket, messageOf(e));
    throw e;
  } finally {
    socket.off("close", onClose);
    await it.close().catch(() => undefined);
  }
}

/** Where a node of `home` serves snapshots, if it says so: undefined when there is no socket or endpoint file. */
async function findSnapshotEndpoint(home: string): Promise<{ path: string } | { host: string; port: number; token: string } | undefined> {
  const socketPath = snapshotSocketPath(home);
  const st = await lstat(socketPath).catch(() => undefined);
  if (st?.isSocket()) return { path: socketPath };
  let text: string;
  try {
    text = await readFile(snapshotEndpointPath(home), "utf8");
  } catch {
    return undefined;
  }
  const e = JSON.parse(text) as { address?: string; token?: string };
  const m = /^tcp:\/\/127\.0\.0\.1:(\d+)$/.exec(e.address ?? "");
  if (!m || typeof e.token !== "string") throw new DevnetError("snapshot", `${snapshotEndpointPath(home)} is not a snapshot endpoint`);
  return { host: "127.0.0.1", port: Number(m[1]), token: e.token };
}

/** No node answers at the endpoint: it is not running (the socket or endpoint file is a leftover). */
export class NoNodeError extends Error {
  override name = "NoNodeError";
}

/**
 * Asks the node of `home` for a snapshot and writes every entry into the fresh database `dest()` makes (called
 * only once a node answers: a classic-level instance creates its directory when it is made). Resolves with the snapshot's height and size, or undefined when no node serves
 * one (no endpoint, or nobody listening). Rejects when the node refuses or stops mid-way.
 */
export async function fetchSnapshot(home: string, dest: () => LevelDb, plan?: SnapshotPlan): Promise<SnapshotStats | undefined> {
  const endpoint = await findSnapshotEndpoint(home);
  if (!endpoint) return undefined;
  let socket: Socket;
  try {
    socket = await new Promise<Socket>((resolve, reject) => {
      const s = "path" in endpoint ? connect({ path: endpoint.path }) : connect({ host: endpoint.host, port: endpoint.port });
      s.once("connect", () => {
        s.off("error", reject);
        resolve(s);
      });
      s.once("error", reject);
    });
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === "ECONNREFUSED" || code === "ENOENT") return undefined;
    throw e;
  }
  const db = dest();
  try {
    await db.open();
    return await receive(socket, db, "token" in endpoint ? endpoint.token : undefined, plan);
  } finally {
    socket.destroy();
    await db.close();
  }
}

function receive(socket: Socket, dest: LevelDb, token: string | undefined, plan: SnapshotPlan | undefined): Promise<SnapshotStats> {
  return new Promise<SnapshotStats>((resolve, reject) => {
    let buf: Buffer = Buffer.alloc(0);
    let ops: { type: "put"; key: Uint8Array; value: Uint8Array }[] = [];
    let opBytes = 0;
    let entries = 0;
    let bytes = 0;
    let height: bigint | undefined;
    let writing: Promise<void> = Promise.resolve();
    let settled = false;
    const fail = (e: Error) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      void writing.catch(() => undefined).then(() => reject(e));
    };
    const write = () => {
      if (ops.length === 0) return;
      const batch = ops;
      ops = [];
      opBytes = 0;
      socket.pause();
      writing = writing
        .then(() => dest.batch(batch, { ...VIEW, sync: false } as never))
        .then(
          () => void socket.resume(),
          (e: unknown) => fail(new Error(`cannot write the snapshot copy: ${messageOf(e)}`)),
        );
    };
    socket.on("data", (chunk: Buffer) => {
      buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
      let off = 0;
      while (!settled) {
        if (buf.length - off < 5) break;
        const type = buf[off];
        if (type === FRAME_ENTRY) {
          if (buf.length - off < 9) break;
          const kl = buf.readUInt32BE(off + 1);
          const vl = buf.readUInt32BE(off + 5);
          if (buf.length - off < 9 + kl + vl) break;
          const key = new Uint8Array(buf.subarray(off + 9, off + 9 + kl));
          const value = new Uint8Array(buf.subarray(off + 9 + kl, off + 9 + kl + vl));
          off += 9 + kl + vl;
          ops.push({ type: "put", key, value });
          opBytes += kl + vl;
          entries++;
          bytes += kl + vl;
          if (kl === 1 && key[0] === HEIGHT_KEY && vl === 8) height = Buffer.from(value).readBigUInt64BE(0);
          if (ops.length >= 1000 || opBytes >= 4 << 20) write();
          continue;
        }
        const n = buf.readUInt32BE(off + 1);
        if (buf.length - off < 5 + n) break;
        let body: { error?: string; entries?: number; bytes?: number; height?: string; pinned?: boolean };
        try {
          body = JSON.parse(buf.subarray(off + 5, off + 5 + n).toString("utf8")) as typeof body;
        } catch {
          return fail(new Error("the node sent a malformed snapshot frame"));
        }
        if (type === FRAME_ERROR) return fail(new Error(`the node could not serve a snapshot: ${body.error ?? "unknown error"}`));
        if (type !== FRAME_DONE) return fail(new Error(`the node sent an unknown snapshot frame 0x${type.toString(16)}`));
        if (body.entries !== entries || body.bytes !== bytes || height === undefined || body.height !== height.toString()) {
          return fail(
            new Error(
              `the snapshot is incomplete: ${entries} entries (${bytes} bytes) at height ${height} received, the node sent ${body.entries} (${body.bytes}) at ${body.height}`,
            ),
          );
        }
        write();
        settled = true;
        const h = height;
        void writing.then(() => resolve({ height: h, entries, bytes, pinned: body.pinned === true }), reject);
        return;
      }
      buf = off === buf.length ? Buffer.alloc(0) : buf.subarray(off);
    });
    socket.on("error", (e) => fail(new Error(`the snapshot channel failed: ${e.message}`)));
    socket.on("close", () => fail(new NoNodeError("the node closed the snapshot channel before the end (did it stop?)")));
    const request = {
      op: "snapshot",
      ...(plan ? { plan: { name: plan.name, height: plan.height.toString() } } : {}),
      ...(token === undefined ? {} : { token }),
    };
    socket.write(JSON.stringify(request) + "\n");
  });
}

const round = (ms: number) => Math.round(ms * 100) / 100;
