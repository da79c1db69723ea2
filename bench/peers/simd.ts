/**
 * The comparison node: a one-validator simd v0.50 chain on loopback ports, brought to the state every case
 * reads by the real upgrade of test/peers/README.md ("The simd v0.47 → v0.50 upgrade, by hand"):
 *   - a simd v0.47 chain schedules `v047-to-v050` by a gov proposal and halts at its height; simd v0.50 takes
 *     over the same home and applies it (RunMigrations), so `applied_plan/v047-to-v050` has a done record and a
 *     block header, and `module_versions` is what a migrated v0.50 chain stores. (A v0.50-only chain cannot do
 *     this: scheduling a plan its binary already has a handler for halts it, "BINARY UPDATED BEFORE TRIGGER".)
 *   - then simd v0.50 schedules a second plan `v050-to-v053` at a far height with a cosmovisor-style `info`, so
 *     `current_plan` has a plan.
 * Then the node is restarted with `create_empty_blocks = false`, so it makes no blocks while it is measured
 * (the xupgrade side makes none either).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort, getJson, log, sleep, stop, track, waitFor } from "./util.js";

export const APPLIED_NAME = "v047-to-v050";
export const PLAN_NAME = "v050-to-v053";
/** A plan far ahead (never reached), with an `info` as cosmovisor reads it. */
export const PLAN_HEIGHT = 10_000_000;
export const PLAN_INFO = JSON.stringify({
  binaries: {
    "linux/amd64": `https://example.invalid/simd-v0.53.0-linux-amd64.tar.gz?checksum=sha256:${"ab".repeat(32)}`,
    "linux/arm64": `https://example.invalid/simd-v0.53.0-linux-arm64.tar.gz?checksum=sha256:${"cd".repeat(32)}`,
  },
});

const CHAIN_ID = "bench-peers-1";
const GOV = "cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn";

export interface SimdChain {
  simd: string;
  home: string;
  chainId: string;
  rpc: string;
  /** `tcp://127.0.0.1:<port>` for simd's CLI. */
  node: string;
  rest: string;
  grpc: string;
  /** Pid of the running node. */
  pid: number;
  appliedHeight: number;
  plan: { name: string; height: string; info: string };
  moduleVersions: { name: string; version: string }[];
  /** How long bringing the chain to this state took. */
  setupSeconds: number;
  stop(): Promise<void>;
}

export interface SimdOptions {
  /** Command prefix for the measured v0.50 node process (CPU pinning). */
  prefix?: string[];
  /** Extra environment for the node (GOMAXPROCS). */
  env?: Record<string, string>;
}

