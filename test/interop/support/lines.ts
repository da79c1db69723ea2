/**
 * The SDK lines the side-by-side suites compare xupgrade with (docs/spec/interop.md §1): simd v0.50.15, and
 * appd, our own minimal chain (test/peers/app/), on SDK v0.53.8 and v0.54.4. For each line: the peer that
 * answers the three states, the upgrade of its `applied` state (a real two-binary upgrade into that line),
 * the devnet stand-ins holding the same module versions, its fixture, and its CLI comparison area.
 */
import {
  APP_UPGRADE_V053,
  APP_UPGRADE_V054,
  SDK_V047_VERSION,
  SDK_V050_VERSION,
  SDK_V053_VERSION,
  SDK_V054_VERSION,
  SIMAPP_V047_COMMIT,
  SIMAPP_V047_VERSION,
  SIMAPP_V050_COMMIT,
  SIMAPP_V050_VERSION,
  XUPGRADE_V050_VERSION,
  XUPGRADE_V053_VERSION,
  missingPeerReason,
  peerBinaries,
  type PeerKey,
} from "../../../scripts/peers/paths.mjs";
import { APP_V050_APP, APP_V053_APP, APP_V054_APP, SIMD_V047_APP, SIMD_V050_APP } from "./apps.js";
import type { CliTool } from "./cli.js";
import type { Area } from "./differences.js";

export type LineKey = "simd-v050" | "app-v053" | "app-v054";

/** What a fixture says about the peer that answered (checked against scripts/peers/paths.mjs). */
export interface PeerPins {
  sdk: string;
  simapp?: string;
  commit?: string;
  x_upgrade: string;
  /** The program and the `npm run peers` key it is built with. */
  binary: string;
  /** The binary of the `applied` state before the upgrade. */
  from: { sdk: string; simapp?: string; commit?: string; binary?: string };
}

export interface LineBinaries {
  /** Answers the three states (and the `applied` state after the upgrade). */
  node: string;
  /** Halts at the `applied` state's upgrade. */
  old: string;
  /** simd v0.47's CLI, whose legacy commands are compared too (simd line only). */
  simd047?: string;
}

export interface SdkLine {
  key: LineKey;
  /** How titles name the peer: `simd v0.50.15`, `appd v0.53.8`. */
  label: string;
  fixtureName: string;
  pins: PeerPins;
  /** The upgrade of the `applied` state, into this line. */
  upgrade: { name: string; height: number };
  /** The writer of upgrade-info.json at that halt, and of the halt-plan file on this line. */
  writers: { old: string; node: string };
  /** Devnet apps with the same module versions, before and after the upgrade. */
  apps: { old: typeof SIMD_V047_APP; node: typeof SIMD_V047_APP };
  /** The CLIs run against the node: the peer's own (`simd`, for appd too), simd v0.47's, xupgrade. */
  tools: CliTool[];
  /** The comparison area of xupgrade's CLI beside the peer's own. */
  cliArea: Area;
  /** The npm run peers keys it needs (the line's own binary last). */
  needs: PeerKey[];
}

const appPins = (sdk: string, xUpgrade: string, key: string, from: string, fromKey: string): PeerPins => ({
  sdk,
  x_upgrade: xUpgrade,
  binary: `appd, test/peers/app (npm run peers: ${key})`,
  from: { sdk: from, binary: `appd, test/peers/app (npm run peers: ${fromKey})` },
});

const ALL_LINES: SdkLine[] = [
  {
    key: "simd-v050",
    label: `simd ${SDK_V050_VERSION}`,
    fixtureName: `simd-${SDK_V050_VERSION}-${SIMAPP_V050_COMMIT}.json`,
    pins: {
      sdk: SDK_V050_VERSION,
      simapp: SIMAPP_V050_VERSION,
      commit: SIMAPP_V050_COMMIT,
      x_upgrade: XUPGRADE_V050_VERSION,
      binary: "cosmossdk.io/simapp/simd (npm run peers: simd-v050)",
      from: { sdk: SDK_V047_VERSION, simapp: SIMAPP_V047_VERSION, commit: SIMAPP_V047_COMMIT },
    },
    upgrade: { name: "v047-to-v050", height: 40 },
    writers: { old: `simd ${SDK_V047_VERSION}`, node: `simd ${SDK_V050_VERSION}` },
    apps: { old: SIMD_V047_APP, node: SIMD_V050_APP },
    tools: ["simd", "simd047", "xupgrade"],
    cliArea: "cli-v050",
    needs: ["simd-v047", "simd-v050"],
  },
  {
    key: "app-v053",
    label: `appd ${SDK_V053_VERSION}`,
    fixtureName: `appd-${SDK_V053_VERSION}.json`,
    pins: appPins(SDK_V053_VERSION, XUPGRADE_V053_VERSION, "app-v053", SDK_V050_VERSION, "app-v050"),
    upgrade: { name: APP_UPGRADE_V053, height: 40 },
    writers: { old: `appd ${SDK_V050_VERSION}`, node: `appd ${SDK_V053_VERSION}` },
    apps: { old: APP_V050_APP, node: APP_V053_APP },
    tools: ["simd", "xupgrade"],
    cliArea: "cli-v053",
    needs: ["app-v050", "app-v053"],
  },
  {
    key: "app-v054",
    label: `appd ${SDK_V054_VERSION}`,
    fixtureName: `appd-${SDK_V054_VERSION}.json`,
    pins: appPins(SDK_V054_VERSION, `${SDK_V054_VERSION} (x/upgrade inside the SDK module)`, "app-v054", SDK_V053_VERSION, "app-v053"),
    upgrade: { name: APP_UPGRADE_V054, height: 40 },
    writers: { old: `appd ${SDK_V053_VERSION}`, node: `appd ${SDK_V054_VERSION}` },
    apps: { old: APP_V053_APP, node: APP_V054_APP },
    tools: ["simd", "xupgrade"],
    cliArea: "cli-v054",
    needs: ["app-v053", "app-v054"],
  },
];

/**
 * The lines compared: all of them, or those XUPGRADE_INTEROP_LINES names (comma-separated keys, e.g.
 * `app-v053`), for working on one line.
 */
export const LINES: SdkLine[] = (() => {
  const only = process.env.XUPGRADE_INTEROP_LINES?.split(",")
    .map((k) => k.trim())
    .filter(Boolean);
  if (!only?.length) return ALL_LINES;
  const unknown = only.filter((k) => !ALL_LINES.some((l) => l.key === k));
  if (unknown.length > 0) throw new Error(`XUPGRADE_INTEROP_LINES: no line ${unknown.join(", ")} (lines: ${ALL_LINES.map((l) => l.key).join(", ")})`);
  return ALL_LINES.filter((l) => only.includes(l.key));
})();

export const lineByKey = (key: LineKey): SdkLine => ALL_LINES.find((l) => l.key === key)!;

/** The binaries of a line, or an Error naming each missing one and the command that builds it. */
export function lineBinaries(line: SdkLine): LineBinaries {
  const missing = line.needs.map((k) => missingPeerReason(k)).filter((r): r is string => r !== undefined);
  const b = peerBinaries();
  const pick = { "simd-v050": [b.simd050, b.simd047], "app-v053": [b.app053, b.app050], "app-v054": [b.app054, b.app053] }[line.key];
  if (missing.length > 0 || !pick[0] || !pick[1]) throw new Error(`${line.label} needs real peers:\n  ${missing.join("\n  ")}\n(npm run peers builds them)`);
  return { node: pick[0], old: pick[1], simd047: line.key === "simd-v050" ? b.simd047 : undefined };
}
