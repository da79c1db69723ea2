/**
 * ICS23 properties over random trees (docs/spec/core.md §14.6): the two cores give the same verdict and the
 * same error on honest and tampered proofs, and the verdict is @confio/ics23's (an independent verifier, a
 * test oracle only). Trees: IAVL-shaped stores and the SDK's simple Merkle map (ics23-trees.ts).
 */
import { ics23 as confio, iavlSpec, tendermintSpec, verifyMembership, verifyNonMembership } from "@confio/ics23";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { Core } from "../../bindings/core/contract.js";
import { loadCore } from "../../bindings/core/index.js";
import { verdict } from "./ics23.js";
import { compareBytes, iavlTree, multistore, simpleMap, type Entry } from "./ics23-trees.js";

const bytes = (min: number, max: number) => fc.uint8Array({ minLength: min, maxLength: max });
const entries = fc.uniqueArray(fc.tuple(bytes(1, 6), bytes(1, 12)), { minLength: 1, maxLength: 40, selector: ([k]) => k.join(",") });

/**
 * @confio/ics23's verdict, or undefined where it cannot be one: protobufjs decodes leniently (a known field of
 * the wrong wire type, a nested length past its message's end), so a tampered encoding it reads differently
 * from gogoproto is left out; a proof it re-encodes to the same bytes is read the same by both.
 */
function oracle(kind: "iavl" | "tendermint", proof: Uint8Array, root: Uint8Array, key: Uint8Array, value: Uint8Array | undefined): boolean | undefined {
  let p: confio.CommitmentProof;
  try {
    p = confio.CommitmentProof.decode(proof);
  } catch {
    return undefined;
  }
  const again = confio.CommitmentProof.encode(p).finish();
  if (again.length !== proof.length || again.some((b, i) => b !== proof[i])) return undefined;
  try {
    const spec = kind === "iavl" ? iavlSpec : tendermintSpec;
    return value === undefined ? verifyNonMembership(p, spec, root, key) : verifyMembership(p, spec, root, key, value);
  } catch {
    return false;
  }
}

let compared = 0;

describe("ICS23 properties: wasm, js and @confio/ics23 agree", () => {
  let wasm: Core;
  let js: Core;
  beforeAll(async () => {
    wasm = await loadCore("wasm");
    js = await loadCore("js");
  });

  const run = (kind: "iavl" | "tendermint", proof: Uint8Array, root: Uint8Array, key: Uint8Array, value: Uint8Array | undefined) => {
    const call = (core: Core) => () =>
      value === undefined ? core.ics23VerifyNonMembership(kind, root, proof, key) : core.ics23VerifyMembership(kind, root, proof, key, value);
    const [a, b] = [verdict(call(wasm)), verdict(call(js))];
    expect(a).toBe(b);
    return a;
  };

  for (const kind of ["iavl", "tendermint"] as const) {
    const build = (es: readonly Entry[], seed: number) => (kind === "iavl" ? iavlTree(es, (n) => (n * 7 + seed) % 300) : simpleMap(es));

    it(`${kind}: honest proofs of present and absent keys verify on all three`, () => {
      fc.assert(
        fc.property(entries, bytes(1, 6), fc.nat(1000), (es, probe, seed) => {
          const tree = build(es, seed);
          for (const key of [probe, es[seed % es.length][0]]) {
            const hit = tree.entries.find(([k]) => compareBytes(k, key) === 0);
            const proof = tree.prove(key);
            expect(run(kind, proof, tree.root, key, hit?.[1])).toBe("ok");
            expect(oracle(kind, proof, tree.root, key, hit?.[1])).toBe(true);
            expect(wasm.ics23CalculateRoot(proof)).toEqual(tree.root);
          }
        }),
        { numRuns: 150 },
      );
    });

    it(`${kind}: a proof with one byte changed gets the same verdict from all three`, () => {
      fc.assert(
        fc.property(entries, bytes(1, 6), fc.nat(), fc.integer({ min: 1, max: 255 }), (es, probe, at, mask) => {
          const tree = build(es, at);
          const hit = tree.entries.find(([k]) => compareBytes(k, probe) === 0);
          const proof = tree.prove(probe).slice();
          proof[at % proof.length] ^= mask;
          const ours = run(kind, proof, tree.root, probe, hit?.[1]);
          const theirs = oracle(kind, proof, tree.root, probe, hit?.[1]);
          if (theirs === undefined) return;
          compared++;
          expect(ours === "ok", ours).toBe(theirs);
        }),
        { numRuns: 400 },
      );
      // Most changes leave an encoding both decoders read alike: the comparison is not vacuous.
      expect(compared).toBeGreaterThan(200);
      compared = 0;
    });

    it(`${kind}: another key, value or root is refused by all three`, () => {
      fc.assert(
        fc.property(entries, fc.nat(), fc.nat(), bytes(1, 6), (es, i, bit, other) => {
          const tree = build(es, i);
          const [key, value] = tree.entries[i % tree.entries.length];
          const proof = tree.prove(key);
          const root = tree.root.slice();
          root[bit % 32] ^= 1 << (bit % 8);
          expect(run(kind, proof, root, key, value)).toMatch(/^root-mismatch/);
          expect(oracle(kind, proof, root, key, value)).toBe(false);
          const v2 = Uint8Array.of(...value, 0);
          expect(run(kind, proof, tree.root, key, v2)).toMatch(/^value-mismatch/);
          expect(oracle(kind, proof, tree.root, key, v2)).toBe(false);
          if (compareBytes(other, key) !== 0) {
            expect(run(kind, proof, tree.root, other, value)).toMatch(/^key-mismatch/);
            expect(run(kind, proof, tree.root, other, undefined)).toMatch(/^not-nonexistence-proof/);
          }
        }),
        { numRuns: 150 },
      );
    });
  }

  it("store proofs: both cores agree on honest and tampered ProofOps, and what they accept the oracle accepts", () => {
    const utf8 = new TextEncoder();
    fc.assert(
      fc.property(entries, bytes(1, 6), fc.nat(), fc.nat(), fc.integer({ min: 1, max: 255 }), (es, probe, which, at, mask) => {
        const ms = multistore({ upgrade: es, bank: [[Uint8Array.of(1), Uint8Array.of(2)]] });
        const hit = es.find(([k]) => compareBytes(k, probe) === 0);
        const ops = ms.proofOps("upgrade", probe);
        const call =
          (core: Core, o = ops) =>
          () =>
            core.ics23VerifyStoreProof(ms.appHash, o, "upgrade", probe, hit?.[1]);
        expect(verdict(call(wasm))).toBe("ok");
        expect(verdict(call(js))).toBe("ok");
        const op = which % 2;
        const data = ops[op].data.slice();
        data[at % data.length] ^= mask;
        const tampered = ops.map((o, k) => (k === op ? { ...o, data } : o));
        const a = verdict(call(wasm, tampered));
        expect(a).toBe(verdict(call(js, tampered)));
        // A change the verifiers ignore (a non-existence proof's own key field, an unknown field) keeps the
        // proof valid; then the oracle must accept the changed op as well.
        if (a === "ok") {
          const store = ms.trees.upgrade.root;
          const theirs = op === 0 ? oracle("iavl", data, store, probe, hit?.[1]) : oracle("tendermint", data, ms.appHash, utf8.encode("upgrade"), store);
          expect(theirs).not.toBe(false);
        }
      }),
      { numRuns: 300 },
    );
  });
});
