/**
 * The devnet chain host (Node only): init a home (one process) or a testnet (CometBFT validators), and
 * start a node that embeds x/upgrade, with the single-process engine or as the ABCI++ app of CometBFT, and
 * rehearse an upgrade on a copy of a node's committed state (rehearse/).
 *
 * @module xupgrade/devnet
 */
export { initDevnet, DEFAULTS as DEVNET_DEFAULTS, type InitDevnetOptions, type InitDevnetResult } from "./node/init.js";
export { startDevnet, runDevnet, type DevnetEngine, type DevnetHandle, type StartDevnetOptions } from "./node/start.js";
export {
  initTestnet,
  testnetFilePath,
  TESTNET_DEFAULTS,
  type InitTestnetOptions,
  type InitTestnetResult,
  type TestnetNode,
} from "./node/engine/cometbft/testnet.js";
export { freePorts } from "../../base/ports.js";
export { findCometbft, peersCacheDir, type CometbftBinary } from "./node/engine/cometbft/binary.js";
export { CometApp, type CometAppOptions } from "./node/engine/cometbft/app.js";
export { ChainState, BlockHaltError, type BlockInput, type FinalizedBlock, type GenesisInput } from "./chain/state.js";
export { openNode, type OpenedNode, type OpenNodeOptions } from "./chain/open.js";
export {
  loadApp,
  resolveApp,
  runMigrations,
  migrationOrder,
  appVersionMap,
  BUILTIN_MODULES,
  DEFAULT_APP,
  type AppDefinition,
  type AppModule,
  type AppUpgrade,
  type AppUpgradeContext,
  type AppUpgradeHandler,
  type LoadedApp,
  type Migration,
  type ModuleContext,
} from "./chain/app.js";
export { exitCodeFor, TxError, DevnetError, DevnetHaltError, type DevnetErrorKind } from "./shared/errors.js";
export {
  readGenesisKeys,
  readGenesis,
  readDevnetConfig,
  genesisKeysPath,
  genesisPath,
  devnetConfigPath,
  appDbPath,
  type GenesisKeysFile,
  type GenesisKey,
  type DevnetGenesis,
  type DevnetConfig,
} from "./shared/genesis.js";
export { jsonLogger, type LogLevel } from "./shared/logger.js";
export { silentLogger, type Logger } from "../../base/logger.js";
export { accountKeyFromMnemonic } from "./chain/keys.js";
export { COMET_VERSION } from "./node/rpc/methods.js";
export type { BlockMetaJson, BlockRecord, HeaderJson, TxResultJson } from "./chain/blocks.js";
export { rehearseUpgrade, type RehearseOptions, type RehearsalReport, type ModuleReport, type MigrationRun } from "./rehearse/rehearse.js";
export { rehearsalToJson, failedRehearsalJson, formatRehearsal, REHEARSAL_FORMAT, type FormatOptions as RehearsalFormatOptions } from "./rehearse/report.js";
export type { StoreChange, KeyChange } from "./rehearse/diff.js";
export { snapshotSocketPath, snapshotEndpointPath } from "./rehearse/channel.js";
