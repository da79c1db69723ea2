/**
 * The ICS23 differential suite (docs/spec/core.md §14.6): a seeded generator of adversarial proof encodings
 * built from genuine proofs — the project's own IAVL trees and multistores, cosmos/ics23's vectors, cosmos/iavl's
 * proofs — each case run against the wasm core, the js core, @confio/ics23 (its own protobuf, chained as the
 * SDK's proof runtime chains a store proof's two ops) and, when it is built, the Go oracle (cosmos/ics23 v0.11,
 * test/peers/light-oracle -ics23-lines). What must hold, per case:
 *
 * 1. the two cores agree exactly (verdict, facts, error kind and message);
 * 2. where the core accepts, every reference accepts with the same facts;
 * 3. where the references disagree among themselves (verdict or facts), the core refuses;
 * 4. where every reference accepts with the same facts and the encoding is canonical, the core accepts with them;
 * 5. the core's decoder and the independent reading of the canonical rule (ics23-wire.ts) agree: a proof that
 *    rule calls malformed or non-canonical is refused, and a core refusal for its encoding is one that rule finds.
 *
 * Used by test/core/ics23-differential.test.ts (bounded, in `npm test`) and scripts/ics23-differential.mjs
 * (`npm run fuzz:ics23 -- --cases N [--seed S]`). Test code only.
 */
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";
import { ics23 as confio, calculateExistenceRoot, iavlSpec, tendermintSpec, verifyMembership, verifyNonMembership } from "@confio/ics23";
import { sha256 } from "@noble/hashes/sha2.js";
import { CommitmentProof } from "cosmjs-types/cosmos/ics23/v1/proofs";
import type { Core } from "../../bindings/core/contract.js";
import { Ics23Error, type Ics23SpecName, type ProofOp } from "../../bindings/core/ics23.js";
import { NodeCache, NodeDb } from "../../bindings/store/iavl/node-db.js";
import { encodeNode } from "../../bindings/store/iavl/node.js";
import { commitmentProof, encodeCommitmentProof } from "../../bindings/store/iavl/proof.js";
import { MutableTree, TreeReader } from "../../bindings/store/iavl/tree.js";
import { commitInfoHash, storeProof } from "../../bindings/store/rootmulti/commit-info.js";
import { canonicalIssue, encode, parse, SCHEMA, varint, type MsgName, type WField } from "./ics23-wire.js";

const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");
const unhex = (s: string) => new Uint8Array(Buffer.from(s, "hex"));
const utf8 = new TextEncoder();

