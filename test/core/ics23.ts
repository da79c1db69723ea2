/**
 * ICS23 proofs on one core (docs/spec/core.md §14): every cosmos/ics23 vector (test/vectors/ics23), the
 * reference's own spec-check and calculation vectors, every refusal with its own kind, and SDK-shaped store
 * proofs (ics23:iavl + ics23:simple against an app hash). Registered once per backend by the Node suite
 * (ics23.test.ts) and the browser suite (ics23.browser.test.ts); ics23-properties.test.ts holds the two cores
 * to each other and to @confio/ics23 on random trees.
 */
import { CommitmentProof, HashOp, LengthOp } from "cosmjs-types/cosmos/ics23/v1/proofs";
import { beforeAll, describe, expect, it } from "vitest";
import type { Backend, Core } from "../../bindings/core/contract.js";
import { Ics23Error, type Ics23ErrorKind, type Ics23SpecName, type ProofSpec } from "../../bindings/core/ics23.js";
import { loadCore } from "../../bindings/core/index.js";
import { iavlTree, multistore, simpleMap } from "./ics23-trees.js";
import { canonicalIssue, encode, parse, type WField } from "./ics23-wire.js";

import iavlExistLeft from "../vectors/ics23/iavl/exist_left.json" with { type: "json" };
import iavlExistMiddle from "../vectors/ics23/iavl/exist_middle.json" with { type: "json" };
import iavlExistRight from "../vectors/ics23/iavl/exist_right.json" with { type: "json" };
import iavlNonexistLeft from "../vectors/ics23/iavl/nonexist_left.json" with { type: "json" };
import iavlNonexistMiddle from "../vectors/ics23/iavl/nonexist_middle.json" with { type: "json" };
import iavlNonexistRight from "../vectors/ics23/iavl/nonexist_right.json" with { type: "json" };
import iavlBatchExist from "../vectors/ics23/iavl/batch_exist.json" with { type: "json" };
import iavlBatchNonexist from "../vectors/ics23/iavl/batch_nonexist.json" with { type: "json" };
import tmExistLeft from "../vectors/ics23/tendermint/exist_left.json" with { type: "json" };
import tmExistMiddle from "../vectors/ics23/tendermint/exist_middle.json" with { type: "json" };
import tmExistRight from "../vectors/ics23/tendermint/exist_right.json" with { type: "json" };
import tmNonexistLeft from "../vectors/ics23/tendermint/nonexist_left.json" with { type: "json" };
import tmNonexistMiddle from "../vectors/ics23/tendermint/nonexist_middle.json" with { type: "json" };
import tmNonexistRight from "../vectors/ics23/tendermint/nonexist_right.json" with { type: "json" };
import tmBatchExist from "../vectors/ics23/tendermint/batch_exist.json" with { type: "json" };
import tmBatchNonexist from "../vectors/ics23/tendermint/batch_nonexist.json" with { type: "json" };
import smtExistLeft from "../vectors/ics23/smt/exist_left.json" with { type: "json" };
import smtExistMiddle from "../vectors/ics23/smt/exist_middle.json" with { type: "json" };
import smtExistRight from "../vectors/ics23/smt/exist_right.json" with { type: "json" };
import smtNonexistLeft from "../vectors/ics23/smt/nonexist_left.json" with { type: "json" };
import smtNonexistMiddle from "../vectors/ics23/smt/nonexist_middle.json" with { type: "json" };
import smtNonexistRight from "../vectors/ics23/smt/nonexist_right.json" with { type: "json" };
import smtBatchExist from "../vectors/ics23/smt/batch_exist.json" with { type: "json" };
import smtBatchNonexist from "../vectors/ics23/smt/batch_nonexist.json" with { type: "json" };
import checkAgainstSpecData from "../vectors/ics23/TestCheckAgainstSpecData.json" with { type: "json" };
import existenceProofData from "../vectors/ics23/TestExistenceProofData.json" with { type: "json" };

export const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
export const unhex = (s: string) => Uint8Array.from(s.match(/../g) ?? [], (x) => parseInt(x, 16));
const b64 = (s: string | undefined) => (s ? Uint8Array.from(atob(s), (c) => c.charCodeAt(0)) : new Uint8Array(0));
const utf8 = new TextEncoder();

interface Single {
  key: string;
  value?: string;
  proof: string;
  root: string;
}
interface Batch {
  items: { key: string; value: string }[];
  proof: string;
  root: string;
}

export const VECTORS: { spec: Ics23SpecName; name: string; exist: boolean; data: Single }[] = [];
export const BATCHES: { spec: Ics23SpecName; name: string; exist: boolean; data: Batch }[] = [];
for (const [spec, set] of [
  [
    "iavl",
    {
      exist_left: iavlExistLeft,
      exist_middle: iavlExistMiddle,
      exist_right: iavlExistRight,
      nonexist_left: iavlNonexistLeft,
      nonexist_middle: iavlNonexistMiddle,
      nonexist_right: iavlNonexistRight,
    },
  ],
  [
    "tendermint",
    {
      exist_left: tmExistLeft,
      exist_middle: tmExistMiddle,
      exist_right: tmExistRight,
      nonexist_left: tmNonexistLeft,
      nonexist_middle: tmNonexistMiddle,
      nonexist_right: tmNonexistRight,
    },
  ],
  [
    "smt",
    {
      exist_left: smtExistLeft,
      exist_middle: smtExistMiddle,
      exist_right: smtExistRight,
      nonexist_left: smtNonexistLeft,
      nonexist_middle: smtNonexistMiddle,
      nonexist_right: smtNonexistRight,
    },
  ],
] as const) {
  for (const [name, data] of Object.entries(set)) VECTORS.push({ spec, name: `${spec}/${name}`, exist: name.startsWith("exist"), data: data });
}
for (const [spec, exist, data] of [
  ["iavl", true, iavlBatchExist],
  ["iavl", false, iavlBatchNonexist],
  ["tendermint", true, tmBatchExist],
  ["tendermint", false, tmBatchNonexist],
  ["smt", true, smtBatchExist],
  ["smt", false, smtBatchNonexist],
] as const) {
  BATCHES.push({ spec, name: `${spec}/batch_${exist ? "exist" : "nonexist"}`, exist, data: data });
}

/** The error a call throws (an Ics23Error's kind and message), or "ok". */
export function verdict(fn: () => unknown): string {
  try {
    fn();
    return "ok";
  } catch (e) {
    if (e instanceof Ics23Error) return `${e.kind}: ${e.message}`;
    if (e instanceof TypeError) return `TypeError: ${e.message}`;
    throw e;
  }
}

export function expectRefusal(fn: () => unknown, kind: Ics23ErrorKind, message?: string | RegExp): Ics23Error {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught, `expected a refusal (${kind})`).toBeInstanceOf(Ics23Error);
  const err = caught as Ics23Error;
  expect(err.kind, err.message).toBe(kind);
  if (typeof message === "string") expect(err.message).toBe(message);
  else if (message) expect(err.message).toMatch(message);
  return err;
}

