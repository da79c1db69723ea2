/**
 * What the light client reads of a gov proposal (cosmos.gov.v1.Proposal, as the gov store keeps it): its status,
 * messages, voting end time and title, and the plan a MsgSoftwareUpgrade among the messages carries. Every other
 * field is skipped, as proto3 skips a field it does not know; a field read here with the wrong wire type, or a value
 * cut short, is a malformed-protobuf UpgradeError. Strings are decoded leniently (U+FFFD for bad UTF-8): they are
 * shown, never compared.
 */
import { ProtoReader, WireType } from "../core/proto-wire.js";
import type { Plan } from "../core/types.js";
import type { Timestamp } from "./types.js";

/** cosmos.gov.v1.ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD. */
export const PROPOSAL_STATUS_VOTING_PERIOD = 2;

export interface GovProposal {
  status: number;
  messages: { typeUrl: string; value: Uint8Array }[];
  votingEndTime: Timestamp | undefined;
  title: string;
}

const { Varint: V, Len: LEN } = WireType;
const text = new TextDecoder("utf-8", { ignoreBOM: true });

/** Reads the message `bytes`, handing each field to `field` (which returns false to have it skipped). */
function fields(bytes: Uint8Array, field: (r: ProtoReader, no: number) => boolean): void {
  const r = new ProtoReader(bytes);
  while (!r.done) if (!field(r, r.tag())) r.skip();
}

function timestamp(bytes: Uint8Array): Timestamp {
  const t: Timestamp = { seconds: 0n, nanos: 0 };
  fields(bytes, (r, no) => {
    if (no === 1) t.seconds = r.expect(V).int64();
    else if (no === 2) t.nanos = r.expect(V).int32();
    else return false;
    return true;
  });
  return t;
}

export function decodeProposal(bytes: Uint8Array): GovProposal {
  const p: GovProposal = { status: 0, messages: [], votingEndTime: undefined, title: "" };
  fields(bytes, (r, no) => {
    if (no === 2) {
      const any: GovProposal["messages"][number] = { typeUrl: "", value: new Uint8Array(0) };
      fields(r.expect(LEN).bytes(), (a, n) => {
        if (n === 1) any.typeUrl = text.decode(a.expect(LEN).bytes());
        else if (n === 2) any.value = a.expect(LEN).bytes();
        else return false;
        return true;
      });
      p.messages.push(any);
    } else if (no === 3) p.status = r.expect(V).int32();
    else if (no === 9) p.votingEndTime = timestamp(r.expect(LEN).bytes());
    else if (no === 11) p.title = text.decode(r.expect(LEN).bytes());
    else return false;
    return true;
  });
  return p;
}

/**
 * The plan of a MsgSoftwareUpgrade (cosmos.upgrade.v1beta1): its name, height and info; the empty plan when the message
 * has none (gogoproto non-nullable). Not the core's strict plan decoder: a proposal may carry a plan the upgrade module
 * would refuse when it runs (a time, an IBC client state), and it is still a proposal in its voting period.
 */
export function decodeSoftwareUpgradePlan(bytes: Uint8Array): Plan {
  let plan: Plan = { name: "", height: 0n, info: "" };
  fields(bytes, (r, no) => {
    if (no !== 2) return false;
    const p: Plan = { name: "", height: 0n, info: "" }; // a second plan field replaces the first, as cosmjs-types read it
    fields(r.expect(LEN).bytes(), (q, n) => {
      if (n === 1) p.name = text.decode(q.expect(LEN).bytes());
      else if (n === 3) p.height = q.expect(V).int64();
      else if (n === 4) p.info = text.decode(q.expect(LEN).bytes());
      else return false;
      return true;
    });
    plan = p;
    return true;
  });
  return plan;
}