/** mulberry32 over a seed mixed with the case's index: each case is reproducible on its own. */
export function caseRng(seed: number, index: number): Rand {
  let s = Math.imul(seed ^ Math.imul(index + 0x632be5ab, 0x9e3779b1), 0x85ebca6b) ^ (index >>> 3);
  const next = () => {
    s = (s + 0x6d2b79f5) | 0;
    let x = Math.imul(s ^ (s >>> 15), 1 | s);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
  return new Rand(next);
}

class Rand {
  constructor(readonly next: () => number) {}
  int(n: number): number {
    return Math.floor(this.next() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)];
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
  bytes(min: number, max: number): Uint8Array {
    return Uint8Array.from({ length: min + this.int(max - min + 1) }, () => this.int(256));
  }
}

// ---- the cases ----

export type ProofCase =
  | { mode: "store"; appHash: Uint8Array; store: string; key: Uint8Array; value: Uint8Array | undefined; ops: ProofOp[] }
  | { mode: "single"; spec: Ics23SpecName; root: Uint8Array; key: Uint8Array; value: Uint8Array | undefined; proof: Uint8Array };

/** A genuine (key, claim, proof) of a pool. */
interface Claim {
  key: Uint8Array;
  value: Uint8Array | undefined;
  proof: Uint8Array;
}

/**
 * Genuine proofs from one tree: single proofs against `root` under `spec`, or (with `store`) the first op of
 * store proofs whose second op is `store.simple` against `store.appHash`. `prove` makes a genuine proof of any
 * key (the project's trees); `others` are the second ops of the multistore's other stores (for op-1 mutations).
 */
interface Pool {
  name: string;
  spec: Ics23SpecName;
  root: Uint8Array;
  claims: Claim[];
  prove?: (key: Uint8Array) => Claim;
  store?: { appHash: Uint8Array; name: string; simple: Uint8Array; others: Claim[] };
}

// ---- genuine proofs: the project's IAVL trees and multistores ----

/** A multistore of IAVL trees built by the project's store code (several saved versions), proven as VersionView.prove does. */
function projectMultistore(r: Rand, name: string, stores: Record<string, (r: Rand) => [Uint8Array, Uint8Array][]>, versions: number): Pool[] {
  const stored = new Map<string, Uint8Array>();
  const cache = new NodeCache(256);
  const trees = Object.keys(stores).map((s) => {
    const db = new NodeDb(sha256, (v, n) => stored.get(`${s}/${v}.${n}`), cache, s);
    const hash: Uint8Array = new Uint8Array(0); // any buffer: saved hashes replace it
    return { s, db, tree: new MutableTree(db, undefined, 0), hash, reader: undefined as TreeReader | undefined };
  });
  for (let v = 1; v <= versions; v++) {
    for (const t of trees) {
      const entries = stores[t.s](r);
      for (const [k, val] of entries) t.tree.set(k, val);
      if (v > 1) for (const [k] of [...t.tree.iterate(new Uint8Array(0), undefined)].filter(() => r.chance(0.05)).slice(0, -1)) t.tree.remove(k);
      const saved = t.tree.save();
      for (const n of saved.nodes) stored.set(`${t.s}/${n.version}.${n.nonce}`, encodeNode(n));
      t.tree.commitSaved(saved);
      t.hash = saved.hash;
      t.reader = new TreeReader(t.db, saved.root);
    }
  }
  const infos = trees.map((t) => ({ name: t.s, hash: t.hash }));
  const appHash = commitInfoHash(sha256, infos);
  const simple = (s: string) => CommitmentProof.encode(CommitmentProof.fromPartial(storeProof(sha256, infos, s))).finish();
  return trees.map((t) => {
    const reader = t.reader!;
    const prove = (key: Uint8Array): Claim => ({ key, value: reader.get(key), proof: encodeCommitmentProof(commitmentProof(reader, key)) });
    const keys = [...reader.iterate(new Uint8Array(0), undefined)].map(([k]) => k);
    const probes: Uint8Array[] = [...keys.filter(() => r.chance(Math.min(1, 30 / keys.length)))];
    // absent keys: the walk of a range (each key's successor, the prefixes), the ends, anything
    for (const k of keys.filter(() => r.chance(Math.min(1, 20 / keys.length)))) probes.push(Uint8Array.of(...k, 0));
    probes.push(Uint8Array.of(0), Uint8Array.of(1), Uint8Array.of(2), Uint8Array.of(3), Uint8Array.of(0xff, 0xff, 0xff));
    for (let i = 0; i < 10; i++) probes.push(r.bytes(1, 6));
    const others = trees.filter((o) => o.s !== t.s).map((o) => ({ key: utf8.encode(o.s), value: o.hash, proof: simple(o.s) }));
    return {
      name: `${name}/${t.s}`,
      spec: "iavl" as const,
      root: t.hash,
      claims: probes.map(prove),
      prove,
      store: { appHash, name: t.s, simple: simple(t.s), others },
    };
  });
}

const be64 = (n: number) => Uint8Array.of(0, 0, 0, 0, (n >>> 24) & 0xff, (n >>> 16) & 0xff, (n >>> 8) & 0xff, n & 0xff);

/** An x/upgrade store: the plan, done records, module versions, the protocol version. */
function upgradeStore(modules: number) {
  return (r: Rand): [Uint8Array, Uint8Array][] => {
    const out: [Uint8Array, Uint8Array][] = [[Uint8Array.of(0), r.bytes(8, 40)]];
    for (let i = 0; i < modules; i++)
      out.push([
        Uint8Array.of(2, ...utf8.encode(r.pick(["bank", "gov", "auth", "staking", "mint", "upgrade", "ibc"]) + (i % 3 === 0 ? "" : `${i}`))),
        be64(1 + r.int(9)),
      ]);
    for (let i = 0; i < 1 + r.int(3); i++) out.push([Uint8Array.of(1, ...be64(100 + r.int(1e6)), ...utf8.encode(`v${r.int(30)}`)), Uint8Array.of(1)]);
    out.push([Uint8Array.of(3), be64(r.int(5))]);
    return out;
  };
}

const randomStore =
  (n: number) =>
  (r: Rand): [Uint8Array, Uint8Array][] =>
    Array.from({ length: 1 + r.int(n) }, () => [r.bytes(1, 8), r.bytes(1, 24)] as [Uint8Array, Uint8Array]);

function projectPools(r: Rand): Pool[] {
  return [
    ...projectMultistore(r, "one-store-one-key", { upgrade: () => [[Uint8Array.of(0), utf8.encode("plan")]] }, 1),
    ...projectMultistore(r, "tiny", { upgrade: upgradeStore(2), bank: randomStore(2) }, 2),
    ...projectMultistore(r, "small", { acc: randomStore(12), bank: randomStore(12), gov: randomStore(12), upgrade: upgradeStore(8) }, 4),
    ...projectMultistore(
      r,
      "medium",
      { acc: randomStore(90), bank: randomStore(60), upgrade: upgradeStore(30), params: randomStore(4), staking: randomStore(40) },
      5,
    ),
    ...projectMultistore(r, "large", { upgrade: upgradeStore(60), bank: randomStore(700) }, 3),
  ];
}

// ---- genuine proofs: cosmos/ics23's vectors and cosmos/iavl's ----

const VECTORS = new URL("../vectors/ics23/", import.meta.url);
const readJson = <T>(url: URL) => JSON.parse(readFileSync(url, "utf8")) as T;

function vectorPools(): Pool[] {
  const pools: Pool[] = [];
  for (const spec of ["iavl", "tendermint", "smt"] as const) {
    for (const file of readdirSync(new URL(`${spec}/`, VECTORS))) {
      const url = new URL(`${spec}/${file}`, VECTORS);
      if (file.startsWith("batch_")) {
        const v = readJson<{ items: { key: string; value?: string }[]; proof: string; root: string }>(url);
        const exist = file.includes("_exist");
        const batch = unhex(v.proof);
        const entries = plainEntries(batch);
        const claims: Claim[] = [];
        v.items.forEach((item, i) => {
          const key = unhex(item.key);
          const value = exist ? unhex(item.value!) : undefined;
          // the whole batch (large: its cases are slow) for one item in four, its own entry for each
          if (i % 4 === 0) claims.push({ key, value, proof: batch });
          // SMT compares keys prehashed (prehash_key_before_comparison)
          const cmp = spec === "smt" ? (k: Uint8Array) => sha256(k) : (k: Uint8Array) => k;
          const entry = entries.find((e) => (exist ? e.exist && hex(e.exist.key) === item.key : e.nonexist && between(e.nonexist, key, cmp)));
          if (entry) claims.push({ key, value, proof: CommitmentProof.encode(CommitmentProof.fromPartial(entry)).finish() });
        });
        pools.push({ name: `ics23/${spec}/${file}`, spec, root: unhex(v.root), claims });
      } else {
        const v = readJson<{ key: string; value?: string; proof: string; root: string }>(url);
        pools.push({
          name: `ics23/${spec}/${file}`,
          spec,
          root: unhex(v.root),
          claims: [{ key: unhex(v.key), value: v.value ? unhex(v.value) : undefined, proof: unhex(v.proof) }],
        });
      }
    }
  }
  // cosmos/iavl v1.2.2's own proofs (gogoproto-encoded), against the root of their version
  const iavl = readJson<{
    trees: {
      name: string;
      versions: { version: number; hash: string }[];
      proofs: { version: number; key: string; value?: string; exists: boolean; proof: string }[];
    }[];
  }>(new URL("../store/iavl/vectors.json", import.meta.url));
  for (const t of iavl.trees) {
    for (const v of t.versions) {
      const claims = t.proofs
        .filter((p) => p.version === v.version && (!p.exists || p.value))
        .map((p) => ({ key: unhex(p.key), value: p.exists ? unhex(p.value!) : undefined, proof: unhex(p.proof) }));
      if (claims.length > 0) pools.push({ name: `iavl-v1.2.2/${t.name}@${v.version}`, spec: "iavl", root: unhex(v.hash), claims });
    }
  }
  return pools;
}

type Plain = {
  exist?: import("cosmjs-types/cosmos/ics23/v1/proofs").ExistenceProof;
  nonexist?: import("cosmjs-types/cosmos/ics23/v1/proofs").NonExistenceProof;
};

/** A (compressed) batch's entries as plain entries. */
function plainEntries(proof: Uint8Array): Plain[] {
  const p = CommitmentProof.decode(proof);
  if (p.batch) return p.batch.entries;
  if (!p.compressed) return [];
  const lookup = p.compressed.lookupInners;
  const expand = (c: { key: Uint8Array; value: Uint8Array; leaf?: unknown; path: number[] } | undefined) =>
    c && { key: c.key, value: c.value, leaf: c.leaf, path: c.path.map((i) => lookup[i]) };
  return p.compressed.entries.map((e) =>
    e.exist ? { exist: expand(e.exist) } : { nonexist: e.nonexist && { key: e.nonexist.key, left: expand(e.nonexist.left), right: expand(e.nonexist.right) } },
  ) as Plain[];
}

function compare(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

const between = (n: { left?: { key: Uint8Array }; right?: { key: Uint8Array } }, key: Uint8Array, cmp: (k: Uint8Array) => Uint8Array) =>
  (!n.left || compare(cmp(n.left.key), cmp(key)) < 0) && (!n.right || compare(cmp(n.right.key), cmp(key)) > 0);

/**
 * Every pool of genuine proofs for a seed (the project's trees vary with it; the vectors do not). A case picks
 * a pool from this list: the project's stores (what an SDK node serves) three times as often as the vectors.
 */
export function buildPools(seed: number): Pool[] {
  const project = projectPools(caseRng(seed, -1));
  return [...project, ...project, ...project, ...vectorPools()];
}

// ---- mutations ----

const clone = <T>(x: T): T => structuredClone(x);

interface MsgRef {
  msg: MsgName;
  fields: WField[];
}

/** Every message of a parsed proof (the top one first), with its field list to edit in place. */
function messages(top: WField[], msg: MsgName = "CommitmentProof", out: MsgRef[] = []): MsgRef[] {
  out.push({ msg, fields: top });
  for (const f of top) if (f.children && f.msg) messages(f.children, f.msg, out);
  return out;
}

function allFields(top: WField[]): WField[] {
  return messages(top).flatMap((m) => m.fields);
}

const bytesField = (field: number, b: Uint8Array): WField => ({ field, wire: 2, bytes: b });

/** A proof's top member as a batch entry's (exist 1, nonexist 2); undefined for a batch. */
function asEntry(proof: Uint8Array): WField | undefined {
  const top = parse(proof);
  return top.length === 1 && top[0].field <= 2 ? top[0] : undefined;
}

const batchOf = (entries: WField[]): WField => ({
  field: 3,
  wire: 2,
  msg: "BatchProof",
  children: entries.map((e) => ({ field: 1, wire: 2, msg: "BatchEntry", children: [e] })),
});

/** A compressed batch of plain entries: each path's inner ops into one lookup table; an empty path left out (gogoproto) or written as an empty run (ts-proto). */
function compressedOf(entries: WField[], tsProto: boolean): WField {
  const lookup: WField[] = [];
  const index = new Map<string, number>();
  const compress = (exist: WField[]): WField[] => {
    const out: WField[] = [];
    const path: number[] = [];
    for (const f of exist) {
      if (f.field === 4) {
        const id = hex(encode(f.children!));
        if (!index.has(id)) {
          index.set(id, lookup.length);
          lookup.push({ field: 2, wire: 2, msg: "InnerOp", children: f.children });
        }
        path.push(index.get(id)!);
      } else out.push(f);
    }
    if (path.length > 0 || tsProto) out.push(bytesField(4, Uint8Array.from(path.flatMap((i) => varint(BigInt(i))))));
    return out;
  };
  const centries = entries.map((e): WField => {
    const member: WField =
      e.field === 1
        ? { field: 1, wire: 2, msg: "CompressedExistenceProof", children: compress(e.children!) }
        : {
            field: 2,
            wire: 2,
            msg: "CompressedNonExistenceProof",
            children: e.children!.map((f) => (f.field === 1 ? f : { ...f, msg: "CompressedExistenceProof" as const, children: compress(f.children!) })),
          };
    return { field: 1, wire: 2, msg: "CompressedBatchEntry", children: [member] };
  });
  return { field: 4, wire: 2, msg: "CompressedBatchProof", children: [...centries, ...lookup] };
}

/** What a mutation made: the new proof bytes for the target op, and maybe a new claim. */
interface Mutated {
  proof: Uint8Array;
  value?: { value: Uint8Array | undefined };
  key?: Uint8Array;
}

interface Ctx {
  r: Rand;
  claim: Claim;
  /** genuine proofs of the same tree (other claims; for op 1, the other stores) */
  others: Claim[];
  prove?: (key: Uint8Array) => Claim;
}

type Mutation = (c: Ctx, proof: Uint8Array) => Mutated | undefined;

/** Insert `f` at a random place in `fields`, or (sorted) where an encoder would write it. */
function insert(r: Rand, fields: WField[], f: WField, sorted = false): void {
  const at = sorted ? fields.filter((x) => x.field < f.field).length : r.int(fields.length + 1);
  fields.splice(at, 0, f);
}

const UNKNOWN_NUMBERS = [5, 6, 7, 9, 15, 16, 100, 2047, 2048, 19000, (1 << 29) - 1];

/** An existence proof (field list) whose key or value is invented: it no longer hashes to the root. */
function invent(r: Rand, exist: WField[]): WField[] {
  const e = clone(exist);
  const target = e.find((f) => f.field === (r.chance(0.6) ? 1 : 2));
  if (target?.bytes) target.bytes = r.chance(0.5) ? Uint8Array.of(...target.bytes.subarray(0, Math.max(1, target.bytes.length - 1)), 0x7a) : r.bytes(1, 12);
  return e;
}

/** The proof's entry at a random place among a few genuine entries of the same tree (undefined: the proof is a batch already). */
function amongOthers(r: Rand, proof: Uint8Array, others: readonly Claim[]): WField[] | undefined {
  const genuine = asEntry(proof);
  if (!genuine) return undefined;
  const entries = others
    .map((o) => asEntry(o.proof))
    .filter((e): e is WField => e !== undefined && r.chance(0.3))
    .slice(0, 6);
  entries.splice(r.int(entries.length + 1), 0, genuine);
  return entries;
}

export const MUTATIONS: Readonly<Record<string, Mutation>> = {
  honest: (_c, p) => ({ proof: p }),
  "duplicate-field": ({ r }, p) => {
    const top = parse(p);
    const ms = messages(top).filter((m) => m.fields.length > 0);
    if (ms.length === 0) return undefined;
    const m = r.pick(ms);
    const i = r.int(m.fields.length);
    m.fields.splice(r.chance(0.5) ? i + 1 : m.fields.length, 0, clone(m.fields[i]));
    return { proof: encode(top) };
  },
  "reorder-fields": ({ r }, p) => {
    const top = parse(p);
    const ms = messages(top).filter((m) => new Set(m.fields.map((f) => f.field)).size > 1);
    if (ms.length === 0) return undefined;
    const m = r.pick(ms);
    const i = r.int(m.fields.length);
    const js = m.fields.map((_, j) => j).filter((j) => m.fields[j].field !== m.fields[i].field);
    const j = r.pick(js);
    [m.fields[i], m.fields[j]] = [m.fields[j], m.fields[i]];
    return { proof: encode(top) };
  },
  "unknown-field": ({ r }, p) => {
    const top = parse(p);
    const m = r.pick(messages(top));
    const numbers = UNKNOWN_NUMBERS.filter((n) => SCHEMA[m.msg][n] === undefined);
    const field = r.pick(numbers);
    const wire = r.pick([0, 1, 2, 3, 5]);
    const f: WField = { field, wire, num: BigInt(r.int(1000)) };
    if (wire === 2) f.bytes = r.bytes(0, 40);
    if (wire === 3) f.group = [{ field: 1 + r.int(5), wire: r.pick([0, 2, 5]), num: 7n, bytes: r.bytes(0, 4) }];
    insert(r, m.fields, f);
    return { proof: encode(top) };
  },
  "explicit-default": ({ r }, p) => {
    const top = parse(p);
    const m = r.pick(messages(top));
    const defs = Object.entries(SCHEMA[m.msg]).filter(([, d]) => d.kind !== "message");
    if (defs.length === 0) return undefined;
    const [n, d] = r.pick(defs);
    const field = Number(n);
    const present = m.fields.find((f) => f.field === field);
    if (present && r.chance(0.5)) {
      // the field as its default: a different proof (an enum 0, an empty key, value, prefix or path)
      if (d.kind === "enum") present.num = 0n;
      else present.bytes = new Uint8Array(0);
    } else insert(r, m.fields, d.kind === "enum" ? { field, wire: 0, num: 0n } : bytesField(field, new Uint8Array(0)), r.chance(0.8));
    return { proof: encode(top) };
  },
  "overlong-varint": ({ r }, p) => {
    const top = parse(p);
    const fs = allFields(top);
    if (fs.length === 0) return undefined;
    const f = r.pick(fs);
    const extra = r.chance(0.1) ? 9 + r.int(2) : 1 + r.int(3);
    const which = r.int(3);
    if (which === 0 || (f.wire !== 0 && f.wire !== 2)) f.tagExtra = extra;
    else if (f.wire === 0) f.numExtra = extra;
    else f.lenExtra = extra;
    return { proof: encode(top) };
  },
  "int32-beyond": ({ r }, p) => {
    const top = parse(p);
    const ms = messages(top);
    const enums = ms.flatMap((m) => m.fields.filter((f) => f.wire === 0 && SCHEMA[m.msg][f.field]?.kind === "enum"));
    if (enums.length === 0) return undefined;
    const f = r.pick(enums);
    f.num = r.chance(0.3) ? -BigInt(1 + r.int(3)) : (f.num ?? 0n) | (1n << BigInt(32 + r.int(31)));
    return { proof: encode(top) };
  },
  "length-game": ({ r }, p) => {
    const top = parse(p);
    const fs = allFields(top).filter((f) => f.wire === 2);
    if (fs.length === 0) return undefined;
    for (let i = 0, n = 1 + (r.chance(0.3) ? 1 : 0); i < n; i++) r.pick(fs).lenDelta = r.pick([-3, -2, -1, 1, 2, 3, 40]);
    return { proof: encode(top) };
  },
  truncate: ({ r }, p) => (p.length === 0 ? undefined : { proof: p.subarray(0, r.int(p.length)) }),
  "byte-flip": ({ r }, p) => {
    if (p.length === 0) return undefined;
    const q = p.slice();
    for (let i = 0, n = 1 + r.int(3); i < n; i++) q[r.int(q.length)] ^= 1 + r.int(255);
    return { proof: q };
  },
  "stack-oneof": ({ r, others, claim }, p) => {
    const top = parse(p);
    const other = r.pick([...others, claim]);
    let member: WField;
    const kind = r.int(4);
    const entry = asEntry(other.proof);
    if (kind === 0 || !entry) member = parse(other.proof)[0];
    else if (kind === 1) member = batchOf([entry]);
    else if (kind === 2) member = compressedOf([entry], r.chance(0.5));
    else {
      member = clone(entry);
      const exists = member.field === 1 ? [member] : member.children!.filter((f) => f.field !== 1);
      if (exists.length > 0) {
        const e = r.pick(exists);
        e.children = invent(r, e.children!);
      }
    }
    if (!member) return undefined;
    return { proof: encode(r.chance(0.5) ? [...top, member] : [member, ...top]) };
  },
  "forged-range": ({ r }, p) => {
    // an invented member beside a batch holding the genuine one (the forged-range attack), in either order
    const genuine = asEntry(p);
    if (!genuine) return undefined;
    const invented = clone(genuine);
    const exists = invented.field === 1 ? [invented] : invented.children!.filter((f) => f.field !== 1);
    if (exists.length === 0) return undefined;
    for (const e of exists) if (r.chance(0.7)) e.children = invent(r, e.children!);
    const batch = batchOf([genuine]);
    return { proof: encode(r.chance(0.5) ? [invented, batch] : [batch, invented]) };
  },
  "wrap-batch": ({ r, others }, p) => {
    const entries = amongOthers(r, p, others);
    return entries && { proof: encode([batchOf(entries)]) };
  },
  "wrap-compressed": ({ r, others }, p) => {
    const entries = amongOthers(r, p, others);
    return entries && { proof: encode([compressedOf(entries, r.chance(0.5))]) };
  },
  "packed-games": ({ r, others }, p) => {
    const genuine = asEntry(p);
    if (!genuine) return undefined;
    const entries = [
      genuine,
      ...others
        .map((o) => asEntry(o.proof))
        .filter((e): e is WField => e !== undefined && r.chance(0.2))
        .slice(0, 3),
    ];
    const top = [compressedOf(entries, r.chance(0.5))];
    const paths = messages(top)
      .filter((m) => m.msg === "CompressedExistenceProof")
      .map((m) => m.fields);
    const fields = r.pick(paths);
    const path = fields.find((f) => f.field === 4);
    const indices: bigint[] = [];
    if (path?.bytes) {
      let x = 0n;
      let s = 0n;
      for (const b of path.bytes) {
        x |= BigInt(b & 0x7f) << s;
        s += 7n;
        if (b < 0x80) {
          indices.push(x);
          x = 0n;
          s = 0n;
        }
      }
    }
    const at = path ? fields.indexOf(path) : fields.length;
    const run = (xs: bigint[], extra = 0) => bytesField(4, Uint8Array.from(xs.flatMap((x) => varint(x, extra))));
    switch (r.int(6)) {
      case 0: // unpacked
        fields.splice(at, path ? 1 : 0, ...indices.map((x): WField => ({ field: 4, wire: 0, num: x })));
        break;
      case 1: {
        // two runs
        const cut = r.int(indices.length + 1);
        fields.splice(at, path ? 1 : 0, run(indices.slice(0, cut)), run(indices.slice(cut)));
        break;
      }
      case 2: // an element longer than needed
        if (indices.length === 0) return undefined;
        fields.splice(at, 1, bytesField(4, Uint8Array.from(indices.flatMap((x, i) => varint(x, i === indices.length - 1 ? 1 : 0)))));
        break;
      case 3: // an index past the table, or negative
        fields.splice(at, path ? 1 : 0, run([...indices, r.pick([BigInt(99 + r.int(9)), -1n, (1n << 32n) + 1n])]));
        break;
      case 4: // an empty run (ts-proto writes one for an empty path), where there is no path
        if (path) return undefined;
        fields.push(run([]));
        break;
      default: // indices swapped
        if (indices.length < 2) return undefined;
        [indices[0], indices[1]] = [indices[1], indices[0]];
        fields.splice(at, 1, run(indices));
    }
    return { proof: encode(top) };
  },
  "neighbour-proof": ({ r, others, claim, prove }) => {
    // a genuine proof for another key: a neighbouring key's, or one in the same gap (which still proves this absence)
    const k = claim.key;
    const choice = r.int(4);
    if (!prove || choice === 3) return others.length > 0 ? { proof: r.pick(others).proof } : undefined;
    const last = k[k.length - 1];
    const key =
      choice === 0
        ? Uint8Array.of(...k, r.int(256))
        : choice === 1 && k.length > 1
          ? k.subarray(0, k.length - 1)
          : Uint8Array.of(...k.subarray(0, k.length - 1), (last + 1) & 0xff);
    return { proof: prove(key).proof };
  },
  "wrong-claim": ({ r, claim }, p) => {
    if (claim.value === undefined) return { proof: p, value: { value: r.bytes(1, 8) } };
    if (r.chance(0.5)) return { proof: p, value: { value: undefined } };
    const v = claim.value.slice();
    v[r.int(v.length)] ^= 1;
    return { proof: p, value: { value: v } };
  },
  "nonexist-key": ({ r }, p) => {
    // the key field of a non-existence proof: read and never used by any verifier
    const top = parse(p);
    const ne = messages(top).filter((m) => m.msg === "NonExistenceProof" || m.msg === "CompressedNonExistenceProof");
    if (ne.length === 0) return undefined;
    const fields = r.pick(ne).fields;
    const old = fields.findIndex((f) => f.field === 1);
    if (old >= 0) fields.splice(old, 1);
    if (r.chance(0.8)) fields.unshift(bytesField(1, r.bytes(1, 10)));
    return { proof: encode(top) };
  },
};

export const MUTATION_KINDS = [...Object.keys(MUTATIONS), "combined"];

/** Case `index` of a run: a pool, a genuine claim, a mutation of one op (or of the claim). */
export function makeCase(pools: readonly Pool[], seed: number, index: number): { kind: string; pool: string; c: ProofCase } {
  const r = caseRng(seed, index);
  const pool = r.pick(pools);
  const claim = r.pick(pool.claims);
  const kinds = Object.keys(MUTATIONS);
  let kind = r.chance(0.05) ? "combined" : r.pick(kinds);
  const onOp1 = pool.store !== undefined && r.chance(0.15);
  const ctx: Ctx = onOp1
    ? { r, claim: { key: utf8.encode(pool.store!.name), value: pool.root, proof: pool.store!.simple }, others: pool.store!.others }
    : { r, claim, others: pool.claims.filter((c) => c !== claim), prove: pool.prove };
  let proof = ctx.claim.proof;
  let value = claim.value;
  const apply = (k: string) => {
    let m: Mutated | undefined;
    try {
      m = MUTATIONS[k](ctx, proof);
    } catch {
      // a structural mutation of bytes an earlier one left unparseable
      return false;
    }
    if (!m) return false;
    proof = m.proof;
    if (m.value && !onOp1) value = m.value.value;
    return true;
  };
  if (kind === "combined") {
    for (let i = 0; i < 2; i++) apply(r.pick(kinds));
  } else if (!apply(kind)) {
    kind = "honest";
  }
  const key = claim.key;
  if (pool.store) {
    const ops: ProofOp[] = [
      { type: "ics23:iavl", key, data: onOp1 ? claim.proof : proof },
      { type: "ics23:simple", key: utf8.encode(pool.store.name), data: onOp1 ? proof : pool.store.simple },
    ];
    return { kind, pool: pool.name, c: { mode: "store", appHash: pool.store.appHash, store: pool.store.name, key, value, ops } };
  }
  return { kind, pool: pool.name, c: { mode: "single", spec: pool.spec, root: pool.root, key, value, proof } };
}

// ---- the judges ----

/** A verdict with its facts, as one comparable string: `exists <value>`, `absent <left> <right>` or `refused`. */
export interface Outcome {
  facts: string;
  kind?: string;
  message?: string;
  op?: number;
}

const leafText = (l: { key: Uint8Array; value: Uint8Array } | undefined | null) => (l ? `${hex(l.key)}=${hex(l.value)}` : "-");

export function runCore(core: Core, c: ProofCase): Outcome {
  try {
    if (c.mode === "store") {
      const f = core.ics23VerifyStoreProof(c.appHash, c.ops, c.store, c.key, c.value);
      return { facts: f.kind === "exists" ? `exists ${hex(f.value)}` : `absent ${leafText(f.left)} ${leafText(f.right)}` };
    }
    if (c.value !== undefined) {
      core.ics23VerifyMembership(c.spec, c.root, c.proof, c.key, c.value);
      return { facts: `exists ${hex(c.value)}` };
    }
    const f = core.ics23VerifyNonMembership(c.spec, c.root, c.proof, c.key);
    return { facts: `absent ${leafText(f.left)} ${leafText(f.right)}` };
  } catch (e) {
    if (e instanceof Ics23Error) return { facts: "refused", kind: e.kind, message: e.message, op: e.at.op };
    throw e;
  }
}

type ConfioProof = confio.ICommitmentProof;
type ConfioExist = confio.IExistenceProof;
type ConfioNonExist = confio.INonExistenceProof;

/** @confio/ics23's decompress (not exported): each path index through the lookup table. */
function confioDecompress(p: ConfioProof): ConfioProof {
  if (!p.compressed) return p;
  const lookup = p.compressed.lookupInners ?? [];
  const expand = (e: confio.ICompressedExistenceProof | null | undefined): ConfioExist | undefined =>
    e ? { key: e.key, value: e.value, leaf: e.leaf, path: (e.path ?? []).map((i) => lookup[i]) } : undefined;
  return {
    batch: {
      entries: (p.compressed.entries ?? []).map((e) =>
        e.exist
          ? { exist: expand(e.exist) }
          : { nonexist: e.nonexist ? { key: e.nonexist.key, left: expand(e.nonexist.left), right: expand(e.nonexist.right) } : undefined },
      ),
    },
  };
}

/** CommitmentProof.Calculate over @confio/ics23's decoding (its oneof getter picks the member, as Go's switch does). */
function confioCalculate(p: ConfioProof & { proof?: string }): Uint8Array {
  const calcNon = (n: ConfioNonExist) => {
    const e = n.left ?? n.right;
    if (!e) throw new Error("nonexistence proof has empty Left and Right proof");
    return calculateExistenceRoot(e);
  };
  switch (p.proof) {
    case "exist":
      return calculateExistenceRoot(p.exist!);
    case "nonexist":
      return calcNon(p.nonexist!);
    case "batch":
    case "compressed": {
      const first = confioDecompress(p.proof === "batch" ? { batch: p.batch } : { compressed: p.compressed }).batch!.entries?.[0];
      if (first?.exist) return calculateExistenceRoot(first.exist);
      if (first?.nonexist) return calcNon(first.nonexist);
      throw new Error("batch proof has empty entry");
    }
    default:
      throw new Error("unrecognized proof type");
  }
}

/** What @confio/ics23 proved: the entry its verifyMembership / verifyNonMembership picks (getExistForKey, getNonExistForKey). */
function confioFacts(p: ConfioProof, key: Uint8Array, value: Uint8Array | undefined): string {
  const d = confioDecompress(p);
  const entries: { exist?: ConfioExist | null; nonexist?: ConfioNonExist | null }[] = [{ exist: d.exist, nonexist: d.nonexist }, ...(d.batch?.entries ?? [])];
  if (value !== undefined) {
    const hit = (e: ConfioExist | null | undefined) => e && hex(e.key ?? new Uint8Array(0)) === hex(key);
    const e = hit(d.exist) ? d.exist : (d.batch?.entries ?? []).map((x) => x.exist).find(hit);
    return `exists ${hex(e!.value!)}`;
  }
  const match = (n: ConfioNonExist | null | undefined) => n && (!n.left || compare(n.left.key!, key) < 0) && (!n.right || compare(key, n.right.key!) < 0);
  const n = match(d.nonexist)
    ? d.nonexist
    : entries
        .slice(1)
        .map((x) => x.nonexist)
        .find(match);
  const leaf = (e: ConfioExist | null | undefined) => (e ? `${hex(e.key!)}=${hex(e.value!)}` : "-");
  return `absent ${leaf(n!.left)} ${leaf(n!.right)}`;
}

const CONFIO_SPECS = { iavl: iavlSpec, tendermint: tendermintSpec } as const;

/** @confio/ics23's verdict, or undefined where it is no reference (the SMT spec: v0.6 has neither its prehashed comparison nor empty children). */
export function runConfio(c: ProofCase): Outcome | undefined {
  if (c.mode === "single" && c.spec === "smt") return undefined;
  try {
    if (c.mode === "single") {
      const p = confio.CommitmentProof.decode(c.proof);
      const spec = CONFIO_SPECS[c.spec as "iavl" | "tendermint"];
      const ok = c.value === undefined ? verifyNonMembership(p, spec, c.root, c.key) : verifyMembership(p, spec, c.root, c.key, c.value);
      return ok ? { facts: confioFacts(p, c.key, c.value) } : { facts: "refused" };
    }
    // the SDK's proof runtime: exactly ics23:iavl then ics23:simple, each op against the root it calculates
    const [op0, op1] = c.ops;
    if (c.ops.length !== 2 || op0.type !== "ics23:iavl" || op1.type !== "ics23:simple") return { facts: "refused" };
    if (hex(op0.key) !== hex(c.key) || hex(op1.key) !== hex(utf8.encode(c.store))) return { facts: "refused" };
    const p0 = confio.CommitmentProof.decode(op0.data);
    const storeRoot = confioCalculate(p0);
    const ok0 = c.value === undefined ? verifyNonMembership(p0, iavlSpec, storeRoot, c.key) : verifyMembership(p0, iavlSpec, storeRoot, c.key, c.value);
    if (!ok0) return { facts: "refused" };
    const p1 = confio.CommitmentProof.decode(op1.data);
    const appHash = confioCalculate(p1);
    if (!verifyMembership(p1, tendermintSpec, appHash, op1.key, storeRoot) || hex(appHash) !== hex(c.appHash)) return { facts: "refused" };
    return { facts: confioFacts(p0, c.key, c.value) };
  } catch {
    return { facts: "refused" };
  }
}

// ---- the Go oracle ----

interface GoVerdict {
  id: number;
  verdict: "exists" | "absent" | "refused";
  value?: string;
  error?: string;
  left?: { key: string; value: string };
  right?: { key: string; value: string };
}

export function goLine(id: number, c: ProofCase): string {
  const value = c.value === undefined ? null : hex(c.value);
  if (c.mode === "store") {
    return JSON.stringify({
      id,
      app_hash: hex(c.appHash),
      store: c.store,
      key: hex(c.key),
      value,
      ops: c.ops.map((o) => ({ type: o.type, key: hex(o.key), data: hex(o.data) })),
    });
  }
  return JSON.stringify({ id, spec: c.spec, root: hex(c.root), key: hex(c.key), value, proof: hex(c.proof) });
}

export function goOutcome(v: GoVerdict): Outcome {
  if (v.verdict === "exists") return { facts: `exists ${v.value ?? ""}` };
  if (v.verdict === "absent") {
    const l = (e: GoVerdict["left"]) => (e ? `${e.key}=${e.value}` : "-");
    return { facts: `absent ${l(v.left)} ${l(v.right)}` };
  }
  return { facts: "refused", message: v.error };
}

/** The Go oracle in -ics23-lines mode: one process, cases in flight by id. */
export class GoOracle {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting = new Map<number, (v: GoVerdict) => void>();
  private rest = "";
  private failed: Error | undefined;
  private stderr = "";

  constructor(bin: string) {
    this.child = spawn(bin, ["-ics23-lines"], { stdio: ["pipe", "pipe", "pipe"] });
    this.child.stdout.setEncoding("utf8").on("data", (d: string) => {
      const lines = (this.rest + d).split("\n");
      this.rest = lines.pop()!;
      for (const line of lines) {
        const v = JSON.parse(line) as GoVerdict;
        this.waiting.get(v.id)?.(v);
        this.waiting.delete(v.id);
      }
    });
    this.child.stderr.setEncoding("utf8").on("data", (d: string) => (this.stderr += d));
    this.child.on("close", (code) => {
      this.failed = new Error(`light-oracle -ics23-lines exited ${code}: ${this.stderr}`);
      for (const w of this.waiting.values()) w({ id: -1, verdict: "refused", error: this.failed.message });
      this.waiting.clear();
    });
  }

  /** The oracle's verdicts on `cases` (numbered from `first`), in order. */
  async judge(first: number, cases: readonly ProofCase[]): Promise<Outcome[]> {
    this.throwIfFailed();
    const answers = cases.map((_, i) => new Promise<GoVerdict>((resolve) => this.waiting.set(first + i, resolve)));
    this.child.stdin.write(cases.map((c, i) => goLine(first + i, c)).join("\n") + "\n");
    const out = await Promise.all(answers);
    // The oracle may have exited while these were in flight (their verdicts are then placeholders).
    this.throwIfFailed();
    return out.map(goOutcome);
  }

  private throwIfFailed(): void {
    if (this.failed) throw this.failed;
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      if (this.child.exitCode !== null) return resolve();
      this.child.once("close", () => resolve());
      this.child.stdin.end();
    });
  }
}

