/**
 * Case 6: Plan protobuf encode/decode — both cores against cosmjs-types' generated Plan.encode/decode and
 * @bufbuild/protobuf, the latter two ways: its reflection API (create/toBinary/fromBinary over a
 * hand-written descriptor: what generated bufbuild code runs) and its BinaryWriter/BinaryReader used by
 * hand (as lean as that library gets). Every encoder gets the same plan and must write the zero time, as
 * the Go encoder does; correctness against the Go bytes is checked separately (cosmjs-types 0.11 encodes
 * int64 values in [2^31, 2^32) wrongly).
 */
import { create, createFileRegistry, fromBinary, toBinary, type DescMessage } from "@bufbuild/protobuf";
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import {
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FileDescriptorProtoSchema,
  file_google_protobuf_any,
  file_google_protobuf_timestamp,
} from "@bufbuild/protobuf/wkt";
import { Plan as CosmjsPlan } from "cosmjs-types/cosmos/upgrade/v1beta1/upgrade";
import type { Backend, Core } from "../../bindings/core/contract.js";
import { loadCore } from "../../bindings/core/index.js";
import type { Plan } from "../../bindings/core/types.js";
import { BACKENDS, PLANS, UINT32_RANGE_PLAN } from "../fixtures.js";
import { type BenchTask, type Impl, timed } from "../harness.js";

const ZERO_SECONDS = -62135596800n;

// ---- @bufbuild/protobuf: a descriptor for cosmos.upgrade.v1beta1.Plan, written by hand ----

const OPTIONAL = FieldDescriptorProto_Label.OPTIONAL;
const { STRING: TYPE_STRING, MESSAGE: TYPE_MESSAGE, INT64: TYPE_INT64 } = FieldDescriptorProto_Type;

const upgradeProto = create(FileDescriptorProtoSchema, {
  name: "cosmos/upgrade/v1beta1/upgrade.proto",
  package: "cosmos.upgrade.v1beta1",
  dependency: ["google/protobuf/timestamp.proto", "google/protobuf/any.proto"],
  syntax: "proto3",
  messageType: [
    {
      name: "Plan",
      field: [
        { name: "name", number: 1, label: OPTIONAL, type: TYPE_STRING, jsonName: "name" },
        { name: "time", number: 2, label: OPTIONAL, type: TYPE_MESSAGE, typeName: ".google.protobuf.Timestamp", jsonName: "time" },
        { name: "height", number: 3, label: OPTIONAL, type: TYPE_INT64, jsonName: "height" },
        { name: "info", number: 4, label: OPTIONAL, type: TYPE_STRING, jsonName: "info" },
        {
          name: "upgraded_client_state",
          number: 5,
          label: OPTIONAL,
          type: TYPE_MESSAGE,
          typeName: ".google.protobuf.Any",
          jsonName: "upgradedClientState",
        },
      ],
    },
  ],
});

const registry = createFileRegistry(upgradeProto, (file) =>
  file === "google/protobuf/timestamp.proto" ? file_google_protobuf_timestamp : file === "google/protobuf/any.proto" ? file_google_protobuf_any : undefined,
);
const PlanDesc: DescMessage = registry.getMessage("cosmos.upgrade.v1beta1.Plan")!;

type Codec = { encode(plan: Plan): () => Uint8Array; decode(bytes: Uint8Array): Plan };

/** Each library encodes from its own message object, built once (the cores take the plain Plan). */
const cosmjs: Codec = {
  encode(plan) {
    const msg = CosmjsPlan.fromPartial({ ...plan, time: { seconds: ZERO_SECONDS, nanos: 0 } });
    return () => CosmjsPlan.encode(msg).finish();
  },
  decode(bytes) {
    const m = CosmjsPlan.decode(bytes);
    return { name: m.name, height: m.height, info: m.info };
  },
};

const bufReflect: Codec = {
  encode(plan) {
    const msg = create(PlanDesc, { ...plan, time: { seconds: ZERO_SECONDS, nanos: 0 } });
    return () => toBinary(PlanDesc, msg);
  },
  decode(bytes) {
    const m = fromBinary(PlanDesc, bytes) as unknown as Plan;
    return { name: m.name, height: m.height, info: m.info };
  },
};

