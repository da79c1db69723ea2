/**
 * cosmos.upgrade.v1beta1.MsgSoftwareUpgrade / MsgCancelUpgrade in protobuf. The envelope uses the
 * @bufbuild/protobuf wire runtime; the Plan inside is the core's (Go-identical, zero time always written).
 */
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import type { Core } from "../core/contract.js";
import { errors } from "../core/errors.js";
import type { Plan } from "../core/types.js";
import { messageOf } from "../base/errors.js";

export const MSG_SOFTWARE_UPGRADE_TYPE_URL = "/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade";
export const MSG_CANCEL_UPGRADE_TYPE_URL = "/cosmos.upgrade.v1beta1.MsgCancelUpgrade";

export interface MsgSoftwareUpgrade {
  authority: string;
  plan: Plan;
}

export interface MsgCancelUpgrade {
  authority: string;
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

export function encodeMsgSoftwareUpgrade(core: Core, msg: MsgSoftwareUpgrade): Uint8Array {
  const w = new BinaryWriter();
  if (msg.authority !== "") w.tag(1, WireType.LengthDelimited).string(msg.authority);
  w.tag(2, WireType.LengthDelimited).bytes(core.encodePlan(msg.plan)); // non-nullable: always written
  return w.finish();
}

export function encodeMsgCancelUpgrade(msg: MsgCancelUpgrade): Uint8Array {
  const w = new BinaryWriter();
  if (msg.authority !== "") w.tag(1, WireType.LengthDelimited).string(msg.authority);
  return w.finish();
}

export function decodeMsgSoftwareUpgrade(core: Core, bytes: Uint8Array): MsgSoftwareUpgrade {
  let authority = "";
  let planBytes: Uint8Array = new Uint8Array(0);
  readFields(bytes, (field, wire, r) => {
    if (field === 1) authority = readString(r, wire, 1);
    else if (field === 2) planBytes = readBytes(r, wire, 2);
    else return false;
    return true;
  });
  return { authority, plan: core.decodePlan(planBytes) };
}

export function decodeMsgCancelUpgrade(bytes: Uint8Array): MsgCancelUpgrade {
  let authority = "";
  readFields(bytes, (field, wire, r) => {
    if (field !== 1) return false;
    authority = readString(r, wire, 1);
    return true;
  });
  return { authority };
}

/** Walks the fields of a message; `take` returns false for fields it does not know (they are skipped). */
function readFields(bytes: Uint8Array, take: (field: number, wire: WireType, r: BinaryReader) => boolean): void {
  const r = new BinaryReader(bytes);
  try {
    while (r.pos < r.len) {
      const [field, wire] = r.tag();
      if (!take(field, wire, r)) r.skip(wire, field);
    }
  } catch (e) {
    if (e instanceof Error && e.name === "UpgradeError") throw e;
    throw errors.malformed(`proto: ${messageOf(e)}`);
  }
}

function readBytes(r: BinaryReader, wire: WireType, field: number): Uint8Array {
  if (wire !== WireType.LengthDelimited) throw errors.malformed(`proto: field ${field}: wrong wire type ${wire}`);
  return r.bytes();
}

function readString(r: BinaryReader, wire: WireType, field: number): string {
  const bytes = readBytes(r, wire, field);
  try {
    return strictUtf8.decode(bytes);
  } catch {
    throw errors.malformed(`proto: field ${field}: invalid UTF-8`);
  }
}
