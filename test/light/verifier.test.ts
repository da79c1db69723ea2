/**
 * Header verification on synthetic chains served over JSON-RPC on loopback (docs/spec/light-client.md §4):
 * adjacent and skipping steps, bisection through validator-set changes, secp256k1 validators, a ZIP-215-only
 * signature, and every failure with its own check. Each case is judged again by the Go oracle (CometBFT's own
 * light client, test/peers/light-oracle) from the very answers the node gave; both verdicts must agree, and
 * so must the name of the failed check.
 */
import { fromHex } from "@cosmjs/encoding";
import { sha256 } from "@noble/hashes/sha2.js";
import { afterAll, describe, expect, it } from "vitest";
import { LightClient } from "../../bindings/light/client.js";
import { RpcProvider } from "../../bindings/light/rpc-provider.js";
import { verifyEd25519Noble, verifySignatures } from "../../bindings/light/signatures.js";
import { timestampFromNs } from "../../bindings/light/types.js";
import type { TestServer } from "../support/http.js";
import { explain, judge, type JudgeInput, type Judged } from "../support/light/judge.js";
import { oracleMissing } from "../support/light/oracle.js";
import { lyingNode } from "../support/light/proxy.js";
import { serveJsonRpc } from "../support/light/rpc-server.js";
import { SyntheticChain, syntheticKey, type Member } from "../support/light/synthetic.js";

const servers: TestServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function serve(chain: SyntheticChain): Promise<string> {
  const s = await chain.serve();
  servers.push(s);
  return s.url;
}

const missing = oracleMissing();

/** Both verdicts, and the failed check's name on both sides. */
function expectVerdict(j: Judged, verdict: "verified" | "refused", check?: string): void {
  expect(j.ts.verdict, explain(j)).toBe(verdict);
  if (check) expect(j.ts.check, explain(j)).toBe(check);
  if (j.go) {
    expect(j.go.verdict, explain(j)).toBe(verdict);
    if (check) expect(j.go.kind, explain(j)).toBe(check);
    if (verdict === "verified") expect(j.go.hash).toBe(j.ts.hash);
  }
}

const rootOf = (chain: SyntheticChain, height = 1n) => ({ chainId: chain.chainId, trustHeight: height, trustHash: chain.hash(height) });

it.skipIf(!missing)("the Go oracle is built (else each case below is judged by xupgrade alone)", () => undefined);
it.skipIf(!!missing)(`the Go oracle is built: ${missing ?? ""}`, () => undefined);

