/**
 * A validator set as CometBFT's light client holds it (types/validator_set.go): validators checked one by one
 * (a key, a non-negative power, the address its key gives), sorted by power (descending, then address), the
 * total capped at MaxTotalVotingPower; its hash is the Merkle root of each validator's SimpleValidator bytes.
 */
import { ripemd160 } from "@noble/hashes/legacy.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { toHex } from "@cosmjs/encoding";
import { validatorBytes } from "./encoding.js";
import { InvalidValidatorSetError, hex } from "./errors.js";
import { hashFromByteSlices } from "./merkle.js";
import type { Validator } from "./types.js";
import { compareBytes, equalBytes } from "../base/bytes.js";

/** types.MaxTotalVotingPower: MaxInt64 / 8, so sums and products of powers never overflow. */
export const MAX_TOTAL_VOTING_POWER = ((1n << 63n) - 1n) / 8n;

export type KeyType = "ed25519" | "secp256k1";

/** The key type and bytes of a validator, or undefined for a key of another kind. */
export function validatorKey(v: Validator): { type: KeyType; bytes: Uint8Array } | undefined {
  const pk = v.pubKey;
  if (pk?.ed25519 !== undefined) return { type: "ed25519", bytes: pk.ed25519 };
  if (pk?.secp256k1 !== undefined) return { type: "secp256k1", bytes: pk.secp256k1 };
  return undefined;
}

/** The address a key gives: sha256(key)[:20] for ed25519, ripemd160(sha256(key)) for secp256k1. */
export function keyAddress(type: KeyType, key: Uint8Array): Uint8Array {
  return type === "ed25519" ? sha256(key).subarray(0, 20) : ripemd160(sha256(key));
}

export class ValidatorSet {
  readonly validators: readonly Validator[];
  readonly totalVotingPower: bigint;
  private cachedHash: Uint8Array | undefined;
  private byAddress: Map<string, number> | undefined;

  /** ValidatorSetFromExistingValidators: checks each validator, sums the power, sorts by power. */
  constructor(validators: readonly Validator[], height?: bigint) {
    if (validators.length === 0) throw new InvalidValidatorSetError("the validator set is empty", height);
    let total = 0n;
    validators.forEach((v, i) => {
      const key = validatorKey(v);
      if (!key) throw new InvalidValidatorSetError(`validator #${i} has no ed25519 or secp256k1 key`, height);
      if (v.votingPower < 0n) throw new InvalidValidatorSetError(`validator #${i} has negative voting power`, height);
      const want = keyAddress(key.type, key.bytes);
      if (!equalBytes(want, v.address)) {
        throw new InvalidValidatorSetError(`validator #${i}'s address ${hex(v.address)} is not the one its key gives (${hex(want)})`, height);
      }
      total += v.votingPower;
      if (total > MAX_TOTAL_VOTING_POWER) throw new InvalidValidatorSetError(`total voting power exceeds the maximum ${MAX_TOTAL_VOTING_POWER}`, height);
    });
    this.validators = [...validators].sort((a, b) =>
      a.votingPower === b.votingPower ? compareBytes(a.address, b.address) : a.votingPower > b.votingPower ? -1 : 1,
    );
    this.totalVotingPower = total;
  }

  get size(): number {
    return this.validators.length;
  }

  /** The Merkle root of the validators' SimpleValidator bytes, in set order (header.validators_hash). */
  hash(): Uint8Array {
    this.cachedHash ??= hashFromByteSlices(this.validators.map(validatorBytes));
    return this.cachedHash;
  }

  /** The index of the validator with this address, or -1. */
  indexOf(address: Uint8Array): number {
    if (!this.byAddress) {
      this.byAddress = new Map();
      this.validators.forEach((v, i) => this.byAddress!.set(toHex(v.address), i));
    }
    return this.byAddress.get(toHex(address)) ?? -1;
  }

  /** Whether both sets list the same proposer priorities (CometBFT's detector compares their hashes). */
  samePriorities(other: ValidatorSet): boolean {
    return this.size === other.size && this.validators.every((v, i) => v.proposerPriority === other.validators[i].proposerPriority);
  }
}
