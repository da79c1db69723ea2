/**
 * Case 12 in Chromium (bench/light.ts bundles this with esbuild and loads it into a page): the light client's
 * work of one verified refresh, on answers fetched beforehand from a synthetic SDK node so that only the
 * verification is timed — one skipping step over a commit of N validators (the trusted set's 1/3, then 2/3 of
 * its own), and the store proofs of the plan, the protocol version and every module version (a complete
 * range), checked by the .wasm core.
 */
import { loadCore } from "../../bindings/core/index.js";
import { COSMOS_SDK } from "../../bindings/light/chains.js";
import { verifyCommitLight } from "../../bindings/light/commit.js";
import { fetchLightBlock, type AbciAnswer } from "../../bindings/light/provider.js";
import { RpcProvider } from "../../bindings/light/rpc-provider.js";
import type { SignatureEngine } from "../../bindings/light/signatures.js";
import { verifyNonAdjacent, type LightBlock } from "../../bindings/light/verifier.js";

interface Result {
  validators: number;
  engine: SignatureEngine;
  webcrypto: boolean;
  /** ms per run, each run on a fresh copy of the answers (nothing cached between runs). */
  commitMs: number[];
  skipMs: number[];
  proofsMs: number[];
  totalMs: number[];
  proofs: number;
}

const clone = <T>(v: T): T => structuredClone(v);

async function webcryptoEd25519(): Promise<boolean> {
  try {
    await crypto.subtle.importKey("raw", new Uint8Array(32).fill(1), { name: "Ed25519" }, false, ["verify"]);
    return true;
  } catch {
    return false;
  }
}

async function run(rpc: string, trustHeight: number, engine: SignatureEngine, runs: number): Promise<Result> {
  const core = await loadCore("wasm");
  const p = RpcProvider.of(rpc);
  const status = await p.status();
  const root = await fetchLightBlock(p, BigInt(trustHeight), undefined);
  const target = await fetchLightBlock(p, status.latestHeight, root.signedHeader.header.chainId);
  const h = target.signedHeader.header;
  const stateHeight = h.height - 1n;
  // The answers a refresh checks: plan 00, protocol version 03, and the walk of the 02 range.
  const keys: Uint8Array[] = [Uint8Array.of(0), Uint8Array.of(3), Uint8Array.of(2)];
  const versions = await p.abciQuery({ path: "/store/upgrade/subspace", data: Uint8Array.of(2), height: stateHeight, prove: false });
  let pos = 0;
  const v = versions.value;
  while (pos < v.length) {
    // Pairs: 0a len (0a klen key 12 vlen value)
    pos++;
    let len = 0;
    for (let shift = 0; ; shift += 7) {
      const b = v[pos++];
      len |= (b & 0x7f) << shift;
      if (b < 0x80) break;
    }
    const pair = v.subarray(pos, pos + len);
    pos += len;
    const klen = pair[1];
    keys.push(Uint8Array.of(...pair.subarray(2, 2 + klen), 0));
  }
  const answers: [Uint8Array, AbciAnswer][] = await Promise.all(
    keys.map(async (k) => [k, await p.abciQuery({ path: "/store/upgrade/key", data: k, height: stateHeight, prove: true })] as [Uint8Array, AbciAnswer]),
  );
  const o = {
    trustingPeriodNs: 14n * 24n * 3600n * 1_000_000_000n,
    maxClockDriftNs: 10_000_000_000n,
    now: { seconds: BigInt(Math.floor(Date.now() / 1000)), nanos: 0 },
    engine,
  };
  const r: Result = {
    validators: target.validatorSet.size,
    engine,
    webcrypto: await webcryptoEd25519(),
    commitMs: [],
    skipMs: [],
    proofsMs: [],
    totalMs: [],
    proofs: answers.length,
  };
  const proofs = () => {
    for (const [k, a] of answers) core.ics23VerifyStoreProof(h.appHash, a.proofOps!, COSMOS_SDK.storeKey, k, a.value.length ? a.value : undefined);
  };
  for (let i = 0; i < runs + 2; i++) {
    const t: LightBlock = { ...target, signedHeader: clone(target.signedHeader) };
    const c = { ...target, signedHeader: clone(target.signedHeader) };
    const t0 = performance.now();
    await verifyCommitLight(h.chainId, c.validatorSet, c.signedHeader.commit.blockId, c.height, c.signedHeader.commit, engine);
    const t1 = performance.now();
    await verifyNonAdjacent(root, t, o);
    const t2 = performance.now();
    proofs();
    const t3 = performance.now();
    if (i < 2) continue; // warm-up
    r.commitMs.push(t1 - t0);
    r.skipMs.push(t2 - t1);
    r.proofsMs.push(t3 - t2);
    r.totalMs.push(t3 - t1);
  }
  return r;
}

(globalThis as { lightBench?: typeof run }).lightBench = run;
