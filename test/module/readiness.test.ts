/**
 * Upgrade readiness (docs/spec/readiness.md §2–§5): the vote extension's codec and shape check, held to
 * @bufbuild/protobuf's own codec over the committed descriptor set (built by buf from
 * proto/xupgrade/upgrade/v1/readiness.proto); every refusal with its own kind; the JSON hand-over form; the
 * tally rule; the votes' effect on the attestations; the store.
 */
import { createFileRegistry, create, fromBinary, toBinary, type DescMessage } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  MAX_VOTE_EXTENSION_BYTES,
  ReadinessError,
  attestationFromJson,
  attestationToJson,
  attestedOf,
  decodeTally,
  decodeVoteExtension,
  encodeTally,
  encodeVoteExtension,
  moreThanTwoThirdsReady,
  plannedSha256,
  preflightText,
  readTally,
  recordVotes,
  saveTally,
  tallyKey,
  tallyReadiness,
  type ReadinessAttestation,
  type ReadinessErrorKind,
  type TallyValidator,
} from "../../bindings/module/readiness/index.js";
import { descriptorSetBytes } from "../../bindings/services/descriptors.js";
import { MemoryStore } from "../../bindings/store/memory.js";

const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, descriptorSetBytes()));
const schema = (name: string) => registry.getMessage(`xupgrade.upgrade.v1.${name}`) as DescMessage;

const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill);
const PLAN = { name: "v2", height: 300n, info: "" };

function attestation(over: Partial<ReadinessAttestation> = {}): ReadinessAttestation {
  return {
    planName: "v2",
    planHeight: 300n,
    platform: "linux/amd64",
    binarySha256: bytes(32, 0xaa),
    preflightOk: true,
    rehearsal: "passed",
    rehearsalExitCode: 0,
    appHash: bytes(32, 0x11),
    snapshotHeight: 120n,
    binaryVersion: "example-v2 2.0.0",
    ...over,
  };
}

const refused = (fn: () => unknown): ReadinessErrorKind => {
  try {
    fn();
  } catch (e) {
    if (e instanceof ReadinessError) return e.kind;
    throw e;
  }
  throw new Error("not refused");
};

