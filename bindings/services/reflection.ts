/**
 * gRPC server reflection, `grpc.reflection.v1.ServerReflection` and `grpc.reflection.v1alpha.ServerReflection`
 * (same messages), answering as grpc-go does from the original file descriptors of descriptors.ts:
 * list_services, file_by_filename, file_containing_symbol (each with the transitive dependencies not yet
 * sent on this stream), file_containing_extension, all_extension_numbers_of_type.
 */
import type { ServerDuplexStream, ServiceDefinition, UntypedServiceImplementation } from "@grpc/grpc-js";
import { status as GrpcStatus } from "@grpc/grpc-js";
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import type { DescriptorPool } from "./descriptors.js";
import { REFLECTION_SERVICES } from "./descriptors.js";

type Request =
  | { kind: "file_by_filename"; value: string }
  | { kind: "file_containing_symbol"; value: string }
  | { kind: "file_containing_extension"; containingType: string; number: number }
  | { kind: "all_extension_numbers_of_type"; value: string }
  | { kind: "list_services"; value: string }
  | { kind: "none" };

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function str(r: BinaryReader): string {
  return utf8.decode(r.bytes());
}

/** Decodes a ServerReflectionRequest (the last oneof member wins, as in protobuf). */
function decodeRequest(bytes: Uint8Array): { host: string; request: Request } {
  const r = new BinaryReader(bytes);
  let host = "";
  let request: Request = { kind: "none" };
  while (r.pos < r.len) {
    const [no, wire] = r.tag();
    const ld = wire === WireType.LengthDelimited;
    if (no === 1 && ld) host = str(r);
    else if (no === 3 && ld) request = { kind: "file_by_filename", value: str(r) };
    else if (no === 4 && ld) request = { kind: "file_containing_symbol", value: str(r) };
    else if (no === 5 && ld) {
      const inner = new BinaryReader(r.bytes());
      let containingType = "";
      let number = 0;
      while (inner.pos < inner.len) {
        const [n, w] = inner.tag();
        if (n === 1 && w === WireType.LengthDelimited) containingType = str(inner);
        else if (n === 2 && w === WireType.Varint) number = inner.int32();
        else inner.skip(w, n);
      }
      request = { kind: "file_containing_extension", containingType, number };
    } else if (no === 6 && ld) request = { kind: "all_extension_numbers_of_type", value: str(r) };
    else if (no === 7 && ld) request = { kind: "list_services", value: str(r) };
    else if (no >= 1 && no <= 7 && no !== 2) throw new Error(`wrong wireType = ${wire} for field ${no}`);
    else r.skip(wire, no);
  }
  return { host, request };
}

const NOT_FOUND = 5;

/** Answers one request; `sent` tracks the files already sent on this stream. */
function answer(pool: DescriptorPool, raw: Uint8Array, sent: Set<string>): Uint8Array {
  const { host, request } = decodeRequest(raw);
  const w = new BinaryWriter();
  if (host !== "") w.tag(1, WireType.LengthDelimited).string(host);
  w.tag(2, WireType.LengthDelimited).bytes(raw); // original_request, as received

  const files = (file: string | undefined, what: string) => {
    if (file === undefined || pool.file(file) === undefined) return error(`${what}: not found`);
    w.tag(4, WireType.LengthDelimited).fork();
    for (const bytes of withDependencies(pool, file, sent)) w.tag(1, WireType.LengthDelimited).bytes(bytes);
    w.join();
  };
  const error = (message: string) => {
    w.tag(7, WireType.LengthDelimited).fork().tag(1, WireType.Varint).int32(NOT_FOUND);
    w.tag(2, WireType.LengthDelimited).string(message).join();
  };

  switch (request.kind) {
    case "file_by_filename":
      files(pool.file(request.value) ? request.value : undefined, `file ${JSON.stringify(request.value)}`);
      break;
    case "file_containing_symbol":
      files(pool.fileContainingSymbol(request.value), `symbol ${JSON.stringify(request.value)}`);
      break;
    case "file_containing_extension":
      files(pool.fileContainingExtension(request.containingType, request.number), `extension ${request.number} of ${JSON.stringify(request.containingType)}`);
      break;
    case "all_extension_numbers_of_type": {
      const numbers = pool.extensionNumbers(request.value);
      if (numbers === undefined) {
        error(`type ${JSON.stringify(request.value)}: not found`);
        break;
      }
      w.tag(5, WireType.LengthDelimited).fork().tag(1, WireType.LengthDelimited).string(request.value);
      if (numbers.length > 0) {
        w.tag(2, WireType.LengthDelimited).fork();
        for (const n of numbers) w.int32(n);
        w.join();
      }
      w.join();
      break;
    }
    case "list_services": {
      w.tag(6, WireType.LengthDelimited).fork();
      for (const name of pool.services) w.tag(1, WireType.LengthDelimited).fork().tag(1, WireType.LengthDelimited).string(name).join();
      w.join();
      break;
    }
    case "none":
      throw Object.assign(new Error("invalid MessageRequest: <nil>"), { code: GrpcStatus.INVALID_ARGUMENT });
  }
  return w.finish();
}

/** The file and, breadth first, its transitive imports not yet sent on the stream (grpc-go's order). */
function withDependencies(pool: DescriptorPool, file: string, sent: Set<string>): Uint8Array[] {
  const out: Uint8Array[] = [];
  const queue = [file];
  const visited = new Set<string>();
  while (queue.length > 0) {
    const current = queue.shift()!;
    if (visited.has(current)) continue;
    visited.add(current);
    if (out.length === 0 || !sent.has(current)) {
      sent.add(current);
      out.push(pool.file(current)!);
    }
    queue.push(...pool.dependencies(current));
  }
  return out;
}

const identity = (b: Buffer) => b;

/** The service definitions and implementations to add to a grpc-js server. */
export function reflectionServices(pool: DescriptorPool): { definition: ServiceDefinition; implementation: UntypedServiceImplementation }[] {
  return REFLECTION_SERVICES.map((service) => ({
    definition: {
      ServerReflectionInfo: {
        path: `/${service}/ServerReflectionInfo`,
        requestStream: true,
        responseStream: true,
        requestSerialize: identity,
        requestDeserialize: identity,
        responseSerialize: identity,
        responseDeserialize: identity,
        originalName: "serverReflectionInfo",
      },
    },
    implementation: { ServerReflectionInfo: (call: ServerDuplexStream<Buffer, Buffer>) => handleStream(pool, call) },
  }));
}

function handleStream(pool: DescriptorPool, call: ServerDuplexStream<Buffer, Buffer>): void {
  const sent = new Set<string>();
  let done = false;
  call.on("data", (raw: Buffer) => {
    if (done) return;
    let response: Uint8Array;
    try {
      response = answer(pool, raw, sent);
    } catch (e) {
      done = true;
      const code = (e as { code?: number }).code ?? GrpcStatus.INTERNAL;
      const message = code === GrpcStatus.INTERNAL ? `grpc: error unmarshalling request: proto: ${(e as Error).message}` : (e as Error).message;
      call.emit("error", { code, details: message });
      return;
    }
    call.write(Buffer.from(response.buffer, response.byteOffset, response.byteLength));
  });
  call.on("end", () => {
    if (!done) {
      done = true;
      call.end();
    }
  });
  call.on("error", () => {
    done = true;
  });
}
