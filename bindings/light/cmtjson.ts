/**
 * CometBFT's JSON (libs/json, "cmtjson") of what the light client holds: headers, commits, validators, a light
 * block, and light client attack evidence as `broadcast_evidence` reads it. Struct fields under their json
 * tags (or, untagged, their Go names; omitempty ones left out when zero), int64 and uint64 as decimal strings, smaller integers as numbers, hashes
 * and addresses as upper-case hex (HexBytes), signatures as base64 ([]byte, null when empty), times as RFC 3339
 * in UTC, and registered interfaces (keys, evidence) as `{"type": <name>, "value": …}`.
 */
import { toBase64, toHex } from "@cosmjs/encoding";
import type { LightClientAttackEvidence } from "./evidence.js";
import { type BlockID, type Commit, type Header, type Validator, formatTimestamp } from "./types.js";
import type { ValidatorSet } from "./validators.js";
import type { LightBlock } from "./verifier.js";
import { compareBytes } from "../base/bytes.js";

const HEX = (b: Uint8Array) => toHex(b).toUpperCase();

const blockIdJson = (id: BlockID) => ({ hash: HEX(id.hash), parts: { total: id.partSetHeader.total, hash: HEX(id.partSetHeader.hash) } });

export function headerJson(h: Header): unknown {
  return {
    // version.Consensus is a protobuf struct: its fields are omitempty.
    version: { ...(h.version.block ? { block: h.version.block.toString() } : {}), ...(h.version.app ? { app: h.version.app.toString() } : {}) },
    chain_id: h.chainId,
    height: h.height.toString(),
    time: formatTimestamp(h.time),
    last_block_id: blockIdJson(h.lastBlockId),
    last_commit_hash: HEX(h.lastCommitHash),
    data_hash: HEX(h.dataHash),
    validators_hash: HEX(h.validatorsHash),
    next_validators_hash: HEX(h.nextValidatorsHash),
    consensus_hash: HEX(h.consensusHash),
    app_hash: HEX(h.appHash),
    last_results_hash: HEX(h.lastResultsHash),
    evidence_hash: HEX(h.evidenceHash),
    proposer_address: HEX(h.proposerAddress),
  };
}

export function commitJson(c: Commit): unknown {
  return {
    height: c.height.toString(),
    round: c.round,
    block_id: blockIdJson(c.blockId),
    signatures: c.signatures.map((s) => ({
      block_id_flag: s.blockIdFlag,
      validator_address: HEX(s.validatorAddress),
      timestamp: formatTimestamp(s.timestamp),
      signature: s.signature.length ? toBase64(s.signature) : null,
    })),
  };
}

export function validatorJson(v: Validator): unknown {
  const pk = v.pubKey.ed25519
    ? { type: "tendermint/PubKeyEd25519", value: toBase64(v.pubKey.ed25519) }
    : { type: "tendermint/PubKeySecp256k1", value: toBase64(v.pubKey.secp256k1!) };
  return { address: HEX(v.address), pub_key: pk, voting_power: v.votingPower.toString(), proposer_priority: v.proposerPriority.toString() };
}

/**
 * The proposer a set read from a node carries (ValidatorSetFromExistingValidators' findPreviousProposer): the
 * lowest proposer priority, the larger address on a tie. CometBFT's ValidatorSet.ValidateBasic needs one.
 */
function previousProposer(validators: readonly Validator[]): Validator {
  let p = validators[0];
  for (const v of validators.slice(1)) {
    const pWins = p.proposerPriority > v.proposerPriority || (p.proposerPriority === v.proposerPriority && compareBytes(p.address, v.address) < 0);
    if (pWins) p = v;
  }
  return p;
}

export const validatorSetJson = (set: ValidatorSet): unknown => ({
  validators: set.validators.map(validatorJson),
  proposer: validatorJson(previousProposer(set.validators)),
});

export const lightBlockJson = (lb: LightBlock): unknown => ({
  signed_header: { header: headerJson(lb.signedHeader.header), commit: commitJson(lb.signedHeader.commit) },
  validator_set: validatorSetJson(lb.validatorSet),
});

/** types.Evidence holding a LightClientAttackEvidence (its fields have no json tags: their Go names). */
export const evidenceJson = (ev: LightClientAttackEvidence): unknown => ({
  type: "tendermint/LightClientAttackEvidence",
  value: {
    ConflictingBlock: lightBlockJson(ev.conflictingBlock),
    CommonHeight: ev.commonHeight.toString(),
    // A nil slice (an amnesia attack names no one) is null.
    ByzantineValidators: ev.byzantineValidators.length ? ev.byzantineValidators.map(validatorJson) : null,
    TotalVotingPower: ev.totalVotingPower.toString(),
    Timestamp: formatTimestamp(ev.timestamp),
  },
});