describe("the vote extension", () => {
  it("round-trips, and @bufbuild/protobuf reads and writes the same bytes from the .proto", () => {
    const a = attestation();
    const ext = encodeVoteExtension(a);
    expect(decodeVoteExtension(ext)).toEqual(a);
    const theirs = fromBinary(schema("VoteExtension"), ext) as unknown as { readiness: Record<string, unknown> };
    expect(theirs.readiness).toMatchObject({
      planName: "v2",
      planHeight: 300n,
      platform: "linux/amd64",
      preflightOk: true,
      rehearsal: 1,
      snapshotHeight: 120n,
      binaryVersion: "example-v2 2.0.0",
    });
    expect(toBinary(schema("VoteExtension"), theirs as never)).toEqual(ext);
  });

  it("agrees with @bufbuild/protobuf on random attestations (ours decodes theirs; theirs decodes ours)", () => {
    const arb = fc.record({
      planName: fc.string({ minLength: 1, maxLength: 40 }).filter((s) => new TextEncoder().encode(s).length <= 128),
      planHeight: fc.bigInt({ min: 2n, max: 2n ** 62n }),
      platform: fc.constantFrom("linux/amd64", "darwin/arm64", "any"),
      verdict: fc.constantFrom("passed", "failed", "not_rehearsed" as const),
      exit: fc.integer({ min: 1, max: 255 }),
      // eslint-disable-next-line no-control-regex -- the controls are what it leaves out
      version: fc.string({ maxLength: 20 }).filter((s) => !/[\u0000-\u001f\u007f-\u009f]/.test(s) && new TextEncoder().encode(s).length <= 64),
      sha: fc.uint8Array({ minLength: 32, maxLength: 32 }),
      hash: fc.uint8Array({ minLength: 32, maxLength: 32 }),
    });
    fc.assert(
      fc.property(arb, (r) => {
        const a = attestation({
          planName: r.planName,
          planHeight: r.planHeight,
          platform: r.platform,
          rehearsal: r.verdict,
          rehearsalExitCode: r.verdict === "failed" ? r.exit : 0,
          appHash: r.verdict === "passed" ? r.hash : new Uint8Array(0),
          snapshotHeight: r.verdict === "not_rehearsed" ? 0n : r.planHeight - 1n,
          binarySha256: r.sha,
          binaryVersion: r.version,
        });
        const ours = encodeVoteExtension(a);
        const msg = create(schema("VoteExtension"), {
          readiness: {
            planName: a.planName,
            planHeight: a.planHeight,
            platform: a.platform,
            binarySha256: a.binarySha256,
            preflightOk: a.preflightOk,
            rehearsal: { not_rehearsed: 0, passed: 1, failed: 2 }[a.rehearsal],
            rehearsalExitCode: a.rehearsalExitCode,
            appHash: a.appHash,
            snapshotHeight: a.snapshotHeight,
            binaryVersion: a.binaryVersion,
          },
        });
        expect(toBinary(schema("VoteExtension"), msg)).toEqual(ours);
        expect(decodeVoteExtension(ours)).toEqual(a);
      }),
      { numRuns: 200 },
    );
  });

  it("is empty for no attestation, and an empty extension decodes to none", () => {
    expect(encodeVoteExtension(undefined)).toEqual(new Uint8Array(0));
    expect(decodeVoteExtension(new Uint8Array(0))).toBeUndefined();
  });

  it("refuses each malformed or oversized input with its own reason", () => {
    const good = encodeVoteExtension(attestation());
    const w = () => new BinaryWriter();
    const wrap = (inner: Uint8Array) => w().tag(1, WireType.LengthDelimited).bytes(inner).finish();
    const cases: [string, Uint8Array, ReadinessErrorKind][] = [
      ["over the size limit", new Uint8Array(MAX_VOTE_EXTENSION_BYTES + 1), "too-large"],
      ["random bytes", Uint8Array.of(0xff, 0xff, 0xff), "malformed"],
      ["an unknown top-level field", w().tag(2, WireType.Varint).uint32(1).finish(), "malformed"],
      ["the attestation as a varint", w().tag(1, WireType.Varint).uint32(5).finish(), "malformed"],
      ["truncated", good.subarray(0, good.length - 3), "malformed"],
      ["trailing garbage (a zero byte)", Uint8Array.from([...good, 0x00]), "malformed"],
      ["trailing garbage (a cut varint)", Uint8Array.from([...good, 0x80]), "malformed"],
      ["an 11-byte varint", Uint8Array.of(0x10, ...Array<number>(10).fill(0xff), 0x01), "malformed"],
      ["the plan height as bytes", wrap(w().tag(2, WireType.LengthDelimited).bytes(Uint8Array.of(1)).finish()), "malformed"],
      ["an unknown attestation field", wrap(w().tag(11, WireType.Varint).uint32(1).finish()), "malformed"],
      ["invalid UTF-8 in the plan name", wrap(w().tag(1, WireType.LengthDelimited).bytes(Uint8Array.of(0xc3, 0x28)).finish()), "malformed"],
      ["an unknown rehearsal verdict", wrap(w().tag(6, WireType.Varint).uint32(9).finish()), "rehearsal"],
      [
        "a trailing copy of a field",
        Uint8Array.from([...good, ...w().tag(1, WireType.LengthDelimited).bytes(encodeVoteExtension(attestation()).subarray(2)).finish()]),
        "not-canonical",
      ],
      [
        "a default value written",
        wrap(
          Uint8Array.from([
            ...encodeVoteExtension(attestation({ rehearsal: "not_rehearsed", appHash: new Uint8Array(0), snapshotHeight: 0n })).subarray(2),
            ...w().tag(7, WireType.Varint).uint32(0).finish(),
          ]),
        ),
        "not-canonical",
      ],
      ["the empty attestation", wrap(new Uint8Array(0)), "plan-name"],
      ["a 129-byte plan name", encodeVoteExtension(attestation({ planName: "x".repeat(129) })), "plan-name"],
      ["plan height 0", encodeVoteExtension(attestation({ planHeight: 0n })), "plan-height"],
      ["a negative plan height", encodeVoteExtension(attestation({ planHeight: -5n })), "plan-height"],
      ["platform Linux/AMD64", encodeVoteExtension(attestation({ platform: "Linux/AMD64" })), "platform"],
      ["platform linux", encodeVoteExtension(attestation({ platform: "linux" })), "platform"],
      ["a 31-byte sha256", encodeVoteExtension(attestation({ binarySha256: bytes(31, 1) })), "binary-sha256"],
      [
        "a passing pre-flight without a binary",
        encodeVoteExtension(attestation({ binarySha256: new Uint8Array(0), rehearsal: "not_rehearsed", appHash: new Uint8Array(0), snapshotHeight: 0n })),
        "binary-sha256",
      ],
      ["a passed rehearsal without an app hash", encodeVoteExtension(attestation({ appHash: new Uint8Array(0) })), "app-hash"],
      ["a failed rehearsal with an app hash", encodeVoteExtension(attestation({ rehearsal: "failed", rehearsalExitCode: 23 })), "app-hash"],
      ["a failed rehearsal with exit code 0", encodeVoteExtension(attestation({ rehearsal: "failed", appHash: new Uint8Array(0) })), "exit-code"],
      ["a passed rehearsal with exit code 20", encodeVoteExtension(attestation({ rehearsalExitCode: 20 })), "exit-code"],
      ["a snapshot at the plan height", encodeVoteExtension(attestation({ snapshotHeight: 300n })), "snapshot-height"],
      ["a rehearsal without a snapshot", encodeVoteExtension(attestation({ snapshotHeight: 0n })), "snapshot-height"],
      [
        "no rehearsal with a snapshot height",
        encodeVoteExtension(attestation({ rehearsal: "not_rehearsed", appHash: new Uint8Array(0), snapshotHeight: 5n })),
        "snapshot-height",
      ],
      ["a 65-byte version", encodeVoteExtension(attestation({ binaryVersion: "v".repeat(65) })), "binary-version"],
      ["a version with a newline", encodeVoteExtension(attestation({ binaryVersion: "v2\nforged line" })), "binary-version"],
    ];
    for (const [what, input, kind] of cases) expect([what, refused(() => decodeVoteExtension(input))]).toEqual([what, kind]);
  });

  it("the largest valid attestation fits the limit", () => {
    const big = attestation({ planName: "n".repeat(128), binaryVersion: "v".repeat(64), planHeight: 2n ** 62n, snapshotHeight: 2n ** 62n - 1n });
    expect(encodeVoteExtension(big).length).toBeLessThanOrEqual(MAX_VOTE_EXTENSION_BYTES);
    expect(decodeVoteExtension(encodeVoteExtension(big))).toEqual(big);
  });
});

