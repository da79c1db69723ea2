/**
 * Transactions (live only; docs/spec/interop.md §7): `xupgrade tx …` accepted by a real chain of each SDK line —
 * simd v0.50, and appd (test/peers/app) on SDK v0.53 and v0.54.
 * The same two keys live in simd's test keyring and in the xupgrade keyring, both recovered from fixed
 * mnemonics. xupgrade submits a software-upgrade proposal, simd's validator votes with `xupgrade tx gov vote`,
 * the proposal passes and simd stores the plan; a cancel proposal passes and removes it; a third plan, a few
 * blocks ahead and with an info full of characters Go's JSON escapes, passes and the node halts at its height
 * with `UPGRADE "<name>" NEEDED at height: <h>: <info>` — and its upgrade-info.json is byte for byte the one
 * the keeper writes for that plan. `--generate-only` of both CLIs for the same proposal is compared too (TX-1
 * on v0.53 and later), and the node's own `tx sign` signs xupgrade's unsigned file.
 */
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeUpgradeInfo } from "../../bindings/module/upgrade-info/file.js";
import { runCli, type CliResult } from "../apps/cli/helpers.js";
import { removeTempDirs, tempDir } from "../support/temp.js";
import { HALT_PLAN } from "./support/capture.js";
import { SDK_V053_VERSION, SDK_V054_VERSION } from "../../scripts/peers/paths.mjs";
import type { CliRecord } from "./support/cli.js";
import { judge } from "./support/differences.js";
import type { LineKey } from "./support/lines.js";
import { interopPeers } from "./support/peers.js";
import {
  KEYS,
  MIN_DEPOSIT,
  initSimd,
  killAll,
  nodeFlags,
  proposalStatus,
  runOk,
  startSimd,
  waitForHalt,
  waitForStatus,
  type KeyName,
  type SimdNode,
} from "./support/simd.js";
import { waitUntil } from "../support/wait.js";

const peers = interopPeers();
/** The chains: simd v0.50 and appd on v0.53 and v0.54 (the same CLI shape: `tx upgrade`, `tx gov`, `q gov`). */
const TARGETS: { line: LineKey; label: string; binary: string }[] = [
  { line: "simd-v050", label: "simd v0.50.15", binary: peers.simd050 },
  { line: "app-v053", label: `appd ${SDK_V053_VERSION}`, binary: peers.app053 },
  { line: "app-v054", label: `appd ${SDK_V054_VERSION}`, binary: peers.app054 },
];

/** A CLI run as a comparison record (./support/compare.ts). */
const record = (tool: "simd" | "xupgrade", r: { code: number | null; stdout: string; stderr: string }): CliRecord => ({
  id: "generate-only",
  tool,
  args: ["tx", "upgrade", "software-upgrade", "--generate-only"],
  code: r.code,
  stdout: r.stdout,
  stderr: r.stderr,
});

afterAll(async () => {
  await killAll();
  removeTempDirs();
});

