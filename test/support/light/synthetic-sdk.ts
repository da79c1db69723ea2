/**
 * A synthetic Cosmos SDK node for tests and benchmarks that need many validators and real store proofs: the
 * synthetic chain's headers and commits (./synthetic.ts, any number of validators), whose latest header
 * carries the app hash of a real commit multistore (bindings/store: IAVL trees, SDK commit info) holding an
 * x/upgrade store, a gov store and the other stores of a simd chain. `abci_query` on `/store/<name>/key` with
 * `prove` answers the SDK's two proof ops (`ics23:iavl`, `ics23:simple`), `/store/<name>/subspace` the SDK's
 * Pairs — as simd answers them, over JSON-RPC (POST or CometBFT's URI form).
 */
import { toBase64, toHex } from "@cosmjs/encoding";
import { ClassicLevel } from "classic-level";
import { ProposalStatus, Proposal } from "cosmjs-types/cosmos/gov/v1/gov";
import { MsgSoftwareUpgrade } from "cosmjs-types/cosmos/upgrade/v1beta1/tx";
import { loadCore } from "../../../bindings/core/index.js";
import type { Plan } from "../../../bindings/core/types.js";
import { CommitMultiStore } from "../../../bindings/store/rootmulti/store.js";
import type { TestServer } from "../http.js";
import { tempDir } from "../temp.js";
import { RpcFault, serveJsonRpc } from "./rpc-server.js";
import { SyntheticChain, type SyntheticOptions } from "./synthetic.js";

/** simd v0.50's stores (its app hash covers these). */
const SIMD_STORES = [
  "acc",
  "authz",
  "bank",
  "circuit",
  "consensus",
  "crisis",
  "distribution",
  "evidence",
  "feegrant",
  "gov",
  "group",
  "mint",
  "nft",
  "params",
  "slashing",
  "staking",
  "upgrade",
];

export interface SdkState {
  plan?: Plan;
  /** Done records in the seed's layout (01 ‖ name → BE64(height)). */
  seedDone?: { name: string; height: bigint }[];
  /** Module versions; default simd v0.50's twenty. */
  versions?: [string, bigint][];
  protocolVersion?: bigint;
  /** Done records in the SDK's layout. */
  done?: { name: string; height: bigint }[];
  /** A gov proposal in its voting period carrying MsgSoftwareUpgrade. */
  proposal?: { id: bigint; plan: Plan; votingEndNs: bigint };
}

export const SIMD_VERSIONS: [string, bigint][] = [
  ["auth", 5n],
  ["authz", 2n],
  ["bank", 4n],
  ["circuit", 1n],
  ["consensus", 1n],
  ["crisis", 2n],
  ["distribution", 3n],
  ["evidence", 1n],
  ["feegrant", 2n],
  ["genutil", 1n],
  ["gov", 5n],
  ["group", 2n],
  ["mint", 2n],
  ["nft", 1n],
  ["params", 1n],
  ["runtime", 0n],
  ["slashing", 4n],
  ["staking", 5n],
  ["upgrade", 2n],
  ["vesting", 1n],
];

export interface SdkNode extends TestServer {
  chain: SyntheticChain;
  /** The latest state height the store holds (its app hash is in the latest header). */
  stateHeight: bigint;
  /** The node's multistore: a change to its stores is committed with the next block (advance()). */
  stores: CommitMultiStore;
  /** Makes the next block: the store commits the next version (unchanged), the chain's latest header carries its app hash. */
  advance(): Promise<void>;
  /** Makes the next `count` blocks ahead (store versions committed, commits signed) without showing them: advance() then only reveals one. */
  prepare(count: number): Promise<void>;
  close(): Promise<void>;
}

const utf8 = new TextEncoder();
const be64 = (v: bigint) => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, v);
  return b;
};

/** Pairs { repeated Pair pairs = 1 }, Pair { bytes key = 1; bytes value = 2 }. */
function encodePairs(pairs: [Uint8Array, Uint8Array][]): Uint8Array {
  const out: number[] = [];
  const varint = (n: number) => {
    while (n >= 0x80) {
      out.push((n & 0x7f) | 0x80);
      n >>>= 7;
    }
    out.push(n);
  };
  for (const [k, v] of pairs) {
    const inner = [0x0a, ...lenBytes(k.length), ...k, 0x12, ...lenBytes(v.length), ...v];
    out.push(0x0a);
    varint(inner.length);
    out.push(...inner);
  }
  return Uint8Array.from(out);
}

