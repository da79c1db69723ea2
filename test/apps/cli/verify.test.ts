/**
 * `xupgrade query upgrade … --verify` (docs/spec/light-client.md §9.2), the real CLI against a synthetic SDK node
 * (a synthetic chain's signed headers over a real commit multistore): trust is never taken silently (no root →
 * refused; first use only when asked, and then said in every output and kept in the trust file until a root is
 * given), a witness is required unless opted out, a stale latest header is refused unless the chain is proven
 * halted for an upgrade, the forged-range attack is refused, and `applied` prints no unproven field as verified.
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { toHex } from "@cosmjs/encoding";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TestServer } from "../../support/http.js";
import { forgedRangeNode } from "../../support/light/forged-range.js";
import { call } from "../../support/light/proxy.js";
import { serveJsonRpc } from "../../support/light/rpc-server.js";
import { syntheticSdkNode, type SdkNode } from "../../support/light/synthetic-sdk.js";
import { formatTimestamp } from "../../../bindings/light/types.js";
import { builtCliMain, removeTempDirs, runCli, tempDir } from "./helpers.js";

const CHAIN = "sdk-cli-1";
const PLAN = { name: "v2", height: 5_000n, info: "" };
let node: SdkNode;
let witness: TestServer;
/** A chain whose latest header is two hours old, and one halted two hours ago at its plan's height. */
let stale: SdkNode;
let halted: SdkNode;
const servers: TestServer[] = [];
const HOUR_NS = 3_600_000_000_000n;

beforeAll(async () => {
  node = await syntheticSdkNode({ chain: { chainId: CHAIN, validators: 4, latest: 30n }, state: { plan: PLAN, done: [{ name: "v1", height: 12n }] } });
  witness = await node.chain.serve();
  const old = BigInt(Date.now()) * 1_000_000n - 2n * HOUR_NS - 30n * 1_000_000_000n;
  stale = await syntheticSdkNode({ chain: { chainId: "sdk-stale-1", validators: 4, latest: 30n, genesisNs: old }, state: { plan: PLAN } });
  halted = await syntheticSdkNode({
    chain: { chainId: "sdk-halted-1", validators: 4, latest: 30n, genesisNs: old },
    state: { plan: { name: "v3", height: 30n, info: "" } },
  });
  servers.push(witness);
  builtCliMain(); // the CLI transpiled once, before the first test's clock starts
}, 120_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  await Promise.all([node, stale, halted].map((n) => n?.close()));
  removeTempDirs();
});

const rootFlags = (n: SdkNode, h = 3n) => ["--trust-height", h.toString(), "--trust-hash", toHex(n.chain.hash(h)).toUpperCase()];
const plan = (args: string[]) => runCli(["query", "upgrade", "plan", "--verify", ...args]);

