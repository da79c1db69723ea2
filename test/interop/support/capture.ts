/**
 * Captures a peer's answers in the three compared states, as the fixture files under test/interop/fixtures/
 * hold them (scripts/capture-simd.mjs writes them; the live suite re-captures and compares), for each SDK line
 * of ./lines.ts:
 *
 * - `none` and `scheduled`: a fresh chain of the line (simd v0.50, or appd v0.53/v0.54), then SCHEDULED_PLAN
 *   passed through gov; then HALT_PLAN a few blocks ahead, and the node halts there (its upgrade-info.json);
 * - `applied`: a chain of the line before halts at the line's upgrade (simd v0.47 at `v047-to-v050`, appd
 *   v0.50 at `v050-to-v053`, appd v0.53 at `v053-to-v054`), then the line's binary on the same home applies
 *   it (the real two-binary upgrade, test/peers/README.md).
 *
 * Each state holds the REST records, the gRPC records and the CLI records (the peer's own CLI, simd v0.47's on
 * the simd line, and xupgrade's, all against the peer).
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { captureCli, type CliRecord } from "./cli.js";
import { APPLIED_UPGRADE, SCHEDULED_PLAN } from "./devnet.js";
import { lineBinaries, lineByKey, type LineBinaries, type PeerPins, type SdkLine } from "./lines.js";
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
  /** The peer that answered (simd, or appd on a line), and the binary of the `applied` state before the upgrade. */
  simd: PeerPins;
  captured_with: string;
  states: Record<StateName, StateCapture>;
  upgrade_info: UpgradeInfoRecord[];
}

export interface Binaries {
  simd047: string;
  simd050: string;
}

/** The simd line's fixture (the others: LINES[i].fixtureName). */
export const FIXTURE_NAME = lineByKey("simd-v050").fixtureName;

/** A state's spec; `upgrade` is the name the line's `applied` state applied. */
export const stateSpec = (state: StateName, upgrade: string = APPLIED_UPGRADE.name): StateSpec => ({
  state,
  known: state === "applied" ? upgrade : SCHEDULED_PLAN.name,
});

export async function captureState(node: SimdNode, state: StateName, plan: StateCapture["plan"], line: SdkLine, bins: LineBinaries): Promise<StateCapture> {
  await node.ready();
  const spec = stateSpec(state, line.upgrade.name);
  return {
    plan,
    rest: await captureRest(node.restUrl, spec),
    grpc: await captureGrpc(node.grpcAddress, spec),
    cli: await captureCli({ simd: bins.node, simd047: bins.simd047, rpcUrl: node.rpcUrl, chainId: node.chainId }, spec, line.tools),
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
 * The `none` and `scheduled` states on a fresh chain of the line; then HALT_PLAN replaces the scheduled plan,
 * a few blocks ahead, and the node halts there (its upgrade-info.json is recorded).
 */
export async function captureFresh(line: SdkLine, bins: LineBinaries): Promise<{ none: StateCapture; scheduled: StateCapture; info: UpgradeInfoRecord }> {
  const h = await initSimd({ binary: bins.node });
  const node = startSimd(h);
  try {
    await node.ready();
    await node.waitForHeight(2);
    const none = await captureState(node, "none", null, line, bins);
    await passProposal(h, bins.node, softwareUpgradeMsg(SCHEDULED_PLAN));
    const scheduled = await captureState(node, "scheduled", { ...SCHEDULED_PLAN }, line, bins);
    // The vote takes ~6 s (15 blocks at 400 ms); 40 blocks leave room on a loaded machine.
    const plan = { ...HALT_PLAN, height: (await node.height()) + 40 };
    await passProposal(h, bins.node, softwareUpgradeMsg(plan));
    await waitForHalt(node.child, plan.name);
    return { none, scheduled, info: upgradeInfoRecord(h.home, line.writers.node, plan) };
  } finally {
    await node.stop();
  }
}

/**
 * The real upgrade into the line: the binary before halts at the line's upgrade (height `height`, proposal
 * submitted from the first blocks over RPC), then the line's binary applies it on the same home. Returns the
 * `applied` state and the upgrade-info.json the old binary wrote.
 */
export async function captureApplied(
  line: SdkLine,
  bins: LineBinaries,
  height: number = line.upgrade.height,
): Promise<{ applied: StateCapture; info: UpgradeInfoRecord }> {
  const name = line.upgrade.name;
  const h = await initSimd({ binary: bins.old });
  const old = startSimd(h);
  try {
    await old.rpcReady();
    await passProposal(h, bins.old, softwareUpgradeMsg({ name, height }));
    await waitForHalt(old.child, name);
  } finally {
    await old.stop();
  }
  const info = upgradeInfoRecord(h.home, line.writers.old, { name, height, info: "" });
  const node = startSimd(h, bins.node);
  try {
    await node.ready();
    await node.waitForHeight(height + 1);
    const applied = await captureState(node, "applied", { name, height, info: "" }, line, bins);
    return { applied, info };
  } finally {
    await node.stop();
  }
}

/** Every state and both upgrade-info.json files of one line. */
export async function captureLine(line: SdkLine, goVersion: string, bins: LineBinaries = lineBinaries(line)): Promise<SimdFixture> {
  const fresh = await captureFresh(line, bins);
  const { applied, info } = await captureApplied(line, bins);
  return {
    simd: line.pins,
    captured_with: goVersion,
    states: { none: fresh.none, scheduled: fresh.scheduled, applied },
    upgrade_info: [info, fresh.info],
  };
}

/** The simd line (simd v0.47 → v0.50). */
export function captureAll(bins: Binaries, goVersion: string): Promise<SimdFixture> {
  return captureLine(lineByKey("simd-v050"), goVersion, { node: bins.simd050, old: bins.simd047, simd047: bins.simd047 });
}
