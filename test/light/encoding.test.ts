/**
 * The bytes the light client hashes and signs, held to CometBFT v0.38's own test vectors
 * (crypto/merkle/tree_test.go, types/block_test.go TestHeaderHash, types/vote_test.go
 * TestVoteSignBytesTestVectors), to a real CometBFT node's headers (test/light/cometbft.test.ts), and the messages
 * cosmjs-types also encodes (Timestamp, BlockID, Consensus, SimpleValidator) to its encoders on random values.
 */
import { toHex } from "@cosmjs/encoding";
import { sha256 } from "@noble/hashes/sha2.js";
import { Timestamp as PbTimestamp } from "cosmjs-types/google/protobuf/timestamp";
import { BlockID as PbBlockID } from "cosmjs-types/tendermint/types/types";
import { SimpleValidator } from "cosmjs-types/tendermint/types/validator";
import { Consensus } from "cosmjs-types/tendermint/version/types";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { blockIdBytes, cdcBytes, cdcInt64, cdcString, headerLeaves, timestampBytes, validatorBytes, voteSignBytes } from "../../bindings/light/encoding.js";
import { headerHash } from "../../bindings/light/header.js";
import { hashFromByteSlices, splitPoint } from "../../bindings/light/merkle.js";
import type { Commit, Header } from "../../bindings/light/types.js";

const utf8 = new TextEncoder();
const tm = (s: string) => sha256(utf8.encode(s));
const GO_ZERO = { seconds: -62135596800n, nanos: 0 };

describe("merkle.HashFromByteSlices (crypto/merkle/tree_test.go)", () => {
  const cases: [string, number[][], string][] = [
    ["empty", [], "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"],
    ["single", [[1, 2, 3]], "054edec1d0211f624fed0cbca9d4f9400b0e491c43742af2c5b0abebf0c990d8"],
    ["single blank", [[]], "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d"],
    [
      "two",
      [
        [1, 2, 3],
        [4, 5, 6],
      ],
      "82e6cfce00453804379b53962939eaa7906b39904be0813fcadd31b100773c4b",
    ],
    [
      "many",
      [
        [1, 2],
        [3, 4],
        [5, 6],
        [7, 8],
        [9, 10],
      ],
      "f326493eceab4f2d9ffbc78c59432a0a005d6ea98392045c74df5d14a113be18",
    ],
  ];
  for (const [name, items, want] of cases) {
    it(name, () => expect(toHex(hashFromByteSlices(items.map((b) => Uint8Array.from(b))))).toBe(want));
  }

  it("splits at the largest power of two below the count (getSplitPoint)", () => {
    expect([2, 3, 4, 5, 8, 9, 14, 150].map(splitPoint)).toEqual([1, 2, 2, 4, 4, 8, 8, 128]);
  });
});

describe("cdcEncode (types/encoding_helper.go)", () => {
  it("writes gogoproto wrappers, nothing for empty values", () => {
    expect(toHex(cdcString("chainId"))).toBe("0a07636861696e4964");
    expect(toHex(cdcInt64(3n))).toBe("0803");
    expect(toHex(cdcInt64(-1n))).toBe("08ffffffffffffffffff01");
    expect(toHex(cdcBytes(Uint8Array.of(1, 2)))).toBe("0a020102");
    expect([cdcString(""), cdcInt64(0n), cdcBytes(new Uint8Array(0))].map((b) => b.length)).toEqual([0, 0, 0]);
  });
});

describe("Header.Hash (types/block_test.go TestHeaderHash)", () => {
  const header: Header = {
    version: { block: 1n, app: 2n },
    chainId: "chainId",
    height: 3n,
    time: { seconds: BigInt(Date.UTC(2019, 9, 13, 16, 14, 44) / 1000), nanos: 0 },
    lastBlockId: { hash: new Uint8Array(32), partSetHeader: { total: 6, hash: new Uint8Array(32) } },
    lastCommitHash: tm("last_commit_hash"),
    dataHash: tm("data_hash"),
    validatorsHash: tm("validators_hash"),
    nextValidatorsHash: tm("next_validators_hash"),
    consensusHash: tm("consensus_hash"),
    appHash: tm("app_hash"),
    lastResultsHash: tm("last_results_hash"),
    evidenceHash: tm("evidence_hash"),
    proposerAddress: tm("proposer_address").subarray(0, 20),
  };

  it("is the Merkle root of the 14 fields", () => {
    expect(toHex(headerHash(header)!).toUpperCase()).toBe("F740121F553B5418C3EFBD343C2DBFE9E007BB67B0D020A0741374BAB65242A4");
  });

  it("is nil without a validators hash", () => {
    expect(headerHash({ ...header, validatorsHash: new Uint8Array(0) })).toBeUndefined();
  });

  it("changes with every field", () => {
    const base = toHex(headerHash(header)!);
    const changed: Header[] = [
      { ...header, version: { block: 1n, app: 3n } },
      { ...header, chainId: "chainid" },
      { ...header, height: 4n },
      { ...header, time: { ...header.time, nanos: 1 } },
      { ...header, lastBlockId: { ...header.lastBlockId, partSetHeader: { total: 7, hash: new Uint8Array(32) } } },
      { ...header, appHash: tm("other") },
      { ...header, proposerAddress: new Uint8Array(20) },
    ];
    for (const h of changed) expect(toHex(headerHash(h)!)).not.toBe(base);
  });
});