const bufWire: Codec = {
  encode(plan) {
    return () => {
      const w = new BinaryWriter();
      if (plan.name !== "") w.tag(1, WireType.LengthDelimited).string(plan.name);
      w.tag(2, WireType.LengthDelimited).fork().tag(1, WireType.Varint).int64(ZERO_SECONDS).join();
      if (plan.height !== 0n) w.tag(3, WireType.Varint).int64(plan.height);
      if (plan.info !== "") w.tag(4, WireType.LengthDelimited).string(plan.info);
      return w.finish();
    };
  },
  decode(bytes) {
    const r = new BinaryReader(bytes);
    let name = "";
    let height = 0n;
    let info = "";
    let seconds = 0n;
    let nanos = 0;
    while (r.pos < r.len) {
      const [field, wt] = r.tag();
      if (field === 1) name = r.string();
      else if (field === 2) {
        const end = r.uint32() + r.pos;
        while (r.pos < end) {
          const [f, w] = r.tag();
          if (f === 1) seconds = r.int64() as bigint;
          else if (f === 2) nanos = r.int32();
          else r.skip(w);
        }
      } else if (field === 3) height = r.int64() as bigint;
      else if (field === 4) info = r.string();
      else r.skip(wt);
    }
    if (seconds !== ZERO_SECONDS || nanos !== 0) throw new Error("time-based upgrades have been deprecated");
    return { name, height, info };
  },
};

const coreCodec = (core: Core): Codec => ({
  encode: (plan) => () => core.encodePlan(plan),
  decode: (bytes) => core.decodePlan(bytes),
});

async function codecs(backends: readonly Backend[], withLibraries: boolean): Promise<[Impl, Codec][]> {
  const list: [Impl, Codec][] = [];
  for (const b of backends) list.push([b, coreCodec(await loadCore(b))]);
  if (withLibraries) list.push(["cosmjs-types", cosmjs], ["bufbuild-reflect", bufReflect], ["bufbuild-wire", bufWire]);
  return list;
}

export async function planCodecs(backends: readonly Backend[] = BACKENDS, withLibraries = true): Promise<BenchTask[][]> {
  const golden = await loadCore("js");
  const groups: BenchTask[][] = [];
  const all = await codecs(backends, withLibraries);
  for (const { id, plan } of PLANS) {
    const bytes = golden.encodePlan(plan);
    const enc: BenchTask[] = [];
    const dec: BenchTask[] = [];
    for (const [impl, codec] of all) {
      const encode = codec.encode(plan);
      enc.push({
        case: 6,
        id: `Plan encode (${id}, ${bytes.length} B)`,
        impl,
        ops: 1000,
        sample: timed(1000, () => {
          if (encode().length !== bytes.length) throw new Error(`${impl} encoded a different length`);
        }),
      });
      dec.push({
        case: 6,
        id: `Plan decode (${id}, ${bytes.length} B)`,
        impl,
        ops: 1000,
        sample: timed(1000, () => {
          if (codec.decode(bytes).height !== plan.height) throw new Error(`${impl} decoded a different height`);
        }),
      });
    }
    groups.push(enc, dec);
  }
  return groups;
}

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

/** Does each encoder write the Go bytes, and does each decoder read them back? Per plan. */
export async function planCodecCorrectness(): Promise<Record<string, Record<string, { encode: boolean; decode: boolean }>>> {
  const golden = await loadCore("js");
  const out: Record<string, Record<string, { encode: boolean; decode: boolean }>> = {};
  const plans = [...PLANS, { id: `height ${UINT32_RANGE_PLAN.height} (in [2^31, 2^32))`, plan: UINT32_RANGE_PLAN }];
  for (const [impl, codec] of await codecs(BACKENDS, true)) {
    out[impl] = {};
    for (const { id, plan } of plans) {
      const want = golden.encodePlan(plan);
      const back = codec.decode(want);
      out[impl][id] = {
        encode: hex(codec.encode(plan)()) === hex(want),
        decode: back.name === plan.name && back.height === plan.height && back.info === plan.info,
      };
    }
  }
  return out;
}