describe("honest chains", () => {
  it("skips from the root straight to a header when the validators did not change", async () => {
    const chain = new SyntheticChain({ chainId: "honest-1", validators: 4, latest: 30n });
    const j = await judge({ ...rootOf(chain), primary: await serve(chain), target: 30n });
    expectVerdict(j, "verified");
    expect(j.ts.steps.map((s) => `${s.kind} ${s.from}→${s.height}`)).toEqual(["root 1→1", "skipping 1→30"]);
    // 4 validators of power 10: more than 26 of 40 needs 3 signatures; the first 2 were verified already for the
    // trusted set's 1/3 (more than 13), each signature once.
    expect(j.ts.steps[1].tally).toEqual({ tallied: 30n, needed: 26n, total: 40n, signaturesCounted: 3, signaturesVerified: 3 });
  });

  it("verifies the next height as adjacent (its validators are the ones the trusted header announced)", async () => {
    const chain = new SyntheticChain({ chainId: "honest-2", validators: 7, latest: 5n });
    const j = await judge({ ...rootOf(chain, 3n), primary: await serve(chain), target: 4n });
    expectVerdict(j, "verified");
    expect(j.ts.steps.map((s) => s.kind)).toEqual(["root", "adjacent"]);
  });

  it("bisects when the trusted validators hold 1/3 or less of the new commit, and each verified header becomes a root", async () => {
    // A window of 4 validators sliding by one every 5 heights: at height 20 only one of the root's 4 still signs.
    const keys = Array.from({ length: 12 }, (_, i) => syntheticKey("sliding", i));
    const valsetAt = (h: bigint): Member[] => keys.slice(Number((h - 1n) / 5n), Number((h - 1n) / 5n) + 4).map((key) => ({ key, power: 10n }));
    const chain = new SyntheticChain({ chainId: "sliding-1", valsetAt, latest: 40n });
    const url = await serve(chain);
    const j = await judge({ ...rootOf(chain), primary: url, target: 20n });
    expectVerdict(j, "verified");
    // 1 + (20 − 1)·9/16 = 11: the root's set holds half of height 11's, which holds 3/4 of height 20's.
    expect(j.ts.steps.map((s) => `${s.kind} ${s.from}→${s.height}`)).toEqual(["root 1→1", "skipping 1→11", "skipping 11→20"]);

    // A client keeps what it verified: the next height starts from 20, not from the root.
    const client = await LightClient.create(RpcProvider.of(url), {
      chainId: chain.chainId,
      trust: { height: 1n, hash: chain.hash(1n) },
      withoutWitnesses: true,
    });
    await client.verifyAtHeight(20n);
    const steps: string[] = [];
    const again = await LightClient.create(RpcProvider.of(url), {
      chainId: chain.chainId,
      trust: { height: 1n, hash: chain.hash(1n) },
      withoutWitnesses: true,
      onStep: (s) => steps.push(`${s.kind} ${s.from}→${s.height}`),
    });
    await again.verifyAtHeight(20n);
    await again.verifyAtHeight(24n);
    expect(steps.slice(-1)).toEqual(["skipping 20→24"]);
    expect(again.latestTrusted.height).toBe(24n);
    expect(again.trustedAt(11n)?.height).toBe(11n);
  });

  it("gets through a complete change of validators by bisecting down to the adjacent header that announced it", async () => {
    const a = Array.from({ length: 4 }, (_, i) => syntheticKey("old-set", i));
    const b = Array.from({ length: 5 }, (_, i) => syntheticKey("new-set", i));
    const chain = new SyntheticChain({ chainId: "rotation-1", valsetAt: (h) => (h < 10n ? a : b).map((key) => ({ key, power: 7n })), latest: 20n });
    const j = await judge({ ...rootOf(chain), primary: await serve(chain), target: 20n });
    expectVerdict(j, "verified");
    expect(j.ts.steps.map((s) => `${s.kind} ${s.from}→${s.height}`)).toContain("adjacent 9→10");
  });

  it("verifies headers below a verified one backwards, by the hash chain of last block ids (no signatures)", async () => {
    const chain = new SyntheticChain({ chainId: "backwards-1", validators: 4, latest: 60n });
    const url = await serve(chain);
    const client = await LightClient.create(RpcProvider.of(url), {
      chainId: chain.chainId,
      trust: { height: 40n, hash: chain.hash(40n) },
      withoutWitnesses: true,
    });
    await client.verifyAtHeight(60n);
    const r = await client.verifyBackwards(3n);
    expect(r.hash).toEqual(chain.hash(3n));
    // Between the root and the latest: from the nearest verified header above (60), not from the root.
    expect((await client.verifyBackwards(51n)).hash).toEqual(chain.hash(51n));
    await expect(client.verifyBackwards(1n, 1n)).rejects.toThrow(/blocks below the nearest verified one/);
    // A node that slips another chain's header into the hash chain is caught at that height.
    const other = new SyntheticChain({ chainId: "backwards-1", validators: 3, latest: 60n, genesisNs: chain.genesisNs });
    const mixed = await serveJsonRpc((method, params) => {
      const answer = chain.handle(method, params) as { block_metas?: { header: { height: string } }[] };
      if (method === "blockchain") {
        const forged = other.handle(method, params) as { block_metas: { header: { height: string } }[] };
        answer.block_metas = answer.block_metas!.map((m, i) => (m.header.height === "30" ? forged.block_metas[i] : m));
      }
      return answer;
    });
    servers.push(mixed);
    const fooled = await LightClient.create(RpcProvider.of(mixed.url), {
      chainId: chain.chainId,
      trust: { height: 40n, hash: chain.hash(40n) },
      withoutWitnesses: true,
    });
    await expect(fooled.verifyBackwards(25n)).rejects.toMatchObject({ check: "last-block-id", height: 30n });
  });

  it("verifies secp256k1 validators (compact low-S signatures over sha256)", async () => {
    const keys = Array.from({ length: 4 }, (_, i) => syntheticKey("secp", i, "secp256k1"));
    const chain = new SyntheticChain({ chainId: "secp-1", valsetAt: () => keys.map((key, i) => ({ key, power: BigInt(5 + i) })), latest: 12n });
    const url = await serve(chain);
    expectVerdict(await judge({ ...rootOf(chain), primary: url, target: 12n }), "verified");
    const liar = await lyingNode(url, { mode: "forge-signature", above: 1n });
    servers.push(liar);
    expectVerdict(await judge({ ...rootOf(chain), primary: liar.url, target: 12n }), "refused", "signature");
  });

  it("counts a signature that only ZIP-215 accepts, as CometBFT does (WebCrypto refuses it, noble decides)", async () => {
    // The identity as the public key, and the identity encoded non-canonically (x = −0) as R, with S = 0:
    // [8]R = [8]([S]B − [k]A) holds for any message, and RFC 8032's strict rules refuse the encoding of R.
    const identity = fromHex("01" + "00".repeat(31));
    const sig = fromHex("01" + "00".repeat(30) + "80" + "00".repeat(32));
    const msg = new TextEncoder().encode("any vote");
    expect(verifyEd25519Noble(identity, msg, sig)).toBe(true);
    const webcrypto = await crypto.subtle
      .importKey("raw", identity, { name: "Ed25519" }, false, ["verify"])
      .then((k) => crypto.subtle.verify("Ed25519", k, sig, msg))
      .catch(() => false);
    expect(webcrypto).toBe(false);
    expect(await verifySignatures([{ type: "ed25519", key: identity, message: msg, signature: sig }])).toEqual([true]);
  });
});

