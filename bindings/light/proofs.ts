/**
 * Store values proven against a verified app hash (docs/spec/light-client.md §7): `abci_query` on
 * `/store/<store>/key` with `prove` at height H, checked by the core's ICS23 verification against the app hash
 * of the verified header H+1 (which commits to the state after block H). A key range is proven complete by a
 * chain of non-existence proofs, each of which names (and proves) its two neighbours (§7.3).
 *
 * One decoding: whatever is reported — a value, an absence, each neighbour — is what the core's verifier decoded
 * and checked, handed back by it (`StoreProofFacts`); nothing here reads proof bytes again.
 */
import { toHex } from "@cosmjs/encoding";
import type { Core } from "../core/contract.js";
import { Ics23Error, type ProvenLeaf, type StoreProofFacts } from "../core/ics23.js";
import type { StateSpec } from "./chains.js";
import { MissingProofError, ProofError, ProviderError } from "./errors.js";
import type { LightProvider, ProofOp } from "./provider.js";

/** A value proven at a state height, and what it was proven against. */
export interface ProvenKey {
  key: Uint8Array;
  /** undefined: the key is proven absent. */
  value: Uint8Array | undefined;
  /** The state height (the query height). */
  height: bigint;
  /** The proof ops the node sent. */
  proofOps: ProofOp[];
  /** What the verifier proved about the key: present with its value, or absent between its proven neighbours. */
  facts: StoreProofFacts;
}

/** The verified header whose app hash proves the state at `height` (= its own height − 1). */
export interface ProofRoot {
  height: bigint;
  appHash: Uint8Array;
}

const keyText = (key: Uint8Array) => `0x${toHex(key)}`;

/** One key, proven present (with its value) or absent. */
export async function proveKey(provider: LightProvider, core: Core, spec: StateSpec, root: ProofRoot, key: Uint8Array): Promise<ProvenKey> {
  const headerHeight = root.height + 1n;
  const path = `/store/${spec.storeKey}/key`;
  const what = `${spec.storeKey} key ${keyText(key)}`;
  const a = await provider.abciQuery({ path, data: key, height: root.height, prove: true });
  if (a.code !== 0) {
    throw new ProviderError(
      provider.label,
      `abci_query ${path} ${keyText(key)} at height ${root.height}: code ${a.code}${a.codespace ? ` (${a.codespace})` : ""}: ${a.log}`,
      "rpc",
      root.height,
    );
  }
  if (a.height !== root.height) throw new ProofError(`the answer for ${what} is for height ${a.height}, not ${root.height}`, headerHeight);
  if (!a.proofOps || a.proofOps.length === 0) {
    throw new MissingProofError(
      `the node sent no proof for ${what} (it ignored prove=true: a node that strips proofs, or a chain whose state cannot be proven)`,
      headerHeight,
    );
  }
  const types = a.proofOps.map((op) => op.type);
  if (types.join(",") !== spec.proofOps.join(",")) {
    throw new MissingProofError(`the proof of ${what} has ops ${types.join(", ")}, expected ${spec.proofOps.join(", ")}`, headerHeight);
  }
  const answered = a.value.length === 0 ? undefined : a.value;
  let facts: StoreProofFacts;
  try {
    facts = core.ics23VerifyStoreProof(root.appHash, a.proofOps, spec.storeKey, key, answered);
  } catch (e) {
    if (!(e instanceof Ics23Error)) throw e;
    throw new ProofError(
      `the proof of ${what} ${answered === undefined ? "(absent)" : `= 0x${toHex(answered)}`} does not hold against the verified app hash: ${e.message}`,
      headerHeight,
    );
  }
  return { key, value: facts.kind === "exists" ? facts.value : undefined, height: root.height, proofOps: a.proofOps, facts };
}

function compare(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i] - b[i];
  return a.length - b.length;
}

const inRange = (key: Uint8Array, prefix: Uint8Array) => key.length >= prefix.length && prefix.every((b, i) => key[i] === b);
const successor = (key: Uint8Array) => Uint8Array.of(...key, 0);

export interface ProvenRange {
  /** Each key of the range with its value, as the verifier decoded them. */
  entries: ProvenLeaf[];
  /** How many proofs it took. */
  proofs: number;
}

/**
 * Every key under `prefix`, proven complete: the absence of `prefix` itself proves the first key (its right
 * neighbour), and the absence of each key's immediate successor (key ‖ 00) proves the next one — until a
 * neighbour falls outside the range or there is none. `hint` is the node's own (unproven) listing of the
 * range, used to ask for all the proofs at once; where it disagrees with the proofs, the proofs are
 * followed one by one.
 */
export async function proveRange(
  provider: LightProvider,
  core: Core,
  spec: StateSpec,
  root: ProofRoot,
  prefix: Uint8Array,
  hint: readonly Uint8Array[] = [],
): Promise<ProvenRange> {
  const asked = new Map<string, Promise<ProvenKey>>();
  const prove = (key: Uint8Array) => {
    const id = toHex(key);
    let p = asked.get(id);
    if (!p) {
      p = proveKey(provider, core, spec, root, key);
      asked.set(id, p);
    }
    return p;
  };
  // All at once, from the hint; a failure surfaces when the walk below needs that proof.
  const starts = [prefix, ...hint.filter((k) => inRange(k, prefix)).map(successor)];
  for (const k of starts) prove(k).catch(() => undefined);

  const entries: ProvenLeaf[] = [];
  let probe = prefix;
  for (let guard = 0; guard < 100_000; guard++) {
    const p = await prove(probe);
    const f = p.facts;
    // The probe itself exists (a key ending in 00, or the prefix as a key): it is the next entry. Else the next entry
    // is its right neighbour, which the absence proof proved present and adjacent (none: the tree ends there).
    const next: ProvenLeaf | undefined = f.kind === "exists" ? { key: f.key, value: f.value } : f.right;
    if (!next || !inRange(next.key, prefix)) return { entries, proofs: asked.size };
    if (entries.length > 0 && compare(next.key, entries[entries.length - 1].key) <= 0) {
      throw new ProofError(`the proofs of range ${keyText(prefix)} do not advance at key ${keyText(next.key)}`, root.height + 1n);
    }
    entries.push(next);
    probe = successor(next.key);
  }
  throw new ProofError(`range ${keyText(prefix)} has more than 100000 keys`, root.height + 1n);
}
