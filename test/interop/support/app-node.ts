/**
 * Nodes of appd, our own minimal chain built on each SDK line (test/peers/app/, `npm run peers`: app-v050,
 * app-v053, app-v054), for any test that needs a real node of a given line: one validator on loopback, free
 * ports, fast blocks and short gov periods (./simd.ts's initSimd: the same CLI and config files as simd).
 *
 *   const node = await startAppNode("v0.53");   // ready: REST answers 200, a block is committed
 *   node.rpcUrl, node.restUrl, node.grpcAddress, node.ports.{rpc,p2p,grpc,api}
 *   await node.stop();
 *
 * The upgrades between the lines are real: v0.50 halts at `v050-to-v053`, which v0.53 applies (it adds the
 * epochs store and runs the migrations); v0.53 halts at `v053-to-v054`, which v0.54 applies (auth 5 → 6).
 * upgradeAcross() runs one of them on one home and returns the node of the new line.
 */
import {
  APP_UPGRADE_V053,
  APP_UPGRADE_V054,
  SDK_V050_VERSION,
  SDK_V053_VERSION,
  SDK_V054_VERSION,
  missingPeerReason,
  peerBinaries,
} from "../../../scripts/peers/paths.mjs";
import { initSimd, passProposal, softwareUpgradeMsg, startSimd, waitForHalt, type SimdHome, type SimdInitOptions, type SimdNode } from "./simd.js";

export type AppLine = "v0.50" | "v0.53" | "v0.54";

export const APP_LINES: Record<AppLine, { peer: "app-v050" | "app-v053" | "app-v054"; sdk: string; bin: "app050" | "app053" | "app054" }> = {
  "v0.50": { peer: "app-v050", sdk: SDK_V050_VERSION, bin: "app050" },
  "v0.53": { peer: "app-v053", sdk: SDK_V053_VERSION, bin: "app053" },
  "v0.54": { peer: "app-v054", sdk: SDK_V054_VERSION, bin: "app054" },
};

/** The upgrade that takes a chain from one line to the next (the new line's binary registers it). */
export const APP_UPGRADES = {
  "v0.53": { from: "v0.50", name: APP_UPGRADE_V053 },
  "v0.54": { from: "v0.53", name: APP_UPGRADE_V054 },
} as const satisfies Partial<Record<AppLine, { from: AppLine; name: string }>>;

/** appd's binary of a line, or an Error naming the command that builds it. */
export function appBinary(line: AppLine): string {
  const l = APP_LINES[line];
  const bin = peerBinaries()[l.bin];
  if (!bin) throw new Error(missingPeerReason(l.peer) ?? `appd ${line} is not built`);
  return bin;
}

/** A fresh home of a line (not started). */
export function initAppNode(line: AppLine, o: Omit<SimdInitOptions, "binary"> = {}): Promise<SimdHome> {
  return initSimd({ ...o, binary: appBinary(line) });
}

/** A fresh one-validator chain of a line, started and ready (REST 200, a committed block). */
export async function startAppNode(line: AppLine, o: Omit<SimdInitOptions, "binary"> = {}): Promise<SimdNode> {
  const node = startSimd(await initAppNode(line, o));
  try {
    await node.ready(120_000);
  } catch (e) {
    await node.stop();
    throw e;
  }
  return node;
}

export interface CrossLineUpgrade {
  /** The node of the new line, running on the upgraded home (ready). */
  node: SimdNode;
  name: string;
  height: number;
}

/**
 * A real upgrade across lines on one home: the old line's node passes the plan through gov and halts at it
 * (`height`, default 40, or further when the chain is already close), then the new line's binary starts on the
 * same home and applies it. The old node is stopped; the new one is returned ready, past the upgrade height.
 */
export async function upgradeAcross(to: keyof typeof APP_UPGRADES, o: Omit<SimdInitOptions, "binary"> & { height?: number } = {}): Promise<CrossLineUpgrade> {
  const { from, name } = APP_UPGRADES[to];
  const h = await initAppNode(from, o);
  const old = startSimd(h);
  let height = o.height ?? 40;
  try {
    await old.rpcReady(120_000);
    height = Math.max(height, (await old.height()) + 25);
    await passProposal(h, h.binary, softwareUpgradeMsg({ name, height }));
    await waitForHalt(old.child, name);
  } finally {
    await old.stop();
  }
  const node = startSimd(h, appBinary(to));
  try {
    await node.ready(120_000);
    await node.waitForHeight(height + 1);
  } catch (e) {
    await node.stop();
    throw e;
  }
  return { node, name, height };
}
