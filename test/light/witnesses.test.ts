/**
 * The light client's options and witnesses (docs/spec/light-client.md §4.7): the trust level is CometBFT's range;
 * a client without witnesses refuses to start unless told to run without; each witness of a verified header is
 * named as confirming it, as faulty (it answered something malformed or unverifiable) or as unavailable (it
 * could not answer), with its reason — and when none confirms, the error lists both groups.
 */
import { afterAll, describe, expect, it } from "vitest";
import { LightClient, type LightClientOptions, type VerificationStep } from "../../bindings/light/client.js";
import { NoWitnessConfirmedError, NoWitnessesError, TrustOptionsError, VerificationError } from "../../bindings/light/errors.js";
import { RpcProvider } from "../../bindings/light/rpc-provider.js";
import { httpServer, type TestServer } from "../support/http.js";
import { freePorts } from "../../bindings/base/ports.js";
import { lyingNode } from "../support/light/proxy.js";
import { RpcFault, serveJsonRpc } from "../support/light/rpc-server.js";
import { SyntheticChain, syntheticKey } from "../support/light/synthetic.js";

const servers: TestServer[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

async function up<T extends TestServer>(s: Promise<T>): Promise<T> {
  const server = await s;
  servers.push(server);
  return server;
}

/** Nothing listens there: connection refused. */
const UNREACHABLE = `http://127.0.0.1:${(await freePorts(1))[0]}`;

const chainOf = (chainId: string, o: { seed?: string; latest?: bigint; genesisNs?: bigint; available?: (h: bigint) => boolean } = {}) => {
  const keys = Array.from({ length: 4 }, (_, i) => syntheticKey(o.seed ?? chainId, i));
  return new SyntheticChain({
    chainId,
    valsetAt: () => keys.map((key) => ({ key, power: 10n })),
    latest: o.latest ?? 25n,
    genesisNs: o.genesisNs,
    available: o.available,
  });
};

const rootOf = (chain: SyntheticChain): Pick<LightClientOptions, "chainId" | "trust"> => ({
  chainId: chain.chainId,
  trust: { height: 1n, hash: chain.hash(1n) },
});

async function refusal(p: Promise<unknown>): Promise<VerificationError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  if (!(e instanceof VerificationError)) throw new Error(`expected a VerificationError, got ${String(e)}`);
  return e;
}

describe("the trust level: CometBFT's ValidateTrustLevel, 1/3 ≤ level ≤ 1", () => {
  const chain = chainOf("level-1");
  it.each([
    [0n, 1n, "the trust level 0/1 must be within [1/3, 1]: below 1/3, every validator a skip trusts could be faulty"],
    [1n, 4n, "the trust level 1/4 must be within [1/3, 1]: below 1/3, every validator a skip trusts could be faulty"],
    [2n, 1n, "the trust level 2/1 must be within [1/3, 1]: above 1, no commit could carry enough of the trusted power"],
    [1n, 0n, "the trust level 1/0 has a zero denominator"],
    [-1n, 3n, "the trust level -1/3 must be within [1/3, 1]: it is negative"],
  ])("%s/%s is refused before any node is asked", async (numerator, denominator, message) => {
    const e = await refusal(
      LightClient.create(RpcProvider.of(UNREACHABLE), { ...rootOf(chain), trustLevel: { numerator, denominator }, withoutWitnesses: true }),
    );
    expect(e).toBeInstanceOf(TrustOptionsError);
    expect(e.check).toBe("trust-options");
    expect(e.message).toBe(message);
  });

  it("numbers where bigints belong are refused, not miscounted", async () => {
    const trustLevel = { numerator: 1, denominator: 3 } as unknown as LightClientOptions["trustLevel"];
    const e = await refusal(LightClient.create(RpcProvider.of(UNREACHABLE), { ...rootOf(chain), trustLevel, withoutWitnesses: true }));
    expect(e.message).toBe("the trust level's numerator and denominator must be bigints (1n/3n), got 1/3");
  });

  it("1/3 and 2/3 skip straight to the header; 1/1 can never skip (more than all the trusted power cannot sign), so every step is adjacent", async () => {
    const short = chainOf("level-2", { latest: 8n });
    const url = (await up(short.serve())).url;
    const stepsAt = async (numerator: bigint, denominator: bigint) => {
      const steps: VerificationStep[] = [];
      const client = await LightClient.create(RpcProvider.of(url), {
        ...rootOf(short),
        trustLevel: { numerator, denominator },
        withoutWitnesses: true,
        onStep: (s) => steps.push(s),
      });
      await client.verifyAtHeight(8n);
      return steps.filter((s) => s.kind !== "root").map((s) => s.kind);
    };
    expect(await stepsAt(1n, 3n)).toEqual(["skipping"]);
    expect(await stepsAt(2n, 3n)).toEqual(["skipping"]);
    expect(await stepsAt(1n, 1n)).toEqual(Array(7).fill("adjacent"));
  });
});

