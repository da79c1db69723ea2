/**
 * Server reflection with real clients: grpc-js-reflection-client (lists services, resolves the file of
 * cosmos.upgrade.v1beta1.Query and its dependencies, then calls the service from the resolved schema),
 * `buf curl` (reflection-driven, as the project's grpcurl), and a raw ServerReflectionInfo stream decoded
 * with @bufbuild/protobuf's own descriptor registry. Also checks the committed descriptor artifact.
 */
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { createFileRegistry, fromBinary } from "@bufbuild/protobuf";
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { FileDescriptorProtoSchema, FileDescriptorSetSchema, type FileDescriptorProto } from "@bufbuild/protobuf/wkt";
import * as grpc from "@grpc/grpc-js";
import * as protoLoader from "@grpc/proto-loader";
import { GrpcReflection } from "grpc-js-reflection-client";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { descriptorSetBytes, type QueryServers } from "../../bindings/services/index.js";
import { BACKENDS, GOV, richKeeper, serve } from "./helpers.js";

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const BUF = join(dirname(require.resolve("@bufbuild/buf/package.json")), "bin", "buf");

/** One raw ServerReflectionInfo stream: send requests in order, collect one response per request. */
async function reflect(address: string, version: "v1" | "v1alpha", requests: Uint8Array[]): Promise<Uint8Array[]> {
  const client = new grpc.Client(address, grpc.credentials.createInsecure());
  try {
    return await new Promise((resolve, reject) => {
      const id = (b: Buffer) => b;
      const call = client.makeBidiStreamRequest(`/grpc.reflection.${version}.ServerReflection/ServerReflectionInfo`, id, id, new grpc.Metadata(), {
        deadline: Date.now() + 10_000,
      });
      const out: Uint8Array[] = [];
      call.on("data", (d: Buffer) => out.push(new Uint8Array(d)));
      call.on("error", reject);
      call.on("end", () => resolve(out));
      for (const r of requests) call.write(Buffer.from(r));
      call.end();
    });
  } finally {
    client.close();
  }
}

/** A registry over files received in any order (reflection sends the requested file first). */
function registryOf(files: FileDescriptorProto[]) {
  const byName = new Map(files.map((f) => [f.name, f]));
  const ordered: FileDescriptorProto[] = [];
  const visit = (f: FileDescriptorProto) => {
    if (ordered.includes(f)) return;
    for (const d of f.dependency) visit(byName.get(d) ?? expect.fail(`missing dependency ${d} of ${f.name}`));
    ordered.push(f);
  };
  files.forEach(visit);
  return createFileRegistry({ $typeName: "google.protobuf.FileDescriptorSet", file: ordered } as never);
}

const req = (field: number, value: string) => new BinaryWriter().tag(field, WireType.LengthDelimited).string(value).finish();

/** Splits a ServerReflectionResponse into its oneof: files (4), extension numbers (5), services (6), error (7). */
function parseResponse(bytes: Uint8Array) {
  const r = new BinaryReader(bytes);
  const out: { files: Uint8Array[]; services: string[]; error?: [number, string]; original?: Uint8Array; numbers?: number[] } = {
    files: [],
    services: [],
  };
  while (r.pos < r.len) {
    const [no, wt] = r.tag();
    if (no === 2) out.original = r.bytes();
    else if (no === 4 || no === 6 || no === 7 || no === 5) {
      const inner = new BinaryReader(r.bytes());
      const err: [number, string] = [0, ""];
      while (inner.pos < inner.len) {
        const [n, w] = inner.tag();
        if (no === 4 && n === 1) out.files.push(inner.bytes());
        else if (no === 6 && n === 1) {
          const svc = new BinaryReader(inner.bytes());
          svc.tag();
          out.services.push(svc.string());
        } else if (no === 7 && n === 1) err[0] = inner.int32();
        else if (no === 7 && n === 2) err[1] = inner.string();
        else if (no === 5 && n === 2) {
          const packed = new BinaryReader(inner.bytes());
          out.numbers = [];
          while (packed.pos < packed.len) out.numbers.push(packed.int32());
        } else inner.skip(w, n);
      }
      if (no === 7) out.error = err;
    } else r.skip(wt, no);
  }
  return out;
}

