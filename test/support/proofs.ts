/**
 * Proofs a node served, checked as a light client checks them: `abci_query` with prove on
 * `/store/<store>/key` through cosmjs' CometBFT client, the two ProofOps verified against the app hash in
 * the header of the NEXT block by the project's verifier on both cores and, independently, by
 * @confio/ics23 (each op against the root it computes, the store root then in the app hash); a forged
 * value, a wrong presence claim and another height's app hash must each be refused by both. The judges
 * themselves are first shown sound on cosmos/ics23's own vectors (`checkJudgesOnVectors`).
 */
import { readFileSync } from "node:fs";
import { calculateExistenceRoot, ics23, iavlSpec, tendermintSpec, verifyMembership, verifyNonMembership } from "@confio/ics23";
import type { CometClient } from "@cosmjs/tendermint-rpc";
import { expect } from "vitest";
import type { Core } from "../../bindings/core/contract.js";
import { loadCore } from "../../bindings/core/index.js";
import { ROOT } from "./paths.js";

let cores: Core[] | undefined;
async function bothCores(): Promise<Core[]> {
  return (cores ??= [await loadCore("wasm"), await loadCore("js")]);
}

type Op = { type: string; key: Uint8Array; data: Uint8Array };

/** @confio/ics23 over the ops, as the SDK's proof runtime chains them: true when they prove (key, value) under appHash. */
export function confioVerifies(appHash: Uint8Array, ops: readonly Op[], store: string, key: Uint8Array, value: Uint8Array | undefined): boolean {
  try {
    if (ops.length !== 2 || ops[0].type !== "ics23:iavl" || ops[1].type !== "ics23:simple") return false;
    if (!bytesEqual(ops[0].key, key) || !bytesEqual(ops[1].key, new TextEncoder().encode(store))) return false;
    const inStore = ics23.CommitmentProof.decode(ops[0].data);
    const existence = inStore.exist ?? inStore.nonexist?.left ?? inStore.nonexist?.right;
    if (!existence) return false;
    const storeRoot = calculateExistenceRoot(ics23.ExistenceProof.create(existence));
    const ok = value === undefined ? verifyNonMembership(inStore, iavlSpec, storeRoot, key) : verifyMembership(inStore, iavlSpec, storeRoot, key, value);
    if (!ok) return false;
    const inApp = ics23.CommitmentProof.decode(ops[1].data);
    return verifyMembership(inApp, tendermintSpec, appHash, ops[1].key, storeRoot);
  } catch {
    return false;
  }
}

function coreVerifies(core: Core, appHash: Uint8Array, ops: readonly Op[], store: string, key: Uint8Array, value: Uint8Array | undefined): boolean {
  try {
    core.ics23VerifyStoreProof(appHash, ops, store, key, value);
    return true;
  } catch {
    return false;
  }
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The app hash committed for `height`: in the header of block height + 1 (waits for it). */
export async function appHashOf(comet: CometClient, height: number): Promise<Uint8Array> {
  for (let i = 0; ; i++) {
    const status = await comet.status();
    if (status.syncInfo.latestBlockHeight > height) return (await comet.block(height + 1)).block.header.appHash;
    if (i > 600) throw new Error(`block ${height + 1} did not come`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

export interface ProvenValue {
  value: Uint8Array | undefined;
  height: number;
  ops: readonly Op[];
}

/**
 * Asks `comet` for `/store/<store>/key` with prove (at `height`, default the latest), checks the answer
 * with both cores and @confio/ics23 against the next block's app hash, and each forgery refused by all
 * three; returns the value (undefined when absent).
 */
export async function provenQuery(comet: CometClient, store: string, key: Uint8Array, height?: number): Promise<ProvenValue> {
  const res = await comet.abciQuery({ path: `/store/${store}/key`, data: key, prove: true, height });
  expect(res.code ?? 0, res.log).toBe(0);
  const h = res.height!;
  if (height !== undefined) expect(h).toBe(height);
  const ops = res.proof?.ops ?? [];
  expect(ops.map((o) => o.type)).toEqual(["ics23:iavl", "ics23:simple"]);
  const value = res.value.length > 0 ? res.value : undefined;
  const appHash = await appHashOf(comet, h);
  const judges = [
    ...(await bothCores()).map(
      (c) =>
        (v: Uint8Array | undefined, root = appHash) =>
          coreVerifies(c, root, ops, store, key, v),
    ),
    (v: Uint8Array | undefined, root = appHash) => confioVerifies(root, ops, store, key, v),
  ];
  for (const judge of judges) {
    expect(judge(value)).toBe(true);
    expect(judge(value === undefined ? Uint8Array.of(1) : undefined)).toBe(false); // the other claim about presence
    if (value !== undefined) expect(judge(Uint8Array.of(...value, 0))).toBe(false); // a forged value
    const other = await appHashOf(comet, h - 1);
    if (!bytesEqual(other, appHash)) expect(judge(value, other)).toBe(false); // another height's app hash
  }
  return { value, height: h, ops };
}

/** The judges agree with cosmos/ics23's published vectors (test/vectors/ics23): every present and absent key verifies. */
export async function checkJudgesOnVectors(): Promise<void> {
  const core = (await bothCores())[0];
  for (const [dir, spec, specName] of [
    ["iavl", iavlSpec, "iavl"],
    ["tendermint", tendermintSpec, "tendermint"],
  ] as const) {
    for (const file of ["exist_left", "exist_middle", "exist_right", "nonexist_left", "nonexist_middle", "nonexist_right"]) {
      const v = JSON.parse(readFileSync(`${ROOT}/test/vectors/ics23/${dir}/${file}.json`, "utf8")) as {
        key: string;
        value?: string;
        root: string;
        proof: string;
      };
      const [key, root, proofBytes] = [v.key, v.root, v.proof].map((h) => new Uint8Array(Buffer.from(h, "hex")));
      const value = v.value ? new Uint8Array(Buffer.from(v.value, "hex")) : undefined;
      const proof = ics23.CommitmentProof.decode(proofBytes);
      expect(value ? verifyMembership(proof, spec, root, key, value) : verifyNonMembership(proof, spec, root, key), `${dir}/${file}`).toBe(true);
      if (value) core.ics23VerifyMembership(specName, root, proofBytes, key, value);
      else core.ics23VerifyNonMembership(specName, root, proofBytes, key);
    }
  }
}
