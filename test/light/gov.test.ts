/**
 * The gov proposal fields the light client reads (bindings/light/gov.ts), held to cosmjs-types' decoders on random
 * proposals: the same status, messages, voting end time, title and MsgSoftwareUpgrade plan, with unknown fields of
 * every wire type around the known ones skipped as proto3 skips them; and a cut or mistyped proposal refused.
 */
import { Proposal } from "cosmjs-types/cosmos/gov/v1/gov";
import { MsgSoftwareUpgrade } from "cosmjs-types/cosmos/upgrade/v1beta1/tx";
import { Plan } from "cosmjs-types/cosmos/upgrade/v1beta1/upgrade";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { UpgradeError } from "../../bindings/core/errors.js";
import { ProtoWriter, WireType } from "../../bindings/core/proto-wire.js";
import { PROPOSAL_STATUS_VOTING_PERIOD, decodeProposal, decodeSoftwareUpgradePlan } from "../../bindings/light/gov.js";

const MSG = "/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade";
const i64 = fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n });
const timestamp = fc.record({ seconds: i64, nanos: fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 }) });
const text = fc.string({ unit: "binary", maxLength: 30 });

/** Unknown fields (numbers no message here knows), one of each wire type a proto3 encoder can write. */
const unknown = fc.array(
  fc.oneof(
    fc
      .record({ no: fc.integer({ min: 16, max: 5000 }), v: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }) })
      .map(({ no, v }) => new ProtoWriter().tag(no, WireType.Varint).varint(v).finish()),
    fc
      .record({ no: fc.integer({ min: 16, max: 5000 }), v: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }) })
      .map(({ no, v }) => new ProtoWriter().tag(no, WireType.Fixed64).fixed64(v).finish()),
    fc
      .record({ no: fc.integer({ min: 16, max: 5000 }), v: fc.uint8Array({ maxLength: 20 }) })
      .map(({ no, v }) => new ProtoWriter().tag(no, WireType.Len).bytes(v).finish()),
    fc
      .record({ no: fc.integer({ min: 16, max: 5000 }), v: fc.uint8Array({ minLength: 4, maxLength: 4 }) })
      .map(({ no, v }) => new ProtoWriter().tag(no, WireType.Fixed32).raw(v).finish()),
  ),
  { maxLength: 3 },
);
const around = (bytes: Uint8Array, before: Uint8Array[], after: Uint8Array[]) =>
  Uint8Array.from([...before.flatMap((b) => [...b]), ...bytes, ...after.flatMap((b) => [...b])]);

const plan = fc.record({
  name: text,
  height: i64,
  info: text,
  time: fc.option(timestamp, { nil: undefined }),
  upgradedClientState: fc.option(fc.record({ typeUrl: text, value: fc.uint8Array({ maxLength: 8 }) }), { nil: undefined }),
});
/** A MsgSoftwareUpgrade's bytes (its plan with unknown fields around it), or another message's. */
const message = fc.oneof(
  fc.record({ authority: text, plan: fc.option(plan, { nil: undefined }), before: unknown, after: unknown }).map(({ authority, plan: p, before, after }) => {
    const w = new ProtoWriter().raw(MsgSoftwareUpgrade.encode({ authority, plan: undefined as never }).finish());
    if (p) w.tag(2, WireType.Len).bytes(around(Plan.encode(p as Plan).finish(), before, after));
    return { typeUrl: MSG, value: w.finish() };
  }),
  fc.record({ typeUrl: text, value: fc.uint8Array({ maxLength: 16 }) }),
);
const proposal = fc.record({
  id: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
  messages: fc.array(message, { maxLength: 3 }),
  status: fc.integer({ min: 0, max: 5 }),
  submitTime: fc.option(timestamp, { nil: undefined }),
  votingEndTime: fc.option(timestamp, { nil: undefined }),
  totalDeposit: fc.array(fc.record({ denom: text, amount: fc.string({ unit: fc.constantFrom(..."0123456789"), maxLength: 12 }) }), { maxLength: 2 }),
  metadata: text,
  title: text,
  summary: text,
  proposer: text,
  expedited: fc.boolean(),
  failedReason: text,
});

describe("gov proposals, against cosmjs-types", () => {
  it("read the same fields from random proposals with unknown fields around them", () => {
    fc.assert(
      fc.property(proposal, unknown, unknown, (p, before, after) => {
        const bytes = around(Proposal.encode(Proposal.fromPartial(p)).finish(), before, after);
        const want = Proposal.decode(bytes);
        const got = decodeProposal(bytes);
        expect(got).toEqual({ status: want.status, messages: want.messages, votingEndTime: want.votingEndTime, title: want.title });
        for (const m of got.messages) {
          if (m.typeUrl !== MSG) continue;
          const theirs = MsgSoftwareUpgrade.decode(m.value).plan;
          expect(decodeSoftwareUpgradePlan(m.value)).toEqual({ name: theirs.name, height: theirs.height, info: theirs.info });
        }
      }),
      { numRuns: 400 },
    );
  });

  it("a plan with a time or an IBC client state is still read (the upgrade module refuses it only when it runs)", () => {
    const value = MsgSoftwareUpgrade.encode({
      authority: "gov",
      plan: { name: "v2", height: 10n, info: "", time: { seconds: 5n, nanos: 0 }, upgradedClientState: { typeUrl: "/x", value: Uint8Array.of(1) } },
    }).finish();
    expect(decodeSoftwareUpgradePlan(value)).toEqual({ name: "v2", height: 10n, info: "" });
    // No plan field: the empty plan, as gogoproto (non-nullable) and cosmjs-types read it.
    expect(decodeSoftwareUpgradePlan(MsgSoftwareUpgrade.encode({ authority: "gov", plan: undefined as never }).finish())).toEqual({
      name: "",
      height: 0n,
      info: "",
    });
  });

  it('reads invalid UTF-8 in a title as U+FFFD (where cosmjs-types\' reader made up characters, "\u00e8" for C3 28)', () => {
    const bytes = new ProtoWriter().tag(11, WireType.Len).bytes(Uint8Array.of(0xc3, 0x28)).finish();
    expect(decodeProposal(bytes).title).toBe("\ufffd(");
  });

  it("refuses a proposal cut short, or with a field it reads in the wrong wire type", () => {
    const good = Proposal.encode(
      Proposal.fromPartial({ id: 1n, status: PROPOSAL_STATUS_VOTING_PERIOD, title: "upgrade to v2", votingEndTime: { seconds: 9n, nanos: 1 } }),
    ).finish();
    const refused = (bytes: Uint8Array) => {
      try {
        decodeProposal(bytes);
        return "accepted";
      } catch (e) {
        return e instanceof UpgradeError ? e.kind : String(e);
      }
    };
    for (let cut = 1; cut < good.length; cut++) {
      const prefix = good.subarray(0, cut);
      const theirs = (() => {
        try {
          Proposal.decode(prefix);
          return "accepted";
        } catch {
          return "malformed-protobuf";
        }
      })();
      expect([cut, refused(prefix)]).toEqual([cut, theirs]);
    }
    expect(refused(new ProtoWriter().tag(11, WireType.Varint).varint(3).finish())).toBe("malformed-protobuf");
    expect(refused(new ProtoWriter().tag(3, WireType.Len).bytes(Uint8Array.of(2)).finish())).toBe("malformed-protobuf");
    expect(refused(new ProtoWriter().tag(9, WireType.Fixed64).fixed64(1n).finish())).toBe("malformed-protobuf");
  });
});