describe("the hand-over file's JSON", () => {
  it("round-trips through attestationToJson and attestationFromJson", () => {
    const a = attestation();
    const json = JSON.parse(JSON.stringify(attestationToJson(a, { reason: "staged", summary: "rehearsed", path: "/bin/x", created: "2026-01-01T00:00:00Z" })));
    expect(json).toMatchObject({
      format: "xupgrade-readiness/1",
      plan: { name: "v2", height: "300" },
      rehearsal: { verdict: "passed", snapshot_height: "120" },
    });
    expect(attestationFromJson(json)).toEqual(a);
  });

  it("refuses a file that is not an attestation, saying what is wrong", () => {
    const ok = () => JSON.parse(JSON.stringify(attestationToJson(attestation())));
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the edits write what the type forbids: a forged file
    const bad = (edit: (j: any) => void) => {
      const j = ok();
      edit(j);
      try {
        attestationFromJson(j);
      } catch (e) {
        return (e as Error).message;
      }
      return "accepted";
    };
    expect(bad((j) => (j.format = "other/1"))).toContain('format is "other/1"');
    expect(bad((j) => (j.plan.height = "12a"))).toContain("not a decimal height");
    expect(bad((j) => (j.binary.sha256 = "zz"))).toContain("not hex");
    expect(bad((j) => (j.rehearsal.verdict = "maybe"))).toContain("rehearsal.verdict");
    expect(bad((j) => (j.rehearsal.app_hash = ""))).toContain("app hash");
    expect(attestationFromJson.bind(null, [])).toThrow("not a JSON object");
  });
});

const V = (i: number, power: bigint, name = `validator${i}`): TallyValidator => ({ address: bytes(20, i + 1), name, power });
const key = (i: number) =>
  Buffer.from(bytes(20, i + 1))
    .toString("hex")
    .toUpperCase();