describe("trust is never taken silently", () => {
  it("without a root (flags or a saved one) it refuses, says how to get one, and writes nothing", async () => {
    const home = tempDir("xupgrade-verify-");
    const r = await plan(["--node", node.url, "--witness", witness.url, "--home", home]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    const last = r.stderr.trim().split("\n").at(-1)!;
    expect(last).toMatch(/^Error: no trust root for chain "sdk-cli-1" \(.*sdk-cli-1\.json does not exist\): pass --trust-height and --trust-hash, /);
    expect(last).toContain("--trust-on-first-use");
    expect(existsSync(join(home, "light", `${CHAIN}.json`))).toBe(false);
    // With neither a root nor a witness, both are said at once, the root first.
    const bare = await plan(["--node", node.url, "--home", home]);
    expect(bare.code).toBe(1);
    expect(bare.stderr.trim().split("\n").at(-1)).toMatch(/^Error: no trust root for chain "sdk-cli-1" .*; and --verify needs at least one witness: /);
  });

  it("requires a witness, or --without-witnesses, which every output then reports", async () => {
    const home = tempDir("xupgrade-verify-");
    const none = await plan([...rootFlags(node), "--node", node.url, "--home", home]);
    expect(none.code).toBe(1);
    expect(none.stderr).toMatch(/Error: --verify needs at least one witness: --witness <rpc> .* or pass --without-witnesses/);
    const alone = await plan([...rootFlags(node), "--node", node.url, "--home", home, "--without-witnesses", "-o", "json"]);
    expect(alone.code, alone.stderr).toBe(0);
    const v = JSON.parse(alone.stdout).verification;
    expect(v.witnesses).toEqual([]);
    expect(v.warnings).toContain("no witness confirmed the header (--without-witnesses): verified against one node");
    expect(alone.stderr).toMatch(/no witness: verified against this node alone \(--without-witnesses\)/);
    expect(alone.stderr).toMatch(/^verified: plan "v2" at height 29, .*, 1 store proof, no witness$/m);
  });

  it("trusts on first use only when asked, says so in text and JSON, keeps it in the trust file, and forgets it once a root is given", async () => {
    const home = tempDir("xupgrade-verify-");
    const file = join(home, "light", `${CHAIN}.json`);
    const first = await plan(["--trust-on-first-use", "--node", node.url, "--witness", witness.url, "--home", home, "-o", "json"]);
    expect(first.code, first.stderr).toBe(0);
    const v = JSON.parse(first.stdout).verification;
    expect(v.trust_root).toMatchObject({ source: "first-use", confirmed: false, height: "30" });
    expect(v.warnings[0]).toMatch(
      /^UNCONFIRMED TRUST ROOT: trust began on first use: the node http:\/\/127\.0\.0\.1:\d+'s own header at height 30 \([0-9A-F]{64}\) was taken unverified/,
    );
    expect(first.stderr).toMatch(/^verified: plan "v2" .*, confirmed by 1 witness, UNCONFIRMED trust root$/m);
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ chain_id: CHAIN, confirmed: false, origin: { how: "first-use", height: "30" } });

    // The next run starts from the saved root, and still says it was never confirmed (text output too).
    const again = await plan(["--node", node.url, "--witness", witness.url, "--home", home]);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toMatch(/^verification:\n/m);
    expect(again.stdout).toMatch(/^ {2}trust_root:\n {4}confirmed: false\n/m);
    expect(again.stdout).toMatch(/^ {4}source: saved$/m);
    expect(again.stdout).toContain("UNCONFIRMED TRUST ROOT");

    // A root the user gives confirms it from then on.
    const given = await plan([...rootFlags(node, 5n), "--node", node.url, "--witness", witness.url, "--home", home, "-o", "json"]);
    expect(given.code, given.stderr).toBe(0);
    expect(JSON.parse(given.stdout).verification).toMatchObject({ trust_root: { source: "given", confirmed: true }, warnings: [] });
    expect(JSON.parse(readFileSync(file, "utf8"))).toMatchObject({ confirmed: true, origin: { how: "given", height: "5" } });
    const later = await plan(["--node", node.url, "--witness", witness.url, "--home", home, "-o", "json"]);
    expect(JSON.parse(later.stdout).verification.trust_root).toMatchObject({ source: "saved", confirmed: true });
  });

  it("a witness that answers garbage is named faulty, one that is down unavailable; the one that confirmed suffices", async () => {
    const garbage = await serveJsonRpc((method, params) => (method === "commit" ? { signed_header: "not a header" } : call(node.url, method, params)));
    const down = await serveJsonRpc(() => Promise.reject(new Error("closed")));
    servers.push(garbage);
    await down.close();
    const r = await plan([
      ...rootFlags(node),
      "--node",
      node.url,
      "--witness",
      witness.url,
      "--witness",
      garbage.url,
      "--witness",
      down.url,
      "--home",
      tempDir("xupgrade-verify-"),
      "-o",
      "json",
    ]);
    expect(r.code, r.stderr).toBe(0);
    const v = JSON.parse(r.stdout).verification;
    expect(v.witnesses).toEqual([witness.url]);
    expect(v.warnings).toEqual([
      expect.stringMatching(new RegExp(`^witness ${garbage.url} is faulty: `)),
      expect.stringMatching(new RegExp(`^witness ${down.url} did not answer: `)),
    ]);
    expect(r.stderr).toMatch(new RegExp(`^witness ${garbage.url} is faulty: `, "m"));
  });

  it("witnesses that only do not answer leave the answer not verified, not called a lie; a faulty one is a failure", async () => {
    const down = await serveJsonRpc(() => Promise.reject(new Error("closed")));
    await down.close();
    const garbage = await serveJsonRpc((method, params) => (method === "commit" ? { signed_header: "not a header" } : call(node.url, method, params)));
    servers.push(garbage);
    const args = (...witnesses: string[]) => [
      ...rootFlags(node),
      "--node",
      node.url,
      ...witnesses.flatMap((w) => ["--witness", w]),
      "--home",
      tempDir("xupgrade-verify-"),
    ];

    const silent = await plan(args(down.url));
    expect(silent.code).toBe(1);
    expect(silent.stdout).toBe("");
    expect(silent.stderr.trim().split("\n").at(-1)).toMatch(
      new RegExp(`^Error: not verified: at height \\d+: no witness confirmed the header — unavailable: ${down.url.replace(/[.?*+^$()[\]{}|\\]/g, "\\$&")}`),
    );

    const lying = await plan(args(down.url, garbage.url));
    expect(lying.code).toBe(1);
    expect(lying.stdout).toBe("");
    expect(lying.stderr.trim().split("\n").at(-1)).toMatch(/^Error: verification failed: at height \d+: no witness confirmed the header — faulty: /);
  });

  it("--trust-on-first-use beside a given root is refused", async () => {
    const r = await plan(["--trust-on-first-use", ...rootFlags(node), "--node", node.url, "--witness", witness.url, "--home", tempDir("xupgrade-verify-")]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/--trust-on-first-use and --trust-height\/--trust-hash contradict each other/);
  });
});

