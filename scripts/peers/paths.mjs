// Where `npm run peers` puts the real peer programs (CometBFT, simd, cosmovisor), and what each one is
// built from. Plain Node ESM with no dependencies, so test suites and benchmarks can import it to find the
// binaries, and skip with a reason (or fail clearly) when they are not built. scripts/peers.mjs builds them.
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root (this file is scripts/peers/paths.mjs). */
export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");

/** The oldest Go that builds every peer without switching toolchains (CometBFT v0.38.26 and test/peers/simd-v050/go.mod say `go 1.22.11`). */
export const MIN_GO = "1.22.11";

/** CometBFT: the newest v0.38.x patch the module proxy lists (v0.38 is what SDK v0.50 embeds). */
export const COMETBFT_VERSION = "v0.38.26";

/** cosmovisor: the newest release whose module the proxy serves (v1.6.x and v1.7.x are refused, see test/peers/README.md). */
export const COSMOVISOR_VERSION = "v1.5.0";

/**
 * simd v0.47: simapp at a release/v0.47.x commit the proxy serves, built against the newest served v0.47.x SDK
 * (test/peers/simd-v047/go.mod). Its own upgrade handler is SIMD_V047_OWN_UPGRADE_NAME, so it halts at
 * SIMD_UPGRADE_NAME: the old binary of the rehearsal.
 */
export const SDK_V047_VERSION = "v0.47.17";
export const SIMAPP_V047_VERSION = "v0.0.0-20230608160436-666c345ad23d";
export const SIMAPP_V047_COMMIT = "666c345ad23d";
export const SIMD_V047_OWN_UPGRADE_NAME = "v046-to-v047";

/**
 * simd v0.50: simapp at a release/v0.50.x commit the proxy serves, built against the newest served v0.50.x SDK
 * and x/upgrade v0.1.4 (test/peers/simd-v050/go.mod). It registers SIMD_UPGRADE_NAME: the new binary.
 */
export const SDK_V050_VERSION = "v0.50.15";
export const SIMAPP_V050_VERSION = "v0.0.0-20240118210941-3897926e722e";
export const SIMAPP_V050_COMMIT = "3897926e722e";
export const XUPGRADE_V050_VERSION = "v0.1.4";

/**
 * ghz, the gRPC load generator (optional: only `npm run bench:peers` uses it, to load xupgrade's and simd's gRPC
 * servers alike). v0.93.0 is served by the module proxy and builds outside any module (no `replace` lines).
 */
export const GHZ_VERSION = "v0.93.0";

/**
 * iavl-bench, ours (optional: only case 11 of `npm run bench` uses it): the bench's node-state workload committed
 * into the store simd v0.50.15 runs — cosmos/iavl IAVL_VERSION under cosmossdk.io/store v1.1.1's root multistore on
 * goleveldb (test/peers/iavl-bench/go.mod pins them as simd-v050's go.mod resolves them).
 */
export const IAVL_VERSION = "v1.2.2";

/** The upgrade of the simd v0.47 → v0.50 rehearsal: simapp's UpgradeName at SIMAPP_V050_COMMIT (RunMigrations, adds the circuit store). */
export const SIMD_UPGRADE_NAME = "v047-to-v050";

/**
 * appd, our own minimal chain (test/peers/app/: auth, bank, staking, distribution, gov, consensus, upgrade,
 * genutil; epochs from v0.53 on), built on three SDK lines from one shared source: v0.50 halts at
 * APP_UPGRADE_V053, which v0.53 applies; v0.53 halts at APP_UPGRADE_V054, which v0.54 applies.
 */
export const SDK_V053_VERSION = "v0.53.8";
export const SDK_V054_VERSION = "v0.54.4";
export const XUPGRADE_V053_VERSION = "v0.2.0";
export const APP_UPGRADE_V053 = "v050-to-v053";
export const APP_UPGRADE_V054 = "v053-to-v054";

/**
 * @typedef {object} PeerSpec
 * @property {string} key        what `--only` and peerBinaries() call it
 * @property {string} name       the program's name (and the binary's file name)
 * @property {string} version    the pinned version
 * @property {string} folder     folder name under the peers directory
 * @property {string} pkg        the Go package that is the program's main
 * @property {'at-version'|'module'|'sources'} how  `go install pkg@version` outside any module, `go install pkg` inside our
 *   wrapper module, or for 'sources' `go install pkg` in one folder made of every file of `sourceDirs` (our own program)
 * @property {string} [moduleDir] for 'module' and 'sources': the folder with go.mod/go.sum, relative to the repository root
 * @property {string[]} [sources] for 'module': Go files of ours in moduleDir, copied (and hashed) with go.mod/go.sum
 * @property {string[]} [sourceDirs] for 'sources': the folders whose files are copied together (the last one holds go.mod/go.sum)
 * @property {string} [unavailableReason] printed when the wrapper module is absent
 * @property {boolean} [optional] a tool, not a peer the tests run against: `--check` needs it only when named with
 *   `--only`, and a failed build of it does not fail `npm run peers`
 * @property {string} [usedBy] for an optional tool: what uses it (in the message of a failed build)
 */

