/**
 * Header verification against real CometBFT v0.38.26 networks (built by `npm run peers`) with its kvstore
 * application: four ed25519 validators of unequal power, one secp256k1 validator on another chain, and a
 * forked one-validator chain (the same genesis and key started twice: two valid histories). The light
 * client reads each node through our RPC provider and through a cosmjs CometClient; a lying proxy in front of
 * the network tampers with what it says; the Go oracle (CometBFT's own light client) judges the same answers.
 * A light client attack — the fork, and a lunatic witness signing with the network's own keys — ends with
 * evidence the honest nodes take (broadcast_evidence answers our hash) and commit in a later block.
 */
import { connectComet } from "@cosmjs/tendermint-rpc";
import { fromHex, toHex } from "@cosmjs/encoding";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LightClient } from "../../bindings/light/client.js";
import { LightClientAttackError } from "../../bindings/light/errors.js";
import { type EvidenceSent, evidenceHash } from "../../bindings/light/evidence.js";
import { headerHash } from "../../bindings/light/header.js";
import { formatTimestamp } from "../../bindings/light/types.js";
import { CometClientProvider } from "../../bindings/light/comet-provider.js";
import { fetchLightBlock } from "../../bindings/light/provider.js";
import { RpcProvider, readSignedHeaderJson } from "../../bindings/light/rpc-provider.js";
import { CometRpc } from "../../bindings/client/rpc.js";
import { uriTransport } from "../../bindings/client/uri-transport.js";
import { missingPeerReason, peerBinaries } from "../../scripts/peers/paths.mjs";
import type { TestServer } from "../support/http.js";
import { cometbftNet, committedEvidence, forkOf, validatorKeys, type CommittedEvidence, type Net } from "../support/light/cometbft-net.js";
import { explain, judge, type JudgeInput, type Judged } from "../support/light/judge.js";
import { lyingNode, type Tampering } from "../support/light/proxy.js";
import { removeTempDirs } from "../support/temp.js";

const cometbft = peerBinaries().cometbft;
const H = (b: Uint8Array) => toHex(b).toUpperCase();

/** The hash of evidence as a node committed it, computed from its JSON (the conflicting header's hash and the common height). */
function committedHash(e: CommittedEvidence["evidence"]): string {
  const v = e.value as { ConflictingBlock: { signed_header: unknown }; CommonHeight: string };
  const sh = readSignedHeaderJson(v.ConflictingBlock.signed_header, "the committed evidence");
  return H(evidenceHash({ conflictingBlock: { hash: headerHash(sh.header)! }, commonHeight: BigInt(v.CommonHeight) }));
}

/** `sent` was taken by the node under our hash, and is committed in one of its blocks from `from` on, as we built it. */
async function expectTakenAndCommitted(sent: EvidenceSent, url: string, from: bigint): Promise<void> {
  expect(sent.sentTo).toBe(url);
  expect(sent.answer).toEqual({ accepted: true, hash: sent.hash });
  const c = await committedEvidence(url, from, (e) => e.type === "tendermint/LightClientAttackEvidence" && committedHash(e) === H(sent.hash));
  expect(c.height).toBeGreaterThanOrEqual(from);
  const v = c.evidence.value as {
    CommonHeight: string;
    ByzantineValidators: { address: string; voting_power: string }[] | null;
    TotalVotingPower: string;
    Timestamp: string;
  };
  expect(v.CommonHeight).toBe(sent.evidence.commonHeight.toString());
  expect((v.ByzantineValidators ?? []).map((b) => `${b.address}:${b.voting_power}`)).toEqual(
    sent.evidence.byzantineValidators.map((b) => `${H(b.address)}:${b.votingPower}`),
  );
  expect(v.TotalVotingPower).toBe(sent.evidence.totalVotingPower.toString());
  expect(v.Timestamp).toBe(formatTimestamp(sent.evidence.timestamp));
}
const missing = missingPeerReason("cometbft");

function expectVerdict(j: Judged, verdict: "verified" | "refused", check?: string): void {
  expect(j.ts.verdict, explain(j)).toBe(verdict);
  if (check) expect(j.ts.check, explain(j)).toBe(check);
  if (j.go) {
    expect(j.go.verdict, explain(j)).toBe(verdict);
    if (check) expect(j.go.kind, explain(j)).toBe(check);
    if (verdict === "verified") expect(j.go.hash).toBe(j.ts.hash);
  }
}

