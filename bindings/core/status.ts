/**
 * Status codes and decode-failure reasons, and their translation into typed errors. Both cores report
 * through here, so their messages are identical by construction. The numbers are assembly/status.ts's,
 * generated into constants.generated.ts (scripts/constants.mjs); this file only words them.
 */
import { errors, toHex } from "./errors.js";
import { Layout, Malformed, Status } from "./constants.generated.js";

export { Layout, Malformed, Status };

export function malformedDetail(reason: number, field: number, wireType: number): string {
  switch (reason) {
    case Malformed.TruncatedVarint:
      return "proto: truncated varint";
    case Malformed.VarintOverflow:
      return "proto: varint overflows 64 bits";
    case Malformed.LengthPastEnd:
      return `proto: field ${field}: length exceeds the remaining bytes`;
    case Malformed.WrongWireType:
      return `proto: field ${field}: wrong wire type ${wireType}`;
    case Malformed.FieldZero:
      return "proto: illegal field number 0";
    case Malformed.IllegalWireType:
      return `proto: illegal wire type ${wireType}`;
    case Malformed.InvalidUtf8:
      return `proto: field ${field}: invalid UTF-8`;
    case Malformed.Group:
      return `proto: field ${field}: groups are not supported`;
    case Malformed.TruncatedFixed:
      return `proto: field ${field}: truncated fixed-width value`;
    default:
      return `proto: decode failure ${reason}`;
  }
}

/** Facts a failing core call leaves behind for its error message. */
export interface StatusDetail {
  /** a decode failure's reason (§11.2); for MixedLayout, the Layout of the offending record */
  reason?: number;
  field?: number;
  wireType?: number;
  /** the key of a corrupt value */
  key?: Uint8Array;
  /** the length of a corrupt value */
  length?: number;
  name?: string;
}

export function statusError(status: number, d: StatusDetail = {}): Error {
  switch (status) {
    case Status.TimeDeprecated:
      return errors.timeDeprecated();
    case Status.IbcMoved:
      return errors.ibcMoved();
    case Status.NameEmpty:
      return errors.nameEmpty();
    case Status.HeightNotPositive:
      return errors.heightNotPositive();
    case Status.ScheduledInPast:
      return errors.scheduledInPast();
    case Status.AlreadyCompleted:
      return errors.alreadyCompleted(d.name ?? "");
    case Status.CorruptValue:
      return errors.corruptValue(d.key ?? new Uint8Array(0), d.length ?? 0);
    case Status.CorruptPlan:
      return errors.corruptPlan(planDetail(d));
    case Status.Malformed:
      return errors.malformed(malformedDetail(d.reason ?? 0, d.field ?? 0, d.wireType ?? 0));
    case Status.CorruptName:
      return errors.corruptName(d.key ?? new Uint8Array(0));
    case Status.CorruptDone:
      return errors.corruptDone(d.key ?? new Uint8Array(0), d.length ?? 0);
    case Status.MixedLayout:
      return errors.mixedLayout(d.key ?? new Uint8Array(0), d.reason === Layout.Sdk ? "sdk" : "seed");
    case Status.WrongPrefix:
      return new TypeError(`key 0x${toHex(d.key ?? new Uint8Array(0))} is outside the range being decoded`);
    default:
      // An invariant: both cores return only the statuses above (one conformance suite holds them to it).
      throw new Error(`core returned unknown status ${status}`);
  }
}

/** A stored plan fails either as protobuf or as ValidateBasic 1–2 (time / IBC field). */
function planDetail(d: StatusDetail): string {
  if (d.reason === -Status.TimeDeprecated) return errors.timeDeprecated().message;
  if (d.reason === -Status.IbcMoved) return errors.ibcMoved().message;
  return malformedDetail(d.reason ?? 0, d.field ?? 0, d.wireType ?? 0);
}