function lenBytes(n: number): number[] {
  const b: number[] = [];
  while (n >= 0x80) {
    b.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  b.push(n);
  return b;
}

export async function syntheticSdkNode(o: { chain: Omit<SyntheticOptions, "appHashAt">; state: SdkState }): Promise<SdkNode> {
  const core = await loadCore("js");
  const latest = o.chain.latest ?? 20n;
  const db = new ClassicLevel<Uint8Array, Uint8Array>(tempDir("xupgrade-light-sdk-"), { keyEncoding: "view", valueEncoding: "view" });
  const ms = await CommitMultiStore.open(db, { sync: false, keepRecent: Infinity });
  for (const name of SIMD_STORES) ms.store(name).set(utf8.encode("seed"), utf8.encode(name));
  const up = ms.store("upgrade");
  const s = o.state;
  if (s.plan) up.set(core.planKey(), core.encodePlan(s.plan));
  for (const [name, v] of s.versions ?? SIMD_VERSIONS) up.set(core.moduleVersionKey(name), core.encodeUint64BE(v));
  if (s.protocolVersion !== undefined) up.set(core.protocolVersionKey(), core.encodeUint64BE(s.protocolVersion));
  for (const d of s.seedDone ?? []) up.set(core.doneKey(d.name), core.encodeInt64BE(d.height));
  for (const d of s.done ?? []) up.set(Uint8Array.of(0x01, ...core.encodeInt64BE(d.height), ...utf8.encode(d.name)), Uint8Array.of(1));
  if (s.proposal) {
    const p = s.proposal;
    const proposal = Proposal.fromPartial({
      id: p.id,
      messages: [
        {
          typeUrl: "/cosmos.upgrade.v1beta1.MsgSoftwareUpgrade",
          value: MsgSoftwareUpgrade.encode({ authority: "gov", plan: { ...p.plan, time: { seconds: 0n, nanos: 0 } } }).finish(),
        },
      ],
      status: ProposalStatus.PROPOSAL_STATUS_VOTING_PERIOD,
      votingEndTime: { seconds: p.votingEndNs / 1_000_000_000n, nanos: Number(p.votingEndNs % 1_000_000_000n) },
      title: "synthetic",
    });
    const gov = ms.store("gov");
    gov.set(Uint8Array.of(0x00, ...be64(p.id)), Proposal.encode(proposal).finish());
    gov.set(Uint8Array.of(0x04, ...be64(p.id)), Uint8Array.of(1));
  }
  let stateHeight = latest - 1n;
  const appHashes = new Map<bigint, Uint8Array>();
  appHashes.set(latest, await ms.commit(stateHeight));
  const chain = new SyntheticChain({ ...o.chain, latest, appHashAt: (h) => appHashes.get(h) ?? utf8.encode(`app/${h}`.padEnd(32, ".")) });

  const abci = (params: Record<string, unknown>): unknown => {
    const path = String(params.path ?? "");
    const data = Uint8Array.from(Buffer.from(String(params.data ?? ""), "hex"));
    const height = params.height === undefined ? stateHeight : BigInt(String(params.height));
    const view = height > stateHeight ? undefined : ms.at(height === 0n ? stateHeight : height);
    const m = /^\/store\/([^/]+)\/(key|subspace)$/.exec(path);
    if (!m) throw new RpcFault(`unknown query path ${path}`);
    if (!view) {
      return {
        response: {
          code: 38,
          codespace: "sdk",
          log: `version does not exist: version mismatch on immutable IAVL tree; version does not exist. Version has either been pruned, or is for a future block height`,
          height: String(height),
        },
      };
    }
    const [, name, kind] = m;
    const answered = String(view.height);
    if (!view.has(name)) return { response: { code: 1, codespace: "sdk", log: `no such store: ${name}`, height: answered } };
    if (kind === "subspace") {
      const store = view.store(name);
      const end = data.length ? Uint8Array.of(...data.slice(0, -1), data[data.length - 1] + 1) : undefined;
      return {
        response: {
          code: 0,
          log: "",
          info: "",
          index: "0",
          key: null,
          value: toBase64(encodePairs([...store.iterate(data, end)])),
          proofOps: null,
          height: answered,
          codespace: "",
        },
      };
    }
    const prove = params.prove === true || params.prove === "true";
    const answer = prove ? view.prove(name, data) : { value: view.store(name).get(data), ops: undefined };
    return {
      response: {
        code: 0,
        log: "",
        info: "",
        index: "0",
        key: toBase64(data),
        value: answer.value ? toBase64(answer.value) : null,
        proofOps: answer.ops ? { ops: answer.ops.map((op) => ({ type: op.type, key: toBase64(op.key), data: toBase64(op.data) })) } : null,
        height: answered,
        codespace: "",
      },
    };
  };

  const server = await serveJsonRpc((method, params) => (method === "abci_query" ? abci(params) : chain.handle(method, params)));
  const closeServer = server.close;
  let made = stateHeight;
  const make = async () => {
    made++;
    appHashes.set(made + 1n, await ms.commit(made));
    // Signed now, before anyone asks: a real node has its commit when it reports the height.
    chain.commit(made + 1n);
  };
  const node = Object.assign(server, {
    chain,
    stateHeight,
    stores: ms,
    advance: async () => {
      if (made === stateHeight) await make();
      stateHeight++;
      node.stateHeight = stateHeight;
      chain.latest = stateHeight + 1n;
    },
    prepare: async (count: number) => {
      for (let i = 0; i < count; i++) await make();
    },
    close: async () => {
      await closeServer();
      await ms.close();
    },
  });
  return node;
}

export const hexOf = (b: Uint8Array) => toHex(b).toUpperCase();