describe("Vote sign bytes (types/vote_test.go TestVoteSignBytesTestVectors)", () => {
  const commit = (height: bigint, round: number, timestamp = GO_ZERO): Commit => ({
    height,
    round,
    blockId: { hash: new Uint8Array(0), partSetHeader: { total: 0, hash: new Uint8Array(0) } },
    signatures: [{ blockIdFlag: 2, validatorAddress: new Uint8Array(20), timestamp, signature: new Uint8Array(64) }],
  });

  it("vector 1: a precommit at height 1, round 1, Go's zero time, no chain id", () => {
    expect(toHex(voteSignBytes("", commit(1n, 1), 0))).toBe(
      "21" + "0802" + "11" + "0100000000000000" + "19" + "0100000000000000" + "2a" + "0b088092b8c398feffffff01",
    );
  });

  it("vector 4's chain id field (as a precommit)", () => {
    const bytes = voteSignBytes("test_chain_id", commit(1n, 1), 0);
    expect(toHex(bytes).endsWith("32" + "0d" + toHex(utf8.encode("test_chain_id")))).toBe(true);
    expect(bytes[0]).toBe(bytes.length - 1);
  });

  it("covers the commit's block id for COMMIT and none for NIL", () => {
    const c = commit(5n, 0, { seconds: 1n, nanos: 2 });
    c.blockId = { hash: tm("block"), partSetHeader: { total: 1, hash: tm("parts") } };
    const forBlock = voteSignBytes("c", c, 0);
    // CanonicalBlockID{hash, CanonicalPartSetHeader{total 1, hash}} as field 4.
    expect(toHex(forBlock)).toContain("22" + "48" + "0a20" + toHex(tm("block")) + "1224" + "0801" + "1220" + toHex(tm("parts")));
    c.signatures[0].blockIdFlag = 3;
    expect(toHex(voteSignBytes("c", c, 0))).not.toContain(toHex(tm("block")));
  });

  it("writes a height above 2^53 with every bit (sfixed64, little-endian)", () => {
    const big = voteSignBytes("", commit((1n << 62n) + 1n, 0), 0);
    expect(toHex(big.subarray(3, 12))).toBe("11" + "0100000000000040");
  });
});

const HEADER_ZERO: Header = {
  version: { block: 0n, app: 0n },
  chainId: "",
  height: 0n,
  time: { seconds: 0n, nanos: 0 },
  lastBlockId: { hash: new Uint8Array(0), partSetHeader: { total: 0, hash: new Uint8Array(0) } },
  lastCommitHash: new Uint8Array(0),
  dataHash: new Uint8Array(0),
  validatorsHash: new Uint8Array(0),
  nextValidatorsHash: new Uint8Array(0),
  consensusHash: new Uint8Array(0),
  appHash: new Uint8Array(0),
  lastResultsHash: new Uint8Array(0),
  evidenceHash: new Uint8Array(0),
  proposerAddress: new Uint8Array(0),
};

describe("the messages cosmjs-types also encodes, against it on random values", () => {
  const i64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
  const u64 = fc.bigInt({ min: 0n, max: 2n ** 64n - 1n });
  const timestamp = fc.record({ seconds: i64, nanos: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }) });
  const bytes = fc.uint8Array({ maxLength: 40 });
  const blockId = fc.record({ hash: bytes, partSetHeader: fc.record({ total: fc.nat({ max: 0xffffffff }), hash: bytes }) });
  const hex = (b: Uint8Array) => toHex(b);

  it("Timestamp, BlockID and the header's version leaf", () => {
    fc.assert(
      fc.property(timestamp, blockId, fc.record({ block: u64, app: u64 }), (t, id, version) => {
        expect(hex(timestampBytes(t))).toBe(hex(PbTimestamp.encode(t).finish()));
        expect(hex(blockIdBytes(id))).toBe(hex(PbBlockID.encode(id).finish()));
        const leaves = headerLeaves({ ...HEADER_ZERO, version, time: t, lastBlockId: id });
        expect([hex(leaves[0]), hex(leaves[3]), hex(leaves[4])]).toEqual([
          hex(Consensus.encode(version).finish()),
          hex(PbTimestamp.encode(t).finish()),
          hex(PbBlockID.encode(id).finish()),
        ]);
      }),
      { numRuns: 300 },
    );
  });

  it("SimpleValidator (an ed25519 or a secp256k1 key, set even when empty)", () => {
    const pubKey = fc.oneof(
      bytes.map((ed25519) => ({ ed25519 })),
      bytes.map((secp256k1) => ({ secp256k1 })),
    );
    fc.assert(
      fc.property(pubKey, i64, (key, votingPower) => {
        const v = { address: new Uint8Array(20), pubKey: key, votingPower, proposerPriority: 0n };
        expect(hex(validatorBytes(v))).toBe(hex(SimpleValidator.encode({ pubKey: key, votingPower }).finish()));
      }),
      { numRuns: 300 },
    );
  });
});
