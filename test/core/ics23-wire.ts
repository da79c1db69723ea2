/**
 * The protobuf wire format of cosmos.ics23.v1 proofs, for tests: the schema, a parser into editable field
 * lists, an encoder that can also write what no honest encoder writes (overlong varints, wrong lengths), and
 * an independent reading of the canonical rule of docs/spec/core.md §14.2 (`canonicalIssue`), written apart
 * from both cores so that the differential suite (ics23-differential.ts) can hold them to it.
 */

export type MsgName =
  | "CommitmentProof"
  | "ExistenceProof"
  | "NonExistenceProof"
  | "LeafOp"
  | "InnerOp"
  | "BatchProof"
  | "BatchEntry"
  | "CompressedBatchProof"
  | "CompressedBatchEntry"
  | "CompressedExistenceProof"
  | "CompressedNonExistenceProof";

export interface FieldDef {
  name: string;
  kind: "bytes" | "enum" | "message" | "packed";
  msg?: MsgName;
  repeated?: true;
  oneof?: true;
}

const bytes = (name: string): FieldDef => ({ name, kind: "bytes" });
const enm = (name: string): FieldDef => ({ name, kind: "enum" });
const sub = (name: string, msg: MsgName, more: Partial<FieldDef> = {}): FieldDef => ({ name, kind: "message", msg, ...more });

/** cosmos/ics23 proofs.proto (the messages a CommitmentProof can hold). */
export const SCHEMA: Readonly<Record<MsgName, Readonly<Record<number, FieldDef>>>> = {
  CommitmentProof: {
    1: sub("exist", "ExistenceProof", { oneof: true }),
    2: sub("nonexist", "NonExistenceProof", { oneof: true }),
    3: sub("batch", "BatchProof", { oneof: true }),
    4: sub("compressed", "CompressedBatchProof", { oneof: true }),
  },
  ExistenceProof: { 1: bytes("key"), 2: bytes("value"), 3: sub("leaf", "LeafOp"), 4: sub("path", "InnerOp", { repeated: true }) },
  NonExistenceProof: { 1: bytes("key"), 2: sub("left", "ExistenceProof"), 3: sub("right", "ExistenceProof") },
  LeafOp: { 1: enm("hash"), 2: enm("prehash_key"), 3: enm("prehash_value"), 4: enm("length"), 5: bytes("prefix") },
  InnerOp: { 1: enm("hash"), 2: bytes("prefix"), 3: bytes("suffix") },
  BatchProof: { 1: sub("entries", "BatchEntry", { repeated: true }) },
  BatchEntry: { 1: sub("exist", "ExistenceProof", { oneof: true }), 2: sub("nonexist", "NonExistenceProof", { oneof: true }) },
  CompressedBatchProof: { 1: sub("entries", "CompressedBatchEntry", { repeated: true }), 2: sub("lookup_inners", "InnerOp", { repeated: true }) },
  CompressedBatchEntry: { 1: sub("exist", "CompressedExistenceProof", { oneof: true }), 2: sub("nonexist", "CompressedNonExistenceProof", { oneof: true }) },
  CompressedExistenceProof: { 1: bytes("key"), 2: bytes("value"), 3: sub("leaf", "LeafOp"), 4: { name: "path", kind: "packed" } },
  CompressedNonExistenceProof: { 1: bytes("key"), 2: sub("left", "CompressedExistenceProof"), 3: sub("right", "CompressedExistenceProof") },
};

/**
 * One field on the wire. A known submessage is parsed into `children`; bytes, packed runs and unknown
 * length-delimited fields keep their raw `bytes`; an unknown group its `group`. The `*Extra` fields make the
 * encoder write a varint that many bytes longer than needed; `lenDelta` writes a length off by that much.
 */
export interface WField {
  field: number;
  wire: number;
  /** wire 0 (a varint), 1 and 5 (fixed, little-endian) */
  num?: bigint;
  bytes?: Uint8Array;
  msg?: MsgName;
  children?: WField[];
  group?: WField[];
  tagExtra?: number;
  lenExtra?: number;
  numExtra?: number;
  /** wire 0: these bytes instead of the varint of `num` */
  numBytes?: number[];
  lenDelta?: number;
}

// ---- encoding ----