/** A protobuf-JSON LeafOp / InnerOp / ExistenceProof / ProofSpec of the reference's vectors, as cosmjs-types messages. */
type J = Record<string, unknown>;
const leafOf = (l: J | undefined) =>
  l && {
    hash: (l.hash as number) ?? 0,
    prehashKey: (l.prehash_key as number) ?? 0,
    prehashValue: (l.prehash_value as number) ?? 0,
    length: (l.length as number) ?? 0,
    prefix: b64(l.prefix as string),
  };
const innerOf = (o: J) => ({ hash: (o.hash as number) ?? 0, prefix: b64(o.prefix as string), suffix: b64(o.suffix as string) });
const existOf = (p: J) => ({ key: b64(p.key as string), value: b64(p.value as string), leaf: leafOf(p.leaf as J), path: ((p.path as J[]) ?? []).map(innerOf) });
const specOf = (s: J): ProofSpec => {
  const l = (s.leaf_spec ?? {}) as J;
  const i = (s.inner_spec ?? {}) as J;
  return {
    leafSpec: {
      hash: (l.hash as number) ?? 0,
      prehashKey: (l.prehash_key as number) ?? 0,
      prehashValue: (l.prehash_value as number) ?? 0,
      length: (l.length as number) ?? 0,
      prefix: b64(l.prefix as string),
    },
    innerSpec: {
      childOrder: (i.child_order as number[]) ?? [],
      childSize: (i.child_size as number) ?? 0,
      minPrefixLength: (i.min_prefix_length as number) ?? 0,
      maxPrefixLength: (i.max_prefix_length as number) ?? 0,
      emptyChild: b64(i.empty_child as string),
      hash: (i.hash as number) ?? 0,
    },
    maxDepth: (s.max_depth as number) ?? 0,
    minDepth: (s.min_depth as number) ?? 0,
    prehashKeyBeforeComparison: (s.prehash_key_before_comparison as boolean) ?? false,
  };
};
export const encodeExist = (p: ReturnType<typeof existOf>) => CommitmentProof.encode(CommitmentProof.fromPartial({ exist: p })).finish();

/** The Go verifier's error texts in TestCheckAgainstSpecData, and the refusal each is here. */
const GO_ERRORS: Record<string, Ics23ErrorKind> = {
  "existence Proof needs defined LeafOp": "no-leaf",
  // ics23 v0.11 reads all three IAVL varints before it checks them; later ics23 (and this project) checks the
  // height first: "inner, IAVL height (0) must be non-negative and greater than or equal to the layer number (3)".
  "inner, unexpected EOF": "iavl-height",
  "inner, unexpected HashOp: 0": "inner-hash-op",
  "inner, unexpected HashOp: 2": "inner-hash-op",
  "innerOps depth too long: 129": "max-depth",
  "innerOps depth too long: 5": "max-depth",
  "innerOps depth too short: 1": "min-depth",
  "leaf, unexpected PrehashValue: 0": "leaf-prehash-value",
};

const flip = (b: Uint8Array, i: number, mask = 0x01) => {
  const c = b.slice();
  c[i] ^= mask;
  return c;
};

