/**
 * The peers the interop suites need (simd v0.47 and v0.50, cosmovisor v1.5.0, appd on SDK v0.50, v0.53 and
 * v0.54), found through
 * scripts/peers/paths.mjs, and the Go version they were built with (from their build stamps).
 */
import { readFileSync } from "node:fs";
import { PEERS, missingPeerReason, peerBinaries, peerPaths, type PeerKey } from "../../../scripts/peers/paths.mjs";

export interface InteropPeers {
  simd047: string;
  simd050: string;
  cosmovisor: string;
  app050: string;
  app053: string;
  app054: string;
}

export const NEEDED = ["simd-v047", "simd-v050", "cosmovisor", "app-v050", "app-v053", "app-v054"] as const;

/** The binaries, or an Error naming each missing one and the command that builds it. */
export function interopPeers(): InteropPeers {
  const b = peerBinaries();
  const missing = NEEDED.map((k) => missingPeerReason(k)).filter((r): r is string => r !== undefined);
  if (missing.length > 0 || !b.simd047 || !b.simd050 || !b.cosmovisor || !b.app050 || !b.app053 || !b.app054) {
    throw new Error(`the interop suites need real peers:\n  ${missing.join("\n  ")}\n(npm run test:interop builds them with npm run peers)`);
  }
  return { simd047: b.simd047, simd050: b.simd050, cosmovisor: b.cosmovisor, app050: b.app050, app053: b.app053, app054: b.app054 };
}

/** `go env GOVERSION` recorded in a peer's build stamp (e.g. go1.26.8). */
export function builtWithGo(key: PeerKey = "simd-v050"): string {
  const peer = PEERS.find((p) => p.key === key)!;
  try {
    const stamp = JSON.parse(readFileSync(peerPaths(peer).stamp, "utf8")) as { go?: string; goVersion?: string };
    return stamp.go ?? stamp.goVersion ?? "unknown";
  } catch {
    return "unknown";
  }
}