/** A varint of `v` (taken as u64), `extra` bytes longer than minimal (continuation bytes over zero groups). */
export function varint(v: bigint | number, extra = 0): number[] {
  const out: number[] = [];
  if (typeof v === "number" && v >= 0 && v <= Number.MAX_SAFE_INTEGER) {
    while (v >= 0x80) {
      out.push((v % 0x80) | 0x80);
      v = Math.floor(v / 0x80);
    }
    out.push(v);
  } else {
    let x = BigInt.asUintN(64, BigInt(v));
    while (x >= 0x80n) {
      out.push(Number(x & 0x7fn) | 0x80);
      x >>= 7n;
    }
    out.push(Number(x));
  }
  for (let i = 0; i < extra; i++) {
    out[out.length - 1] |= 0x80;
    out.push(0);
  }
  return out;
}

class Writer {
  buf = new Uint8Array(256);
  n = 0;
  room(k: number): void {
    if (this.n + k <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.n + k));
    next.set(this.buf.subarray(0, this.n));
    this.buf = next;
  }
  bytes(b: ArrayLike<number>): void {
    this.room(b.length);
    if (b instanceof Uint8Array) this.buf.set(b, this.n);
    else for (let i = 0; i < b.length; i++) this.buf[this.n + i] = b[i];
    this.n += b.length;
  }
}

export function encode(fields: readonly WField[]): Uint8Array {
  const w = new Writer();
  write(w, fields);
  return w.buf.slice(0, w.n);
}

function write(w: Writer, fields: readonly WField[]): void {
  for (const f of fields) {
    w.bytes(varint(f.field * 8 + f.wire, f.tagExtra ?? 0));
    if (f.wire === 0) w.bytes(f.numBytes ?? varint(f.num ?? 0n, f.numExtra ?? 0));
    else if (f.wire === 1 || f.wire === 5) {
      let x = BigInt.asUintN(64, f.num ?? 0n);
      const b: number[] = [];
      for (let i = 0; i < (f.wire === 1 ? 8 : 4); i++, x >>= 8n) b.push(Number(x & 0xffn));
      w.bytes(b);
    } else if (f.wire === 2) {
      const body = f.children ? encode(f.children) : (f.bytes ?? new Uint8Array(0));
      w.bytes(varint(Math.max(0, body.length + (f.lenDelta ?? 0)), f.lenExtra ?? 0));
      w.bytes(body);
    } else if (f.wire === 3) {
      write(w, f.group ?? []);
      w.bytes(varint(f.field * 8 + 4));
    }
  }
}

// ---- parsing (well-formed input; throws otherwise) ----

class Cursor {
  pos = 0;
  constructor(
    readonly buf: Uint8Array,
    public end: number,
  ) {}
  /** A varint as a number when it fits 53 bits, else as a bigint (u64). */
  varint(): number | bigint {
    let x = 0;
    const start = this.pos;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new Error("truncated varint");
      const c = this.buf[this.pos++];
      if (i < 7) x += (c & 0x7f) * 2 ** (7 * i);
      if (c < 0x80) return i < 7 ? x : this.big(start);
    }
    throw new Error("varint overflow");
  }
  private big(start: number): bigint {
    let x = 0n;
    for (let i = 0; start + i < this.pos; i++) x |= BigInt(this.buf[start + i] & 0x7f) << BigInt(7 * i);
    return BigInt.asUintN(64, x);
  }
  take(n: number | bigint): Uint8Array {
    if (n > this.end - this.pos) throw new Error("length past end");
    const v = this.buf.subarray(this.pos, this.pos + Number(n));
    this.pos += Number(n);
    return v;
  }
}

/** The fields of a `msg` (submessages of known fields parsed too). Throws on bytes that are not protobuf. */
export function parse(buf: Uint8Array, msg: MsgName = "CommitmentProof"): WField[] {
  return parseAt(new Cursor(buf, buf.length), msg);
}

function parseAt(c: Cursor, msg: MsgName | undefined, group?: number): WField[] {
  const out: WField[] = [];
  while (c.pos < c.end) {
    const t = c.varint();
    const field = typeof t === "number" ? Math.floor(t / 8) : Number(t >> 3n);
    const wire = Number(typeof t === "number" ? t % 8 : t & 7n);
    if (wire === 4) {
      if (group === field) return out;
      throw new Error("unexpected end group");
    }
    const def = msg ? SCHEMA[msg][field] : undefined;
    if (wire === 0) out.push({ field, wire, num: BigInt(c.varint()) });
    else if (wire === 1 || wire === 5) {
      const b = c.take(wire === 1 ? 8 : 4);
      let x = 0n;
      for (let i = b.length - 1; i >= 0; i--) x = (x << 8n) | BigInt(b[i]);
      out.push({ field, wire, num: x });
    } else if (wire === 2) {
      const body = c.take(c.varint());
      if (def?.kind === "message") out.push({ field, wire, msg: def.msg, children: parse(body, def.msg) });
      else out.push({ field, wire, bytes: body.slice() });
    } else if (wire === 3) out.push({ field, wire, group: parseAt(c, undefined, field) });
    else throw new Error(`illegal wire type ${wire}`);
  }
  if (group !== undefined) throw new Error("unterminated group");
  return out;
}

