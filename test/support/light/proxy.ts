/**
 * A lying node: a JSON-RPC proxy in front of a real node's RPC that can tamper with what the light client is
 * told (docs/spec/light-client.md §6). Every other call and answer passes through unchanged.
 *
 *   plan-value        abci_query of the plan key (00): another value (a plan moved by 1000 blocks, or one invented)
 *   proof-byte        abci_query: one byte of the first proof op flipped
 *   drop-signatures   commit: more than 1/3 of the signatures marked absent (≤ 2/3 of the power left)
 *   forge-signature   commit: one byte of the first signature flipped
 *   other-chain       commit and validators answered by `other` (a node of another chain)
 *   other-validators  validators answered by `other` (another validator set, at the same height)
 *   fork              commit and validators answered by `other` (a fork: the same chain id and validators)
 *   strip-prove       abci_query forwarded with prove=false
 *   lunatic           commit: the header with another app hash, its commit signed again — by every validator of the
 *                     set, with the network's own keys (`signers`): a header the validators never made, valid
 *                     as far as signatures go (a lunatic attack)
 *
 * Headers (commit, validators) are tampered only above `above`, so the trust root itself stays honest.
 */
import { fromBase64, fromHex, toBase64 } from "@cosmjs/encoding";
import { ed25519 } from "@noble/curves/ed25519.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { commitJson, headerJson } from "../../../bindings/light/cmtjson.js";
import { voteSignBytes } from "../../../bindings/light/encoding.js";
import { headerHash } from "../../../bindings/light/header.js";
import { readSignedHeaderJson } from "../../../bindings/light/rpc-provider.js";
import { type Commit, timestampFromNs, timestampNs } from "../../../bindings/light/types.js";
import { equalBytes } from "../../../bindings/base/bytes.js";
import type { TestServer } from "../http.js";
import { RpcFault, serveJsonRpc } from "./rpc-server.js";

export const TAMPERINGS = [
  "plan-value",
  "proof-byte",
  "drop-signatures",
  "forge-signature",
  "other-chain",
  "other-validators",
  "fork",
  "strip-prove",
  "lunatic",
] as const;
export type Tampering = (typeof TAMPERINGS)[number];

export interface ProxyOptions {
  mode?: Tampering | "none";
  /** The node that answers for other-chain, other-validators and fork. */
  other?: string;
  /** Headers at or below this height pass unchanged. */
  above?: bigint;
  /** Encodes a replacement plan value from the node's (undefined when none is scheduled). */
  fakePlan?: (original: Uint8Array | undefined) => Uint8Array;
  /** For lunatic: the validators' ed25519 keys (address, 32-byte seed). */
  signers?: { address: Uint8Array; secret: Uint8Array }[];
}

export interface LyingNode extends TestServer {
  options: ProxyOptions;
  /** How many answers were tampered with. */
  tampered: number;
}

let nextId = 1;

/** One JSON-RPC call to a node, its error as the RpcFault a proxy passes on. */
export async function call(url: string, method: string, params: unknown): Promise<Record<string, unknown>> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: nextId++, method, params }),
  });
  const body = (await res.json()) as { result?: Record<string, unknown>; error?: { code: number; message: string; data: string } };
  if (body.error) throw new RpcFault(body.error.data, body.error.code, body.error.message);
  return body.result!;
}

type Sig = { block_id_flag: number; validator_address: string; timestamp: string; signature: string | null };
const ABSENT = (): Sig => ({ block_id_flag: 1, validator_address: "", timestamp: "0001-01-01T00:00:00Z", signature: null });

function flipByte(b64: string, at: (n: number) => number): string {
  const bytes = fromBase64(b64);
  bytes[at(bytes.length)] ^= 0x01;
  return toBase64(bytes);
}