// ---- what must hold ----

/** The first thing wrong with the encoding of each proof of a case (ics23-wire.ts), or undefined. */
function encodingIssues(c: ProofCase): (string | undefined)[] {
  return c.mode === "store" ? c.ops.map((o) => canonicalIssue(o.data)) : [canonicalIssue(c.proof)];
}

/**
 * The problems with one case's outcomes (empty: all holds). `complete`: every reference for the case ran (the Go
 * oracle among them); only then is their agreement a verdict the core must give (one reference alone has its own
 * deviations: @confio/ics23 v0.6 resolves only the compressed entries it uses, Go v0.11 all of them).
 */
export function judge(c: ProofCase, wasm: Outcome, js: Outcome, refs: { name: string; o: Outcome }[], complete: boolean): string[] {
  const problems: string[] = [];
  if (JSON.stringify(wasm) !== JSON.stringify(js)) problems.push(`the cores differ: wasm ${JSON.stringify(wasm)}, js ${JSON.stringify(js)}`);
  const core = wasm;
  const accepted = core.facts !== "refused";
  if (accepted)
    for (const ref of refs)
      if (ref.o.facts !== core.facts)
        problems.push(`the core accepts (${core.facts}) but ${ref.name} says ${ref.o.facts}${ref.o.message ? ` (${ref.o.message})` : ""}`);
  const refFacts = new Set(refs.map((x) => x.o.facts));
  if (refFacts.size > 1 && accepted) problems.push(`the references disagree (${refs.map((x) => `${x.name}: ${x.o.facts}`).join("; ")}) but the core accepts`);
  const issues = encodingIssues(c);
  const canonical = issues.every((i) => i === undefined);
  if (complete && canonical && refs.length > 0 && refFacts.size === 1 && !refFacts.has("refused") && core.facts !== refs[0].o.facts) {
    problems.push(
      `every reference accepts a canonical encoding (${refs[0].o.facts}) but the core says ${core.facts}${core.message ? ` (${core.message})` : ""}`,
    );
  }
  if (!canonical && accepted) problems.push(`the core accepts an encoding the canonical rule refuses: ${issues.filter(Boolean).join("; ")}`);
  if (core.kind === "non-canonical-proof" || core.kind === "malformed-proof") {
    const issue = issues[core.op ?? 0];
    const want = core.kind === "non-canonical-proof" ? "non-canonical" : "malformed";
    if (!issue?.startsWith(want)) problems.push(`the core refuses the encoding as ${core.kind}, the canonical rule finds ${issue ?? "nothing wrong"}`);
  }
  return problems;
}