export function defineIcs23Cases(backend: Backend): void {
  let core: Core;
  beforeAll(async () => {
    core = await loadCore(backend);
  });

  describe("cosmos/ics23 vectors", () => {
    for (const v of VECTORS) {
      it(`${v.name}: verifies, and calculates its root`, () => {
        const { key, value, proof, root } = v.data;
        if (v.exist) core.ics23VerifyMembership(v.spec, unhex(root), unhex(proof), unhex(key), unhex(value!));
        else core.ics23VerifyNonMembership(v.spec, unhex(root), unhex(proof), unhex(key));
        expect(hex(core.ics23CalculateRoot(unhex(proof)))).toBe(root);
      });
      it(`${v.name}: refused with another root, key, value or spec, or as the other kind of proof`, () => {
        const { key, value, proof, root } = v.data;
        const [p, r, k] = [unhex(proof), unhex(root), unhex(key)];
        if (v.exist) {
          const val = unhex(value!);
          expectRefusal(() => core.ics23VerifyMembership(v.spec, flip(r, 31), p, k, val), "root-mismatch", "calculated root does not match");
          expectRefusal(() => core.ics23VerifyMembership(v.spec, r, p, flip(k, 0), val), "key-mismatch");
          expectRefusal(() => core.ics23VerifyMembership(v.spec, r, p, k, flip(val, val.length - 1)), "value-mismatch");
          expectRefusal(() => core.ics23VerifyMembership(v.spec, r, p, k, new Uint8Array(0)), "value-mismatch");
          expectRefusal(
            () => core.ics23VerifyNonMembership(v.spec, r, p, k),
            "not-nonexistence-proof",
            "expected a non-existence proof, got an existence proof",
          );
        } else {
          expectRefusal(() => core.ics23VerifyNonMembership(v.spec, flip(r, 0), p, k), "root-mismatch");
          expectRefusal(
            () => core.ics23VerifyMembership(v.spec, r, p, k, utf8.encode("v")),
            "not-existence-proof",
            "expected an existence proof, got a non-existence proof",
          );
        }
        const other: Ics23SpecName = v.spec === "iavl" ? "tendermint" : "iavl";
        expect(verdict(() => (v.exist ? core.ics23VerifyMembership(other, r, p, k, unhex(value!)) : core.ics23VerifyNonMembership(other, r, p, k)))).not.toBe(
          "ok",
        );
      });
    }
    for (const b of BATCHES) {
      it(`${b.name}: every item verifies against the batch, and the batch calculates its root`, () => {
        const [p, r] = [unhex(b.data.proof), unhex(b.data.root)];
        for (const item of b.data.items) {
          if (b.exist) core.ics23VerifyMembership(b.spec, r, p, unhex(item.key), unhex(item.value));
          else core.ics23VerifyNonMembership(b.spec, r, p, unhex(item.key));
        }
        expect(hex(core.ics23CalculateRoot(p))).toBe(b.data.root);
        if (b.exist)
          expectRefusal(
            () => core.ics23VerifyMembership(b.spec, r, p, utf8.encode("no such key"), utf8.encode("v")),
            "no-batch-entry",
            "the batch proof has no existence proof for the key",
          );
        else expectRefusal(() => core.ics23VerifyMembership(b.spec, r, p, unhex(b.data.items[0].key), utf8.encode("v")), "no-batch-entry");
      });
    }
  });

  describe("the reference's spec checks (TestCheckAgainstSpecData) and calculations (TestExistenceProofData)", () => {
    for (const [name, c] of Object.entries(checkAgainstSpecData as Record<string, { Proof: J; Spec: J; Err: string }>)) {
      it(name, () => {
        const ep = existOf(c.Proof);
        const proof = encodeExist(ep);
        const spec = specOf(c.Spec);
        // The root the proof calculates, where it calculates one: then only the spec checks can refuse it.
        let root: Uint8Array = new Uint8Array(32);
        try {
          root = core.ics23CalculateRoot(proof);
        } catch {
          // no leaf: the spec check refuses first
        }
        const got = verdict(() => core.ics23VerifyMembership(spec, root, proof, ep.key, ep.value));
        if (c.Err === "") expect(got).toBe("ok");
        else expect(got.split(":")[0]).toBe(GO_ERRORS[c.Err]);
      });
    }
    for (const [name, c] of Object.entries(existenceProofData as Record<string, { Proof: J; IsErr: boolean; Expected: string | null }>)) {
      it(name, () => {
        const got = verdict(() => core.ics23CalculateRoot(encodeExist(existOf(c.Proof))));
        if (c.IsErr) expect(got).not.toBe("ok");
        else expect(hex(core.ics23CalculateRoot(encodeExist(existOf(c.Proof))))).toBe(hex(b64(c.Expected!)));
      });
    }
  });

  describe("every check refuses with its own reason", () => {
    const entries = Array.from({ length: 9 }, (_, i) => [utf8.encode(`key${i * 2}`), utf8.encode(`value${i}`)] as const);
    const tree = iavlTree(entries, (n) => n + 1);
    const root = tree.root;
    const ep = tree.existence(4);
    const [key, value] = [ep.key, ep.value];
    const member =
      (e: typeof ep, spec: Ics23SpecName | ProofSpec = "iavl", r = root) =>
      () =>
        core.ics23VerifyMembership(
          spec,
          r,
          CommitmentProof.encode(CommitmentProof.fromPartial({ exist: e })).finish(),
          e.key.length ? e.key : key,
          e.value.length ? e.value : value,
        );
    const withLeaf = (leaf: Partial<NonNullable<typeof ep.leaf>>) => ({ ...ep, leaf: { ...ep.leaf!, ...leaf } });
    const withInner = (i: number, op: Partial<(typeof ep.path)[0]>) => ({ ...ep, path: ep.path.map((o, k) => (k === i ? { ...o, ...op } : o)) });

    it("the honest proof verifies", () => {
      member(ep)();
    });
    it("malformed protobuf", () => {
      const p = CommitmentProof.encode(CommitmentProof.fromPartial({ exist: ep })).finish();
      expectRefusal(
        () => core.ics23VerifyMembership("iavl", root, p.subarray(0, p.length - 1), key, value),
        "malformed-proof",
        /^the proof is not a CommitmentProof: proto: field \d+: length exceeds the remaining bytes$/,
      );
      expectRefusal(
        () => core.ics23VerifyMembership("iavl", root, Uint8Array.of(0x0a, 0x80), key, value),
        "malformed-proof",
        "the proof is not a CommitmentProof: proto: truncated varint",
      );
      expectRefusal(
        () => core.ics23VerifyMembership("iavl", root, Uint8Array.of(0x00), key, value),
        "malformed-proof",
        "the proof is not a CommitmentProof: proto: illegal field number 0",
      );
      expectRefusal(
        () => core.ics23VerifyMembership("iavl", root, Uint8Array.of(0x08, 0x01), key, value),
        "malformed-proof",
        "the proof is not a CommitmentProof: proto: field 1: wrong wire type 0",
      );
    });
    it("an empty proof", () => {
      expectRefusal(
        () => core.ics23VerifyMembership("iavl", root, new Uint8Array(0), key, value),
        "empty-proof",
        "the proof holds no existence or non-existence proof",
      );
      expectRefusal(() => core.ics23CalculateRoot(new Uint8Array(0)), "empty-proof");
    });
    it("no leaf", () => {
      expectRefusal(member({ ...ep, leaf: undefined }), "no-leaf", "the existence proof has no leaf op");
    });
    it("leaf ops and prefix against the spec", () => {
      expectRefusal(member(withLeaf({ hash: HashOp.SHA512 })), "leaf-hash-op", "leaf: leaf hash op SHA512 does not match the spec's SHA256");
      expectRefusal(member(withLeaf({ prehashKey: HashOp.SHA256 })), "leaf-prehash-key");
      expectRefusal(member(withLeaf({ prehashValue: HashOp.NO_HASH })), "leaf-prehash-value");
      expectRefusal(member(withLeaf({ length: LengthOp.NO_PREFIX })), "leaf-length-op", "leaf: leaf length op NO_PREFIX does not match the spec's VAR_PROTO");
      expectRefusal(
        member(withLeaf({ prefix: Uint8Array.of(1, 2, 2) }), "tendermint"),
        "leaf-prefix",
        "leaf: leaf prefix does not match spec (it does not start with the spec's leaf prefix)",
      );
    });
    it("IAVL leaf prefixes: varints, height 0, size 1, version, nothing after", () => {
      expectRefusal(member(withLeaf({ prefix: Uint8Array.of(0, 2) })), "iavl-varint", "leaf: the IAVL version varint at the start of the prefix does not read");
      expectRefusal(member(withLeaf({ prefix: Uint8Array.of(0, 2, 0x80) })), "iavl-varint");
      expectRefusal(
        member(withLeaf({ prefix: Uint8Array.of(0, 2, 2, 0) })),
        "iavl-prefix-length",
        "leaf: the IAVL leaf prefix has 1 bytes after its varints, expected 0",
      );
      expectRefusal(member(withLeaf({ prefix: Uint8Array.of(1, 2, 2) })), "iavl-height", "leaf: IAVL height -1 is negative");
      expectRefusal(member(withLeaf({ prefix: Uint8Array.of(2, 2, 2) }), "iavl"), "iavl-height", "leaf: IAVL leaf height is 1, expected 0");
      expectRefusal(member(withLeaf({ prefix: Uint8Array.of(0, 4, 2) })), "iavl-size", "leaf: IAVL leaf size is 2, expected 1");
      expectRefusal(member(withLeaf({ prefix: Uint8Array.of(0, 3, 2) })), "iavl-size", "leaf: IAVL size -2 is negative");
      expectRefusal(member(withLeaf({ prefix: Uint8Array.of(0, 2, 1) })), "iavl-version", "leaf: IAVL version -1 is negative");
    });
    it("IAVL inner prefixes: the height at least the layer, 1 or 34 bytes after the varints", () => {
      const p0 = ep.path[0].prefix;
      expectRefusal(
        member(withInner(0, { prefix: Uint8Array.of(0, ...p0.subarray(1)) })),
        "iavl-height",
        "inner op 0: IAVL height 0 is below the node's layer 1",
      );
      expectRefusal(
        member(withInner(0, { prefix: Uint8Array.of(...p0, 0) })),
        "iavl-prefix-length",
        /^inner op 0: the IAVL inner prefix has \d+ bytes after its varints, expected 1 or 34$/,
      );
      expectRefusal(
        member(withInner(1, { prefix: Uint8Array.of(4) })),
        "iavl-varint",
        "inner op 1: the IAVL size varint at the start of the prefix does not read",
      );
      expectRefusal(
        member(withInner(1, { prefix: Uint8Array.of(4, 8, 0xff) })),
        "iavl-varint",
        "inner op 1: the IAVL version varint at the start of the prefix does not read",
      );
      expectRefusal(member(withInner(1, { prefix: Uint8Array.of(4, 8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 32) })), "iavl-varint");
      expectRefusal(member(withInner(1, { prefix: Uint8Array.of(4, 7, 2, 32) })), "iavl-size", "inner op 1: IAVL size -4 is negative");
    });
    it("depth limits", () => {
      const deep = { ...ep, path: Array.from({ length: 129 }, () => ep.path[0]) };
      expectRefusal(member(deep), "max-depth", "the path has 129 inner ops, more than the spec's maximum depth 128");
      const spec: ProofSpec = {
        leafSpec: { hash: 1, prehashKey: 0, prehashValue: 1, length: 1, prefix: Uint8Array.of(0) },
        innerSpec: { childOrder: [0, 1], childSize: 33, minPrefixLength: 4, maxPrefixLength: 12, emptyChild: new Uint8Array(0), hash: 1 },
        maxDepth: 2,
        minDepth: 0,
        prehashKeyBeforeComparison: false,
      };
      expectRefusal(member(ep, spec), "max-depth", `the path has ${ep.path.length} inner ops, more than the spec's maximum depth 2`);
      expectRefusal(
        member(ep, { ...spec, maxDepth: 0, minDepth: 9 }),
        "min-depth",
        `the path has ${ep.path.length} inner ops, fewer than the spec's minimum depth 9`,
      );
    });
    it("inner ops against the spec", () => {
      expectRefusal(member(withInner(2, { hash: HashOp.NO_HASH })), "inner-hash-op", "inner op 2: inner hash op NO_HASH does not match the spec's SHA256");
      const spec: ProofSpec = {
        leafSpec: { hash: 1, prehashKey: 0, prehashValue: 1, length: 1, prefix: Uint8Array.of(0) },
        innerSpec: { childOrder: [0, 1], childSize: 33, minPrefixLength: 5, maxPrefixLength: 6, emptyChild: new Uint8Array(0), hash: 1 },
        maxDepth: 0,
        minDepth: 0,
        prehashKeyBeforeComparison: false,
      };
      expectRefusal(
        member(withInner(0, { prefix: Uint8Array.of(2, 4, 2, 32) }), spec),
        "inner-prefix-too-short",
        "inner op 0: inner prefix has 4 bytes, fewer than the spec's minimum 5",
      );
      expectRefusal(
        member(withInner(0, { prefix: new Uint8Array(40).fill(2) }), spec),
        "inner-prefix-too-long",
        "inner op 0: inner prefix has 40 bytes, more than the spec allows (39)",
      );
      expectRefusal(
        member(withInner(0, { prefix: Uint8Array.of(0, 4, 2, 32, 7) }), spec),
        "inner-prefix-is-leaf-prefix",
        "inner op 0: inner prefix starts with the leaf prefix",
      );
      expectRefusal(
        member(withInner(0, { suffix: Uint8Array.of(32, 1, 2) }), spec),
        "inner-suffix-length",
        "inner op 0: inner suffix has 3 bytes, not a multiple of the child size 33",
      );
    });
    it("key, value and root", () => {
      const p = CommitmentProof.encode(CommitmentProof.fromPartial({ exist: ep })).finish();
      expectRefusal(() => core.ics23VerifyMembership("iavl", root, p, utf8.encode("key9"), value), "key-mismatch", "the proof is for another key");
      expectRefusal(
        () => core.ics23VerifyMembership("iavl", root, p, key, utf8.encode("value5")),
        "value-mismatch",
        "the proven value does not match the value",
      );
      expectRefusal(() => core.ics23VerifyMembership("iavl", flip(root, 5, 0x80), p, key, value), "root-mismatch");
      expectRefusal(() => core.ics23VerifyMembership("iavl", root.subarray(0, 31), p, key, value), "root-mismatch");
      const noKey = CommitmentProof.encode(CommitmentProof.fromPartial({ exist: { ...ep, key: new Uint8Array(0) } })).finish();
      expectRefusal(() => core.ics23VerifyMembership("iavl", root, noKey, new Uint8Array(0), value), "empty-key", "leaf: the leaf's key is empty");
      const noValue = CommitmentProof.encode(CommitmentProof.fromPartial({ exist: { ...ep, value: new Uint8Array(0) } })).finish();
      expectRefusal(() => core.ics23VerifyMembership("iavl", root, noValue, key, new Uint8Array(0)), "empty-value", "leaf: the leaf's value is empty");
    });
    it("hash and length ops that cannot be computed", () => {
      const spec: ProofSpec = {
        leafSpec: { hash: 2, prehashKey: 0, prehashValue: 1, length: 1, prefix: Uint8Array.of(0) },
        innerSpec: { childOrder: [0, 1], childSize: 33, minPrefixLength: 4, maxPrefixLength: 12, emptyChild: new Uint8Array(0), hash: 1 },
        maxDepth: 0,
        minDepth: 0,
        prehashKeyBeforeComparison: false,
      };
      expectRefusal(member(withLeaf({ hash: HashOp.SHA512 }), spec), "unsupported-hash-op", "leaf: hash op SHA512 is not supported (SHA-256 only)");
      const len32 = { ...spec, leafSpec: { ...spec.leafSpec, hash: 1, length: LengthOp.REQUIRE_32_BYTES } };
      expectRefusal(member(withLeaf({ length: LengthOp.REQUIRE_32_BYTES }), len32), "length-op", /^leaf: length op REQUIRE_32_BYTES needs 32 bytes, got \d+$/);
      const rlp = { ...spec, leafSpec: { ...spec.leafSpec, hash: 1, length: LengthOp.VAR_RLP } };
      expectRefusal(member(withLeaf({ length: LengthOp.VAR_RLP }), rlp), "unsupported-length-op", "leaf: length op VAR_RLP is not supported");
    });
  });

  describe("non-existence: neighbours", () => {
    const entries = Array.from({ length: 12 }, (_, i) => [utf8.encode(`k${String(i * 2).padStart(2, "0")}`), utf8.encode(`v${i}`)] as const);
    const tree = iavlTree(entries);
    const ex = (i: number) => tree.existence(i);
    const nonexist = (key: Uint8Array, left?: number, right?: number) =>
      CommitmentProof.encode(
        CommitmentProof.fromPartial({ nonexist: { key, left: left === undefined ? undefined : ex(left), right: right === undefined ? undefined : ex(right) } }),
      ).finish();
    const absent = (s: string) => utf8.encode(s);

    it("honest proofs: between two leaves, before the first, after the last", () => {
      core.ics23VerifyNonMembership("iavl", tree.root, tree.prove(absent("k05")), absent("k05"));
      core.ics23VerifyNonMembership("iavl", tree.root, tree.prove(absent("a")), absent("a"));
      core.ics23VerifyNonMembership("iavl", tree.root, tree.prove(absent("z")), absent("z"));
      core.ics23VerifyNonMembership("iavl", tree.root, tree.prove(absent("k10a")), absent("k10a"));
    });
    it("the key not between the neighbours", () => {
      expectRefusal(
        () => core.ics23VerifyNonMembership("iavl", tree.root, nonexist(absent("k05"), 1, 2), absent("k05")),
        "key-not-left-of-right-neighbour",
        "key is not between the neighbours: it is not left of the right neighbour's key",
      );
      expectRefusal(
        () => core.ics23VerifyNonMembership("iavl", tree.root, nonexist(absent("k05"), 3, 4), absent("k05")),
        "key-not-right-of-left-neighbour",
        "key is not between the neighbours: it is not right of the left neighbour's key",
      );
      expectRefusal(() => core.ics23VerifyNonMembership("iavl", tree.root, tree.prove(absent("k05")), absent("k04")), "key-not-right-of-left-neighbour");
      expectRefusal(() => core.ics23VerifyNonMembership("iavl", tree.root, tree.prove(absent("k05")), absent("k06")), "key-not-left-of-right-neighbour");
    });
    it("neighbours that are not adjacent, or not the ends", () => {
      expectRefusal(
        () => core.ics23VerifyNonMembership("iavl", tree.root, nonexist(absent("k05"), 1, 4), absent("k05")),
        "neighbours-not-adjacent",
        "the neighbours are not adjacent leaves",
      );
      expectRefusal(() => core.ics23VerifyNonMembership("iavl", tree.root, nonexist(absent("k05"), 3, 2), absent("k05")), "key-not-left-of-right-neighbour");
      expectRefusal(
        () => core.ics23VerifyNonMembership("iavl", tree.root, nonexist(absent("k05"), undefined, 3), absent("k05")),
        "not-left-most",
        "there is no left neighbour, and the right neighbour is not the left-most leaf",
      );
      expectRefusal(
        () => core.ics23VerifyNonMembership("iavl", tree.root, nonexist(absent("k05"), 2), absent("k05")),
        "not-right-most",
        "there is no right neighbour, and the left neighbour is not the right-most leaf",
      );
      expectRefusal(() => core.ics23VerifyNonMembership("iavl", tree.root, nonexist(absent("k05")), absent("k05")), "no-neighbours");
    });
    it("a neighbour's own proof refused, naming the side", () => {
      const bad = ex(3);
      const p = CommitmentProof.encode(
        CommitmentProof.fromPartial({
          nonexist: {
            key: absent("k05"),
            left: ex(2),
            right: { ...bad, path: bad.path.map((o, i) => (i === 1 ? { ...o, prefix: flip(o.prefix, o.prefix.length - 1) } : o)) },
          },
        }),
      ).finish();
      const err = expectRefusal(
        () => core.ics23VerifyNonMembership("iavl", tree.root, p, absent("k05")),
        "root-mismatch",
        "right neighbour: calculated root does not match",
      );
      expect(err.at).toEqual({ side: "right" });
      const q = CommitmentProof.encode(
        CommitmentProof.fromPartial({
          nonexist: { key: absent("k05"), left: { ...ex(2), leaf: { ...ex(2).leaf!, prefix: Uint8Array.of(0, 2) } }, right: ex(3) },
        }),
      ).finish();
      const e2 = expectRefusal(
        () => core.ics23VerifyNonMembership("iavl", tree.root, q, absent("k05")),
        "iavl-varint",
        "left neighbour: leaf: the IAVL version varint at the start of the prefix does not read",
      );
      expect(e2.at).toEqual({ side: "left", step: "leaf" });
    });
    it("a simple Merkle map's neighbours (tendermint spec)", () => {
      const map = simpleMap(entries);
      core.ics23VerifyNonMembership("tendermint", map.root, map.prove(absent("k07")), absent("k07"));
      core.ics23VerifyNonMembership("tendermint", map.root, map.prove(absent("a")), absent("a"));
      core.ics23VerifyNonMembership("tendermint", map.root, map.prove(absent("z")), absent("z"));
      for (let i = 0; i < entries.length; i++) core.ics23VerifyMembership("tendermint", map.root, map.prove(entries[i][0]), entries[i][0], entries[i][1]);
    });
  });

  describe("store proofs: ics23:iavl then ics23:simple against the app hash", () => {
    const store = Array.from({ length: 30 }, (_, i) => [Uint8Array.of(2, ...utf8.encode(`module${i}`)), Uint8Array.of(0, 0, 0, 0, 0, 0, 0, i % 5)] as const);
    const ms = multistore({
      upgrade: [[Uint8Array.of(0), utf8.encode("plan bytes")], ...store],
      bank: [[utf8.encode("balance"), utf8.encode("100")]],
      acc: [[utf8.encode("a"), utf8.encode("b")]],
    });
    const planKey = Uint8Array.of(0);
    const absentKey = Uint8Array.of(3);

    it("existence and non-existence verify", () => {
      core.ics23VerifyStoreProof(ms.appHash, ms.proofOps("upgrade", planKey), "upgrade", planKey, utf8.encode("plan bytes"));
      core.ics23VerifyStoreProof(ms.appHash, ms.proofOps("upgrade", absentKey), "upgrade", absentKey, undefined);
      for (const [k, v] of store) core.ics23VerifyStoreProof(ms.appHash, ms.proofOps("upgrade", k), "upgrade", k, v);
    });
    it("a lying answer is refused, each way with its own reason", () => {
      const ops = ms.proofOps("upgrade", planKey);
      const plan = utf8.encode("plan bytes");
      const e = expectRefusal(
        () => core.ics23VerifyStoreProof(ms.appHash, ops, "upgrade", planKey, utf8.encode("plan byteZ")),
        "value-mismatch",
        "proof op 0 (ics23:iavl): the proven value does not match the value",
      );
      expect(e.at).toEqual({ op: 0 });
      expectRefusal(
        () => core.ics23VerifyStoreProof(ms.appHash, ops, "upgrade", planKey, undefined),
        "not-nonexistence-proof",
        "proof op 0 (ics23:iavl): expected a non-existence proof, got an existence proof",
      );
      expectRefusal(() => core.ics23VerifyStoreProof(ms.appHash, ms.proofOps("upgrade", absentKey), "upgrade", absentKey, plan), "not-existence-proof");
      expectRefusal(
        () => core.ics23VerifyStoreProof(flip(ms.appHash, 0), ops, "upgrade", planKey, plan),
        "app-hash-mismatch",
        "the calculated app hash does not match the app hash",
      );
      expectRefusal(
        () => core.ics23VerifyStoreProof(ms.appHash, ms.proofOps("bank", utf8.encode("balance")), "upgrade", utf8.encode("balance"), utf8.encode("100")),
        "proof-op-key",
        /^proof op 1 \(ics23:simple\) proves key 0x62616e6b, expected 0x75706772616465$/,
      );
      expectRefusal(
        () => core.ics23VerifyStoreProof(ms.appHash, [ops[0], { ...ops[1], type: "ics23:iavl" }], "upgrade", planKey, plan),
        "iavl-varint",
        /^proof op 1 \(ics23:iavl\): leaf: /,
      );
      expectRefusal(() => core.ics23VerifyStoreProof(ms.appHash, [ops[0], { ...ops[1], type: "ics23:smt" }], "upgrade", planKey, plan), "leaf-prehash-key");
      expectRefusal(
        () => core.ics23VerifyStoreProof(ms.appHash, [ops[0], { ...ops[1], type: "multistore" }], "upgrade", planKey, plan),
        "proof-op-type",
        'proof op 1 has type "multistore", expected ics23:iavl, ics23:simple or ics23:smt',
      );
      expectRefusal(() => core.ics23VerifyStoreProof(ms.appHash, [ops[1], ops[0]], "upgrade", planKey, plan), "proof-op-key");
      expectRefusal(
        () => core.ics23VerifyStoreProof(ms.appHash, [ops[0]], "upgrade", planKey, plan),
        "proof-op-count",
        "the proof ops leave 1 part of the key path unproven",
      );
      expectRefusal(() => core.ics23VerifyStoreProof(ms.appHash, [], "upgrade", planKey, plan), "no-proof-ops", "the answer holds no proof ops");
      expectRefusal(() => core.ics23VerifyStoreProof(ms.appHash, [ops[0], ops[1], ops[1]], "upgrade", planKey, plan), "proof-op-key", /has no part left/);
    });
    it("one byte of either proof changed: refused, never accepted, never a crash", () => {
      const ops = ms.proofOps("upgrade", planKey);
      const plan = utf8.encode("plan bytes");
      for (const which of [0, 1]) {
        const data = ops[which].data;
        for (let i = 0; i < data.length; i++) {
          const tampered = ops.map((o, k) => (k === which ? { ...o, data: flip(data, i, 0x10) } : o));
          const got = verdict(() => core.ics23VerifyStoreProof(ms.appHash, tampered, "upgrade", planKey, plan));
          expect(got, `op ${which} byte ${i}`).not.toBe("ok");
          // A change to the first proof that still verifies on its own gives another store root: then the second
          // op refuses the value it is handed.
          expect(got, `op ${which} byte ${i}`).toMatch(new RegExp(`^[a-z0-9-]+: proof op ${which} \\(|^value-mismatch: proof op 1 |^app-hash-mismatch`));
        }
      }
    });
  });

  describe("what a verified proof proved, from the bytes it checked", () => {
    const entries = Array.from({ length: 12 }, (_, i) => [utf8.encode(`k${String(i * 2).padStart(2, "0")}`), utf8.encode(`v${i}`)] as const);
    const tree = iavlTree(entries);
    const leafOf = (i: number) => ({ key: entries[i][0], value: entries[i][1] });

    it("a non-existence proof: its two neighbours, or one at an end of the tree", () => {
      expect(core.ics23VerifyNonMembership("iavl", tree.root, tree.prove(utf8.encode("k05")), utf8.encode("k05"))).toEqual({
        left: leafOf(2),
        right: leafOf(3),
      });
      expect(core.ics23VerifyNonMembership("iavl", tree.root, tree.prove(utf8.encode("a")), utf8.encode("a"))).toEqual({ left: undefined, right: leafOf(0) });
      expect(core.ics23VerifyNonMembership("iavl", tree.root, tree.prove(utf8.encode("z")), utf8.encode("z"))).toEqual({ left: leafOf(11), right: undefined });
    });
    it("a batch: the neighbours of the entry it checked", () => {
      const nonexist = (k: string) => CommitmentProof.decode(tree.prove(utf8.encode(k))).nonexist!;
      const batch = CommitmentProof.encode(
        CommitmentProof.fromPartial({ batch: { entries: [{ exist: tree.existence(4) }, { nonexist: nonexist("k05") }, { nonexist: nonexist("k13") }] } }),
      ).finish();
      expect(core.ics23VerifyNonMembership("iavl", tree.root, batch, utf8.encode("k13"))).toEqual({ left: leafOf(6), right: leafOf(7) });
      expect(core.ics23VerifyNonMembership("iavl", tree.root, batch, utf8.encode("k05"))).toEqual({ left: leafOf(2), right: leafOf(3) });
      for (const b of BATCHES.filter((x) => !x.exist)) {
        const p = unhex(b.data.proof);
        for (const item of b.data.items) {
          const facts = core.ics23VerifyNonMembership(b.spec, unhex(b.data.root), p, unhex(item.key));
          expect(facts.left !== undefined || facts.right !== undefined, b.name).toBe(true);
        }
      }
    });
    it("fresh copies: neither views of the caller's proof nor of the core's memory", () => {
      const proof = tree.prove(utf8.encode("k05"));
      const facts = core.ics23VerifyNonMembership("iavl", tree.root, proof, utf8.encode("k05"));
      proof.fill(0);
      core.ics23VerifyNonMembership("iavl", tree.root, tree.prove(utf8.encode("k21")), utf8.encode("k21"));
      expect(facts).toEqual({ left: leafOf(2), right: leafOf(3) });
      for (const leaf of [facts.left!, facts.right!]) {
        expect(leaf.key.byteLength).toBe(leaf.key.buffer.byteLength);
        expect(leaf.value.byteLength).toBe(leaf.value.buffer.byteLength);
      }
    });
    it("a store proof: the entry op 0 verified, or the neighbours of its absence", () => {
      const ms = multistore({ upgrade: entries, bank: [[utf8.encode("balance"), utf8.encode("100")]] });
      const [k, v] = entries[5];
      expect(core.ics23VerifyStoreProof(ms.appHash, ms.proofOps("upgrade", k), "upgrade", k, v)).toEqual({ kind: "exists", key: k, value: v });
      const absent = utf8.encode("k15");
      expect(core.ics23VerifyStoreProof(ms.appHash, ms.proofOps("upgrade", absent), "upgrade", absent, undefined)).toEqual({
        kind: "absent",
        key: absent,
        left: leafOf(7),
        right: leafOf(8),
      });
      const first = utf8.encode("a");
      expect(core.ics23VerifyStoreProof(ms.appHash, ms.proofOps("upgrade", first), "upgrade", first, undefined)).toEqual({
        kind: "absent",
        key: first,
        left: undefined,
        right: leafOf(0),
      });
    });
  });

  describe("non-canonical encodings: each form refused with its own message (docs/spec/core.md §14.2)", () => {
    const entries = Array.from({ length: 9 }, (_, i) => [utf8.encode(`key${i * 2}`), utf8.encode(`value${i}`)] as const);
    const tree = iavlTree(entries, (n) => n + 1);
    const ep = tree.existence(4);
    const [key, value] = [ep.key, ep.value];
    const honest = CommitmentProof.encode(CommitmentProof.fromPartial({ exist: ep })).finish();
    /** The honest proof's fields, edited by `edit` (which gets the ExistenceProof's fields), re-encoded. */
    const edited = (edit: (exist: WField[], top: WField[]) => WField[] | void) => {
      const top = parse(honest);
      const out = edit(top[0].children!, top);
      if (out) top[0].children = out;
      return encode(top);
    };
    const refusedAs = (proof: Uint8Array, kind: Ics23ErrorKind, message?: string | RegExp) =>
      expectRefusal(() => core.ics23VerifyMembership("iavl", tree.root, proof, key, value), kind, message);
    const refused = (proof: Uint8Array, what: string) => refusedAs(proof, "non-canonical-proof", `the proof is not canonically encoded: ${what}`);
    const field = (fs: WField[], n: number) => fs.find((f) => f.field === n)!;

    it("the honest encoding verifies, and is canonical", () => {
      core.ics23VerifyMembership("iavl", tree.root, honest, key, value);
      expect(canonicalIssue(honest)).toBeUndefined();
      expect(encode(parse(honest))).toEqual(honest);
    });
    it("two members of a oneof", () => {
      const nonexist = CommitmentProof.decode(tree.prove(utf8.encode("key5"))).nonexist!;
      const two = CommitmentProof.encode(CommitmentProof.fromPartial({ exist: ep, nonexist })).finish();
      refused(two, "CommitmentProof holds two proofs (field 1 exist, then field 2 nonexist)");
      refused(encode(parse(two).reverse()), "CommitmentProof holds two proofs (field 2 nonexist, then field 1 exist)");
      refused(encode([...parse(honest), ...parse(honest)]), "CommitmentProof holds two proofs (field 1 exist, then field 1 exist)");
      const batch = CommitmentProof.encode(CommitmentProof.fromPartial({ batch: { entries: [{ exist: ep }] } })).finish();
      const entry = parse(batch);
      entry[0].children![0].children!.push(
        ...parse(CommitmentProof.encode(CommitmentProof.fromPartial({ nonexist })).finish()).map((f) => ({ ...f, field: 2 })),
      );
      refused(encode(entry), "BatchEntry holds two proofs (field 1 exist, then field 2 nonexist)");
    });
    it("a singular field twice, scalar or message (Go keeps the last scalar and merges the messages)", () => {
      refused(
        edited((x) => void field(x, 3).children!.push(field(field(x, 3).children!, 5))),
        "LeafOp field 5 (prefix) appears twice",
      );
      refused(
        edited((x) => void x.splice(1, 0, x[0])),
        "ExistenceProof field 1 (key) appears twice",
      );
      refused(
        edited((x) => void x.splice(3, 0, field(x, 3))),
        "ExistenceProof field 3 (leaf) appears twice",
      );
    });
    it("an unknown field, of any wire type", () => {
      refused(
        edited((x) => void x.push({ field: 9, wire: 0, num: 1n })),
        "unknown field 9 in ExistenceProof",
      );
      refused(
        edited((x) => void x.unshift({ field: 5, wire: 2, bytes: Uint8Array.of(1) })),
        "unknown field 5 in ExistenceProof",
      );
      refused(
        edited((x, top) => void top.push({ field: 7, wire: 3, group: [{ field: 1, wire: 5, num: 7n }] })),
        "unknown field 7 in CommitmentProof",
      );
      refused(
        edited((x) => void field(x, 3).children!.push({ field: 6, wire: 1, num: 1n })),
        "unknown field 6 in LeafOp",
      );
      refused(
        edited((x) => void x.push({ field: 1 << 29, wire: 0, num: 1n })),
        "unknown field (a number of 2^29 or more) in ExistenceProof",
      );
    });
    it("a scalar written with its default value", () => {
      refused(
        edited((x) => void (x[4].children![0].num = 0n)),
        "InnerOp field 1 (hash) is written with its default value",
      );
      refused(
        edited((x) => void x[4].children!.push({ field: 3, wire: 2, bytes: new Uint8Array(0) })),
        "InnerOp field 3 (suffix) is written with its default value",
      );
      refused(
        edited((x) => void field(x, 3).children!.splice(1, 0, { field: 2, wire: 0, num: 0n })),
        "LeafOp field 2 (prehash_key) is written with its default value",
      );
      const nonexist = parse(tree.prove(utf8.encode("key5")));
      nonexist[0].children![0].bytes = new Uint8Array(0);
      refused(encode(nonexist), "NonExistenceProof field 1 (key) is written with its default value");
    });
    it("fields out of order", () => {
      refused(
        edited((x) => [x[1], x[0], ...x.slice(2)]),
        "field 1 of ExistenceProof comes after field 2",
      );
      refused(
        edited((x) => [x[0], x[1], ...x.slice(3), x[2]]),
        "field 3 of ExistenceProof comes after field 4",
      );
      refused(
        edited((x) => void field(x, 3).children!.reverse()),
        "field 4 of LeafOp comes after field 5",
      );
    });
    it("a varint longer than needed: a tag, a length, a value", () => {
      refused(
        edited((x, top) => void (top[0].tagExtra = 1)),
        "a varint is not minimally encoded (the tag of CommitmentProof field 1)",
      );
      refused(
        edited((x) => void (x[0].lenExtra = 2)),
        "a varint is not minimally encoded (the length of ExistenceProof field 1 (key))",
      );
      refused(
        edited((x) => void (field(x, 3).children![0].numExtra = 1)),
        "a varint is not minimally encoded (the value of LeafOp field 1 (hash))",
      );
      refusedAs(
        edited((x) => void (field(x, 3).children![0].numExtra = 10)),
        "malformed-proof",
        "the proof is not a CommitmentProof: proto: varint overflows 64 bits",
      );
      // ten bytes carry bit 63 only: more bits are dropped by Go, and written by no encoder
      refused(
        edited((x) => void (field(x, 3).children![0].num = (1n << 63n) | 1n)),
        "LeafOp field 1 (hash) holds a value beyond int32",
      );
      const tenth = [0x81, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02]; // Go reads 1 (SHA256)
      refused(
        edited((x) => void (field(x, 3).children![0].numBytes = tenth)),
        "a varint is not minimally encoded (the value of LeafOp field 1 (hash))",
      );
    });
    it("an int32 beyond 32 bits; a negative one is canonical (sign-extended to ten bytes)", () => {
      refused(
        edited((x) => void (field(x, 3).children![0].num = (1n << 32n) | 1n)),
        "LeafOp field 1 (hash) holds a value beyond int32",
      );
      refusedAs(
        edited((x) => void (field(x, 3).children![0].num = -1n)),
        "leaf-hash-op",
        "leaf: leaf hash op -1 does not match the spec's SHA256",
      );
    });
    it("a compressed path: one packed run (an empty one is ts-proto's), int32 indices, nothing else", () => {
      const one = iavlTree([[utf8.encode("only"), utf8.encode("one")]]);
      const lone = one.existence(0);
      // cosmjs-types (ts-proto) writes an empty packed run for an empty path; gogoproto writes none
      const tsProto = CommitmentProof.encode(
        CommitmentProof.fromPartial({ compressed: { entries: [{ exist: { ...lone, path: [] } }], lookupInners: [] } }),
      ).finish();
      expect(hex(tsProto)).toContain("2200");
      core.ics23VerifyMembership("iavl", one.root, tsProto, lone.key, lone.value);
      const gogo = encode(
        parse(tsProto).map((f) => ({
          ...f,
          children: f.children!.map((e) => ({ ...e, children: e.children!.map((x) => ({ ...x, children: x.children!.filter((y) => y.field !== 4) })) })),
        })),
      );
      expect(gogo.length).toBe(tsProto.length - 2);
      core.ics23VerifyMembership("iavl", one.root, gogo, lone.key, lone.value);
      const compressed = CommitmentProof.encode(
        CommitmentProof.fromPartial({ compressed: { entries: [{ exist: { ...ep, path: ep.path.map((_, i) => i) } }], lookupInners: ep.path } }),
      ).finish();
      core.ics23VerifyMembership("iavl", tree.root, compressed, key, value);
      const exist = (top: WField[]) => top[0].children![0].children![0].children!;
      const edit = (fn: (x: WField[]) => void) => {
        const top = parse(compressed);
        fn(exist(top));
        return encode(top);
      };
      const path = (x: WField[]) => x.find((f) => f.field === 4)!;
      refused(
        edit((x) => x.splice(x.indexOf(path(x)), 1, ...ep.path.map((_, i) => ({ field: 4, wire: 0, num: BigInt(i) })))),
        "CompressedExistenceProof field 4 (path) is not written packed",
      );
      refused(
        edit((x) => void x.push(path(x))),
        "CompressedExistenceProof field 4 (path) appears twice",
      );
      refused(
        edit((x) => void (path(x).bytes = Uint8Array.of(...path(x).bytes!, 0x80, 0x80, 0x80, 0x80, 0x10))),
        "CompressedExistenceProof field 4 (path) holds a value beyond int32",
      );
      refused(
        edit((x) => void (path(x).bytes = Uint8Array.of(0x81, 0x00, ...path(x).bytes!.subarray(1)))),
        "a varint is not minimally encoded (an element of CompressedExistenceProof field 4 (path))",
      );
    });
    it("malformed bytes stay malformed", () => {
      refusedAs(
        honest.subarray(0, honest.length - 1),
        "malformed-proof",
        /^the proof is not a CommitmentProof: proto: field \d+: length exceeds the remaining bytes$/,
      );
      refusedAs(
        edited((x) => void (x[0].lenDelta = 1)),
        "malformed-proof",
        /^the proof is not a CommitmentProof: /,
      );
    });
    it("the forged range: a batch holding the genuine absence proof beside invented neighbours is refused, in either order", () => {
      // The upgrade store's module versions (0x02 ‖ name → version): the walk over 0x02 starts with the absence of 0x02.
      const versions = [
        ["bank", 4],
        ["gov", 5],
      ].map(([n, v]) => [Uint8Array.of(2, ...utf8.encode(n as string)), Uint8Array.of(0, 0, 0, 0, 0, 0, 0, v as number)] as const);
      const ms = multistore({ upgrade: [[Uint8Array.of(0), utf8.encode("plan")], ...versions], bank: [[utf8.encode("b"), utf8.encode("1")]] });
      const probe = Uint8Array.of(2);
      const [op0, op1] = ms.proofOps("upgrade", probe);
      expect(core.ics23VerifyStoreProof(ms.appHash, [op0, op1], "upgrade", probe, undefined)).toMatchObject({ kind: "absent", right: { key: versions[0][0] } });
      const genuine = CommitmentProof.decode(op0.data).nonexist!;
      const evil = Uint8Array.of(2, ...utf8.encode("evil"));
      const invented = { key: probe, left: undefined, right: { ...genuine.right!, key: evil, value: Uint8Array.of(0, 0, 0, 0, 0, 0, 3, 0xe7) } };
      const forged = CommitmentProof.encode(CommitmentProof.fromPartial({ nonexist: invented, batch: { entries: [{ nonexist: genuine }] } })).finish();
      // the decoder a caller might use besides the core's reads the invented neighbours
      expect(CommitmentProof.decode(forged).nonexist!.right!.key).toEqual(evil);
      const e = expectRefusal(
        () => core.ics23VerifyStoreProof(ms.appHash, [{ ...op0, data: forged }, op1], "upgrade", probe, undefined),
        "non-canonical-proof",
        "proof op 0 (ics23:iavl): the proof is not canonically encoded: CommitmentProof holds two proofs (field 2 nonexist, then field 3 batch)",
      );
      expect(e.at).toEqual({ op: 0 });
      expectRefusal(
        () => core.ics23VerifyStoreProof(ms.appHash, [{ ...op0, data: encode(parse(forged).reverse()) }, op1], "upgrade", probe, undefined),
        "non-canonical-proof",
        "proof op 0 (ics23:iavl): the proof is not canonically encoded: CommitmentProof holds two proofs (field 3 batch, then field 2 nonexist)",
      );
      expectRefusal(() => core.ics23VerifyNonMembership("iavl", ms.trees.upgrade.root, forged, probe), "non-canonical-proof");
      // the genuine absence proof alone in a batch is canonical: it verifies, with its own neighbours
      const wrapped = CommitmentProof.encode(CommitmentProof.fromPartial({ batch: { entries: [{ nonexist: genuine }] } })).finish();
      expect(core.ics23VerifyStoreProof(ms.appHash, [{ ...op0, data: wrapped }, op1], "upgrade", probe, undefined)).toEqual({
        kind: "absent",
        key: probe,
        left: { key: Uint8Array.of(0), value: utf8.encode("plan") },
        right: { key: versions[0][0], value: versions[0][1] },
      });
    });
  });

  describe("arguments are checked first (docs/spec/core.md §2.5)", () => {
    it("TypeErrors", () => {
      const b = new Uint8Array(1);
      expect(() => core.ics23VerifyMembership("avl" as never, b, b, b, b)).toThrow(
        new TypeError('unknown ICS23 spec "avl": expected "iavl", "tendermint", "smt" or a ProofSpec'),
      );
      expect(() => core.ics23VerifyMembership("iavl", "00" as never, b, b, b)).toThrow(new TypeError("root must be a Uint8Array, got string"));
      expect(() => core.ics23VerifyMembership("iavl", b, [1] as never, b, b)).toThrow(new TypeError("proof must be a Uint8Array, got array"));
      expect(() => core.ics23VerifyNonMembership("iavl", b, b, undefined as never)).toThrow(new TypeError("key must be a Uint8Array, got undefined"));
      expect(() => core.ics23VerifyMembership("iavl", b, b, b, null as never)).toThrow(new TypeError("value must be a Uint8Array, got null"));
      expect(() => core.ics23CalculateRoot({} as never)).toThrow(new TypeError("proof must be a Uint8Array, got object"));
      expect(() => core.sha256("abc" as never)).toThrow(new TypeError("data must be a Uint8Array, got string"));
      expect(() => core.ics23VerifyStoreProof(b, {} as never, "upgrade", b, b)).toThrow(
        new TypeError("proof ops must be an array of {type, key, data}, got object"),
      );
      expect(() => core.ics23VerifyStoreProof(b, [{ type: "ics23:iavl", key: b }] as never, "upgrade", b, b)).toThrow(
        new TypeError("proof op 0 data must be a Uint8Array, got undefined"),
      );
      expect(() => core.ics23VerifyStoreProof(b, [], "\ud800", b, b)).toThrow(new TypeError("store name is not valid UTF-8 (it holds a lone surrogate)"));
      const spec = { ...specOf({}), innerSpec: { ...specOf({}).innerSpec, childSize: 32, childOrder: [0, 0] } };
      expect(() => core.ics23VerifyMembership(spec, b, b, b, b)).toThrow(new TypeError("spec.innerSpec.childOrder must be a permutation of 0…1"));
    });
  });

  describe("SHA-256", () => {
    // FIPS 180-4 examples (NIST CSRC), and the lengths around a block's padding.
    it("the NIST vectors", () => {
      expect(hex(core.sha256(new Uint8Array(0)))).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
      expect(hex(core.sha256(utf8.encode("abc")))).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
      expect(hex(core.sha256(utf8.encode("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")))).toBe(
        "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
      );
      expect(
        hex(core.sha256(utf8.encode("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu"))),
      ).toBe("cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1");
      expect(hex(core.sha256(new Uint8Array(1_000_000).fill(0x61)))).toBe("cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    });
  });
}
