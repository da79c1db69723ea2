/**
 * `devnet start` in standby for a sidecar's prestart (bindings/apps/devnet/node/standby.ts, docs/spec/sidecar.md
 * §5.5), as the real CLI in its own process: with XUPGRADE_STANDBY_FD=3 it loads what it can, says `ready`
 * on fd 3 with nothing under data/ touched, and waits; `go` starts the node; a closed fd ends it, data/
 * still untouched.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Socket } from "node:net";
import { afterAll, describe, expect, it } from "vitest";
import { cliArgs } from "../cli/helpers.js";
import { newHome, removeTempDirs, waitUntil } from "./helpers.js";

afterAll(removeTempDirs);

/** What data/ holds: each entry's name, size and modification time. */
const dataState = (home: string) =>
  readdirSync(join(home, "data"))
    .sort()
    .map((n) => `${n} ${statSync(join(home, "data", n)).size} ${statSync(join(home, "data", n)).mtimeMs}`);

function standby(home: string): {
  child: ChildProcess;
  channel: Socket;
  out: () => string;
  err: () => string;
  said: () => string;
  exited: Promise<number | null>;
} {
  const child = spawn(
    process.execPath,
    [...cliArgs(), "devnet", "start", "--home", home, "--rpc", "127.0.0.1:0", "--rest", "127.0.0.1:0", "--grpc", "127.0.0.1:0"],
    {
      stdio: ["ignore", "pipe", "pipe", "pipe"],
      env: { ...process.env, XUPGRADE_STANDBY_FD: "3" },
    },
  );
  let out = "";
  let err = "";
  let said = "";
  child.stdout!.on("data", (d) => (out += d));
  child.stderr!.on("data", (d) => (err += d));
  const channel = child.stdio[3] as Socket;
  channel.on("data", (d) => (said += d));
  channel.on("error", () => undefined);
  const exited = new Promise<number | null>((r) => child.on("exit", (code) => r(code)));
  return { child, channel, out: () => out, err: () => err, said: () => said, exited };
}

describe("devnet start in standby", { timeout: 60_000 }, () => {
  it("says ready with data/ untouched; a closed fd ends it, data/ still untouched", async () => {
    const { home } = await newHome();
    const before = dataState(home);
    const s = standby(home);
    await waitUntil(() => s.said() === "ready\n", 30_000, "ready");
    expect(dataState(home)).toEqual(before);
    s.channel.destroy();
    expect(await s.exited).toBe(1);
    expect(s.err()).toContain("Error: standby ended: the sidecar that started this node in standby did not hand it over (nothing under data/ was touched)");
    expect(s.out()).not.toContain('"starting devnet"');
    expect(dataState(home)).toEqual(before);
  });

  it("go: the node opens its home and runs", async () => {
    const { home } = await newHome();
    const s = standby(home);
    await waitUntil(() => s.said() === "ready\n", 30_000, "ready");
    s.channel.end("go\n");
    await waitUntil(() => s.out().includes('"msg":"starting devnet"') && s.err().includes("devnet running:"), 30_000, "the node to run");
    s.child.kill("SIGTERM");
    expect(await s.exited).toBe(0);
  });
});