// ---- a run ----

export interface KindCount {
  cases: number;
  /** the cores' verdicts */
  accepted: number;
  nonCanonical: number;
  malformed: number;
  otherRefusal: number;
  /** the references: all accept alike, all refuse, or disagree */
  refsAgreeAccept: number;
  refsAgreeRefuse: number;
  refsDisagree: number;
}

export interface Disagreement {
  index: number;
  kind: string;
  pool: string;
  problems: string[];
  /** the case, hex-encoded, as the Go oracle reads it */
  reproducer: string;
}

export interface RunReport {
  seed: number;
  cases: number;
  go: boolean;
  counts: Record<string, KindCount>;
  disagreements: Disagreement[];
  ms: number;
}

export interface RunOptions {
  seed: number;
  cases: number;
  /** run these case indices only (a reproducer) */
  only?: readonly number[];
  wasm: Core;
  js: Core;
  go?: GoOracle;
  batch?: number;
  onBatch?: (done: number, report: RunReport) => void;
  /** stop collecting disagreements after this many */
  maxDisagreements?: number;
}

const newCount = (): KindCount => ({
  cases: 0,
  accepted: 0,
  nonCanonical: 0,
  malformed: 0,
  otherRefusal: 0,
  refsAgreeAccept: 0,
  refsAgreeRefuse: 0,
  refsDisagree: 0,
});

