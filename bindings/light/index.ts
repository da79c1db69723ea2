/**
 * `xupgrade/light` (Node and browsers): x/upgrade's state read from a node that is not trusted, verified as
 * CometBFT's light client verifies headers and proven against their app hash (docs/spec/light-client.md).
 *
 *   const client = await VerifiedUpgradeClient.connect("https://rpc.example.org", {
 *     trust: { height, hash },
 *     witnesses: ["https://another-rpc.example.org"],
 *   });
 *   await client.sync();
 *   const { value: plan, height } = await client.currentPlan();
 *
 * A failure is a VerificationError naming the check and the height; nothing it touched is verified.
 *
 * @module xupgrade/light
 */
export {
  VerifiedUpgradeClient,
  providerOf,
  trustOnFirstUse,
  type Freshness,
  type Node,
  type ProposedUpgrade,
  type Proven,
  type VerifiedHeader,
  type VerifiedUpgradeOptions,
} from "./upgrade.js";
export {
  DEFAULT_MAX_AGE,
  NoTrustRootError,
  describeRoot,
  maxAgeMs,
  rememberVerified,
  resolveTrustRoot,
  unconfirmedWarning,
  type ResolvedRoot,
  type RootOrigin,
  type RootRequest,
  type RootSource,
  type RootStore,
  type SavedRoot,
  type TrustOrigin,
} from "./trust-root.js";
export { savedRootFromJson, savedRootToJson, type SavedRootJson } from "./saved-root-json.js";
export { dataHash, proveTxs } from "./txs.js";
export { LightClient, type LightClientOptions, type VerificationStep } from "./client.js";
export type { WitnessReport } from "./detector.js";
export {
  attackKind,
  byzantineValidators,
  conflictingHeaderIsInvalid,
  evidenceHash,
  newLightClientAttackEvidence,
  type AttackKind,
  type EvidenceAnswer,
  type EvidenceSent,
  type LightClientAttackEvidence,
} from "./evidence.js";
export { evidenceJson, lightBlockJson } from "./cmtjson.js";
export { verify, verifyAdjacent, verifyNonAdjacent, headerExpired, lightBlock, type LightBlock, type VerifyOptions } from "./verifier.js";
export { verifyCommitLight, verifyCommitLightTrusting, validateTrustLevel, DEFAULT_TRUST_LEVEL, type CommitTally, type TrustLevel } from "./commit.js";
export { headerHash, validateSignedHeader } from "./header.js";
export { ValidatorSet, keyAddress, MAX_TOTAL_VOTING_POWER, type KeyType } from "./validators.js";
export { voteSignBytes, headerLeaves, validatorBytes } from "./encoding.js";
export { hashFromByteSlices } from "./merkle.js";
export { verifySignatures, type SignatureEngine } from "./signatures.js";
export { fetchLightBlock, type AbciAnswer, type AbciRequest, type LightProvider, type NodeStatus, type ProofOp } from "./provider.js";
export { RpcProvider } from "./rpc-provider.js";
export { uriTransport } from "../client/uri-transport.js";
export { CometClientProvider, type CometClientLike } from "./comet-provider.js";
export { proveKey, proveRange, type ProofRoot, type ProvenKey, type ProvenRange } from "./proofs.js";
export { COSMOS_SDK, STATE_SPECS, UNPROVABLE, UnprovableChainError, stateSpec, type StateSpec } from "./chains.js";
export { DEFAULT_MAX_BLOCK_LAG_MS, DEFAULT_MAX_CLOCK_DRIFT_NS, DEFAULT_TRUSTING_PERIOD_NS, trustRoot, type TrustOptions, type TrustRoot } from "./trust.js";
export { formatTimestamp, timestampNs, type SignedHeader, type Timestamp } from "./types.js";
export {
  VerificationError,
  TrustOptionsError,
  ProviderError,
  InvalidHeaderError,
  ChainIdMismatchError,
  HeaderHashMismatchError,
  TrustedHashMismatchError,
  TrustRootExpiredError,
  HeaderOrderError,
  ClockDriftError,
  InvalidValidatorSetError,
  ValidatorsHashMismatchError,
  NextValidatorsHashMismatchError,
  InvalidCommitError,
  WrongSignatureError,
  NotEnoughVotingPowerError,
  NewValSetCantBeTrustedError,
  ConflictingHeadersError,
  NoWitnessConfirmedError,
  ProposerPrioritiesDivergeError,
  MissingProofError,
  ProofError,
  StaleHeaderError,
  NoWitnessesError,
  LightClientAttackError,
  SavedRootError,
  formatAge,
  type Check,
  type WitnessFault,
  type ProviderFailure,
} from "./errors.js";