describe("a lying node is refused, each time for its own reason", () => {
  const fixed = (chainId: string, seed = chainId, n = 4, latest = 25n) => {
    const keys = Array.from({ length: n }, (_, i) => syntheticKey(seed, i));
    return new SyntheticChain({ chainId, valsetAt: () => keys.map((key) => ({ key, power: 10n })), latest });
  };

  async function throughLiar(
    chain: SyntheticChain,
    mode: NonNullable<Parameters<typeof lyingNode>[1]>["mode"],
    other?: SyntheticChain,
    extra: Partial<JudgeInput> = {},
  ) {
    const liar = await lyingNode(await serve(chain), { mode, above: 1n, other: other ? await serve(other) : undefined });
    servers.push(liar);
    const j = await judge({ ...rootOf(chain), primary: liar.url, target: 25n, ...extra });
    expect(liar.tampered).toBeGreaterThan(0);
    return j;
  }

  it("a forged signature: the signature check", async () => {
    expectVerdict(await throughLiar(fixed("forge-1"), "forge-signature"), "refused", "signature");
  });

  it("signatures dropped below 2/3 (the skip itself is trusted: 2 of 4 signed) — the voting-power check", async () => {
    const j = await throughLiar(fixed("drop-1"), "drop-signatures");
    expectVerdict(j, "refused", "voting-power");
    expect(j.ts.error).toBe("at height 25: not enough voting power signed: got 20, needed more than 26 (2/3 of the set)");
  });

  it("a header of another chain id: the chain-id check", async () => {
    const j = await throughLiar(fixed("home-1"), "other-chain", fixed("elsewhere-1"));
    expectVerdict(j, "refused", "chain-id");
    expect(j.ts.error).toBe('at height 25: the header belongs to chain "elsewhere-1", not "home-1"');
  });

  it("another validator set than the header's: the validators-hash check", async () => {
    expectVerdict(await throughLiar(fixed("vals-1"), "other-validators", fixed("vals-1", "impostors")), "refused", "validators-hash");
  });

  it("a header signed by validators the trusted ones never handed power to: bisection reaches the adjacent header, whose validators were not announced", async () => {
    // The impostor chain has the same chain id and heights; only its validators differ. Every header in between
    // is the impostors', so bisection goes down to height 2, where the set is not the one height 1 announced.
    const j = await throughLiar(fixed("takeover-1"), "fork", fixed("takeover-1", "impostors"));
    expectVerdict(j, "refused", "next-validators-hash");
  });

  it("the same, from a node that keeps no header in between: the trust-level check stands", async () => {
    const impostors = fixed("takeover-2", "impostors");
    const sparse = new SyntheticChain({
      chainId: "takeover-2",
      valsetAt: (h) => impostors.valset(h).members,
      available: (h) => h === 1n || h === 25n,
      latest: 25n,
    });
    const j = await throughLiar(fixed("takeover-2"), "fork", sparse);
    expectVerdict(j, "refused", "trust-level");
    expect(j.ts.error).toBe("at height 25: the trusted validators signed too little of the new header: got 0, needed more than 13 (1/3 of the trusted set)");
  });

  it("a trusted hash the node's header does not have: the trusted-hash check", async () => {
    const chain = fixed("root-1");
    const j = await judge({ ...rootOf(chain), trustHash: sha256(new Uint8Array(1)), primary: await serve(chain), target: 25n });
    expectVerdict(j, "refused", "trusted-hash");
  });

  it("a trust root older than the trusting period: the trusting-period check", async () => {
    const chain = fixed("old-1");
    const j = await judge({ ...rootOf(chain), primary: await serve(chain), target: 25n, trustingPeriodNs: 3_000_000_000n });
    expectVerdict(j, "refused", "trusting-period");
    expect(j.ts.error).toMatch(/^at height 1: the trusted header expired at \S+Z \(now \S+Z\); obtain a newer trust root$/);
  });

  it("a header from the future (beyond the allowed clock drift): the clock-drift check", async () => {
    const chain = new SyntheticChain({ chainId: "future-1", genesisNs: BigInt(Date.now()) * 1_000_000n, intervalNs: 60_000_000_000n, latest: 10n });
    const now = timestampFromNs(chain.timeNs(2n));
    expectVerdict(await judge({ ...rootOf(chain), primary: await serve(chain), target: 10n, now }), "refused", "clock-drift");
  });

  it("an adjacent header whose validators are not the ones announced before it: the next-validators-hash check", async () => {
    const keys = Array.from({ length: 4 }, (_, i) => syntheticKey("announce", i));
    // Height 5 announces a set with one more validator than the one that signs height 6.
    const announced = new SyntheticChain({ chainId: "x", valsetAt: () => [...keys, syntheticKey("announce", 9)].map((key) => ({ key, power: 10n })) })
      .valset(1n)
      .set.hash();
    const chain = new SyntheticChain({
      chainId: "announce-1",
      valsetAt: () => keys.map((key) => ({ key, power: 10n })),
      nextValidatorsHashAt: (h) => (h === 5n ? announced : undefined),
      latest: 8n,
    });
    expectVerdict(await judge({ ...rootOf(chain, 5n), primary: await serve(chain), target: 6n }), "refused", "next-validators-hash");
  });

  it("a witness with another valid header at the same height: a light client attack, both hashes named", async () => {
    const honest = fixed("forked-1");
    const fork = new SyntheticChain({
      chainId: "forked-1",
      valsetAt: (h) => honest.valset(h).members,
      appHashAt: (h) => (h <= 3n ? sha256(new TextEncoder().encode(`app/${h}`)) : sha256(new TextEncoder().encode(`forked/${h}`))),
      genesisNs: honest.genesisNs,
      latest: 25n,
    });
    expect(fork.hash(3n)).toEqual(honest.hash(3n));
    const j = await judge({ ...rootOf(honest), primary: await serve(fork), witnesses: [await serve(honest)], target: 25n });
    expectVerdict(j, "refused", "witness");
    expect(j.ts.errorClass).toBe("LightClientAttackError");
    expect(j.ts.error).toContain(
      `primary ${Buffer.from(fork.hash(25n)).toString("hex").toUpperCase()}, witness ${Buffer.from(honest.hash(25n)).toString("hex").toUpperCase()}`,
    );
    expect(j.ts.error).toContain("a light client attack");
  });

  it("a witness that cannot be reached confirms nothing: the witness check", async () => {
    const chain = fixed("lonely-1");
    const j = await judge({ ...rootOf(chain), primary: await serve(chain), witnesses: ["http://127.0.0.1:9"], target: 25n });
    expectVerdict(j, "refused", "witness");
    expect(j.ts.errorClass).toBe("NoWitnessConfirmedError");
  });

  it("a witness that agrees confirms the header", async () => {
    const chain = fixed("confirmed-1");
    const j = await judge({ ...rootOf(chain), primary: await serve(chain), witnesses: [await serve(chain)], target: 25n });
    expectVerdict(j, "verified");
    // At the root, and at the verified header.
    expect(j.ts.steps.filter((s) => s.kind === "witness").map((s) => s.height)).toEqual([1n, 25n]);
  });
});
