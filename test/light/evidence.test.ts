/**
 * Light client attack evidence on synthetic chains (docs/spec/light-client.md §4.7): a primary and a witness with
 * two valid histories — a lunatic fork (another app hash) found through bisection, an equivocation, an amnesia
 * (another round), a forward lunatic primary (a header beyond the witness's latest, earlier in time) — each
 * refused as an attack, with CometBFT's evidence against each side sent to the other. The evidence's fields are
 * checked here; each node answers broadcast_evidence through the evidence oracle (CometBFT's own JSON decoding,
 * hash and evidence-pool checks against that node's chain), which must accept it with the hash computed here,
 * read the same kind and byzantine validators, and write the same JSON.
 */
import { toHex } from "@cosmjs/encoding";
import { connectComet } from "@cosmjs/tendermint-rpc";
import { sha256 } from "@noble/hashes/sha2.js";
import { afterAll, describe, expect, it } from "vitest";
import { evidenceJson } from "../../bindings/light/cmtjson.js";
import { LightClient } from "../../bindings/light/client.js";
import { CometClientProvider } from "../../bindings/light/comet-provider.js";
import { LightClientAttackError, VerificationError } from "../../bindings/light/errors.js";
import { type EvidenceSent, evidenceHash } from "../../bindings/light/evidence.js";
import { RpcProvider } from "../../bindings/light/rpc-provider.js";
import { timestampFromNs } from "../../bindings/light/types.js";
import type { TestServer } from "../support/http.js";
import { lyingNode } from "../support/light/proxy.js";
import {
  type EvidenceCase,
  type EvidenceVerdict,
  evidenceCase,
  evidenceOracleMissing,
  oracleEvidencePool,
  runEvidenceOracle,
} from "../support/light/evidence-oracle.js";
import { SyntheticChain, syntheticKey, type SyntheticKey, type SyntheticOptions } from "../support/light/synthetic.js";

const missing = evidenceOracleMissing();
const servers: TestServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

const H = (b: Uint8Array) => toHex(b).toUpperCase();
const utf8 = new TextEncoder();

interface Node {
  chain: SyntheticChain;
  url: string;
  /** What the evidence oracle said of each piece of evidence this node received. */
  seen: { case: EvidenceCase; verdict: EvidenceVerdict }[];
}

/** A synthetic node whose broadcast_evidence is CometBFT's evidence pool over its own chain (refused when the oracle is not built). */
async function node(o: SyntheticOptions): Promise<Node> {
  const seen: Node["seen"] = [];
  const chain: SyntheticChain = new SyntheticChain({ ...o, acceptEvidence: missing ? undefined : oracleEvidencePool(() => chain, seen) });
  const s = await chain.serve();
  servers.push(s);
  return { chain, url: s.url, seen };
}

/** The primary's header at `target`, with `witness` as the only witness: an attack, resolved to its error. */
async function attack(primary: Node, witness: Node, target: bigint): Promise<LightClientAttackError> {
  const client = await LightClient.create(RpcProvider.of(primary.url), {
    chainId: primary.chain.chainId,
    trust: { height: 1n, hash: witness.chain.hash(1n) },
    witnesses: [RpcProvider.of(witness.url)],
    maxBlockLagMs: 500,
  });
  const e = await client.verifyAtHeight(target).then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(LightClientAttackError);
  const err = e as LightClientAttackError;
  expect(err).toBeInstanceOf(VerificationError);
  expect(err.check).toBe("witness");
  expect(err.attack).toBe(true);
  // Nothing the attack touched is trusted.
  expect(client.latestTrusted.height).toBe(1n);
  return err;
}

const addresses = (keys: SyntheticKey[]) => keys.map((k) => H(k.address)).sort();

