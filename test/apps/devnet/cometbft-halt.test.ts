/**
 * The CometBFT engine's halt helpers (docs/spec/keeper.md §6.2), on real inputs:
 *
 * - which peers hold the decision for H, read from a `/dump_consensus_state` a real CometBFT v0.38.26 answered
 *   the moment its node halted at H = 30 (fixtures/dump-consensus-state.json: its three peers were still
 *   prevoting and precommitting), and from that answer as it reads once they enter the commit step;
 * - waiting for the CometBFT of an earlier run on the same home, with real processes: one whose command
 *   line names the home is waited for until it exits (and for at most the timeout), anything else is not.
 */
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { holdingDecision } from "../../../bindings/apps/devnet/node/engine/cometbft/halt.js";
import { cometPidPath, waitForEarlierCometbft } from "../../../bindings/apps/devnet/node/engine/cometbft/process.js";
import { silentLogger } from "../../../bindings/apps/devnet/index.js";
import { removeTempDirs, tempDir, waitUntil } from "./helpers.js";

afterAll(() => removeTempDirs());

type Dump = { peers: { node_address: string; peer_state: { round_state: Record<string, unknown> } }[] };
const captured = JSON.parse(readFileSync(new URL("./fixtures/dump-consensus-state.json", import.meta.url), "utf8")) as Dump;
const BLOCK = "E1F9158B756220842EA4547BCE1B45142C3B39F7B8B59DBD281DBE3D9713AC40";
const ids = captured.peers.map((p) => p.node_address.split("@")[0]);

/** The captured answer with peer `i`'s round state changed. */
function withPeer(i: number, change: Record<string, unknown>): Dump {
  const d = structuredClone(captured);
  Object.assign(d.peers[i].peer_state.round_state, change);
  return d;
}

describe("which peers hold the decision for H", () => {
  it("none, in the answer CometBFT gave at the halt: its peers were still prevoting and precommitting", () => {
    expect(captured.peers.map((p) => p.peer_state.round_state.step)).toEqual([6, 6, 4]);
    expect(holdingDecision(captured, 30n, BLOCK)).toEqual([]);
  });

  it("a peer at H in the commit step with every part of the decided block; or past H", () => {
    expect(holdingDecision(withPeer(0, { step: 8 }), 30n, BLOCK)).toEqual([ids[0]]);
    expect(holdingDecision(withPeer(2, { height: "31", step: 1, proposal_block_parts: null }), 30n, BLOCK)).toEqual([ids[2]]);
  });

  it("not a peer in the commit step that lacks parts, has another block's parts, or is at another height", () => {
    const commit = { step: 8 };
    expect(holdingDecision(withPeer(0, { ...commit, proposal_block_parts: "_" }), 30n, BLOCK)).toEqual([]);
    expect(holdingDecision(withPeer(0, { ...commit, proposal_block_parts: null }), 30n, BLOCK)).toEqual([]);
    expect(
      holdingDecision(withPeer(0, { ...commit, proposal_block_part_set_header: { total: 2, hash: BLOCK }, proposal_block_parts: "x_" }), 30n, BLOCK),
    ).toEqual([]);
    expect(holdingDecision(withPeer(0, { ...commit, proposal_block_part_set_header: { total: 1, hash: "AB".repeat(32) } }), 30n, BLOCK)).toEqual([]);
    expect(holdingDecision(withPeer(0, { ...commit, height: "29" }), 30n, BLOCK)).toEqual([]);
  });

  it("ignores what it cannot read", () => {
    const odd = { peers: [{ node_address: 5 }, { node_address: "abc@x:1", peer_state: { round_state: { height: 31 } } }, {}] };
    expect(holdingDecision(odd as never, 30n, BLOCK)).toEqual([]);
    expect(holdingDecision({}, 30n, BLOCK)).toEqual([]);
  });
});

describe("the CometBFT of an earlier run on the same home", () => {
  /** A real process whose command line looks like the CometBFT a node starts on `home` (once it has exec'd). */
  async function lookalike(home: string) {
    const child = spawn(process.execPath, ["-e", "setTimeout(() => {}, 60000)", "start", "--home", home, "--proxy_app", "unix:///x.sock"], { stdio: "ignore" });
    const exited = new Promise<void>((r) => child.once("exit", () => r()));
    await waitUntil(() => readFileSync(`/proc/${child.pid}/cmdline`, "utf8").includes(home), 10_000, "the lookalike to start");
    return { child, exited };
  }

  function home(): string {
    const h = tempDir("xupgrade-comet-pid-");
    mkdirSync(join(h, "data"));
    return h;
  }

  it("is waited for until it exits", async () => {
    const h = home();
    const old = await lookalike(h);
    writeFileSync(cometPidPath(h), `${old.child.pid}\n`);
    let waited = false;
    const wait = waitForEarlierCometbft(h, silentLogger, 20_000).then(() => (waited = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(waited).toBe(false);
    old.child.kill("SIGTERM");
    await old.exited;
    await wait;
  });

  it("for at most the timeout", async () => {
    const h = home();
    const old = await lookalike(h);
    writeFileSync(cometPidPath(h), `${old.child.pid}\n`);
    try {
      await expect(waitForEarlierCometbft(h, silentLogger, 300)).rejects.toThrow(
        `the CometBFT of an earlier run on ${h} (pid ${old.child.pid}) is still running after 0.3 s: stop it first`,
      );
    } finally {
      old.child.kill("SIGKILL");
    }
  });

  it("is not waited for when the file names another home's process, a dead pid, or garbage", async () => {
    const h = home();
    const other = await lookalike(home());
    try {
      for (const content of [`${other.child.pid}\n`, "999999999\n", "not a pid\n"]) {
        writeFileSync(cometPidPath(h), content);
        await waitForEarlierCometbft(h, silentLogger, 20_000);
      }
      await waitForEarlierCometbft(home(), silentLogger, 20_000); // no file at all
    } finally {
      other.child.kill("SIGKILL");
    }
  });
});
