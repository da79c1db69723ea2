/**
 * Protobuf bytes of the cosmos.upgrade.v1beta1 query requests and responses (docs/spec/interfaces.md §1), written as
 * the Go (gogoproto) encoder does: fields in number order, proto3 defaults omitted. Envelopes use the
 * @bufbuild/protobuf wire runtime; the Plan inside CurrentPlan is the core's Go-identical encoding.
 */
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import type { Core } from "../core/contract.js";
import type { ModuleVersion, Plan } from "../core/types.js";
import type { QueryMethod } from "./names.js";
import { decodeError } from "./status.js";
import { messageOf } from "../base/errors.js";

export interface QueryRequests {
  CurrentPlan: Record<string, never>;
  AppliedPlan: { name: string };
  UpgradedConsensusState: { lastHeight: bigint };
  ModuleVersions: { moduleName: string };
  Authority: Record<string, never>;
}

export interface QueryResponses {
  CurrentPlan: { plan: Plan | undefined };
  AppliedPlan: { height: bigint };
  UpgradedConsensusState: { upgradedConsensusState: Uint8Array | undefined };
  ModuleVersions: { moduleVersions: ModuleVersion[] };
  Authority: { address: string };
}

const strictUtf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

/** Decodes a request; undecodable bytes throw the decode QueryError (gRPC Internal / ABCI sdk 18). */
export function decodeRequest<M extends QueryMethod>(method: M, bytes: Uint8Array): QueryRequests[M] {
  const r = new BinaryReader(bytes);
  const fields: Record<string, string | bigint> = {};
  try {
    while (r.pos < r.len) {
      const [no, wire] = r.tag();
      const known = KNOWN[method][no];
      if (known === undefined) {
        r.skip(wire, no);
        continue;
      }
      const [goName, kind] = known;
      const want = kind === "int64" ? WireType.Varint : WireType.LengthDelimited;
      if (wire !== want) throw new Error(`wrong wireType = ${wire} for field ${goName}`);
      if (kind === "int64") fields[goName] = BigInt.asIntN(64, BigInt(r.int64()));
      else {
        const raw = r.bytes();
        try {
          fields[goName] = strictUtf8.decode(raw);
        } catch {
          throw new Error(`field ${goName} contains invalid UTF-8`);
        }
      }
    }
  } catch (e) {
    const detail = messageOf(e);
    // Go's protobuf reports bytes that end inside a field as io.ErrUnexpectedEOF, without a prefix.
    throw decodeError(detail === "premature EOF" ? "unexpected EOF" : `proto: ${detail}`);
  }
  switch (method) {
    case "AppliedPlan":
      return { name: (fields.Name as string | undefined) ?? "" } as QueryRequests[M];
    case "UpgradedConsensusState":
      return { lastHeight: (fields.LastHeight as bigint | undefined) ?? 0n } as QueryRequests[M];
    case "ModuleVersions":
      return { moduleName: (fields.ModuleName as string | undefined) ?? "" } as QueryRequests[M];
    default:
      return {} as QueryRequests[M];
  }
}

type FieldKind = "string" | "int64";
const KNOWN: Record<QueryMethod, Record<number, [string, FieldKind]>> = {
  CurrentPlan: {},
  AppliedPlan: { 1: ["Name", "string"] },
  UpgradedConsensusState: { 1: ["LastHeight", "int64"] },
  ModuleVersions: { 1: ["ModuleName", "string"] },
  Authority: {},
};

/** Encodes a request (used by tests and by hosts that forward queries). */
export function encodeRequest<M extends QueryMethod>(method: M, req: QueryRequests[M]): Uint8Array {
  const w = new BinaryWriter();
  if (method === "AppliedPlan") {
    const { name } = req as QueryRequests["AppliedPlan"];
    if (name !== "") w.tag(1, WireType.LengthDelimited).string(name);
  } else if (method === "ModuleVersions") {
    const { moduleName } = req as QueryRequests["ModuleVersions"];
    if (moduleName !== "") w.tag(1, WireType.LengthDelimited).string(moduleName);
  } else if (method === "UpgradedConsensusState") {
    const { lastHeight } = req as QueryRequests["UpgradedConsensusState"];
    if (lastHeight !== 0n) w.tag(1, WireType.Varint).int64(lastHeight);
  }
  return w.finish();
}

/** Encodes a response exactly as the Go node does. */
export function encodeResponse<M extends QueryMethod>(core: Core, method: M, res: QueryResponses[M]): Uint8Array {
  const w = new BinaryWriter();
  switch (method) {
    case "CurrentPlan": {
      const { plan } = res as QueryResponses["CurrentPlan"];
      if (plan !== undefined) w.tag(1, WireType.LengthDelimited).bytes(core.encodePlan(plan));
      break;
    }
    case "AppliedPlan": {
      const { height } = res as QueryResponses["AppliedPlan"];
      if (height !== 0n) w.tag(1, WireType.Varint).int64(height);
      break;
    }
    case "UpgradedConsensusState": {
      const { upgradedConsensusState: s } = res as QueryResponses["UpgradedConsensusState"];
      if (s !== undefined && s.length > 0) w.tag(2, WireType.LengthDelimited).bytes(s);
      break;
    }
    case "ModuleVersions": {
      for (const { name, version } of (res as QueryResponses["ModuleVersions"]).moduleVersions) {
        w.tag(1, WireType.LengthDelimited).fork();
        if (name !== "") w.tag(1, WireType.LengthDelimited).string(name);
        if (version !== 0n) w.tag(2, WireType.Varint).uint64(version);
        w.join();
      }
      break;
    }
    case "Authority": {
      const { address } = res as QueryResponses["Authority"];
      if (address !== "") w.tag(1, WireType.LengthDelimited).string(address);
      break;
    }
  }
  return w.finish();
}