/** What must hold of one piece of evidence, and what the node it went to (through CometBFT's code) said of it. */
function expectEvidence(
  sent: EvidenceSent,
  want: {
    against: "primary" | "witness";
    to: Node;
    conflicting: Uint8Array;
    kind: string;
    commonHeight: bigint;
    timeOf: SyntheticChain;
    byzantine: SyntheticKey[];
  },
): void {
  const ev = sent.evidence;
  expect(sent.against).toBe(want.against);
  expect(sent.sentTo).toBe(want.to.url);
  expect(sent.kind).toBe(want.kind);
  expect(H(ev.conflictingBlock.hash)).toBe(H(want.conflicting));
  expect(ev.commonHeight).toBe(want.commonHeight);
  expect(ev.timestamp).toEqual(timestampFromNs(want.timeOf.timeNs(want.commonHeight)));
  expect(ev.totalVotingPower).toBe(40n);
  // Every validator has power 10: CometBFT's order is then by address.
  expect(ev.byzantineValidators.map((v) => H(v.address))).toEqual(addresses(want.byzantine));
  expect(H(sent.hash)).toBe(H(evidenceHash(ev)));
  if (missing) return;
  expect(sent.answer).toEqual({ accepted: true, hash: sent.hash });
  const seen = want.to.seen.find((s) => s.verdict.hash === H(sent.hash));
  expect(seen, `no evidence ${H(sent.hash)} reached ${want.to.url}`).toBeDefined();
  const v = seen!.verdict;
  expect(v.valid_basic).toBe("ok");
  expect(v.verify).toBe("ok");
  expect(v.kind).toBe(want.kind);
  expect([...v.byzantine].sort()).toEqual(addresses(want.byzantine));
  // cmtjson writes back exactly what was sent.
  expect(v.reencoded).toEqual(evidenceJson(ev));
}

it.skipIf(!missing)("the evidence oracle is built (else each node refuses the evidence, and only its fields are checked)", () => undefined);
it.skipIf(!!missing)(`the evidence oracle is built: ${missing ?? ""}`, () => undefined);

