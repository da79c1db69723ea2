/**
 * The file descriptors that server reflection serves: the ORIGINAL FileDescriptorProto bytes of the upgrade
 * query service and the reflection service with all transitive dependencies, from the descriptor set that
 * scripts/build-descriptors.mjs compiled with buf (descriptors.generated.ts). For a namespace other than
 * `cosmos`, query.proto is served as a renamed copy (`<ns>/upgrade/v1beta1/query.proto`, package
 * `<ns>.upgrade.v1beta1`, REST paths `/<ns>/upgrade/…`); Plan and ModuleVersion stay in `cosmos`.
 */
import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { BinaryReader, BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import {
  FileDescriptorProtoSchema,
  type DescriptorProto,
  type EnumDescriptorProto,
  type FieldDescriptorProto,
  type FileDescriptorProto,
} from "@bufbuild/protobuf/wkt";
import { DESCRIPTOR_SET_BASE64 } from "./descriptors.generated.js";
import type { ServiceNames } from "./names.js";

export const QUERY_PROTO = "cosmos/upgrade/v1beta1/query.proto";
export const REFLECTION_SERVICES = ["grpc.reflection.v1.ServerReflection", "grpc.reflection.v1alpha.ServerReflection"];
/** google.api.http, the MethodOptions extension holding the REST binding. */
const HTTP_RULE_FIELD = 72295728;

export interface DescriptorPool {
  /** Services to list: the namespaced upgrade Query service and both reflection services, sorted. */
  readonly services: readonly string[];
  /** Original serialized FileDescriptorProto by file name. */
  file(name: string): Uint8Array | undefined;
  /** Direct dependencies (file names) of a file. */
  dependencies(name: string): readonly string[];
  /** The file defining a fully qualified symbol (message, field, enum, value, service, method, extension). */
  fileContainingSymbol(symbol: string): string | undefined;
  /** The file declaring extension `number` of `containingType` (fully qualified, no leading dot). */
  fileContainingExtension(containingType: string, number: number): string | undefined;
  /** Extension numbers known for a message type; undefined when the type is unknown. */
  extensionNumbers(containingType: string): number[] | undefined;
}

let rawFiles: Uint8Array[] | undefined;

/** The serialized files of the generated set, in its (topological) order. */
function setFiles(): Uint8Array[] {
  if (rawFiles === undefined) {
    const r = new BinaryReader(descriptorSetBytes());
    const files: Uint8Array[] = [];
    while (r.pos < r.len) {
      const [no, wire] = r.tag();
      if (no === 1 && wire === WireType.LengthDelimited) files.push(r.bytes());
      else r.skip(wire, no);
    }
    rawFiles = files;
  }
  return rawFiles;
}

/** The whole descriptor set as generated (the default namespace's files). */
export function descriptorSetBytes(): Uint8Array {
  return Uint8Array.from(atob(DESCRIPTOR_SET_BASE64), (c) => c.charCodeAt(0));
}

const pools = new Map<string, DescriptorPool>();

export function descriptorPool(names: ServiceNames): DescriptorPool {
  let pool = pools.get(names.namespace);
  if (pool === undefined) {
    pool = buildPool(names);
    pools.set(names.namespace, pool);
  }
  return pool;
}

function buildPool(names: ServiceNames): DescriptorPool {
  const bytes = new Map<string, Uint8Array>();
  const deps = new Map<string, string[]>();
  const symbols = new Map<string, string>();
  const extensions = new Map<string, Map<number, string>>();
  const messageTypes = new Set<string>();

  for (const raw of setFiles()) {
    let fd = fromBinary(FileDescriptorProtoSchema, raw);
    let served = raw;
    if (fd.name === QUERY_PROTO && names.namespace !== "cosmos") {
      fd = renameQueryFile(fd, names);
      served = toBinary(FileDescriptorProtoSchema, fd);
    }
    bytes.set(fd.name, served);
    deps.set(fd.name, [...fd.dependency]);
    indexFile(fd, symbols, extensions, messageTypes);
  }

  return {
    services: [names.service, ...REFLECTION_SERVICES].sort(),
    file: (name) => bytes.get(name),
    dependencies: (name) => deps.get(name) ?? [],
    fileContainingSymbol: (symbol) => symbols.get(symbol.startsWith(".") ? symbol.slice(1) : symbol),
    fileContainingExtension: (type, number) => extensions.get(stripDot(type))?.get(number),
    extensionNumbers: (type) => {
      const t = stripDot(type);
      if (!messageTypes.has(t)) return undefined;
      return [...(extensions.get(t)?.keys() ?? [])].sort((a, b) => a - b);
    },
  };
}

/** The same pool, listing also the host's services (their files are in the set already). */
export function withServices(pool: DescriptorPool, services: readonly string[]): DescriptorPool {
  return { ...pool, services: [...new Set([...pool.services, ...services])].sort() };
}

const stripDot = (s: string) => (s.startsWith(".") ? s.slice(1) : s);

function indexFile(fd: FileDescriptorProto, symbols: Map<string, string>, extensions: Map<string, Map<number, string>>, messageTypes: Set<string>): void {
  const file = fd.name;
  const scope = fd.package === "" ? "" : `${fd.package}.`;
  const add = (name: string) => {
    if (!symbols.has(name)) symbols.set(name, file);
  };
  const addExtensions = (exts: FieldDescriptorProto[], prefix: string) => {
    for (const ext of exts) {
      add(prefix + ext.name);
      const target = stripDot(ext.extendee);
      let byNumber = extensions.get(target);
      if (byNumber === undefined) extensions.set(target, (byNumber = new Map()));
      byNumber.set(ext.number, file);
    }
  };
  const addEnums = (enums: EnumDescriptorProto[], prefix: string) => {
    for (const e of enums) {
      add(prefix + e.name);
      for (const v of e.value) add(prefix + v.name); // enum values are siblings of their enum
    }
  };
  const addMessages = (messages: DescriptorProto[], prefix: string) => {
    for (const m of messages) {
      const full = prefix + m.name;
      add(full);
      messageTypes.add(full);
      for (const f of m.field) add(`${full}.${f.name}`);
      for (const o of m.oneofDecl) add(`${full}.${o.name}`);
      addMessages(m.nestedType, `${full}.`);
      addEnums(m.enumType, `${full}.`);
      addExtensions(m.extension, `${full}.`);
    }
  };
  addMessages(fd.messageType, scope);
  addEnums(fd.enumType, scope);
  addExtensions(fd.extension, scope);
  for (const s of fd.service) {
    add(scope + s.name);
    for (const m of s.method) add(`${scope}${s.name}.${m.name}`);
  }
}

/** A renamed copy of query.proto: file name, package, its own message references and REST paths. */
function renameQueryFile(fd: FileDescriptorProto, names: ServiceNames): FileDescriptorProto {
  const oldScope = `.${fd.package}.`;
  const local = new Set(fd.messageType.map((m) => oldScope + m.name));
  const rename = (typeName: string) => (local.has(typeName) ? `.${names.package}.${typeName.slice(oldScope.length)}` : typeName);
  fd.name = `${names.namespace}/upgrade/v1beta1/query.proto`;
  fd.package = names.package;
  const walk = (messages: DescriptorProto[]) => {
    for (const m of messages) {
      for (const f of m.field) f.typeName = rename(f.typeName);
      walk(m.nestedType);
    }
  };
  walk(fd.messageType);
  for (const s of fd.service) {
    for (const m of s.method) {
      m.inputType = rename(m.inputType);
      m.outputType = rename(m.outputType);
      const unknown = m.options?.$unknown;
      if (unknown === undefined) continue;
      m.options!.$unknown = unknown.map((u) =>
        u.no === HTTP_RULE_FIELD && u.wireType === WireType.LengthDelimited ? { ...u, data: renameHttpRule(u.data, names.restPrefix) } : u,
      );
    }
  }
  return fd;
}

/** Rewrites the path patterns (get/put/post/delete/patch, fields 2–6) of a length-prefixed HttpRule. */
function renameHttpRule(lengthPrefixed: Uint8Array, restPrefix: string): Uint8Array {
  const rule = new BinaryReader(lengthPrefixed).bytes();
  const r = new BinaryReader(rule);
  const w = new BinaryWriter();
  while (r.pos < r.len) {
    const [no, wire] = r.tag();
    if (no >= 2 && no <= 6 && wire === WireType.LengthDelimited) {
      const path = r.string();
      const renamed = path.startsWith("/cosmos/upgrade/v1beta1/") ? restPrefix + path.slice("/cosmos/upgrade/v1beta1/".length) : path;
      w.tag(no, wire).string(renamed);
    } else {
      w.tag(no, wire).raw(r.skip(wire, no));
    }
  }
  return new BinaryWriter().bytes(w.finish()).finish();
}