/** @type {PeerSpec[]} */
export const PEERS = [
  {
    key: "cometbft",
    name: "cometbft",
    version: COMETBFT_VERSION,
    folder: `cometbft-${COMETBFT_VERSION}`,
    pkg: "github.com/cometbft/cometbft/cmd/cometbft",
    how: "at-version",
  },
  {
    key: "simd-v047",
    name: "simd",
    version: SDK_V047_VERSION,
    folder: `simd-${SDK_V047_VERSION}-simapp-${SIMAPP_V047_COMMIT}`,
    pkg: "cosmossdk.io/simapp/simd",
    how: "module",
    moduleDir: "test/peers/simd-v047",
  },
  {
    key: "simd-v050",
    name: "simd",
    version: SDK_V050_VERSION,
    folder: `simd-${SDK_V050_VERSION}-simapp-${SIMAPP_V050_COMMIT}`,
    pkg: "cosmossdk.io/simapp/simd",
    how: "module",
    moduleDir: "test/peers/simd-v050",
  },
  {
    key: "cosmovisor",
    name: "cosmovisor",
    version: COSMOVISOR_VERSION,
    folder: `cosmovisor-${COSMOVISOR_VERSION}`,
    pkg: "cosmossdk.io/tools/cosmovisor/cmd/cosmovisor",
    how: "module",
    moduleDir: "test/peers/cosmovisor",
  },
  ...[
    ["app-v050", SDK_V050_VERSION, "v0.50"],
    ["app-v053", SDK_V053_VERSION, "v0.53"],
    ["app-v054", SDK_V054_VERSION, "v0.54"],
  ].map(([key, version, line]) => ({
    key,
    name: "appd",
    version,
    folder: `appd-${version}`,
    pkg: "xupgrade.test/appd",
    how: /** @type {const} */ ("sources"),
    moduleDir: `test/peers/app/${line}`,
    sourceDirs: ["test/peers/app/common", `test/peers/app/${line}`],
  })),
  {
    // Ours: the reference verdicts of the light client's tests (test/peers/light-oracle/main.go), CometBFT's light
    // client and cosmos/ics23 at the versions its go.mod pins.
    key: "light-oracle",
    name: "light-oracle",
    version: COMETBFT_VERSION,
    folder: `light-oracle-${COMETBFT_VERSION}`,
    pkg: ".",
    how: "module",
    moduleDir: "test/peers/light-oracle",
    sources: ["main.go"],
  },
  {
    // Ours: CometBFT's own reading of the light client attack evidence xupgrade sends (test/peers/evidence-oracle/main.go):
    // its JSON decoding, hash and the evidence pool's checks.
    key: "evidence-oracle",
    name: "evidence-oracle",
    version: COMETBFT_VERSION,
    folder: `evidence-oracle-${COMETBFT_VERSION}`,
    pkg: ".",
    how: "module",
    moduleDir: "test/peers/evidence-oracle",
    sources: ["main.go"],
  },
  {
    key: "ghz",
    name: "ghz",
    version: GHZ_VERSION,
    folder: `ghz-${GHZ_VERSION}`,
    pkg: "github.com/bojand/ghz/cmd/ghz",
    how: "at-version",
    optional: true,
    usedBy: "`npm run bench:peers`",
  },
  {
    key: "iavl-bench",
    name: "iavl-bench",
    version: IAVL_VERSION,
    folder: `iavl-bench-${IAVL_VERSION}`,
    pkg: ".",
    how: "module",
    moduleDir: "test/peers/iavl-bench",
    sources: ["main.go"],
    optional: true,
    usedBy: "case 11 of `npm run bench`",
  },
];

/** The cache folder, outside the clone: $XUPGRADE_PEERS_DIR or ~/.cache/xupgrade/peers. */
export function peersDir() {
  const env = process.env.XUPGRADE_PEERS_DIR;
  return env ? resolve(env) : join(homedir(), ".cache", "xupgrade", "peers");
}

/**
 * The exact inputs of a peer's build, without the Go version: the command, and for a wrapper module the
 * bytes of its go.mod and go.sum. Undefined when the peer has no recipe in this checkout.
 * @param {PeerSpec} peer
 * @returns {string | undefined}
 */
export function recipeHash(peer) {
  const h = createHash("sha256");
  h.update(`${peer.key}\n${peer.version}\n${peer.pkg}\n${peer.how}\n`);
  if (peer.how === "module" || peer.how === "sources") {
    const dir = join(REPO_ROOT, /** @type {string} */ (peer.moduleDir));
    const mod = join(dir, "go.mod");
    const sum = join(dir, "go.sum");
    if (!existsSync(mod) || !existsSync(sum)) return undefined;
    h.update(readFileSync(mod));
    h.update("\0");
    h.update(readFileSync(sum));
    for (const f of peer.sources ?? []) {
      h.update(`\0${f}\0`);
      h.update(readFileSync(join(dir, f)));
    }
  }
  for (const file of sourceFiles(peer)) {
    h.update(`\0${file.name}\0`);
    h.update(readFileSync(file.path));
  }
  return h.digest("hex");
}