describe("the committed descriptor set", () => {
  it("is what scripts/build-descriptors.mjs builds now (buf from devDependencies)", async () => {
    const script = new URL("../../scripts/build-descriptors.mjs", import.meta.url).pathname;
    const { stdout } = await run(process.execPath, [script, "--check"], { timeout: 60_000 });
    expect(stdout).toContain("up to date");
  }, 60_000);

  it("descriptors.generated.ts holds exactly descriptors.binpb, a FileDescriptorSet of original files", () => {
    const committed = readFileSync(new URL("../../bindings/services/descriptors.binpb", import.meta.url));
    expect(Buffer.from(descriptorSetBytes()).equals(committed)).toBe(true);
    const set = fromBinary(FileDescriptorSetSchema, committed);
    const names = set.file.map((f) => f.name);
    expect(names).toContain("cosmos/upgrade/v1beta1/query.proto");
    expect(names).toContain("google/protobuf/descriptor.proto");
    const query = set.file.find((f) => f.name === "cosmos/upgrade/v1beta1/query.proto")!;
    expect(query.dependency).toEqual(["google/api/annotations.proto", "cosmos/upgrade/v1beta1/upgrade.proto"]);
    // The whole set links: every dependency is present and every type resolves.
    const registry = createFileRegistry(set);
    expect(registry.getService("cosmos.upgrade.v1beta1.Query")?.methods.map((m) => m.name)).toEqual([
      "CurrentPlan",
      "AppliedPlan",
      "UpgradedConsensusState",
      "ModuleVersions",
      "Authority",
    ]);
  });
});