describe("the tally", () => {
  const vals = [V(0, 40n), V(1, 30n), V(2, 20n), V(3, 10n)];

  it("counts a pre-flight that found no binary as failed, and says it found none", () => {
    const none = attestation({
      binarySha256: new Uint8Array(0),
      preflightOk: false,
      rehearsal: "not_rehearsed",
      appHash: new Uint8Array(0),
      snapshotHeight: 0n,
    });
    const wrong = attestation({ preflightOk: false, rehearsal: "not_rehearsed", appHash: new Uint8Array(0), snapshotHeight: 0n });
    const attested = new Map([
      [key(0), { attestation: none, height: 10n }],
      [key(1), { attestation: wrong, height: 10n }],
    ]);
    const t = tallyReadiness({ plan: PLAN, validators: vals, attested, updatedHeight: 10n });
    expect(t.validators.slice(0, 2).map((v) => v.status)).toEqual(["failed", "failed"]);
    expect([none, wrong, attestation()].map(preflightText)).toEqual(["pre-flight found no binary", "pre-flight failed", "pre-flight ok"]);
  });

  it("counts each validator's power under its status, and groups rehearsed app hashes by snapshot height", () => {
    const attested = new Map([
      [key(0), { attestation: attestation(), height: 10n }],
      [key(1), { attestation: attestation({ appHash: bytes(32, 0x22) }), height: 11n }],
      [key(2), { attestation: attestation({ rehearsal: "failed", rehearsalExitCode: 23, appHash: new Uint8Array(0) }), height: 12n }],
    ]);
    const t = tallyReadiness({ plan: PLAN, validators: vals, attested, updatedHeight: 12n });
    expect({ total: t.totalPower, ready: t.readyPower, failed: t.failedPower, none: t.noAttestationPower }).toEqual({
      total: 100n,
      ready: 70n,
      failed: 20n,
      none: 10n,
    });
    expect(t.validators.map((v) => v.status)).toEqual(["ready", "ready", "failed", "no_attestation"]);
    expect(t.appHashGroups.map((g) => [g.power, g.appHash[0]])).toEqual([
      [40n, 0x11],
      [30n, 0x22],
    ]);
    expect(t.appHashesDisagree).toBe(true);
    expect(t.expectedBinaries).toEqual([{ platform: "linux/amd64", sha256: bytes(32, 0xaa), source: "most_power" }]);
    expect(moreThanTwoThirdsReady(t)).toBe(true);
  });

  it("does not call hashes of different snapshot heights a disagreement", () => {
    const attested = new Map([
      [key(0), { attestation: attestation(), height: 10n }],
      [key(1), { attestation: attestation({ appHash: bytes(32, 0x22), snapshotHeight: 121n }), height: 11n }],
    ]);
    const t = tallyReadiness({ plan: PLAN, validators: vals, attested, updatedHeight: 1n });
    expect(t.appHashGroups).toHaveLength(2);
    expect(t.appHashesDisagree).toBe(false);
  });

  it("takes the expected binary from Plan.Info's sha256 checksum when it names one", () => {
    const wanted = "bb".repeat(32);
    const info = JSON.stringify({ binaries: { "linux/amd64": `https://example.com/v2.tar.gz?checksum=sha256:${wanted}` } });
    expect(Buffer.from(plannedSha256(info, "linux/amd64")!).toString("hex")).toBe(wanted);
    expect(plannedSha256(info, "darwin/arm64")).toBeUndefined();
    expect(plannedSha256("https://example.com/info.json", "linux/amd64")).toBeUndefined();
    const attested = new Map([
      [key(0), { attestation: attestation(), height: 1n }],
      [key(1), { attestation: attestation({ binarySha256: bytes(32, 0xbb) }), height: 1n }],
    ]);
    const t = tallyReadiness({ plan: { ...PLAN, info }, validators: vals, attested, updatedHeight: 1n });
    expect(t.validators.map((v) => v.status)).toEqual(["different_binary", "ready", "no_attestation", "no_attestation"]);
    expect(t.expectedBinaries[0].source).toBe("plan_info");
    expect(t.readyPower).toBe(30n);
  });

  it("picks the binary with the most power, the smallest hash on a tie, when Plan.Info names none", () => {
    const two = [V(0, 10n), V(1, 10n)];
    const attested = new Map([
      [key(0), { attestation: attestation({ binarySha256: bytes(32, 0xcc) }), height: 1n }],
      [key(1), { attestation: attestation({ binarySha256: bytes(32, 0x0c) }), height: 1n }],
    ]);
    const t = tallyReadiness({ plan: PLAN, validators: two, attested, updatedHeight: 1n });
    expect(t.expectedBinaries[0].sha256[0]).toBe(0x0c);
    expect(t.validators.map((v) => v.status)).toEqual(["different_binary", "ready"]);
  });

  it("never calls 2/3 exactly more than two thirds", () => {
    expect(moreThanTwoThirdsReady({ readyPower: 2n, totalPower: 3n })).toBe(false);
    expect(moreThanTwoThirdsReady({ readyPower: 67n, totalPower: 100n })).toBe(true);
    expect(moreThanTwoThirdsReady({ readyPower: 0n, totalPower: 0n })).toBe(false);
  });
});

