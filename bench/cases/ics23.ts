/**
 * Case 10: the light client's hot path, one SDK store proof (ics23:iavl for a key in a 1,000-key IAVL store,
 * ics23:simple for the store among 20 in the multistore) checked against the app hash, on both cores and
 * with @confio/ics23 (decoding with protobufjs and verifying each op, as cosmjs's removed verified queries did).
 */
import { calculateExistenceRoot, ics23 as confio, iavlSpec, tendermintSpec, verifyMembership, verifyNonMembership } from "@confio/ics23";
import type { Backend } from "../../bindings/core/contract.js";
import { loadCore } from "../../bindings/core/index.js";
import { multistore } from "../../test/core/ics23-trees.js";
import { BACKENDS } from "../fixtures.js";
import { type BenchTask, timed } from "../harness.js";

const utf8 = new TextEncoder();

function fixture() {
  const upgrade = Array.from(
    { length: 1000 },
    (_, i) => [Uint8Array.of(2, ...utf8.encode(`module${String(i).padStart(4, "0")}`)), Uint8Array.of(0, 0, 0, 0, 0, 0, 0, 1 + (i % 9))] as const,
  );
  const stores: Record<string, (readonly [Uint8Array, Uint8Array])[]> = {
    upgrade: [[Uint8Array.of(0), utf8.encode("\n\x02v2\x12\x0b\x08\x80\x92\xb8\xc3\x98\xfe\xff\xff\xff\x01\x18\xe8\x07")], ...upgrade],
  };
  for (let s = 0; s < 19; s++) stores[`store${s}`] = [[utf8.encode("k"), utf8.encode(`v${s}`)]];
  return multistore(stores);
}

/** @confio/ics23 over the same ops: each op's proof decoded, verified against the root it calculates, the last against the app hash. */
function confioStoreProof(appHash: Uint8Array, ops: { type: string; key: Uint8Array; data: Uint8Array }[], value: Uint8Array | undefined): boolean {
  let v = value;
  for (const op of ops) {
    const proof = confio.CommitmentProof.decode(op.data);
    const spec = op.type === "ics23:iavl" ? iavlSpec : tendermintSpec;
    const ex = proof.exist ?? proof.nonexist?.left ?? proof.nonexist?.right;
    const root = calculateExistenceRoot(confio.ExistenceProof.create(ex!));
    const ok = v === undefined ? verifyNonMembership(proof, spec, root, op.key) : verifyMembership(proof, spec, root, op.key, v);
    if (!ok) return false;
    v = root;
  }
  return v !== undefined && v.length === appHash.length && v.every((b, i) => b === appHash[i]);
}

export async function ics23Proofs(backends: readonly Backend[] = BACKENDS, withLibraries = true): Promise<BenchTask[][]> {
  const ms = fixture();
  const present = Uint8Array.of(0);
  const value = ms.trees.upgrade.entries.find(([k]) => k.length === 1 && k[0] === 0)![1];
  const absent = Uint8Array.of(3);
  const groups: BenchTask[][] = [];
  for (const [id, key, v] of [
    ["store proof, plan present (ics23:iavl + ics23:simple)", present, value],
    ["store proof, key absent (non-existence + ics23:simple)", absent, undefined],
  ] as const) {
    const ops = ms.proofOps("upgrade", key);
    const group: BenchTask[] = [];
    for (const backend of backends) {
      const core = await loadCore(backend);
      core.ics23VerifyStoreProof(ms.appHash, ops, "upgrade", key, v);
      group.push({ case: 10, id, impl: backend, ops: 20, sample: timed(20, () => core.ics23VerifyStoreProof(ms.appHash, ops, "upgrade", key, v)) });
    }
    if (withLibraries) {
      if (!confioStoreProof(ms.appHash, ops, v)) throw new Error("@confio/ics23 refuses the bench's proof");
      group.push({
        case: 10,
        id,
        impl: "@confio/ics23",
        ops: 20,
        sample: timed(20, () => {
          if (!confioStoreProof(ms.appHash, ops, v)) throw new Error("refused");
        }),
      });
    }
    groups.push(group);
  }
  const sha = new Uint8Array(1024).fill(7);
  const shaGroup: BenchTask[] = [];
  for (const backend of backends) {
    const core = await loadCore(backend);
    shaGroup.push({ case: 10, id: "SHA-256 of 1 KiB", impl: backend, ops: 100, sample: timed(100, () => core.sha256(sha)) });
  }
  groups.push(shaGroup);
  return groups;
}
