/**
 * Captures simd's answers in the three compared states, as the fixture files under test/interop/fixtures/
 * hold them (scripts/capture-simd.mjs writes them; the live suite re-captures and compares):
 *
 * - `none` and `scheduled`: a fresh simd v0.50 chain, then SCHEDULED_PLAN passed through gov;
 * - `applied`: a simd v0.47 chain that halts at `v047-to-v050`, then simd v0.50 on the same home, which
 *   applies it (the real two-binary upgrade, test/peers/README.md).
 *
 * Each state holds the REST records, the gRPC records and the CLI records (simd's own CLI and xupgrade's,
 * both against simd).
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import {
  SDK_V047_VERSION,
  SDK_V050_VERSION,
  SIMAPP_V047_COMMIT,
  SIMAPP_V047_VERSION,
  SIMAPP_V050_COMMIT,
  SIMAPP_V050_VERSION,
  XUPGRADE_V050_VERSION,
} from "../../../scripts/peers/paths.mjs";
import { captureCli, type CliRecord } from "./cli.js";
import { APPLIED_UPGRADE, SCHEDULED_PLAN } from "./devnet.js";
import { initSimd, passProposal, softwareUpgradeMsg, startSimd, waitForHalt, type SimdNode } from "./simd.js";
import { captureGrpc, captureRest, type GrpcRecord, type RestRecord, type StateName, type StateSpec } from "./wire.js";

export interface StateCapture {
  /** The plan the state was made with (none: null). */
  plan: { name: string; height: number; info: string } | null;
  rest: RestRecord[];
  grpc: GrpcRecord[];
  cli: CliRecord[];
}

export interface UpgradeInfoRecord {
  /** Who wrote it: `simd v0.47.17` at the halt. */
  writer: string;
  plan: { name: string; height: number; info: string };
  /** The file's bytes as text (it is JSON). */
  bytes: string;
  /** Permission bits, octal (`600`). */
  mode: string;
}

export interface SimdFixture {
  simd: {
    sdk: string;
    simapp: string;
    commit: string;
    x_upgrade: string;
    /** The binary that answered the `none`/`scheduled` states (and the `applied` state after the upgrade). */
    binary: string;
    /** The v0.47 binary of the `applied` state before the upgrade. */
    from: { sdk: string; simapp: string; commit: string };
  };
  captured_with: string;
  states: Record<StateName, StateCapture>;
  upgrade_info: UpgradeInfoRecord[];
}

export interface Binaries {
  simd047: string;
  simd050: string;
}

export const FIXTURE_NAME = `simd-${SDK_V050_VERSION}-${SIMAPP_V050_COMMIT}.json`;

export const stateSpec = (state: StateName): StateSpec => ({
  state,
  known: state === "applied" ? APPLIED_UPGRADE.name : SCHEDULED_PLAN.name,
});

export async function captureState(node: SimdNode, state: StateName, plan: StateCapture["plan"], bins: Binaries): Promise<StateCapture> {
  await node.ready();
  const spec = stateSpec(state);
  return {
    plan,
    rest: await captureRest(node.restUrl, spec),
    grpc: await captureGrpc(node.grpcAddress, spec),
    cli: await captureCli({ simd: bins.simd050, simd047: bins.simd047, rpcUrl: node.rpcUrl, chainId: node.chainId }, spec),
  };
}

/**
 * A plan whose info needs every kind of JSON escaping Go's encoding/json does (`&`, `<`, `>`, U+2028, a
 * control character, quotes, a backslash, non-ASCII): simd v0.50 halts at it and writes upgrade-info.json.
 */
export const HALT_PLAN = {
  name: "interop-halt",
  info:
    '{"binaries":{"linux/amd64":"https://example.invalid/simd.tar.gz?checksum=sha256:0d5b9f8a5bbf7c2c1b1d4c0e7c1e8a4f1e2d3c4b5a69788796a5b4c3d2e1f001&a=<b>"}}' +
    ' é – \u2028 "q" \\ \u0001 \u007f',
} as const;

