/**
 * A validator that misbehaves on the wire: a userspace proxy between its CometBFT and its ABCI application
 * that rewrites the application's answers (ExtendVote's vote extension, here). CometBFT then signs and gossips
 * what the proxy made, exactly as it would a buggy or malicious application's: the other validators receive a
 * real, validly signed vote carrying it.
 *
 * `cometbftWrapper` writes an executable that runs the real `cometbft` with `--proxy_app` pointed at the
 * proxy; the node is started with `--cometbft <wrapper>` and does not know.
 */
import { chmodSync, writeFileSync } from "node:fs";
import { connect, createServer, type Server, type Socket } from "node:net";
import { Response } from "cosmjs-types/tendermint/abci/types";
import { encodeFrame, FrameReader } from "../../bindings/abci/index.js";

export interface AbciProxy {
  /** `unix://<path>` the proxied CometBFT connects to. */
  readonly address: string;
  /** How many answers were rewritten. */
  readonly rewritten: () => number;
  close(): Promise<void>;
}

/**
 * Listens on the unix socket `listen`; each connection is piped to `upstream` (a unix socket path). Frames
 * from the application are decoded as `Response`s and handed to `rewrite`, which returns the response to send
 * instead (or undefined to pass it unchanged).
 */
export async function startAbciProxy(o: { listen: string; upstream: string; rewrite: (r: Response) => Response | undefined }): Promise<AbciProxy> {
  let rewritten = 0;
  const sockets = new Set<Socket>();
  const server: Server = createServer((down) => {
    sockets.add(down);
    const up = connect({ path: o.upstream });
    sockets.add(up);
    const reader = new FrameReader();
    const close = () => {
      down.destroy();
      up.destroy();
    };
    down.on("close", close).on("error", close);
    up.on("close", close).on("error", close);
    down.pipe(up);
    up.on("data", (chunk: Buffer) => {
      try {
        reader.push(chunk);
        for (let frame = reader.next(); frame !== undefined; frame = reader.next()) {
          const res = Response.decode(frame);
          const changed = o.rewrite(res);
          if (changed) rewritten++;
          down.write(changed ? encodeFrame(Response.encode(changed).finish()) : encodeFrame(frame));
        }
      } catch {
        close();
      }
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ path: o.listen }, () => resolve());
  });
  return {
    address: `unix://${o.listen}`,
    rewritten: () => rewritten,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** An executable that runs `cometbft` with every argument as given, except `--proxy_app <x>` → `--proxy_app <proxy>`. */
export function cometbftWrapper(path: string, cometbft: string, proxyAddress: string): string {
  writeFileSync(
    path,
    [
      `#!${process.execPath}`,
      "// A CometBFT whose ABCI connection goes through a test's proxy (test/support/abci-proxy.ts).",
      'const { spawn } = require("node:child_process");',
      "const args = process.argv.slice(2);",
      'const i = args.indexOf("--proxy_app");',
      `if (i >= 0) args[i + 1] = ${JSON.stringify(proxyAddress)};`,
      `const child = spawn(${JSON.stringify(cometbft)}, args, { stdio: "inherit" });`,
      'for (const s of ["SIGINT", "SIGTERM"]) process.on(s, () => child.kill(s));',
      'child.on("exit", (code, signal) => process.exit(code ?? (signal === "SIGKILL" ? 137 : 143)));',
      "",
    ].join("\n"),
  );
  chmodSync(path, 0o755);
  return path;
}