describe.each(BACKENDS)("reflection, %s backend", (backend) => {
  let servers: QueryServers;
  beforeAll(async () => {
    const { keeper, chain } = await richKeeper(backend);
    servers = await serve(keeper, chain, { rest: false });
  });
  afterAll(() => servers.close());

  it.each(["v1", "v1alpha"] as const)("grpc-js-reflection-client (%s) lists, resolves and calls the Query service", async (version) => {
    const reflection = new GrpcReflection(servers.grpc!.address, grpc.credentials.createInsecure(), {}, version);
    expect(await reflection.listServices()).toEqual([
      "cosmos.upgrade.v1beta1.Query",
      "grpc.reflection.v1.ServerReflection",
      "grpc.reflection.v1alpha.ServerReflection",
    ]);
    // file_containing_symbol, then file_by_filename for any dependency not yet received.
    const descriptor = await reflection.getDescriptorBySymbol("cosmos.upgrade.v1beta1.Query");
    const root = descriptor.getProtobufJsRoot();
    expect(Object.keys(root.lookupService("cosmos.upgrade.v1beta1.Query").methods)).toEqual([
      "CurrentPlan",
      "AppliedPlan",
      "UpgradedConsensusState",
      "ModuleVersions",
      "Authority",
    ]);
    expect(root.lookupType("cosmos.upgrade.v1beta1.Plan").fieldsArray.map((f) => f.name)).toEqual(["name", "time", "height", "info", "upgradedClientState"]);
    // The client's own listMethods/getPackageObject re-synthesise descriptors through protobufjs and fail on
    // any set that extends google.protobuf options ("duplicate id 62001 in Type .google.protobuf.EnumOptions",
    // gogoproto), whatever the server; so the resolved root is turned into a client through proto-loader's JSON path.
    const def = protoLoader.fromJSON(root.toJSON(), { keepCase: true, longs: String, enums: String, defaults: true });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the package proto-loader builds at run time
    const pkg = grpc.loadPackageDefinition(def) as any;
    const client = new pkg.cosmos.upgrade.v1beta1.Query(servers.grpc!.address, grpc.credentials.createInsecure());
    try {
      const call = (m: string, r: object) =>
        new Promise<unknown>((resolve, reject) => client[m](r, (err: Error | null, res: unknown) => (err ? reject(err) : resolve(res))));
      expect(await call("CurrentPlan", {})).toMatchObject({ plan: { name: "test", height: "100", info: "" } });
      expect(await call("Authority", {})).toEqual({ address: GOV });
      expect(await call("AppliedPlan", { name: "v1" })).toEqual({ height: "30" });
      const all = (await call("ModuleVersions", {})) as { moduleVersions: unknown[] };
      expect(all.moduleVersions).toEqual([
        { name: "auth", version: "5" },
        { name: "bank", version: "2" },
        { name: "upgrade", version: "2" },
      ]);
    } finally {
      client.close();
    }
  });

  it.each(["v1", "v1alpha"] as const)("raw stream (%s): list, symbol → original files with transitive deps once, errors", async (version) => {
    const responses = await reflect(servers.grpc!.address, version, [
      req(7, ""),
      req(4, "cosmos.upgrade.v1beta1.Query"),
      req(3, "google/protobuf/timestamp.proto"), // already sent: answered again (the file itself)
      req(4, "cosmos.upgrade.v1beta1.Query.ModuleVersions"),
      req(4, "cosmos.upgrade.v1beta1.Nope"),
      req(3, "nope.proto"),
      req(6, "google.protobuf.MethodOptions"),
      new BinaryWriter()
        .tag(5, WireType.LengthDelimited)
        .fork()
        .tag(1, WireType.LengthDelimited)
        .string("google.protobuf.MethodOptions")
        .tag(2, WireType.Varint)
        .int32(72295728)
        .join()
        .finish(),
    ]);
    expect(responses).toHaveLength(8);
    const [list, symbol, ts, method, missingSym, missingFile, numbers, ext] = responses.map(parseResponse);
    expect(list.services).toContain("cosmos.upgrade.v1beta1.Query");

    const files: FileDescriptorProto[] = symbol.files.map((f) => fromBinary(FileDescriptorProtoSchema, f));
    expect(files[0].name).toBe("cosmos/upgrade/v1beta1/query.proto");
    expect(new Set(files.map((f) => f.name))).toEqual(
      new Set([
        "cosmos/upgrade/v1beta1/query.proto",
        "google/api/annotations.proto",
        "cosmos/upgrade/v1beta1/upgrade.proto",
        "google/api/http.proto",
        "google/protobuf/descriptor.proto",
        "google/protobuf/any.proto",
        "gogoproto/gogo.proto",
        "google/protobuf/timestamp.proto",
        "cosmos_proto/cosmos.proto",
      ]),
    );
    // The served bytes are the original ones of the committed set, and they link into a registry.
    const original = fromBinary(FileDescriptorSetSchema, descriptorSetBytes());
    const registry = registryOf(files);
    expect(registry.getMessage("cosmos.upgrade.v1beta1.Plan")?.fields.map((f) => f.name)).toEqual(["name", "time", "height", "info", "upgraded_client_state"]);
    expect(original.file.some((f) => f.name === files[0].name)).toBe(true);

    expect(ts.files.map((f) => fromBinary(FileDescriptorProtoSchema, f).name)).toEqual(["google/protobuf/timestamp.proto"]);
    expect(method.files.map((f) => fromBinary(FileDescriptorProtoSchema, f).name)).toEqual(["cosmos/upgrade/v1beta1/query.proto"]);
    expect(missingSym.error?.[0]).toBe(5);
    expect(missingFile.error?.[0]).toBe(5);
    expect(numbers.numbers).toContain(72295728);
    expect(ext.files.map((f) => fromBinary(FileDescriptorProtoSchema, f).name)[0]).toBe("google/api/annotations.proto");
  });

  it("buf curl lists methods and calls ModuleVersions through reflection (exit 16 on the unknown module)", async () => {
    const base = `http://${servers.grpc!.address}`;
    const common = ["curl", "--protocol", "grpc", "--http2-prior-knowledge", "--timeout", "20s"];
    const list = await run(BUF, [...common, "--list-methods", base], { timeout: 30_000 });
    expect(list.stdout.split("\n").filter(Boolean).sort()).toEqual([
      "cosmos.upgrade.v1beta1.Query/AppliedPlan",
      "cosmos.upgrade.v1beta1.Query/Authority",
      "cosmos.upgrade.v1beta1.Query/CurrentPlan",
      "cosmos.upgrade.v1beta1.Query/ModuleVersions",
      "cosmos.upgrade.v1beta1.Query/UpgradedConsensusState",
      "grpc.reflection.v1.ServerReflection/ServerReflectionInfo",
      "grpc.reflection.v1alpha.ServerReflection/ServerReflectionInfo",
    ]);
    const ok = await run(BUF, [...common, "--emit-defaults", "-d", '{"module_name":"bank"}', `${base}/cosmos.upgrade.v1beta1.Query/ModuleVersions`], {
      timeout: 30_000,
    });
    expect(JSON.parse(ok.stdout)).toEqual({ moduleVersions: [{ name: "bank", version: "2" }] });
    const bad = await run(BUF, [...common, "-d", '{"module_name":"foo"}', `${base}/cosmos.upgrade.v1beta1.Query/ModuleVersions`], {
      timeout: 30_000,
    }).catch((e) => e);
    expect(bad.code).toBe(16);
    expect(JSON.parse(bad.stderr)).toMatchObject({
      code: "unknown",
      message: "codespace upgrade code 2: module version not found: x/upgrade: QueryModuleVersions module foo not found",
    });
  }, 60_000);

  it("a malformed reflection request ends only that stream with INTERNAL; a missing request kind with INVALID_ARGUMENT", async () => {
    await expect(reflect(servers.grpc!.address, "v1", [Uint8Array.of(0x3a, 0x05, 0x61)])).rejects.toMatchObject({ code: 13 });
    await expect(reflect(servers.grpc!.address, "v1", [req(1, "host-only")])).rejects.toMatchObject({ code: 3 });
    const [ok] = await reflect(servers.grpc!.address, "v1", [req(7, "")]);
    expect(parseResponse(ok).services).toHaveLength(3);
  });
});

