/**
 * What Node and the browser share: the module library. The core (loadCore), the stores, x/upgrade
 * itself (keeper, msg server, msgs, errors, types, store loader, plan text, Plan.info parsing) and the
 * client (the upgrade queries over a node's CometBFT RPC). The platform entry points (node.ts,
 * browser.ts) add createKeeper and their durable stores; servers and programs have their own subpaths
 * (`xupgrade/services`, `xupgrade/devnet`, `xupgrade/abci`, Node only).
 */
export type { CompletedUpgrade, DoneEntries, DoneLayout, ModuleVersion, Plan, PlanInput, StoreUpgrades, VersionMap } from "./module/types.js";
export { UpgradeError, errors, haltExitCode, type UpgradeErrorKind } from "./module/errors.js";
export { loadCore, type Backend, type Core, type CoreSession, type PreBlockDecision } from "./core/index.js";
export {
  IAVL_SPEC,
  Ics23Error,
  SMT_SPEC,
  TENDERMINT_SPEC,
  type Ics23ErrorKind,
  type Ics23Spec,
  type Ics23SpecName,
  type NonMembershipFacts,
  type ProofOp,
  type ProofSpec,
  type ProvenLeaf,
  type StoreProofFacts,
} from "./core/ics23.js";
export {
  GOV_AUTHORITY,
  UpgradeKeeper,
  type KeeperOptions,
  type Logger,
  type PreBlockOptions,
  type UpgradeContext,
  type UpgradeHandler,
  type UpgradeInfoFile,
  type VersionSetter,
} from "./module/keeper.js";
export { createMsgServer, type MsgServer } from "./module/msg-server.js";
export {
  MSG_CANCEL_UPGRADE_TYPE_URL,
  MSG_SOFTWARE_UPGRADE_TYPE_URL,
  decodeMsgCancelUpgrade,
  decodeMsgSoftwareUpgrade,
  encodeMsgCancelUpgrade,
  encodeMsgSoftwareUpgrade,
  type MsgCancelUpgrade,
  type MsgSoftwareUpgrade,
} from "./module/msgs.js";
export { planToText } from "./module/plan-text.js";
export { defaultStoreLoader, upgradeStoreLoader, type LoadResult, type StoreLoader } from "./module/store-loader.js";
export { UPGRADE_INFO_FILE, ZERO_TIME, encodeUpgradeInfo } from "./module/upgrade-info/encode.js";
export { parseUpgradeInfo, type ParsedUpgradeInfo } from "./module/upgrade-info/decode.js";
export { PlanInfoError } from "./module/plan-info/errors.js";
export { parseInfoDocument, parseInfoJson } from "./module/plan-info/parse.js";
export { checkBinaries, checkUrl, parseChecksum, validPlatformKey, type CheckedUrl, type Checksum, type ChecksumAlgo } from "./module/plan-info/check.js";
export { type KVStore, prefixEnd } from "./core/kv.js";
export { compareBytes } from "./base/bytes.js";
export { MemoryStore } from "./store/memory.js";
export { CacheStore } from "./store/cache.js";
export { DurableMultiStore, DurableStore, type DurableOptions } from "./store/level.js";
export { CorruptStoreError, StoreFormatError, StoreQueryError, StoreStateError } from "./store/errors.js";
export { CometRpc, RpcError, DEFAULT_NODE } from "./client/rpc.js";
export { AbciError, abciQuery, type AbciResult } from "./client/abci.js";
export { ClientError, InvalidAddressError, NodeAddressError } from "./client/errors.js";
export { UPGRADE_QUERY, haltedForPlan, latestBlockHeight, queryAppliedPlan, queryAuthority, queryCurrentPlan, queryModuleVersions } from "./client/upgrade.js";
export { BECH32_PREFIX, HD_PATH, addressBytes, addressOfPubkey, addressProblem, isAddress, moduleAddress } from "./client/address.js";
export {
  READINESS_QUERY_PATH,
  READINESS_REST_PATH,
  READINESS_STORE,
  ReadinessError,
  decodeParams as decodeReadinessParams,
  decodeReadinessResponse,
  decodeTally,
  decodeVoteExtension,
  encodeVoteExtension,
  moreThanTwoThirdsReady,
  preflightText,
  tallyKey,
  type ReadinessAttestation,
  type ReadinessParams,
  type ReadinessStatus,
  type ReadinessTally,
  type ValidatorReadiness,
} from "./module/readiness/index.js";
export { DEFAULT_READINESS_WARN_BLOCKS, percentOf, queryReadiness, readinessWarnings } from "./client/readiness.js";