function sh(cmd: string, args: string[], input?: string): string {
  const r = spawnSync(cmd, args, { encoding: "utf8", input, stdio: ["pipe", "pipe", "pipe"], timeout: 60_000 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.slice(0, 4).join(" ")} … failed (exit ${r.status}): ${(r.stderr || r.stdout).trim().slice(-600)}`);
  return r.stdout;
}

/** Edits `key = value` lines inside one `[section]` of a TOML file (or at the top when section is ""). */
function setToml(file: string, section: string, values: Record<string, string>): void {
  const lines = readFileSync(file, "utf8").split("\n");
  let current = "";
  const left = new Set(Object.keys(values));
  for (let i = 0; i < lines.length; i++) {
    const s = /^\s*\[([^\]]+)\]\s*$/.exec(lines[i]);
    if (s) {
      current = s[1];
      continue;
    }
    const kv = /^\s*([A-Za-z0-9_.-]+)\s*=/.exec(lines[i]);
    if (kv && current === section && kv[1] in values) {
      lines[i] = `${kv[1]} = ${values[kv[1]]}`;
      left.delete(kv[1]);
    }
  }
  if (left.size > 0) throw new Error(`${file}: no ${[...left].join(", ")} in [${section}]`);
  writeFileSync(file, lines.join("\n"));
}

export async function startSimdChain(simd047: string, simd050: string, options: SimdOptions = {}): Promise<SimdChain> {
  const t0 = performance.now();
  const dir = mkdtempSync(join(tmpdir(), "xupgrade-bench-simd-"));
  const home = join(dir, "home");
  const [rpcPort, p2pPort, grpcPort, apiPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const K = ["--keyring-backend", "test", "--home", home];
  const OLD = simd047;
  sh(OLD, ["init", "val", "--chain-id", CHAIN_ID, "--home", home]);
  sh(OLD, ["keys", "add", "validator", ...K, "--output", "json"]);
  sh(OLD, ["genesis", "add-genesis-account", "validator", "1000000000000stake", ...K]);
  sh(OLD, ["genesis", "gentx", "validator", "100000000stake", "--chain-id", CHAIN_ID, ...K]);
  sh(OLD, ["genesis", "collect-gentxs", "--home", home]);

  // Short gov periods and a 1stake deposit (v0.47 keeps them in app_state.gov.params).
  const genesisFile = join(home, "config/genesis.json");
  const genesis = JSON.parse(readFileSync(genesisFile, "utf8"));
  Object.assign(genesis.app_state.gov.params, { voting_period: "3s", max_deposit_period: "3s", min_deposit: [{ denom: "stake", amount: "1" }] });
  writeFileSync(genesisFile, JSON.stringify(genesis));

  const config = join(home, "config/config.toml");
  const app = join(home, "config/app.toml");
  setToml(config, "rpc", { laddr: `"tcp://127.0.0.1:${rpcPort}"`, pprof_laddr: '""' });
  setToml(config, "p2p", { laddr: `"tcp://127.0.0.1:${p2pPort}"` });
  setToml(config, "consensus", { timeout_commit: '"200ms"' });
  setToml(app, "api", { enable: "true", address: `"tcp://127.0.0.1:${apiPort}"` });
  setToml(app, "grpc", { address: `"127.0.0.1:${grpcPort}"` });
  setToml(app, "grpc-web", { enable: "false" }); // v0.47's own grpc-web listener (default localhost:9091)

  const rpc = `http://127.0.0.1:${rpcPort}`;
  const rest = `http://127.0.0.1:${apiPort}`;
  const node = `tcp://127.0.0.1:${rpcPort}`;
  const logFile = join(dir, "simd.log");
  let child: ChildProcess | undefined;

  const start = async (bin: string, prefix: string[] = [], env: Record<string, string> = {}) => {
    const out = openSync(logFile, "a");
    const [cmd, ...pre] = [...prefix, bin];
    child = track(spawn(cmd, [...pre, "start", "--home", home], { stdio: ["ignore", out, out], env: { ...process.env, ...env } }));
    const exited = new Promise<never>((_, reject) => child!.once("exit", (code) => reject(new Error(`simd exited (${code}); see ${logFile}`))));
    exited.catch(() => {});
    // The REST gateway answers 503 until simd's gRPC server is up: wait for a 200 (test/peers/README.md).
    await Promise.race([
      waitFor("simd's REST gateway", async () => ((await getJson(`${rest}/cosmos/upgrade/v1beta1/authority`)).status === 200 ? true : undefined), 60_000),
      exited,
    ]);
  };
  const height = async () =>
    Number(((await getJson(`${rpc}/status`)).body as { result: { sync_info: { latest_block_height: string } } }).result.sync_info.latest_block_height);
  const tx = (bin: string, args: string[]) => {
    const out = sh(bin, [...args, "--from", "validator", ...K, "--chain-id", CHAIN_ID, "--node", node, "--gas", "500000", "--yes", "--output", "json"]);
    const code = (JSON.parse(out) as { code: number }).code;
    if (code !== 0) throw new Error(`simd ${args.slice(0, 3).join(" ")}: tx code ${code}: ${out}`);
  };
  const proposalStatus = async (id: number) =>
    ((await getJson(`${rest}/cosmos/gov/v1/proposals/${id}`)).body as { proposal?: { status: string } }).proposal?.status;
  /** Submits a MsgSoftwareUpgrade gov proposal (the JSON form both versions take) and votes yes; resolves when it passed. */
  const upgrade = async (bin: string, id: number, name: string, planHeight: number, info: string) => {
    const file = join(dir, `proposal-${id}.json`);
    writeFileSync(
      file,
      JSON.stringify({
        messages: [{ "@type": "/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade", authority: GOV, plan: { name, height: String(planHeight), info } }],
        metadata: "",
        deposit: "1stake",
        title: name,
        summary: name,
      }),
    );
    tx(bin, ["tx", "gov", "submit-proposal", file]);
    await waitFor(`proposal ${id}`, async () => ((await proposalStatus(id)) ? true : undefined), 30_000);
    tx(bin, ["tx", "gov", "vote", String(id), "yes"]);
    const status = await waitFor(
      `proposal ${id} to end`,
      async () => {
        const s = await proposalStatus(id);
        return s === "PROPOSAL_STATUS_VOTING_PERIOD" ? undefined : s;
      },
      30_000,
    );
    if (status !== "PROPOSAL_STATUS_PASSED") throw new Error(`proposal ${id} (${name}) ended ${status}`);
  };

  try {
    // simd v0.47 schedules v047-to-v050 and halts at it (the process stays up; it is stopped here).
    await start(OLD);
    await waitFor("block 2", async () => ((await height()) >= 2 ? true : undefined), 30_000);
    const appliedHeight = (await height()) + 30;
    await upgrade(OLD, 1, APPLIED_NAME, appliedHeight, "");
    await waitFor(
      `simd v0.47 to halt at ${appliedHeight}`,
      async () => (readFileSync(logFile, "utf8").includes(`UPGRADE "${APPLIED_NAME}" NEEDED`) ? true : undefined),
      60_000,
    );
    await stop(child);

    // simd v0.50 applies it on the same home, then schedules the next plan.
    await start(simd050);
    await waitFor(
      `the ${APPLIED_NAME} upgrade`,
      async () => {
        const r = await getJson(`${rest}/cosmos/upgrade/v1beta1/applied_plan/${APPLIED_NAME}`);
        return (r.body as { height?: string }).height === String(appliedHeight) ? true : undefined;
      },
      60_000,
    );
    await upgrade(simd050, 2, PLAN_NAME, PLAN_HEIGHT, PLAN_INFO);

    // Restarted (pinned, when asked) and making no more blocks while it is measured.
    await stop(child);
    // No blocks while it is measured (create_empty_blocks = false would not do: the app hash changes every block,
    // and CometBFT then makes a block to prove it).
    setToml(config, "consensus", { timeout_commit: '"1h"' });
    await start(simd050, options.prefix, options.env);
    await sleep(500);

    const planBody = (await getJson(`${rest}/cosmos/upgrade/v1beta1/current_plan`)).body as { plan: { name: string; height: string; info: string } };
    const mv = (await getJson(`${rest}/cosmos/upgrade/v1beta1/module_versions`)).body as { module_versions: { name: string; version: string }[] };
    if (planBody.plan?.name !== PLAN_NAME) throw new Error(`simd's current_plan is ${JSON.stringify(planBody)}`);
    return {
      simd: simd050,
      home,
      chainId: CHAIN_ID,
      rpc,
      node,
      rest,
      grpc: `127.0.0.1:${grpcPort}`,
      pid: child!.pid!,
      appliedHeight,
      plan: { name: planBody.plan.name, height: planBody.plan.height, info: planBody.plan.info },
      moduleVersions: mv.module_versions,
      setupSeconds: +((performance.now() - t0) / 1000).toFixed(1),
      async stop() {
        await stop(child);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (e) {
    await stop(child);
    log(`simd log kept in ${logFile}`);
    throw e;
  }
}

export { GOV };