describe("freshness", () => {
  it("every answer states the verified header's height, time and age", async () => {
    const r = await plan([...rootFlags(node), "--node", node.url, "--witness", witness.url, "--home", tempDir("xupgrade-verify-"), "-o", "json"]);
    const h = JSON.parse(r.stdout).verification.header;
    expect(h).toMatchObject({ chain_id: CHAIN, height: "30", time: formatTimestamp(node.chain.header(30n).time) });
    expect(h.age).toMatch(/^\d+ (s|min( \d+ s)?)$/);
  });

  it("a latest header older than --max-age is refused (freshness); --max-age 0 accepts it and says how old", async () => {
    const w = await stale.chain.serve();
    servers.push(w);
    const args = [...rootFlags(stale), "--node", stale.url, "--witness", w.url, "--home", tempDir("xupgrade-verify-")];
    const r = await plan(args);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n").at(-1)).toMatch(
      /^Error: verification failed: at height 30: the node's latest header is from \S+, 2 h( \d+ min)? ago, older than the freshness bound \(10 min\): the node is behind/,
    );
    const any = await plan([...args, "--max-age", "0", "-o", "json"]);
    expect(any.code, any.stderr).toBe(0);
    expect(JSON.parse(any.stdout).verification.header.age).toMatch(/^2 h/);
  });

  it("a chain halted for an upgrade is a legitimate state: said from verified data, not refused", async () => {
    const w = await halted.chain.serve();
    servers.push(w);
    const r = await plan([...rootFlags(halted), "--node", halted.url, "--witness", w.url, "--home", tempDir("xupgrade-verify-"), "-o", "json"]);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ name: "v3", height: "30", verification: { halted: { height: "30", upgrade: "v3" } } });
    expect(r.stderr).toMatch(/^no block since \S+ \(2 h( \d+ min)? ago\): the chain halted at height 30 for upgrade "v3" \(proven\)$/m);
  });
});