// ---- the canonical rule, read independently of the cores ----

/**
 * The first thing wrong with `buf` as a canonical `msg`, in byte order: `malformed: …` for bytes that are not
 * protobuf (as gogoproto refuses them), `non-canonical: …` for a form no honest encoder writes; undefined for
 * a canonical encoding. Canonical: fields in ascending order, a singular field at most once, at most one
 * member of a oneof, repeated fields contiguous (the packed path one run), no unknown fields, no scalar
 * written with its default, every varint minimal.
 */
export function canonicalIssue(buf: Uint8Array, msg: MsgName = "CommitmentProof"): string | undefined {
  try {
    check(new Cursor(buf, buf.length), msg);
    return undefined;
  } catch (e) {
    if (e instanceof Issue) return e.message;
    throw e;
  }
}

class Issue extends Error {}
const malformed = (what: string): never => {
  throw new Issue(`malformed: ${what}`);
};
const nonCanonical = (what: string): never => {
  throw new Issue(`non-canonical: ${what}`);
};

/** A varint, refused if it does not read (malformed) or is not minimal (non-canonical). */
function minimal(c: Cursor): number | bigint {
  const start = c.pos;
  let x: number | bigint;
  try {
    x = c.varint();
  } catch (e) {
    return malformed((e as Error).message);
  }
  const n = c.pos - start;
  const last = c.buf[c.pos - 1];
  if (n > 1 && (last === 0 || (n === 10 && last !== 1))) nonCanonical("varint not minimal");
  return x;
}

/** An int32 as Go writes it: 0 … 2^31-1, or a negative one sign-extended to 64 bits. */
const isInt32 = (v: number | bigint) => (typeof v === "number" ? v < 2 ** 31 : BigInt.asIntN(64, v) === BigInt.asIntN(32, v));

function check(c: Cursor, msg: MsgName): void {
  const schema = SCHEMA[msg];
  let last = 0;
  while (c.pos < c.end) {
    const t = minimal(c);
    const field = t >= 2 ** 32 ? -1 : Math.floor(Number(t) / 8);
    const wire = Number(typeof t === "number" ? t % 8 : t & 7n);
    if (field === 0) malformed("field 0");
    if (wire === 6 || wire === 7) malformed("illegal wire type");
    if (wire === 4) malformed("end group");
    const def = schema[field];
    if (def === undefined) nonCanonical(`unknown field ${field} in ${msg}`);
    if (def.kind === "packed" && wire === 0) nonCanonical(`${msg}.${def.name} not packed`);
    if (wire !== (def.kind === "enum" ? 0 : 2)) malformed(`wrong wire type for ${msg}.${def.name}`);
    if (def.oneof && last !== 0) nonCanonical(`${msg} holds two members`);
    if (field < last) nonCanonical(`${msg} field ${field} after ${last}`);
    if (field === last && !def.repeated) nonCanonical(`${msg} field ${field} twice`);
    last = field;
    if (def.kind === "enum") {
      const v = minimal(c);
      if (v === 0) nonCanonical(`${msg}.${def.name} default`);
      if (!isInt32(v)) nonCanonical(`${msg}.${def.name} beyond int32`);
      continue;
    }
    const len = minimal(c);
    if (len > c.end - c.pos) malformed("length past end");
    const end = c.pos + Number(len);
    if (def.kind === "bytes") {
      if (len === 0) nonCanonical(`${msg}.${def.name} default`);
      c.pos = end;
    } else if (def.kind === "packed") {
      // an empty run is what ts-proto writes for an empty path (gogoproto writes none): both are honest
      const outer = c.end;
      c.end = end;
      while (c.pos < c.end) if (!isInt32(minimal(c))) nonCanonical(`${msg}.${def.name} beyond int32`);
      c.end = outer;
    } else {
      const outer = c.end;
      c.end = end;
      check(c, def.msg!);
      c.end = outer;
    }
  }
}