describe("the votes of a block", () => {
  const ext = (a?: ReadinessAttestation) => encodeVoteExtension(a);
  it("replace, withdraw or keep attestations", () => {
    let m = recordVotes(new Map(), [{ address: bytes(20, 1), extension: ext(attestation()) }], PLAN, 5n);
    expect(m.get(key(0))?.height).toBe(5n);
    // The same attestation again keeps its first height; a changed one takes the new height.
    m = recordVotes(m, [{ address: bytes(20, 1), extension: ext(attestation()) }], PLAN, 6n);
    expect(m.get(key(0))?.height).toBe(5n);
    m = recordVotes(m, [{ address: bytes(20, 1), extension: ext(attestation({ snapshotHeight: 130n })) }], PLAN, 7n);
    expect(m.get(key(0))?.height).toBe(7n);
    // An unsigned (absent, pruned) vote, or a malformed one, changes nothing.
    m = recordVotes(
      m,
      [
        { address: bytes(20, 1), extension: undefined },
        { address: bytes(20, 1), extension: Uint8Array.of(1, 2) },
      ],
      PLAN,
      8n,
    );
    expect(m.has(key(0))).toBe(true);
    // Another plan's attestation, or a signed empty extension, withdraws it.
    expect(recordVotes(m, [{ address: bytes(20, 1), extension: ext(attestation({ planName: "v3" })) }], PLAN, 9n).has(key(0))).toBe(false);
    expect(recordVotes(m, [{ address: bytes(20, 1), extension: ext(undefined) }], PLAN, 9n).has(key(0))).toBe(false);
  });
});

describe("the readiness store", () => {
  it("keeps a tally's bytes while only its updated height would change, and reads back what it wrote", () => {
    const store = new MemoryStore();
    const attested = new Map([[key(0), { attestation: attestation(), height: 3n }]]);
    const t = tallyReadiness({ plan: PLAN, validators: [V(0, 5n)], attested, updatedHeight: 0n });
    expect(saveTally(store, t, 3n).updatedHeight).toBe(3n);
    expect(saveTally(store, t, 4n).updatedHeight).toBe(3n);
    const stored = readTally(store, "v2", 300n)!;
    expect(stored).toEqual({ ...t, updatedHeight: 3n });
    expect(attestedOf(stored)).toEqual(attested);
    expect(decodeTally(encodeTally(stored))).toEqual(stored);
    // @bufbuild/protobuf reads the stored value as the .proto's ReadinessTally.
    const theirs = fromBinary(schema("ReadinessTally"), encodeTally(stored)) as unknown as { readyPower: bigint; validators: { status: number }[] };
    expect(theirs.readyPower).toBe(5n);
    expect(theirs.validators[0].status).toBe(1);
  });

  it("keys a plan by height, then its name's length and bytes", () => {
    expect(Buffer.from(tallyKey("v2", 300n)).toString("hex")).toBe("01" + "000000000000012c" + "0002" + "7632");
  });

  it("refuses a corrupt value with its own kind", () => {
    expect(refused(() => decodeTally(Uint8Array.of(0x08, 0x01)))).toBe("corrupt");
  });
});