/**
 * The files a 'sources' peer is built from (every file of its `sourceDirs`, later folders winning), by name.
 * @param {PeerSpec} peer
 * @returns {{ name: string, path: string }[]}
 */
export function sourceFiles(peer) {
  const byName = new Map();
  for (const rel of peer.sourceDirs ?? []) {
    const dir = join(REPO_ROOT, rel);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort()) if (statSync(join(dir, name)).isFile()) byName.set(name, join(dir, name));
  }
  return [...byName].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, path]) => ({ name, path }));
}

/**
 * Where a peer's binary and its stamp go.
 * @param {PeerSpec} peer
 */
export function peerPaths(peer, dir = peersDir()) {
  const folder = join(dir, peer.folder);
  return { folder, bin: join(folder, "bin", peer.name), stamp: join(folder, "bin", `${peer.name}.stamp.json`) };
}

/**
 * The built binary of one peer when it is there and was built from this checkout's recipe, else undefined.
 * @param {PeerSpec} peer
 * @returns {string | undefined}
 */
export function builtBinary(peer, dir = peersDir()) {
  const { bin, stamp } = peerPaths(peer, dir);
  try {
    if (!statSync(bin).isFile()) return undefined;
    const s = JSON.parse(readFileSync(stamp, "utf8"));
    const want = recipeHash(peer);
    if (!want || s.recipe !== want || s.peer !== peer.key || s.version !== peer.version) return undefined;
    return bin;
  } catch {
    return undefined;
  }
}

/**
 * @typedef {object} PeerBinaries
 * @property {string} [cometbft]   CometBFT COMETBFT_VERSION
 * @property {string} [simd047]    simd at SDK SDK_V047_VERSION (old binary of the v047-to-v050 rehearsal: halts at SIMD_UPGRADE_NAME)
 * @property {string} [simd050]    simd at SDK SDK_V050_VERSION (new binary: registers SIMD_UPGRADE_NAME and runs the migrations)
 * @property {string} [cosmovisor] cosmovisor COSMOVISOR_VERSION
 * @property {string} [ghz]        ghz GHZ_VERSION (the gRPC load generator of `npm run bench:peers`)
 * @property {string} [iavlBench]  our iavl-bench (cosmos/iavl IAVL_VERSION on goleveldb: case 11 of `npm run bench`)
 * @property {string} [lightOracle] our light-oracle (CometBFT's light client and cosmos/ics23, test/peers/light-oracle)
 * @property {string} [evidenceOracle] our evidence-oracle (CometBFT's reading of light client attack evidence, test/peers/evidence-oracle)
 * @property {string} [app050]     appd on SDK SDK_V050_VERSION (halts at APP_UPGRADE_V053)
 * @property {string} [app053]     appd on SDK SDK_V053_VERSION (applies APP_UPGRADE_V053; halts at APP_UPGRADE_V054)
 * @property {string} [app054]     appd on SDK SDK_V054_VERSION (applies APP_UPGRADE_V054)
 */

/**
 * Absolute paths of the peer programs that `npm run peers` has built; a key is undefined when that peer is not
 * built (or was built from another recipe). Use missingPeerReason() for a skip message.
 * @returns {PeerBinaries}
 */
export function peerBinaries() {
  const dir = peersDir();
  const by = (/** @type {string} */ key) => {
    const peer = PEERS.find((p) => p.key === key);
    return peer ? builtBinary(peer, dir) : undefined;
  };
  return {
    cometbft: by("cometbft"),
    cosmovisor: by("cosmovisor"),
    simd047: by("simd-v047"),
    simd050: by("simd-v050"),
    ghz: by("ghz"),
    iavlBench: by("iavl-bench"),
    lightOracle: by("light-oracle"),
    evidenceOracle: by("evidence-oracle"),
    app050: by("app-v050"),
    app053: by("app-v053"),
    app054: by("app-v054"),
  };
}

/**
 * A one-line reason a peer is missing, for `it.skip`/`describe.skipIf` messages; undefined when it is built.
 * @param {'cometbft'|'simd-v047'|'simd-v050'|'cosmovisor'|'ghz'|'iavl-bench'|'light-oracle'|'evidence-oracle'|'app-v050'|'app-v053'|'app-v054'} key
 * @returns {string | undefined}
 */
export function missingPeerReason(key) {
  const peer = PEERS.find((p) => p.key === key);
  if (!peer) return `no peer named ${key}`;
  if (builtBinary(peer)) return undefined;
  if (peer.how !== "at-version" && !recipeHash(peer)) return `${key} is unavailable: ${peer.unavailableReason ?? `${peer.moduleDir}/go.mod is missing`}`;
  return `${key} ${peer.version} is not built in ${peersDir()}: run \`npm run peers -- --only ${key}\``;
}
