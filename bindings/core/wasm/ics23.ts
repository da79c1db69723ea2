/**
 * The host side of assembly/ics23.ts (twin: ../js/ics23.ts): the spec, root, proof, key and value go into IO
 * back to back, the core answers a reason (0: the proof holds), and a refusal's details come out of the block
 * at ics23Detail(), worded by ../ics23.ts as the TypeScript core's are; what a verified proof proved comes out
 * of the block at ics23Facts(), the places in IO of the entries it checked, copied before the next call.
 */
import type { CheckedSpec, Ics23Failure, NonMembershipFacts, PlannedOp, ProofOp, ProvenLeaf, StoreProofFacts } from "../ics23.js";
import { Ics23Fact, ics23Error } from "../ics23.js";
import type { CoreInstance } from "./instance.js";

const encoded = new WeakMap<CheckedSpec, Uint8Array>();

/** A checked spec in the layout assembly/ics23.ts reads (its SP_* offsets), made once per spec. */
function encodeSpec(cs: CheckedSpec): Uint8Array {
  let bytes = encoded.get(cs);
  if (bytes) return bytes;
  const { leafSpec: l, innerSpec: i } = cs.spec;
  const n = i.childOrder.length;
  bytes = new Uint8Array(60 + 8 * n + l.prefix.length + i.emptyChild.length);
  const dv = new DataView(bytes.buffer);
  const fields = [
    cs.family,
    l.hash,
    l.prehashKey,
    l.prehashValue,
    l.length,
    i.hash,
    i.childSize,
    i.minPrefixLength,
    i.maxPrefixLength,
    cs.maxDepth,
    cs.spec.minDepth,
    cs.spec.prehashKeyBeforeComparison ? 1 : 0,
    n,
    l.prefix.length,
    i.emptyChild.length,
  ];
  fields.forEach((v, k) => dv.setInt32(4 * k, v, true));
  for (let k = 0; k < n; k++) {
    dv.setInt32(60 + 4 * k, i.childOrder[k], true);
    dv.setInt32(60 + 4 * (n + k), cs.position[k], true);
  }
  bytes.set(l.prefix, 60 + 8 * n);
  bytes.set(i.emptyChild, 60 + 8 * n + l.prefix.length);
  encoded.set(cs, bytes);
  return bytes;
}

const EMPTY = new Uint8Array(0);

/** The refusal the core left at ics23Detail(). */
function failure(c: CoreInstance, reason: number): { f: Ics23Failure; op: number } {
  const at = c.x.ics23Detail();
  c.view();
  const i = at >> 2;
  const f: Ics23Failure = {
    reason,
    where: c.i32[i + 1],
    side: c.i32[i + 2],
    step: c.i32[i + 3],
    a: c.i32[i + 4],
    b: c.i32[i + 5],
    c: c.i32[i + 6],
    v: c.i64[(at + 32) >> 3],
  };
  return { f, op: c.i32[i + 7] };
}

/** Writes the parts into IO back to back. */
function put(c: CoreInstance, parts: readonly Uint8Array[]): void {
  let total = 0;
  for (const p of parts) total += p.length;
  let at = c.reserve(total);
  const u8 = c.u8;
  for (const p of parts) {
    if (p.length > 32) u8.set(p, at);
    else for (let k = 0; k < p.length; k++) u8[at + k] = p[k];
    at += p.length;
  }
}

function verify(c: CoreInstance, mode: number, spec: Uint8Array, root: Uint8Array, proof: Uint8Array, key: Uint8Array, value: Uint8Array): void {
  put(c, [spec, root, proof, key, value]);
  const reason = c.x.ics23Verify(mode, spec.length, root.length, proof.length, key.length, value.length);
  if (reason !== 0) throw ics23Error(failure(c, reason).f);
}

export function calculateRoot(c: CoreInstance, proof: Uint8Array): Uint8Array {
  verify(c, 0, EMPTY, EMPTY, proof, EMPTY, EMPTY);
  return c.out();
}

export function verifyMembership(c: CoreInstance, cs: CheckedSpec, root: Uint8Array, proof: Uint8Array, key: Uint8Array, value: Uint8Array): void {
  verify(c, 1, encodeSpec(cs), root, proof, key, value);
}

/** A record of the facts block (assembly/ics23-reasons.ts F_*): the leaf it names, copied out of IO, or undefined. */
function leafAt(c: CoreInstance, record: number): ProvenLeaf | undefined {
  const i = (c.x.ics23Facts() + record) >> 2;
  c.view();
  const w = c.i32;
  if (w[i] === 0) return undefined;
  const u8 = c.u8;
  return { key: u8.slice(w[i + 1], w[i + 1] + w[i + 2]), value: u8.slice(w[i + 3], w[i + 3] + w[i + 4]) };
}

export function verifyNonMembership(c: CoreInstance, cs: CheckedSpec, root: Uint8Array, proof: Uint8Array, key: Uint8Array): NonMembershipFacts {
  verify(c, 2, encodeSpec(cs), root, proof, key, EMPTY);
  return { left: leafAt(c, Ics23Fact.Left), right: leafAt(c, Ics23Fact.Right) };
}

/** The planned ops of a store proof in one call: IO = app hash, value, then [u32 len][spec][u32 len][key][u32 len][data] per op. */
export function verifyStoreProof(
  c: CoreInstance,
  ops: readonly PlannedOp[],
  proofOps: readonly ProofOp[],
  appHash: Uint8Array,
  key: Uint8Array,
  value: Uint8Array | undefined,
): StoreProofFacts {
  const parts: Uint8Array[] = [appHash];
  if (value !== undefined) parts.push(value);
  for (const op of ops) {
    const spec = encodeSpec(op.spec);
    parts.push(u32(spec.length), spec, u32(op.key.length), op.key, u32(op.data.length), op.data);
  }
  put(c, parts);
  const reason = c.x.ics23VerifyChain(ops.length, appHash.length, value === undefined ? -1 : value.length);
  if (reason !== 0) {
    const { f, op } = failure(c, reason);
    throw ics23Error(f, op, proofOps[op]?.type);
  }
  if (value === undefined) return { kind: "absent", key: key.slice(), left: leafAt(c, Ics23Fact.Left), right: leafAt(c, Ics23Fact.Right) };
  const { key: k, value: v } = leafAt(c, Ics23Fact.Exist)!;
  return { kind: "exists", key: k, value: v };
}

function u32(n: number): Uint8Array {
  return Uint8Array.of(n & 0xff, (n >>> 8) & 0xff, (n >>> 16) & 0xff, n >>> 24);
}

export function sha256(c: CoreInstance, data: Uint8Array): Uint8Array {
  put(c, [data]);
  c.x.sha256Digest(data.length);
  return c.out();
}
