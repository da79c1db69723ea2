/**
 * The peers the interop suites need (simd v0.47 and v0.50, cosmovisor v1.5.0), found through
 * scripts/peers/paths.mjs, and the Go version they were built with (from their build stamps).
 */
import { readFileSync } from "node:fs";
import { PEERS, missingPeerReason, peerBinaries, peerPaths } from "../../../scripts/peers/paths.mjs";

export interface InteropPeers {
  simd047: string;
  simd050: string;
  cosmovisor: string;
}

export const NEEDED = ["simd-v047", "simd-v050", "cosmovisor"] as const;

/** The binaries, or an Error naming each missing one and the command that builds it. */
export function interopPeers(): InteropPeers {
  const b = peerBinaries();
  const missing = NEEDED.map((k) => missingPeerReason(k)).filter((r): r is string => r !== undefined);
  if (missing.length > 0 || !b.simd047 || !b.simd050 || !b.cosmovisor) {
    throw new Error(`the interop suites need real peers:\n  ${missing.join("\n  ")}\n(npm run test:interop builds them with npm run peers)`);
  }
  return { simd047: b.simd047, simd050: b.simd050, cosmovisor: b.cosmovisor };
}

/** `go env GOVERSION` recorded in a peer's build stamp (e.g. go1.26.8). */
export function builtWithGo(key: (typeof NEEDED)[number] = "simd-v050"): string {
  const peer = PEERS.find((p) => p.key === key)!;
  try {
    const stamp = JSON.parse(readFileSync(peerPaths(peer).stamp, "utf8")) as { go?: string; goVersion?: string };
    return stamp.go ?? stamp.goVersion ?? "unknown";
  } catch {
    return "unknown";
  }
}