/** Reads `<home>/data/upgrade-info.json` as a record. */
export function upgradeInfoRecord(home: string, writer: string, plan: UpgradeInfoRecord["plan"]): UpgradeInfoRecord {
  const file = join(home, "data/upgrade-info.json");
  return { writer, plan, bytes: readFileSync(file, "utf8"), mode: (statSync(file).mode & 0o777).toString(8) };
}

/**
 * The `none` and `scheduled` states on a fresh simd v0.50 chain; then HALT_PLAN replaces the scheduled plan,
 * a few blocks ahead, and the node halts there (its upgrade-info.json is recorded).
 */
export async function captureFresh(bins: Binaries): Promise<{ none: StateCapture; scheduled: StateCapture; info: UpgradeInfoRecord }> {
  const h = await initSimd({ binary: bins.simd050 });
  const node = startSimd(h);
  try {
    await node.ready();
    await node.waitForHeight(2);
    const none = await captureState(node, "none", null, bins);
    await passProposal(h, bins.simd050, softwareUpgradeMsg(SCHEDULED_PLAN));
    const scheduled = await captureState(node, "scheduled", { ...SCHEDULED_PLAN }, bins);
    // The vote takes ~6 s (15 blocks at 400 ms); 40 blocks leave room on a loaded machine.
    const plan = { ...HALT_PLAN, height: (await node.height()) + 40 };
    await passProposal(h, bins.simd050, softwareUpgradeMsg(plan));
    await waitForHalt(node.child, plan.name);
    return { none, scheduled, info: upgradeInfoRecord(h.home, `simd ${SDK_V050_VERSION}`, plan) };
  } finally {
    await node.stop();
  }
}

/**
 * The real upgrade: simd v0.47 halts at `v047-to-v050` (height `height`, proposal submitted from the first
 * blocks over RPC), then simd v0.50 applies it on the same home. Returns the `applied` state and the
 * upgrade-info.json v0.47 wrote.
 */
export async function captureApplied(bins: Binaries, height: number = APPLIED_UPGRADE.height): Promise<{ applied: StateCapture; info: UpgradeInfoRecord }> {
  const h = await initSimd({ binary: bins.simd047 });
  const old = startSimd(h);
  try {
    await old.rpcReady();
    await passProposal(h, bins.simd047, softwareUpgradeMsg({ name: APPLIED_UPGRADE.name, height }));
    await waitForHalt(old.child, APPLIED_UPGRADE.name);
  } finally {
    await old.stop();
  }
  const info = upgradeInfoRecord(h.home, `simd ${SDK_V047_VERSION}`, { name: APPLIED_UPGRADE.name, height, info: "" });
  const node = startSimd(h, bins.simd050);
  try {
    await node.ready();
    await node.waitForHeight(height + 1);
    const applied = await captureState(node, "applied", { name: APPLIED_UPGRADE.name, height, info: "" }, bins);
    return { applied, info };
  } finally {
    await node.stop();
  }
}

export async function captureAll(bins: Binaries, goVersion: string): Promise<SimdFixture> {
  const fresh = await captureFresh(bins);
  const { applied, info } = await captureApplied(bins);
  return {
    simd: {
      sdk: SDK_V050_VERSION,
      simapp: SIMAPP_V050_VERSION,
      commit: SIMAPP_V050_COMMIT,
      x_upgrade: XUPGRADE_V050_VERSION,
      binary: "cosmossdk.io/simapp/simd (npm run peers: simd-v050)",
      from: { sdk: SDK_V047_VERSION, simapp: SIMAPP_V047_VERSION, commit: SIMAPP_V047_COMMIT },
    },
    captured_with: goVersion,
    states: { none: fresh.none, scheduled: fresh.scheduled, applied },
    upgrade_info: [info, fresh.info],
  };
}
