// Types for paths.mjs, so TypeScript tests and benchmarks can import it.
export declare const REPO_ROOT: string;
export declare const MIN_GO: string;
export declare const COMETBFT_VERSION: string;
export declare const COSMOVISOR_VERSION: string;
export declare const SDK_V047_VERSION: string;
export declare const SIMAPP_V047_VERSION: string;
export declare const SIMAPP_V047_COMMIT: string;
export declare const SIMD_V047_OWN_UPGRADE_NAME: string;
export declare const SDK_V050_VERSION: string;
export declare const SIMAPP_V050_VERSION: string;
export declare const SIMAPP_V050_COMMIT: string;
export declare const XUPGRADE_V050_VERSION: string;
export declare const SIMD_UPGRADE_NAME: string;
export declare const GHZ_VERSION: string;
export declare const IAVL_VERSION: string;
export declare const SDK_V053_VERSION: string;
export declare const SDK_V054_VERSION: string;
export declare const XUPGRADE_V053_VERSION: string;
export declare const APP_UPGRADE_V053: string;
export declare const APP_UPGRADE_V054: string;

export type PeerKey =
  "cometbft" | "simd-v047" | "simd-v050" | "cosmovisor" | "ghz" | "iavl-bench" | "light-oracle" | "evidence-oracle" | "app-v050" | "app-v053" | "app-v054";

export interface PeerSpec {
  key: PeerKey;
  name: string;
  version: string;
  folder: string;
  pkg: string;
  how: "at-version" | "module" | "sources";
  moduleDir?: string;
  /** Go files of ours in moduleDir, copied and hashed with go.mod/go.sum. */
  sources?: string[];
  /** For 'sources': the folders whose files are copied into one build folder (the last holds go.mod/go.sum). */
  sourceDirs?: string[];
  unavailableReason?: string;
  /** A tool (ghz, iavl-bench), not a peer the tests run against: `--check` needs it only when named with `--only`. */
  optional?: boolean;
  /** For an optional tool: what uses it (in the message of a failed build). */
  usedBy?: string;
}

export interface PeerBinaries {
  cometbft?: string;
  cosmovisor?: string;
  /** simd at SDK v0.47 (old binary: halts at SIMD_UPGRADE_NAME). */
  simd047?: string;
  /** simd at SDK v0.50 (new binary: registers SIMD_UPGRADE_NAME). */
  simd050?: string;
  /** ghz, the gRPC load generator of `npm run bench:peers`. */
  ghz?: string;
  /** our iavl-bench (test/peers/iavl-bench): cosmos/iavl v1.2.2 on goleveldb, case 11 of `npm run bench`. */
  iavlBench?: string;
  /** our light-oracle (test/peers/light-oracle): CometBFT's light client and cosmos/ics23 verdicts. */
  lightOracle?: string;
  /** our evidence-oracle (test/peers/evidence-oracle): CometBFT's reading of light client attack evidence. */
  evidenceOracle?: string;
  /** appd (test/peers/app) on SDK v0.50: halts at APP_UPGRADE_V053. */
  app050?: string;
  /** appd on SDK v0.53: applies APP_UPGRADE_V053, halts at APP_UPGRADE_V054. */
  app053?: string;
  /** appd on SDK v0.54: applies APP_UPGRADE_V054. */
  app054?: string;
}

export declare const PEERS: PeerSpec[];
export declare function peersDir(): string;
export declare function recipeHash(peer: PeerSpec): string | undefined;
export declare function sourceFiles(peer: PeerSpec): { name: string; path: string }[];
export declare function peerPaths(peer: PeerSpec, dir?: string): { folder: string; bin: string; stamp: string };
export declare function builtBinary(peer: PeerSpec, dir?: string): string | undefined;
export declare function peerBinaries(): PeerBinaries;
export declare function missingPeerReason(key: PeerKey): string | undefined;