/** The lunatic header for a `commit` answer above the honest heights (else undefined): another app hash, signed by every validator. */
async function lunatic(
  upstream: string,
  result: Record<string, unknown>,
  above: (h: bigint) => boolean,
  signers: { address: Uint8Array; secret: Uint8Array }[],
): Promise<unknown> {
  const sh = readSignedHeaderJson(result.signed_header, upstream);
  const h = sh.header.height;
  if (!above(h)) return undefined;
  const header = { ...sh.header, appHash: sha256(new TextEncoder().encode(`lunatic/${h}`)) };
  const vals = (await call(upstream, "validators", { height: String(h), per_page: "100" })).validators as { address: string }[];
  const commit: Commit = {
    ...sh.commit,
    blockId: { hash: headerHash(header)!, partSetHeader: sh.commit.blockId.partSetHeader },
    signatures: vals.map((v, i) => ({
      blockIdFlag: 2,
      validatorAddress: fromHex(v.address),
      timestamp: timestampFromNs(timestampNs(header.time) + BigInt(i + 1) * 1_000_000n),
      signature: new Uint8Array(0),
    })),
  };
  commit.signatures.forEach((s, i) => {
    const key = signers.find((k) => equalBytes(k.address, s.validatorAddress));
    if (!key) throw new Error(`lunatic: no key for validator ${v(s.validatorAddress)}`);
    s.signature = ed25519.sign(voteSignBytes(header.chainId, commit, i), key.secret);
  });
  return { signed_header: { header: headerJson(header), commit: commitJson(commit) }, canonical: true };
}

const v = (b: Uint8Array) => Buffer.from(b).toString("hex").toUpperCase();

export async function lyingNode(upstream: string, options: ProxyOptions = {}): Promise<LyingNode> {
  const state = { tampered: 0 };
  const heightOf = (params: Record<string, unknown>) => (params.height === undefined || params.height === null ? undefined : BigInt(String(params.height)));
  const handler = async (method: string, params: Record<string, unknown>): Promise<unknown> => {
    const mode = options.mode ?? "none";
    const h = heightOf(params);
    const above = (height: bigint | undefined) => height === undefined || height > (options.above ?? 0n);
    if (mode === "strip-prove" && method === "abci_query" && params.prove) {
      state.tampered++;
      return call(upstream, method, { ...params, prove: false });
    }
    const redirect =
      ((mode === "other-chain" || mode === "fork") && (method === "commit" || method === "validators")) ||
      (mode === "other-validators" && method === "validators");
    if (redirect && above(h)) {
      if (!options.other) throw new Error(`${mode} needs an other node`);
      state.tampered++;
      return call(options.other, method, params);
    }
    const result = await call(upstream, method, params);
    if (method === "commit" && mode === "lunatic") {
      const lie = await lunatic(upstream, result, above, options.signers ?? []);
      if (lie) state.tampered++;
      return lie ?? result;
    }
    if (method === "commit" && (mode === "drop-signatures" || mode === "forge-signature")) {
      const sh = result.signed_header as { header: { height: string }; commit: { signatures: Sig[] } };
      if (!above(BigInt(sh.header.height))) return result;
      const sigs = sh.commit.signatures;
      const signing = sigs.map((s, i) => (s.block_id_flag === 2 ? i : -1)).filter((i) => i >= 0);
      if (mode === "drop-signatures") for (const i of signing.slice(0, Math.floor(sigs.length / 3) + 1)) sigs[i] = ABSENT();
      else sigs[signing[0]].signature = flipByte(sigs[signing[0]].signature!, () => 7);
      state.tampered++;
    }
    if (method === "abci_query") {
      const r = result.response as { key: string | null; value: string | null; proofOps: { ops: { data: string }[] } | null };
      if (mode === "plan-value" && params.data === "00") {
        const original = r.value ? fromBase64(r.value) : undefined;
        if (!options.fakePlan) throw new Error("plan-value needs fakePlan");
        r.value = toBase64(options.fakePlan(original));
        state.tampered++;
      }
      if (mode === "proof-byte" && r.proofOps?.ops.length) {
        r.proofOps.ops[0].data = flipByte(r.proofOps.ops[0].data, (n) => Math.floor(n / 2));
        state.tampered++;
      }
    }
    return result;
  };
  const node = (await serveJsonRpc(handler)) as LyingNode;
  node.options = options;
  Object.defineProperty(node, "tampered", { get: () => state.tampered });
  return node;
}