export async function runDifferential(o: RunOptions): Promise<RunReport> {
  const started = performance.now();
  const pools = buildPools(o.seed);
  const report: RunReport = { seed: o.seed, cases: 0, go: o.go !== undefined, counts: {}, disagreements: [], ms: 0 };
  const indices = o.only ?? Array.from({ length: o.cases }, (_, i) => i);
  const batch = o.batch ?? 2000;
  for (let start = 0; start < indices.length; start += batch) {
    const ids = indices.slice(start, start + batch);
    const made = ids.map((i) => makeCase(pools, o.seed, i));
    // the Go oracle judges the batch while the cores and @confio/ics23 do
    const goAnswers = o.go?.judge(
      start,
      made.map((m) => m.c),
    );
    const local = made.map((m) => ({ wasm: runCore(o.wasm, m.c), js: runCore(o.js, m.c), confio: runConfio(m.c) }));
    const goOut = await goAnswers;
    made.forEach((m, j) => {
      const { wasm, js, confio: cf } = local[j];
      const refs: { name: string; o: Outcome }[] = [];
      if (cf) refs.push({ name: "@confio/ics23", o: cf });
      if (goOut) refs.push({ name: "cosmos/ics23 (Go)", o: goOut[j] });
      const count = (report.counts[m.kind] ??= newCount());
      count.cases++;
      if (wasm.facts !== "refused") count.accepted++;
      else if (wasm.kind === "non-canonical-proof") count.nonCanonical++;
      else if (wasm.kind === "malformed-proof") count.malformed++;
      else count.otherRefusal++;
      const set = new Set(refs.map((x) => x.o.facts));
      if (set.size > 1) count.refsDisagree++;
      else if (set.has("refused")) count.refsAgreeRefuse++;
      else if (set.size === 1) count.refsAgreeAccept++;
      const problems = judge(m.c, wasm, js, refs, o.go !== undefined);
      if (problems.length > 0 && report.disagreements.length < (o.maxDisagreements ?? 20)) {
        report.disagreements.push({ index: ids[j], kind: m.kind, pool: m.pool, problems, reproducer: goLine(ids[j], m.c) });
      }
      report.cases++;
    });
    report.ms = performance.now() - started;
    o.onBatch?.(report.cases, report);
  }
  report.ms = performance.now() - started;
  return report;
}