describe("witnesses are required, as in CometBFT's client", () => {
  const chain = chainOf("required-1");

  it("a client without witnesses refuses to start, saying how to give one and how to opt out", async () => {
    const e = await refusal(LightClient.create(RpcProvider.of(UNREACHABLE), rootOf(chain)));
    expect(e).toBeInstanceOf(NoWitnessesError);
    expect(e.check).toBe("witness");
    expect(e.message).toContain("give one (witnesses: [<another node>])");
    expect(e.message).toContain("opt out explicitly (withoutWitnesses: true)");
    // An empty list is no witness either.
    expect(await refusal(LightClient.create(RpcProvider.of(UNREACHABLE), { ...rootOf(chain), witnesses: [] }))).toBeInstanceOf(NoWitnessesError);
  });

  it("opting out runs on the primary's word alone, and the client says so", async () => {
    const url = (await up(chain.serve())).url;
    const client = await LightClient.create(RpcProvider.of(url), { ...rootOf(chain), withoutWitnesses: true });
    await client.verifyAtHeight(25n);
    expect(client.withoutWitnesses).toBe(true);
    expect(client.witnesses).toEqual([]);
    expect(client.witnessReport(25n)).toBeUndefined();
  });

  it("opting out while giving witnesses is a contradiction, refused", async () => {
    const e = await refusal(
      LightClient.create(RpcProvider.of(UNREACHABLE), { ...rootOf(chain), witnesses: [RpcProvider.of(UNREACHABLE)], withoutWitnesses: true }),
    );
    expect(e).toBeInstanceOf(TrustOptionsError);
    expect(e.message).toBe("withoutWitnesses is set, but 1 witness was given: drop one or the other");
  });

  it("the client tells which witnesses confirmed each height it compared with them: the root and each verified target, not the headers in between", async () => {
    // A validator window sliding by one every 5 heights: 1 → 20 takes a header in between (11).
    const keys = Array.from({ length: 12 }, (_, i) => syntheticKey("confirm-1", i));
    const sliding = new SyntheticChain({
      chainId: "confirm-1",
      valsetAt: (h) => keys.slice(Number((h - 1n) / 5n), Number((h - 1n) / 5n) + 4).map((key) => ({ key, power: 10n })),
      latest: 30n,
    });
    const [p, w1, w2] = await Promise.all([up(sliding.serve()), up(sliding.serve()), up(sliding.serve())]);
    const steps: VerificationStep[] = [];
    const client = await LightClient.create(RpcProvider.of(p.url), {
      ...rootOf(sliding),
      witnesses: [RpcProvider.of(w1.url), RpcProvider.of(w2.url)],
      onStep: (s) => steps.push(s),
    });
    await client.verifyAtHeight(20n);
    expect(client.withoutWitnesses).toBe(false);
    expect(client.witnesses).toEqual([w1.url, w2.url]);
    for (const h of [1n, 20n]) expect(client.witnessReport(h)).toEqual({ confirmed: [w1.url, w2.url], faulty: [], unavailable: [] });
    expect(client.trustedAt(11n)).toBeDefined();
    expect(client.witnessReport(11n)).toBeUndefined();
    expect(steps.filter((s) => s.kind === "witness").map((s) => `${s.height} ${s.witness}`)).toEqual([
      `1 ${w1.url}`,
      `1 ${w2.url}`,
      `20 ${w1.url}`,
      `20 ${w2.url}`,
    ]);
  });
});

