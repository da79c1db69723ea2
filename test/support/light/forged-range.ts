/**
 * The forged-range attack (docs/spec/light-client.md §6): a JSON-RPC proxy in front of an honest node that answers
 * every absence proof under a prefix with a CommitmentProof holding two oneof members — an invented non-existence
 * proof whose right neighbour is an entry the node made up, and a batch whose one entry is the node's genuine
 * absence proof. A verifier that lets the last member win checks the genuine proof; a second decoder that keeps the
 * first member then walks to the invented neighbours: the range shows `evil = 999` and hides every real entry.
 * Everything else passes through unchanged.
 */
import { fromBase64, fromHex, toBase64 } from "@cosmjs/encoding";
import { BatchProof, CommitmentProof, NonExistenceProof } from "cosmjs-types/cosmos/ics23/v1/proofs";
import type { TestServer } from "../http.js";
import { call } from "./proxy.js";
import { serveJsonRpc } from "./rpc-server.js";

export interface ForgedRangeOptions {
  /** The range whose absence proofs are forged (e.g. 02: the module versions). */
  prefix: Uint8Array;
  /** The entries the forged range shows, in key order. */
  invented: { key: Uint8Array; value: Uint8Array }[];
  /**
   * The encoding: the invented member first, then the batch a last-wins verifier checks (the attack, the default);
   * the batch first; or the batch alone — the genuine proof in another, canonical, encoding (no lie at all).
   */
  form?: "invented-first" | "batch-first" | "batch-only";
}

export interface ForgedRangeNode extends TestServer {
  /** How many answers were forged. */
  forged: number;
}

const startsWith = (b: Uint8Array, p: Uint8Array) => b.length >= p.length && p.every((x, i) => b[i] === x);
const compare = (a: Uint8Array, b: Uint8Array) => {
  for (let i = 0; i < Math.min(a.length, b.length); i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
};

/** The stacked encoding: an invented non-existence proof for `key` and a batch holding the genuine one. */
export function stackedProof(
  genuine: Uint8Array,
  key: Uint8Array,
  invented: ForgedRangeOptions["invented"],
  form: ForgedRangeOptions["form"] = "invented-first",
): Uint8Array {
  const real = CommitmentProof.decode(genuine).nonexist;
  if (!real) throw new Error("the genuine proof is not a non-existence proof");
  const next = invented.find((e) => compare(e.key, key) > 0);
  // The invented neighbour borrows a genuine leaf and path: nobody who reads it that way hashes it.
  const shape = real.right ?? real.left!;
  const fake = NonExistenceProof.fromPartial({ key, left: real.left, right: next ? { ...shape, key: next.key, value: next.value } : undefined });
  const invent = CommitmentProof.encode(CommitmentProof.fromPartial({ nonexist: fake })).finish();
  const batch = CommitmentProof.encode(CommitmentProof.fromPartial({ batch: BatchProof.fromPartial({ entries: [{ nonexist: real }] }) })).finish();
  if (form === "batch-only") return batch;
  const [a, b] = form === "invented-first" ? [invent, batch] : [batch, invent];
  const out = new Uint8Array(a.length + b.length);
  out.set(a);
  out.set(b, a.length);
  return out;
}

export async function forgedRangeNode(upstream: string, o: ForgedRangeOptions): Promise<ForgedRangeNode> {
  const state = { forged: 0 };
  const node = (await serveJsonRpc(async (method, params) => {
    const result = await call(upstream, method, params);
    if (method !== "abci_query" || !(params.prove === true || params.prove === "true")) return result;
    const key = fromHex(String(params.data ?? ""));
    const r = result.response as { value: string | null; proofOps: { ops: { type: string; data: string }[] } | null };
    if (!startsWith(key, o.prefix) || r.value || !r.proofOps?.ops.length) return result;
    r.proofOps.ops[0].data = toBase64(stackedProof(fromBase64(r.proofOps.ops[0].data), key, o.invented, o.form));
    state.forged++;
    return result;
  })) as ForgedRangeNode;
  Object.defineProperty(node, "forged", { get: () => state.forged });
  return node;
}