describe("light client attack evidence, as CometBFT's detector builds it", () => {
  const keysOf = (seed: string, n: number) => Array.from({ length: n }, (_, i) => syntheticKey(seed, i));

  it("lunatic: a fork with another app hash from height 15, found by bisection — the common height is the last header both traces share", async () => {
    // A validator window sliding by one every 5 heights: the primary's trace from 1 to 20 takes 11 in between.
    const keys = keysOf("lunatic-1", 12);
    const windowAt = (h: bigint) => keys.slice(Number((h - 1n) / 5n), Number((h - 1n) / 5n) + 4);
    const valsetAt = (h: bigint) => windowAt(h).map((key) => ({ key, power: 10n }));
    const honest = await node({ chainId: "lunatic-1", valsetAt, latest: 30n });
    const appHashAt = (h: bigint) => sha256(utf8.encode(h < 15n ? `app/${h}` : `forked/${h}`));
    const liar = await node({ chainId: "lunatic-1", valsetAt, appHashAt, genesisNs: honest.chain.genesisNs, latest: 30n });
    expect(H(liar.chain.hash(11n))).toBe(H(honest.chain.hash(11n)));

    const e = await attack(liar, honest, 20n);
    expect(e.evidence).toHaveLength(2);
    expect(e.unexamined).toBeUndefined();
    // The signers of the conflicting header (the window at 20: keys 3–6) that were validators at the common height 11 (keys 2–5).
    const byzantine = windowAt(20n).filter((k) => windowAt(11n).includes(k));
    expect(byzantine).toHaveLength(3);
    expectEvidence(e.evidence[0], {
      against: "primary",
      to: honest,
      conflicting: liar.chain.hash(20n),
      kind: "lunatic",
      commonHeight: 11n,
      timeOf: honest.chain,
      byzantine,
    });
    expectEvidence(e.evidence[1], {
      against: "witness",
      to: liar,
      conflicting: honest.chain.hash(20n),
      kind: "lunatic",
      commonHeight: 11n,
      timeOf: liar.chain,
      byzantine,
    });
    expect(e.message).toMatch(
      /^at height 20: witness \S+ has a conflicting header: primary [0-9A-F]{64}, witness [0-9A-F]{64} — both are signed by the trusted validators: a light client attack \(or a fork\)\. Evidence against the primary \(lunatic, common height 11, 3 byzantine validators, hash [0-9A-F]{64}\), sent to \S+: /,
    );
  });

  it("equivocation: the same validators signed two valid blocks at one height in one round — the common height is the conflict's own, every signer of both is named", async () => {
    const keys = keysOf("equivocation-1", 4);
    const valsetAt = () => keys.map((key) => ({ key, power: 10n }));
    const honest = await node({ chainId: "equivocation-1", valsetAt, latest: 25n });
    // The same state, other block times from height 2: two histories, both valid transitions.
    const liar = await node({
      chainId: "equivocation-1",
      valsetAt,
      genesisNs: honest.chain.genesisNs,
      timeAt: (h) => honest.chain.timeNs(h) + (h > 1n ? 1_000_000n : 0n),
      latest: 25n,
    });

    const e = await attack(liar, honest, 25n);
    expectEvidence(e.evidence[0], {
      against: "primary",
      to: honest,
      conflicting: liar.chain.hash(25n),
      kind: "equivocation",
      commonHeight: 25n,
      timeOf: honest.chain,
      byzantine: keys,
    });
    expectEvidence(e.evidence[1], {
      against: "witness",
      to: liar,
      conflicting: honest.chain.hash(25n),
      kind: "equivocation",
      commonHeight: 25n,
      timeOf: liar.chain,
      byzantine: keys,
    });
  });

  it.skipIf(!!missing)(
    "the evidence pool refuses each field changed: a byzantine validator left out, another total power, another time, a signature past the threshold",
    async () => {
      const keys = keysOf("tampered-1", 4);
      const valsetAt = () => keys.map((key) => ({ key, power: 10n }));
      const honest = await node({ chainId: "tampered-1", valsetAt, latest: 25n });
      const liar = await node({
        chainId: "tampered-1",
        valsetAt,
        genesisNs: honest.chain.genesisNs,
        timeAt: (h) => honest.chain.timeNs(h) + (h > 1n ? 1_000_000n : 0n),
        latest: 25n,
      });
      const ev = (await attack(liar, honest, 25n)).evidence[0].evidence;
      const verdict = async (changed: typeof ev) => (await runEvidenceOracle(evidenceCase(honest.chain, evidenceJson(changed)))).verify;
      expect(await verdict(ev)).toBe("ok");
      expect(await verdict({ ...ev, byzantineValidators: ev.byzantineValidators.slice(1) })).toBe("expected 4 byzantine validators from evidence but got 3");
      expect(await verdict({ ...ev, totalVotingPower: 41n })).toBe("total voting power from the evidence and our validator set does not match (41 != 40)");
      expect(await verdict({ ...ev, timestamp: timestampFromNs(honest.chain.timeNs(25n) + 1n) })).toMatch(
        /^evidence has a different time to the block it is associated with/,
      );
      // A signature the threshold does not need is checked too: evidence is verified whole (…AllSignatures).
      const sh = ev.conflictingBlock.signedHeader;
      const signatures = sh.commit.signatures.map((sig, i) => (i === 3 ? { ...sig, signature: sig.signature.map((b, j) => (j === 0 ? b ^ 1 : b)) } : sig));
      const forged = { ...ev, conflictingBlock: { ...ev.conflictingBlock, signedHeader: { ...sh, commit: { ...sh.commit, signatures } } } };
      expect(await verdict(forged)).toMatch(/^invalid commit from conflicting block: wrong signature \(#3\)/);
    },
  );

  it("amnesia: the same, committed in another round — no validator can be named", async () => {
    const keys = keysOf("amnesia-1", 4);
    const valsetAt = () => keys.map((key) => ({ key, power: 10n }));
    const honest = await node({ chainId: "amnesia-1", valsetAt, latest: 25n });
    const liar = await node({
      chainId: "amnesia-1",
      valsetAt,
      genesisNs: honest.chain.genesisNs,
      timeAt: (h) => honest.chain.timeNs(h) + (h > 1n ? 1_000_000n : 0n),
      roundAt: (h) => (h === 25n ? 1 : 0),
      latest: 25n,
    });

    const e = await attack(liar, honest, 25n);
    expectEvidence(e.evidence[0], {
      against: "primary",
      to: honest,
      conflicting: liar.chain.hash(25n),
      kind: "amnesia",
      commonHeight: 25n,
      timeOf: honest.chain,
      byzantine: [],
    });
    expectEvidence(e.evidence[1], {
      against: "witness",
      to: liar,
      conflicting: honest.chain.hash(25n),
      kind: "amnesia",
      commonHeight: 25n,
      timeOf: liar.chain,
      byzantine: [],
    });
    expect((evidenceJson(e.evidence[0].evidence) as { value: { ByzantineValidators: unknown } }).value.ByzantineValidators).toBeNull();
  });

  it("forward lunatic: the primary's header is beyond the witness's latest, yet earlier in time — the witness's latest is the conflict", async () => {
    const keys = keysOf("forward-1", 4);
    const valsetAt = () => keys.map((key) => ({ key, power: 10n }));
    const honest = await node({ chainId: "forward-1", valsetAt, latest: 25n });
    // The same chain to height 20, then blocks 1 ms apart: height 30 is earlier than the honest height 25.
    const liar = await node({
      chainId: "forward-1",
      valsetAt,
      genesisNs: honest.chain.genesisNs,
      timeAt: (h) => (h <= 20n ? honest.chain.timeNs(h) : honest.chain.timeNs(20n) + (h - 20n) * 1_000_000n),
      latest: 30n,
    });
    expect(liar.chain.timeNs(30n)).toBeLessThan(honest.chain.timeNs(25n));

    const e = await attack(liar, honest, 30n);
    expect(H(e.witnessHash)).toBe(H(honest.chain.hash(25n)));
    // Against the primary: its height 30 (another app hash than the honest 25) from the common root — the honest
    // node, which has not reached 30, checks it against its latest header.
    expectEvidence(e.evidence[0], {
      against: "primary",
      to: honest,
      conflicting: liar.chain.hash(30n),
      kind: "lunatic",
      commonHeight: 1n,
      timeOf: honest.chain,
      byzantine: keys,
    });
    // Against the witness: its height 25 against the primary's 25, a valid transition of the same state.
    expectEvidence(e.evidence[1], {
      against: "witness",
      to: liar,
      conflicting: honest.chain.hash(25n),
      kind: "equivocation",
      commonHeight: 25n,
      timeOf: liar.chain,
      byzantine: keys,
    });
  });

  it("a witness read through a cosmjs CometClient cannot take evidence (cosmjs has no broadcast_evidence), and the attack error says so", async () => {
    const keys = keysOf("cosmjs-1", 4);
    const valsetAt = () => keys.map((key) => ({ key, power: 10n }));
    const honest = await node({ chainId: "cosmjs-1", valsetAt, latest: 25n });
    const liar = await node({
      chainId: "cosmjs-1",
      valsetAt,
      genesisNs: honest.chain.genesisNs,
      appHashAt: (h) => sha256(utf8.encode(h > 1n ? `other/${h}` : `app/${h}`)),
      latest: 25n,
    });
    const comet = await connectComet(honest.url);
    try {
      const client = await LightClient.create(RpcProvider.of(liar.url), {
        chainId: "cosmjs-1",
        trust: { height: 1n, hash: honest.chain.hash(1n) },
        witnesses: [new CometClientProvider(comet, "the cosmjs witness")],
      });
      const e = await client.verifyAtHeight(25n).then(
        () => undefined,
        (err: unknown) => err,
      );
      expect(e).toBeInstanceOf(LightClientAttackError);
      const [againstPrimary, againstWitness] = (e as LightClientAttackError).evidence;
      expect(againstPrimary.sentTo).toBe("the cosmjs witness");
      expect(againstPrimary.answer).toEqual({
        accepted: false,
        error:
          "node the cosmjs witness: cannot report evidence: a cosmjs CometClient has no broadcast_evidence call (give this node as an RPC URL to report to it)",
      });
      expect(againstWitness.sentTo).toBe(liar.url);
    } finally {
      comet.disconnect();
    }
  });

  it("lunatic witness: a proxy in front of an honest node signs another app hash with the validators' keys; the honest node takes the evidence against it and refuses the evidence accusing its own block", async () => {
    const keys = keysOf("accused-1", 4);
    const honest = await node({ chainId: "accused-1", valsetAt: () => keys.map((key) => ({ key, power: 10n })), latest: 25n });
    const proxy = await lyingNode(honest.url, { mode: "lunatic", above: 1n, signers: keys });
    servers.push(proxy);
    const lies = { chain: honest.chain, url: proxy.url, seen: honest.seen };

    const e = await attack(honest, lies, 25n);
    expect(proxy.tampered).toBeGreaterThan(0);
    const [againstPrimary, againstWitness] = e.evidence;
    // The lie: height 25 with another app hash, signed by all four.
    expect(againstWitness.evidence.conflictingBlock.signedHeader.header.appHash).toEqual(sha256(utf8.encode("lunatic/25")));
    expectEvidence(againstWitness, {
      against: "witness",
      to: honest,
      conflicting: againstWitness.evidence.conflictingBlock.hash,
      kind: "lunatic",
      commonHeight: 1n,
      timeOf: honest.chain,
      byzantine: keys,
    });
    // The evidence against the honest block went to the proxy, which hands it to the honest node.
    expect(againstPrimary.sentTo).toBe(proxy.url);
    expect(H(againstPrimary.evidence.conflictingBlock.hash)).toBe(H(honest.chain.hash(25n)));
    if (missing) return;
    expect(againstPrimary.answer.accepted).toBe(false);
    expect(!againstPrimary.answer.accepted && againstPrimary.answer.error).toMatch(
      /failed to add evidence: trusted header hash matches the evidence's conflicting header hash/,
    );
    expect(e.message).toContain(`sent to ${proxy.url}: not taken (`);
    expect(e.message).toMatch(/sent to \S+: accepted$/);
  });
});