describe("reflection under a namespace", () => {
  it("serves a renamed copy of query.proto: service, messages and REST paths under mychain", async () => {
    const { keeper, chain } = await richKeeper("js");
    const servers = await serve(keeper, chain, { rest: false, namespace: "mychain" });
    try {
      const [list, sym, old] = (
        await reflect(servers.grpc!.address, "v1", [req(7, ""), req(4, "mychain.upgrade.v1beta1.Query"), req(4, "cosmos.upgrade.v1beta1.Query")])
      ).map(parseResponse);
      expect(list.services).toEqual(["grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection", "mychain.upgrade.v1beta1.Query"]);
      expect(old.error?.[0]).toBe(5);
      const files = sym.files.map((f) => fromBinary(FileDescriptorProtoSchema, f));
      expect(files[0].name).toBe("mychain/upgrade/v1beta1/query.proto");
      const registry = registryOf(files);
      const svc = registry.getService("mychain.upgrade.v1beta1.Query")!;
      expect(svc.methods.find((m) => m.name === "CurrentPlan")!.input.typeName).toBe("mychain.upgrade.v1beta1.QueryCurrentPlanRequest");
      expect(registry.getMessage("mychain.upgrade.v1beta1.QueryCurrentPlanResponse")!.fields[0].message!.typeName).toBe("cosmos.upgrade.v1beta1.Plan");
      const raw = Buffer.from(sym.files[0]).toString("latin1");
      expect(raw).toContain("/mychain/upgrade/v1beta1/current_plan");
      expect(raw).not.toContain("/cosmos/upgrade/v1beta1/");

      const reflection = new GrpcReflection(servers.grpc!.address, grpc.credentials.createInsecure(), {}, "v1");
      const root = (await reflection.getDescriptorBySymbol("mychain.upgrade.v1beta1.Query")).getProtobufJsRoot();
      expect(Object.keys(root.lookupService("mychain.upgrade.v1beta1.Query").methods)).toHaveLength(5);
    } finally {
      await servers.close();
    }
  });
});