describe("the forged range is refused", () => {
  it("module_versions --verify: an absence proof with an invented neighbour stacked on the genuine one", async () => {
    const liar = await forgedRangeNode(node.url, {
      prefix: Uint8Array.of(0x02),
      invented: [{ key: Uint8Array.of(0x02, ...new TextEncoder().encode("evil")), value: new Uint8Array([0, 0, 0, 0, 0, 0, 3, 231]) }],
    });
    servers.push(liar);
    const r = await runCli([
      "query",
      "upgrade",
      "module_versions",
      "--verify",
      ...rootFlags(node),
      "--node",
      liar.url,
      "--witness",
      witness.url,
      "--home",
      tempDir("xupgrade-verify-"),
    ]);
    expect(liar.forged).toBeGreaterThan(0);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n").at(-1)).toMatch(
      /^Error: verification failed: at height 30: the proof of upgrade key 0x02 \(absent\) does not hold against the verified app hash: proof op 0 \(ics23:iavl\): the proof is not canonically encoded: /,
    );
  });
});

describe("applied --verify prints no unproven field as verified", () => {
  /** A node that alters header.time and app_hash in block records (keeping the block id) — in `only` answers. */
  async function alteringNode(only: (params: Record<string, unknown>) => boolean): Promise<TestServer> {
    const liar = await serveJsonRpc(async (method, params) => {
      if (method === "block") return { block_id: {}, block: { data: { txs: [] } } };
      const result = await call(node.url, method, params);
      if (method === "blockchain" && only(params)) {
        for (const m of result.block_metas as { header: { time: string; app_hash: string }; block_size: string }[]) {
          m.header.time = "2001-01-01T00:00:00Z";
          m.header.app_hash = "AB".repeat(32);
          m.block_size = "4242";
        }
      }
      return result;
    });
    servers.push(liar);
    return liar;
  }

  it("the block record comes from the verified header; num_txs from the transactions that hash to data_hash; block_size is labelled unverified", async () => {
    // The record of one height, as the plain query asks for it, is altered; the headers the hash chain follows are not.
    const liar = await alteringNode((p) => p.minHeight === p.maxHeight);
    const r = await runCli([
      "query",
      "upgrade",
      "applied",
      "v1",
      "--verify",
      ...rootFlags(node),
      "--node",
      liar.url,
      "--witness",
      witness.url,
      "--home",
      tempDir("xupgrade-verify-"),
    ]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    const h = node.chain.header(12n);
    expect(out.header).toMatchObject({ height: "12", time: formatTimestamp(h.time), app_hash: toHex(h.appHash).toUpperCase(), chain_id: CHAIN });
    expect(out.block_id.hash).toBe(toHex(node.chain.hash(12n)).toUpperCase());
    expect(out.num_txs).toBe("0");
    expect(out).not.toHaveProperty("block_size");
    expect(out.verification.unverified).toEqual({ block_size: "4242" });
    expect(r.stderr).toMatch(
      /^verified: the block record of height 12 \([0-9A-F]{64}\), by the hash chain down from header 30, its 0 transactions by its data_hash$/m,
    );
  });

  it("altered headers on the hash chain itself are refused (last-block-id)", async () => {
    const liar = await alteringNode(() => true);
    const r = await runCli([
      "query",
      "upgrade",
      "applied",
      "v1",
      "--verify",
      ...rootFlags(node),
      "--node",
      liar.url,
      "--witness",
      witness.url,
      "--home",
      tempDir("xupgrade-verify-"),
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n").at(-1)).toMatch(
      /^Error: verification failed: at height 29: the header hashes to [0-9A-F]{64}, but the verified header above it names [0-9A-F]{64} as its last block$/,
    );
  });

  it("transactions that do not hash to the verified data_hash are refused", async () => {
    const liar = await serveJsonRpc(async (method, params) => {
      if (method === "block") return { block_id: {}, block: { data: { txs: [Buffer.from("a forged transaction").toString("base64")] } } };
      return call(node.url, method, params);
    });
    servers.push(liar);
    const r = await runCli([
      "query",
      "upgrade",
      "applied",
      "v1",
      "--verify",
      ...rootFlags(node),
      "--node",
      liar.url,
      "--witness",
      witness.url,
      "--home",
      tempDir("xupgrade-verify-"),
    ]);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim().split("\n").at(-1)).toMatch(
      /^Error: verification failed: at height 12: the 1 transactions the node gave hash to [0-9A-F]{64}, not the verified header's data_hash [0-9A-F]{64}$/,
    );
  });
});