for (const target of TARGETS) {
  describe(`xupgrade transactions on a real ${target.label} chain`, () => {
    let node: SimdNode;
    let xhome: string;

    const kr = () => ["--keyring-backend", "test", "--home", xhome];
    const xtx = (args: string[], from: KeyName) =>
      runCli(["tx", ...args, "--from", from, ...kr(), "--node", node.rpcUrl, "--gas", "400000", "-y", "-o", "json"], { timeoutMs: 90_000 });

    const currentPlan = async (): Promise<string> => (await fetch(`${node.restUrl}/cosmos/upgrade/v1beta1/current_plan`)).text();

    /** `xupgrade tx upgrade …` from alice, then `xupgrade tx gov vote <id> yes` from the validator; resolves with the proposal id once the node says PASSED. */
    async function proposeAndVote(upgradeArgs: string[]): Promise<{ id: string; submit: Record<string, unknown>; vote: Record<string, unknown> }> {
      const submit = JSON.parse(
        ok(await xtx(["upgrade", ...upgradeArgs, "--title", "interop", "--summary", "from xupgrade", "--deposit", MIN_DEPOSIT], "alice")).stdout,
      ) as Record<string, unknown>;
      const id = String(submit.proposal_id);
      const vote = JSON.parse(ok(await xtx(["gov", "vote", id, "yes"], "validator")).stdout) as Record<string, unknown>;
      await waitForStatus(node, target.binary, Number(id), "PROPOSAL_STATUS_PASSED", 60_000);
      return { id, submit, vote };
    }

    beforeAll(async () => {
      const h = await initSimd({ binary: target.binary });
      node = startSimd(h);
      xhome = tempDir("xupgrade-interop-keys-");
      for (const [name, key] of Object.entries(KEYS)) ok(await runCli(["keys", "add", name, "--recover", ...kr()], { input: `${key.mnemonic}\n` }));
      await node.ready();
    }, 120_000);

    afterAll(async () => {
      await node?.stop().catch(() => undefined);
    });

    it("the xupgrade keyring recovered from the mnemonics holds the node's addresses", async () => {
      for (const [name, key] of Object.entries(KEYS)) {
        const ours = ok(await runCli(["keys", "show", name, "-a", ...kr()])).stdout.trim();
        const theirs = (await runOk(target.binary, ["keys", "show", name, "-a", "--keyring-backend", "test", "--home", node.home])).stdout.trim();
        expect([ours, theirs]).toEqual([key.address, key.address]);
      }
    });

    it("--generate-only: both CLIs print the same unsigned proposal, byte for byte (v0.53+: but for TX-1), and the node signs ours", async () => {
      const common = ["--upgrade-height", "1000000", "--upgrade-info", "", "--title", "interop", "--summary", "s", "--deposit", MIN_DEPOSIT, "--no-validate"];
      const theirs = await runOk(target.binary, [
        "tx",
        "upgrade",
        "software-upgrade",
        "interop-gen",
        ...common,
        "--from",
        KEYS.alice.address,
        "--generate-only",
        "--chain-id",
        node.chainId,
        ...nodeFlags(node),
      ]);
      const ours = ok(
        await runCli([
          "tx",
          "upgrade",
          "software-upgrade",
          "interop-gen",
          ...common,
          "--from",
          KEYS.alice.address,
          "--generate-only",
          "--chain-id",
          node.chainId,
          "--node",
          node.rpcUrl,
        ]),
      );
      console.log(`generate-only (${target.label})\n  peer:     ${theirs.stdout.trim()}\n  xupgrade: ${ours.stdout.trim()}`);
      const v = judge(
        "tx",
        { id: "generate-only", simd: record("simd", theirs), ours: record("xupgrade", ours), same: theirs.stdout === ours.stdout },
        target.line,
      );
      expect(v.uncovered, `generate-only differs on ${target.label} in ${v.uncovered.join(", ")}`).toEqual([]);
      // TX-1 on v0.53 and later: the node's body has exactly the two TxBody fields v0.53 added, at their defaults.
      expect(v.covered.map((d) => d.key)).toEqual(target.line === "simd-v050" ? [] : ["TX-1"]);
      expect(theirs.stdout).toBe(
        target.line === "simd-v050"
          ? ours.stdout
          : ours.stdout.replace('"timeout_height":"0",', '"timeout_height":"0","unordered":false,"timeout_timestamp":null,'),
      );
      // …and the node's own CLI reads and signs xupgrade's file (offline: no account query).
      const file = join(tempDir("xupgrade-interop-unsigned-"), "unsigned.json");
      writeFileSync(file, ours.stdout);
      const signed = await runOk(target.binary, [
        "tx",
        "sign",
        file,
        "--offline",
        "--account-number",
        "0",
        "--sequence",
        "0",
        "--from",
        "alice",
        "--keyring-backend",
        "test",
        "--home",
        node.home,
        "--chain-id",
        node.chainId,
      ]);
      expect((JSON.parse(signed.stdout) as { signatures: string[] }).signatures).toHaveLength(1);
    });

    it("software-upgrade and gov vote from xupgrade: the node accepts both, the proposal passes, the node stores the plan", async () => {
      const info =
        '{"binaries":{"linux/amd64":"https://example.invalid/simd.tar.gz?checksum=sha256:0d5b9f8a5bbf7c2c1b1d4c0e7c1e8a4f1e2d3c4b5a69788796a5b4c3d2e1f001"}}';
      const { submit, vote } = await proposeAndVote(["software-upgrade", "interop-tx", "--upgrade-height", "1000000", "--upgrade-info", info, "--no-validate"]);
      expect(submit.code).toBe(0);
      expect(vote.code).toBe(0);
      expect(await currentPlan()).toBe(
        `{"plan":{"name":"interop-tx","time":"0001-01-01T00:00:00Z","height":"1000000","info":${JSON.stringify(info)},"upgraded_client_state":null}}`,
      );
    }, 150_000);

    it("cancel-software-upgrade from xupgrade passes and the node removes the plan", async () => {
      await proposeAndVote(["cancel-software-upgrade"]);
      await waitUntil(async () => (await currentPlan()) === '{"plan":null}', 20_000, "the plan to be removed");
    }, 150_000);

    it("a plan a few blocks ahead: the node halts at its height and writes the keeper's upgrade-info.json bytes", async () => {
      const height = (await node.height()) + 40;
      const { id } = await proposeAndVote([
        "software-upgrade",
        HALT_PLAN.name,
        "--upgrade-height",
        String(height),
        "--upgrade-info",
        HALT_PLAN.info,
        "--no-validate",
      ]);
      expect(await proposalStatus(node, target.binary, Number(id))).toBe("PROPOSAL_STATUS_PASSED");
      const halt = await waitForHalt(node.child, HALT_PLAN.name, 120_000);
      expect(halt.message).toBe(`UPGRADE "${HALT_PLAN.name}" NEEDED at height: ${height}: ${HALT_PLAN.info}`);
      const peerFile = join(node.home, "data/upgrade-info.json");
      const home = tempDir("xupgrade-interop-info-");
      await writeUpgradeInfo(home, { name: HALT_PLAN.name, height: BigInt(height), info: HALT_PLAN.info });
      const ours = join(home, "data/upgrade-info.json");
      expect(readFileSync(ours, "utf8")).toBe(readFileSync(peerFile, "utf8"));
      expect((statSync(ours).mode & 0o777).toString(8)).toBe((statSync(peerFile).mode & 0o777).toString(8));
    }, 180_000);
  });
}

function ok(r: CliResult): CliResult {
  if (r.code !== 0) throw new Error(`xupgrade exited ${r.code}\nstdout: ${r.stdout}\nstderr: ${r.stderr}`);
  return r;
}