describe.skipIf(!cometbft)(`real CometBFT networks (${cometbft ?? missing})`, () => {
  let four: Net;
  let secp: Net;
  let forkA: Net;
  let forkB: Net;
  const servers: TestServer[] = [];
  /** The trust root every case starts from: height 2 of the four-validator network. */
  let root: { trustHeight: bigint; trustHash: Uint8Array };

  beforeAll(async () => {
    four = await cometbftNet({ cometbft: cometbft!, chainId: "light-four-1", validators: 4, power: (i) => 10 * (i + 1) });
    secp = await cometbftNet({ cometbft: cometbft!, chainId: "light-secp-1", validators: 1, keyType: "secp256k1" });
    forkA = await cometbftNet({ cometbft: cometbft!, chainId: "light-fork-1", validators: 1 });
    forkB = await forkOf(cometbft!, forkA);
    await Promise.all([four.start(), secp.start(), forkA.start(), forkB.start()]);
    const lb = await fetchLightBlock(RpcProvider.of(four.nodes[0].rpcUrl), 2n, four.chainId);
    root = { trustHeight: 2n, trustHash: lb.hash };
    await four.waitForHeight(8n);
  }, 120_000);

  afterAll(async () => {
    await Promise.all(servers.map((s) => s.close()));
    await Promise.all([four, secp, forkA, forkB].map((n) => n?.stop()));
    removeTempDirs();
  });

  const target = async (net: Net, node = 0) => (await net.height(node)) - 1n;

  async function liar(mode: Tampering, other?: string): Promise<string> {
    const l = await lyingNode(four.nodes[0].rpcUrl, { mode, other, above: root.trustHeight });
    servers.push(l);
    return l.url;
  }

  const base = async (extra: Partial<JudgeInput> = {}): Promise<JudgeInput> => ({
    chainId: four.chainId,
    ...root,
    primary: four.nodes[0].rpcUrl,
    target: await target(four),
    ...extra,
  });

  it("verifies the four-validator network's latest header from the root, with another validator as witness", async () => {
    const j = await judge(await base({ witnesses: [four.nodes[3].rpcUrl] }));
    expectVerdict(j, "verified");
    const skip = j.ts.steps.find((s) => s.kind === "skipping")!;
    // Powers 10, 20, 30, 40, signing in set order (by power: 40, 30, …): more than 66 of 100 takes two signatures.
    // The trusted set's 1/3 (more than 33) took the first; each signature is verified once.
    expect(skip.tally).toMatchObject({ total: 100n, needed: 66n, tallied: 70n, signaturesCounted: 2, signaturesVerified: 2 });
    expect(j.ts.steps.some((s) => s.kind === "witness")).toBe(true);
  });

  it("verifies the same header through a cosmjs CometClient", async () => {
    const client = await connectComet(four.nodes[1].rpcUrl);
    try {
      const h = await target(four, 1);
      const light = await LightClient.create(new CometClientProvider(client), {
        chainId: four.chainId,
        trust: { height: root.trustHeight, hash: root.trustHash },
        withoutWitnesses: true,
      });
      const viaCosmjs = await light.verifyAtHeight(h);
      const viaRpc = await fetchLightBlock(RpcProvider.of(four.nodes[1].rpcUrl), h, four.chainId);
      expect(toHex(viaCosmjs.hash)).toBe(toHex(viaRpc.hash));
      // Height 1 (no last block id, cosmjs says null) hashes the same way too.
      const one = await fetchLightBlock(new CometClientProvider(client), 1n, four.chainId);
      expect(toHex(one.hash)).toBe(toHex((await fetchLightBlock(RpcProvider.of(four.nodes[1].rpcUrl), 1n, four.chainId)).hash));
    } finally {
      client.disconnect();
    }
  });

  it("verifies a real secp256k1 validator's commits", async () => {
    const one = await fetchLightBlock(RpcProvider.of(secp.nodes[0].rpcUrl), 1n, secp.chainId);
    expect(one.validatorSet.validators[0].pubKey.secp256k1).toHaveLength(33);
    const j = await judge({ chainId: secp.chainId, trustHeight: 1n, trustHash: one.hash, primary: secp.nodes[0].rpcUrl, target: await target(secp) });
    expectVerdict(j, "verified");
  });

  it("refuses a forged signature (signature)", async () => {
    expectVerdict(await judge(await base({ primary: await liar("forge-signature") })), "refused", "signature");
  });

  it("refuses a commit whose signatures were dropped below 2/3 (voting-power)", async () => {
    const j = await judge(await base({ primary: await liar("drop-signatures") }));
    expectVerdict(j, "refused", "voting-power");
    // The two largest validators' signatures are gone: 20 + 10 of 100 is left.
    expect(j.ts.error).toMatch(/not enough voting power signed: got 30, needed more than 66/);
  });

  it("refuses a header of another chain (chain-id)", async () => {
    const j = await judge(await base({ primary: await liar("other-chain", secp.nodes[0].rpcUrl), target: 4n }));
    expectVerdict(j, "refused", "chain-id");
  });

  it("refuses another validator set (validators-hash)", async () => {
    expectVerdict(await judge(await base({ primary: await liar("other-validators", forkA.nodes[0].rpcUrl), target: 4n })), "refused", "validators-hash");
  });

  it("refuses a root older than the trusting period (trusting-period)", async () => {
    expectVerdict(await judge(await base({ trustingPeriodNs: 1_000_000_000n })), "refused", "trusting-period");
  });

  it("refuses a trusted hash the network never had (trusted-hash)", async () => {
    expectVerdict(await judge(await base({ trustHash: fromHex("AB".repeat(32)) })), "refused", "trusted-hash");
  });

  it("catches a fork: the primary's header and the witness's both verify from the shared root — a light client attack; each side takes and commits the evidence against the other", async () => {
    const one = await fetchLightBlock(RpcProvider.of(forkA.nodes[0].rpcUrl), 1n, forkA.chainId);
    const other = await fetchLightBlock(RpcProvider.of(forkB.nodes[0].rpcUrl), 1n, forkB.chainId);
    expect(toHex(other.hash)).toBe(toHex(one.hash));
    const h = [await target(forkA), await target(forkB)].reduce((a, b) => (a < b ? a : b));
    const j = await judge({
      chainId: forkA.chainId,
      trustHeight: 1n,
      trustHash: one.hash,
      primary: forkB.nodes[0].rpcUrl,
      witnesses: [forkA.nodes[0].rpcUrl],
      target: h,
    });
    expectVerdict(j, "refused", "witness");
    expect(j.ts.errorClass).toBe("LightClientAttackError");
    expect(j.ts.error).toContain("a light client attack");
    const e = j.ts.thrown as LightClientAttackError;
    const [againstPrimary, againstWitness] = e.evidence;
    // One validator signed both blocks at height h: an equivocation (an amnesia if one side needed another round),
    // dated at h, the validator named unless the rounds differ.
    for (const sent of e.evidence) {
      expect(sent.evidence.commonHeight).toBe(h);
      const sameRound =
        againstPrimary.evidence.conflictingBlock.signedHeader.commit.round === againstWitness.evidence.conflictingBlock.signedHeader.commit.round;
      expect(sent.kind).toBe(sameRound ? "equivocation" : "amnesia");
      expect(sent.evidence.byzantineValidators.map((v) => H(v.address))).toEqual(sameRound ? [H(one.validatorSet.validators[0].address)] : []);
    }
    expect(H(againstPrimary.evidence.conflictingBlock.hash)).toBe(H(e.primaryHash));
    expect(H(againstWitness.evidence.conflictingBlock.hash)).toBe(H(e.witnessHash));
    await expectTakenAndCommitted(againstPrimary, forkA.nodes[0].rpcUrl, h);
    await expectTakenAndCommitted(againstWitness, forkB.nodes[0].rpcUrl, h);
    // Through the transport a page uses (CometBFT's URI form over GET, a POST for a broadcast): the same answer.
    const asPage = new RpcProvider(new CometRpc(forkA.nodes[0].rpcUrl, 15_000, uriTransport));
    expect(H(await asPage.reportEvidence(againstPrimary.evidence))).toBe(H(againstPrimary.hash));
  });

  it("catches a lunatic witness — a proxy serving another app hash, signed with the network's own keys: the honest primary takes the evidence against it and commits it; the node behind the liar refuses the evidence accusing its own block", async () => {
    const liar = await lyingNode(four.nodes[0].rpcUrl, { mode: "lunatic", above: root.trustHeight, signers: validatorKeys(four) });
    servers.push(liar);
    const primary = four.nodes[1].rpcUrl;
    const from = await four.height(1);
    // A height both node 1 and node 0 (behind the liar) have.
    const h = [await target(four, 0), await target(four, 1)].reduce((a, b) => (a < b ? a : b));
    const j = await judge(await base({ primary, witnesses: [liar.url], target: h }));
    expectVerdict(j, "refused", "witness");
    expect(j.ts.errorClass).toBe("LightClientAttackError");
    expect(liar.tampered).toBeGreaterThan(0);
    const e = j.ts.thrown as LightClientAttackError;
    const [againstPrimary, againstWitness] = e.evidence;
    const rootSet = (await fetchLightBlock(RpcProvider.of(primary), root.trustHeight, four.chainId)).validatorSet;
    // The lie is the witness's header: another app hash, signed by all four — a lunatic attack from the root, whose
    // validators (by power: 40, 30, 20, 10) all signed it.
    expect(againstWitness.kind).toBe("lunatic");
    expect(againstWitness.evidence.commonHeight).toBe(root.trustHeight);
    expect(againstWitness.evidence.byzantineValidators.map((v) => v.votingPower)).toEqual([40n, 30n, 20n, 10n]);
    expect(againstWitness.evidence.byzantineValidators.map((v) => H(v.address))).toEqual(rootSet.validators.map((v) => H(v.address)));
    expect(againstWitness.evidence.totalVotingPower).toBe(100n);
    await expectTakenAndCommitted(againstWitness, primary, from);
    // The evidence accusing the honest block went to the liar, which passed it to the honest node 0.
    expect(againstPrimary.sentTo).toBe(liar.url);
    expect(againstPrimary.answer.accepted).toBe(false);
    expect(!againstPrimary.answer.accepted && againstPrimary.answer.error).toMatch(/trusted header hash matches the evidence's conflicting header hash/);
  });
});