describe("a witness that does not confirm is named faulty or unavailable, with its reason", () => {
  const honest = chainOf("named-1");
  /** Every kind of witness that does not confirm height 25, by label: [label, group, reason]. */
  async function badWitnesses(): Promise<[string, "faulty" | "unavailable", string | RegExp][]> {
    const honestUrl = (await up(honest.serve())).url;
    const unreadable = await up(
      serveJsonRpc((method, params) => (method === "commit" && params.height === "25" ? { signed_header: { header: 7 } } : honest.handle(method, params))),
    );
    const notJson = await up(
      httpServer((_req, res) => {
        res.writeHead(502, { "content-type": "text/html" });
        res.end("<html>bad gateway</html>");
      }),
    );
    const otherChain = await up(chainOf("elsewhere-1").serve());
    const impostors = await up(chainOf("named-1", { seed: "impostors" }).serve());
    const otherValidators = await up(lyingNode(honestUrl, { mode: "other-validators", other: impostors.url, above: 1n }));
    // The same root, then headers the impostors signed: the conflicting header does not verify from the root.
    const impostor = await up(lyingNode(honestUrl, { mode: "fork", other: impostors.url, above: 1n }));
    const lagging = await up(chainOf("named-1", { latest: 20n, genesisNs: honest.genesisNs }).serve());
    const pruned = await up(chainOf("named-1", { genesisNs: honest.genesisNs, available: (h) => h !== 25n }).serve());
    const failing = await up(
      serveJsonRpc((method, params) => {
        if (method === "commit" && params.height === "25") throw new RpcFault("database is locked");
        return honest.handle(method, params);
      }),
    );
    const H = (b: Uint8Array) => Buffer.from(b).toString("hex").toUpperCase();
    return [
      [unreadable.url, "faulty", "invalid answer to commit: result.signed_header.header is not an object"],
      [notJson.url, "faulty", /^invalid response from the node to commit: HTTP 502, not JSON/],
      [otherChain.url, "faulty", `its light block fails its own checks: the header belongs to chain "elsewhere-1", not "named-1"`],
      [otherValidators.url, "faulty", /^its light block fails its own checks: validators_hash [0-9A-F]{64} does not match the validator set the node supplied/],
      [
        impostor.url,
        "faulty",
        new RegExp(
          `^its header [0-9A-F]{64} at height 25 conflicts with the primary's ${H(honest.hash(25n))} and does not verify \\(at height 2: validators_hash`,
        ),
      ],
      [UNREACHABLE, "unavailable", "cannot reach the node: connection refused (is the node running?)"],
      [lagging.url, "unavailable", "it has not reached height 25 (its latest is 20)"],
      [pruned.url, "unavailable", "commit: height 25 is not available, lowest height is 1"],
      [failing.url, "unavailable", "commit: database is locked"],
    ];
  }

  function expectNamed(list: readonly { witness: string; reason: string }[], expected: [string, string | RegExp][]): void {
    expect(list.map((f) => f.witness)).toEqual(expected.map(([w]) => w));
    list.forEach((f, i) => {
      const want = expected[i][1];
      if (typeof want === "string") expect(f.reason, f.witness).toBe(want);
      else expect(f.reason, f.witness).toMatch(want);
    });
  }

  it("none confirming: verification fails with both groups listed, each witness by name and reason", async () => {
    const bad = await badWitnesses();
    const client = await LightClient.create(RpcProvider.of((await up(honest.serve())).url), {
      ...rootOf(honest),
      witnesses: bad.map(([url]) => RpcProvider.of(url)),
      maxBlockLagMs: 300,
    });
    const e = await refusal(client.verifyAtHeight(25n));
    expect(e).toBeInstanceOf(NoWitnessConfirmedError);
    const err = e as NoWitnessConfirmedError;
    expect(err.check).toBe("witness");
    expect(err.height).toBe(25n);
    expectNamed(
      err.faulty,
      bad.filter(([, g]) => g === "faulty").map(([w, , r]) => [w, r]),
    );
    expectNamed(
      err.unavailable,
      bad.filter(([, g]) => g === "unavailable").map(([w, , r]) => [w, r]),
    );
    expect(err.message).toMatch(/^at height 25: no witness confirmed the header — faulty: .* — unavailable: /);
    for (const [url] of bad) expect(err.message).toContain(url);
    expect(client.latestTrusted.height).toBe(1n);
  });

  it("one confirming: the header is verified, and the others are still named (report and steps)", async () => {
    const bad = await badWitnesses();
    const good = await up(honest.serve());
    const steps: VerificationStep[] = [];
    const client = await LightClient.create(RpcProvider.of((await up(honest.serve())).url), {
      ...rootOf(honest),
      witnesses: [...bad.map(([url]) => RpcProvider.of(url)), RpcProvider.of(good.url)],
      maxBlockLagMs: 300,
      onStep: (s) => steps.push(s),
    });
    await client.verifyAtHeight(25n);
    const report = client.witnessReport(25n)!;
    expect(report.confirmed).toEqual([good.url]);
    expectNamed(
      report.faulty,
      bad.filter(([, g]) => g === "faulty").map(([w, , r]) => [w, r]),
    );
    expectNamed(
      report.unavailable,
      bad.filter(([, g]) => g === "unavailable").map(([w, , r]) => [w, r]),
    );
    const at25 = steps.filter((s) => s.height === 25n && s.kind.startsWith("witness"));
    expect(at25.map((s) => `${s.kind} ${s.witness}`).sort()).toEqual([`witness ${good.url}`, ...bad.map(([url, g]) => `witness-${g} ${url}`)].sort());
    expect(at25.every((s) => s.kind === "witness" || s.reason)).toBe(true);
  });
});
