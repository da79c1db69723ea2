/** The light-client page's pure parts in Node: plan info, ETA, Pairs decoding with both cores, comparison, addresses. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadCore } from "../../../bindings/browser.js";
import { devnetUiRoutes } from "../../../bindings/apps/devnet/node/ui.js";
import { compareAppVersion, compareStates } from "../../../examples/light-client/src/compare.js";
import { averageBlockMs, eta, formatDuration, parseTime } from "../../../examples/light-client/src/eta.js";
import { checksumOf, parseInfo } from "../../../examples/light-client/src/info.js";
import { observeVersions, planNames, rememberPlanName, versionsBefore } from "../../../examples/light-client/src/history.js";
import { failed, ok, type UpgradeState } from "../../../examples/light-client/src/model.js";
import { Problem, parseBaseUrl } from "../../../examples/light-client/src/net.js";
import { decodePairs, doneLayoutText, hex, readRawState } from "../../../examples/light-client/src/raw.js";
import type { RpcClient } from "../../../examples/light-client/src/rpc.js";
import { BrowserRootStore } from "../../../examples/light-client/src/root-store.js";
import { parseRoot } from "../../../examples/light-client/src/view-trust.js";
import { DEFAULT_MAX_AGE, maxAgeMs, resolveTrustRoot, type SavedRoot } from "../../../bindings/light/trust-root.js";
import type { LightProvider } from "../../../bindings/light/provider.js";

const fromHex = (h: string) => Uint8Array.from(h.match(/../g) ?? [], (b) => parseInt(b, 16));

/** cosmos.base.kv.v1beta1.Pairs of (key, value) hex pairs (every length under 128, one varint byte). */
function pairs(list: [string, string][]): Uint8Array {
  const field = (no: number, bytes: Uint8Array) => [(no << 3) | 2, bytes.length, ...bytes];
  return Uint8Array.from(list.flatMap(([k, v]) => field(1, Uint8Array.from([...field(1, fromHex(k)), ...field(2, fromHex(v))]))));
}

/** An RpcClient whose abci_query answers from raw upgrade-store bytes: /store/upgrade/key by key, /store/upgrade/subspace by prefix. */
function storeRpc(store: { key?: Record<string, string>; subspace: Record<string, [string, string][]> }, height = 60n): RpcClient {
  return {
    abciQuery: async (path: string, data: string) => ({
      value: path === "/store/upgrade/key" ? fromHex(store.key?.[data] ?? "") : pairs(store.subspace[data] ?? []),
      height,
    }),
  } as unknown as RpcClient;
}

/** simd v0.50's done record of the real upgrade v047-to-v050 at height 45: 01 ‖ BE64(45) ‖ name → 01. */
const SIMD_DONE: [string, string] = ["01000000000000002d763034372d746f2d76303530", "01"];

describe("plan info", () => {
  it("lists cosmovisor binaries (key case-insensitive, platforms sorted) with their checksums", () => {
    const info = JSON.stringify({
      Binaries: { "linux/arm64": "https://x/a.tar.gz?checksum=sha256:ab&archive=tar.gz", any: "https://x/b.zip" },
    });
    expect(parseInfo(info)).toEqual({
      kind: "binaries",
      binaries: [
        { platform: "any", url: "https://x/b.zip", checksum: undefined },
        { platform: "linux/arm64", url: "https://x/a.tar.gz?checksum=sha256:ab&archive=tar.gz", checksum: "sha256:ab" },
      ],
    });
  });

  it("an empty info, a URL, free text and JSON without binaries", () => {
    expect(parseInfo("  ")).toEqual({ kind: "empty" });
    expect(parseInfo("https://x/info.json?checksum=sha512:cd")).toEqual({ kind: "url", url: "https://x/info.json?checksum=sha512:cd", checksum: "sha512:cd" });
    expect(parseInfo("upgrade to v2, see the forum")).toEqual({ kind: "text", text: "upgrade to v2, see the forum" });
    expect(parseInfo('{"other":1}')).toMatchObject({ kind: "text", note: 'JSON without a "binaries" object' });
    expect(parseInfo('{"binaries":{}}')).toMatchObject({ kind: "text", note: 'no "binaries" entries' });
    expect(parseInfo("[1]")).toMatchObject({ kind: "text", note: "JSON, but not an object" });
    expect(checksumOf("https://x/y?a=1&checksum=sha256%3Aab#f")).toBe("sha256:ab");
    expect(checksumOf("https://x/y?checksum=")).toBeUndefined();
  });
});

describe("ETA", () => {
  it("averages recent block times and counts down from when the height was seen", () => {
    const times = ["2021-04-10T04:37:57.1Z", "2021-04-10T04:37:57.085493838Z", "2021-04-10T04:37:57.3Z"].map(parseTime);
    expect(times[1]).toBe(Date.parse("2021-04-10T04:37:57.085Z"));
    expect(averageBlockMs(times)).toBeCloseTo(107.5, 5);
    expect(averageBlockMs([1000])).toBeUndefined();
    expect(eta(110n, 100n, 200, 5000)).toEqual({ blocksLeft: 10n, avgBlockMs: 200, at: 7000 });
    expect(eta(90n, 100n, 200, 5000)).toEqual({ blocksLeft: -10n, avgBlockMs: 200, at: 5000 });
    expect(eta(110n, 100n, undefined, 5000)).toBeUndefined();
  });

  it("says durations as people read them", () => {
    expect([12_345, 65_000, 3_725_000, 2 * 86_400_000 + 3_600_000 * 3 + 240_000, -5].map(formatDuration)).toEqual([
      "12.3 s",
      "1m 05s",
      "1h 02m 05s",
      "2d 03h 04m",
      "0.0 s",
    ]);
  });
});

describe("raw store", () => {
  it.each(["wasm", "js"] as const)(
    "Pairs from /store/upgrade/subspace (docs/spec/interfaces.md §4 vector) decode to test@11 with the %s core",
    async (backend) => {
      const { keys, values } = decodePairs(fromHex("0a110a0501746573741208000000000000000b"));
      expect(keys.map((k) => hex(k))).toEqual(["0174657374"]);
      expect(values.map((v) => hex(v))).toEqual(["000000000000000b"]);
      expect((await loadCore(backend)).decodeDoneEntries(keys, values)).toEqual([{ name: "test", height: 11n }]);
      expect(decodePairs(new Uint8Array(0))).toEqual({ keys: [], values: [] });
    },
  );

  it.each(["wasm", "js"] as const)("simd's Done record (SDK layout, height in the key) decodes with the %s core, which says the layout", async (backend) => {
    const { keys, values } = decodePairs(pairs([SIMD_DONE]));
    expect((await loadCore(backend)).decodeDoneEntriesAnyLayout(keys, values)).toEqual({ layout: "sdk", entries: [{ name: "v047-to-v050", height: 45n }] });
  });

  it.each(["wasm", "js"] as const)(
    "readRawState with the %s core: the SDK's layout, the seed's, a mix and neither, as a node's abci_query shows them",
    async (backend) => {
      const core = await loadCore(backend);
      const versions: [string, string][] = [["0262616e6b", "0000000000000004"]];
      // simd after v047-to-v050 and a later upgrade: SDK records in key order (height, then name).
      const sdk = await readRawState(
        storeRpc({ key: { "03": "0000000000000001" }, subspace: { "01": [SIMD_DONE, ["010000000000000064763035302d746f2d76303533", "01"]], "02": versions } }),
        core,
      );
      expect(sdk.doneLayout).toBe("sdk");
      expect(sdk.applied).toEqual({
        ok: true,
        value: [
          { name: "v047-to-v050", height: 45n },
          { name: "v050-to-v053", height: 100n },
        ],
        at: 60n,
      });
      expect(sdk.protocolVersion).toEqual({ ok: true, value: 1n, at: 60n });
      expect(sdk.entries.map((e) => `${e.key}=${e.value}`)).toEqual([
        `${SIMD_DONE[0]}=01`,
        "010000000000000064763035302d746f2d76303533=01",
        "0262616e6b=0000000000000004",
        "03=0000000000000001",
      ]);

      const seed = await readRawState(
        storeRpc({
          subspace: {
            "01": [
              ["0176322d61", "0000000000000014"],
              ["0176322d62", "000000000000000b"],
            ],
            "02": versions,
          },
        }),
        core,
      );
      expect([seed.doneLayout, seed.applied.ok && seed.applied.value]).toEqual([
        "seed",
        [
          { name: "v2-b", height: 11n },
          { name: "v2-a", height: 20n },
        ],
      ]);

      const none = await readRawState(storeRpc({ subspace: {} }), core);
      expect([none.doneLayout, none.applied.ok && none.applied.value]).toEqual([undefined, []]);

      const problem = async (records: [string, string][]) => {
        const state = await readRawState(storeRpc({ subspace: { "01": records, "02": versions } }), core);
        expect(state.doneLayout).toBeUndefined();
        expect(state.versions.ok).toBe(true); // the other ranges still decode
        if (state.applied.ok) throw new Error("expected the applied upgrades to fail");
        return `${state.applied.problem.kind}: ${state.applied.problem.message}`;
      };
      expect(await problem([["0176322d61", "0000000000000014"], SIMD_DONE])).toBe(
        `corrupt: The upgrade store holds a corrupt value: an applied-upgrade entry (range 0x01) cannot be decoded — done records in both layouts: key 0x${SIMD_DONE[0]} is in the sdk layout, the records before it in the seed layout: corrupt store value.`,
      );
      expect(await problem([["017639", "0001"]])).toBe(
        "corrupt: The upgrade store holds a corrupt value: an applied-upgrade entry (range 0x01) cannot be decoded — done record at key 0x017639 with a 2-byte value fits neither layout (seed: an 8-byte height; sdk: the value 01 under a key of at least 10 bytes): corrupt store value.",
      );
    },
  );

  it("says which layout it found", () => {
    expect(doneLayoutText("sdk")).toBe(
      "Done records: SDK layout (height in the key) — 01 ‖ BE64(height) ‖ name → 01, as Cosmos SDK v0.46 and later store them.",
    );
    expect(doneLayoutText("seed")).toBe("Done records: seed layout (height in the value) — 01 ‖ name → BE64(height), as xupgrade stores them.");
  });

  it("skips unknown fields; refuses truncated bytes", () => {
    // An unknown field 2 (varint) around one pair whose own unknown field 3 is skipped too.
    const { keys, values } = decodePairs(fromHex("1001" + "0a09" + "0a0102" + "1a0178" + "120161"));
    expect([hex(keys[0]), hex(values[0])]).toEqual(["02", "61"]);
    expect(() => decodePairs(fromHex("0a05010203"))).toThrow();
    expect(hex(new Uint8Array(0))).toBe("(empty)");
    expect(hex(fromHex("00112233"), 2)).toBe("0011… (4 bytes)");
  });
});

describe("REST and raw store compared", () => {
  const state = (source: "rest" | "raw", at: bigint, planHeight: bigint): UpgradeState => ({
    source,
    plan: ok({ name: "v2", height: planHeight, info: "" }, at),
    applied: ok([{ name: "v1", height: 5n }], at),
    versions: ok([{ name: "bank", version: 2n }], at),
  });

  it("agree, moving between two heights, differing at one height, unknown when a side failed", () => {
    expect(compareStates(state("rest", 10n, 20n), state("raw", 10n, 20n)).map((a) => a.verdict)).toEqual(["agree", "agree", "agree"]);
    const moving = compareStates(state("rest", 10n, 20n), state("raw", 11n, 21n))[0];
    expect(moving).toMatchObject({ verdict: "moving" });
    expect(moving.detail).toContain("read at heights 10 and 11; rechecking");
    expect(compareStates(state("rest", 10n, 20n), state("raw", 10n, 21n))[0]).toEqual({
      topic: "scheduled plan",
      verdict: "differ",
      detail: 'REST: “v2” at height 20, info ""; raw store: “v2” at height 21, info "" (both at height 10)',
    });
    const raw = { ...state("raw", 10n, 20n), plan: failed<undefined>(new Problem("corrupt", "bad bytes")) };
    expect(compareStates(state("rest", 10n, 20n), raw)[0]).toEqual({
      topic: "scheduled plan",
      verdict: "unknown",
      detail: "cannot compare: the raw store could not be read (a corrupt store value)",
    });
    expect(compareAppVersion(ok(1n, 10n), "1").verdict).toBe("agree");
    expect(compareAppVersion(ok(1n, 10n), "2")).toMatchObject({ verdict: "differ", detail: "store key 0x03 says 1, RPC status says 2" });
    // A real SDK node's status says 0 (interop LC-2): not a disagreement the page can judge.
    expect(compareAppVersion(ok(1n, 10n), "0")).toMatchObject({
      verdict: "unknown",
      detail: "store key 0x03 says 1, RPC status says 0 (the node does not report its app version)",
    });
  });
});

describe("node addresses", () => {
  it("takes http(s) URLs (scheme optional), refuses the rest in words", () => {
    expect(parseBaseUrl(" http://127.0.0.1:1317/ ", "REST")).toBe("http://127.0.0.1:1317");
    expect(parseBaseUrl("localhost:26657", "RPC")).toBe("http://localhost:26657");
    expect(parseBaseUrl("https://rpc.example/base", "RPC")).toBe("https://rpc.example/base");
    const refusal = (text: string) => {
      try {
        parseBaseUrl(text, "REST");
        return "";
      } catch (e) {
        return `${(e as Problem).kind}: ${(e as Problem).message}`;
      }
    };
    expect(refusal("")).toBe("bad-url: The REST address is empty: enter a URL such as http://127.0.0.1:1317.");
    expect(refusal("ws://x:1")).toBe("bad-url: The REST address “ws://x:1” uses ws: only http:// and https:// work in a browser.");
    expect(refusal("http://127.0.0.1:99999")).toBe(
      "bad-url: The REST address “http://127.0.0.1:99999” is not a URL: expected something like http://127.0.0.1:1317.",
    );
    expect(refusal("http://x/?a=1")).toBe("bad-url: The REST address “http://x/?a=1” has a query or fragment: give just the node's base URL.");
    expect(new Problem("cors", "refused", "REST current_plan").message).toBe("REST current_plan: refused");
  });
});

describe("what the page remembers per chain", () => {
  it("version snapshots (only changes) for 'what changed', plan names; damaged entries are ignored", () => {
    const items = new Map<string, string>();
    const g = globalThis as { localStorage?: unknown };
    g.localStorage = { getItem: (k: string) => items.get(k) ?? null, setItem: (k: string, v: string) => void items.set(k, v) };
    try {
      const v = (bank: bigint, extra?: string) => [{ name: "bank", version: bank }, ...(extra ? [{ name: extra, version: 1n }] : [])];
      observeVersions("c/1", 5n, v(1n));
      observeVersions("c/1", 9n, v(1n)); // unchanged: not recorded
      observeVersions("c/1", 30n, v(2n, "tags"));
      expect(versionsBefore("c/1", 30n)).toEqual({ height: 5n, versions: v(1n) });
      // The new versions filed just below the upgrade height (read from the block being committed) are passed over.
      observeVersions("c/4", 5n, v(1n));
      observeVersions("c/4", 29n, v(2n, "tags"));
      observeVersions("c/4", 31n, v(2n, "tags"));
      expect(versionsBefore("c/4", 30n, v(2n, "tags"))).toEqual({ height: 5n, versions: v(1n) });
      // Only what was seen since the previous upgrade counts.
      expect(versionsBefore("c/4", 30n, v(2n, "tags"), 5n)).toEqual({ height: 5n, versions: v(1n) });
      expect(versionsBefore("c/4", 30n, v(2n, "tags"), 30n)).toBeUndefined();
      expect(versionsBefore("c/1", 5n)).toBeUndefined();
      expect(versionsBefore("other/chain", 30n)).toBeUndefined();
      rememberPlanName("c/1", "v2");
      rememberPlanName("c/1", "v2");
      expect(planNames("c/1")).toEqual(["v2"]);

      items.set(
        "xupgrade-light-client:c/2",
        JSON.stringify({
          snapshots: [
            { height: "x", versions: {} },
            { height: "3", versions: { bank: "1" } },
          ],
          planNames: [1, "v3"],
        }),
      );
      expect(versionsBefore("c/2", 10n)).toEqual({ height: 3n, versions: [{ name: "bank", version: 1n }] });
      expect(planNames("c/2")).toEqual(["v3"]);
      items.set("xupgrade-light-client:c/3", "{not json");
      expect(planNames("c/3")).toEqual([]);
    } finally {
      delete g.localStorage;
    }
  });
});

describe("the devnet's /ui routes", () => {
  it("serve a build directory's files by name with MIME types; say how to build the page when it is missing", async () => {
    const dir = mkdtempSync(join(tmpdir(), "xupgrade-ui-"));
    try {
      const routes = devnetUiRoutes({ dir, config: () => ({ chain_id: "c", rpc: "http://127.0.0.1:26657" }) });
      const file = routes.find((r) => r.path === "/ui/{file}")!;
      const asset = routes.find((r) => r.path === "/ui/assets/{file}")!;
      const call = (route: typeof file, name: string) => route.handler({ params: { file: name }, query: new URLSearchParams(), headers: {}, path: "" });
      expect(await call(file, "index.html")).toMatchObject({
        status: 404,
        // No path of the machine in an answer (docs/spec/interfaces.md §12.1): the hint names the command only.
        body: "the light-client page is not built: run `npm run build:ui` in the xupgrade repository (or set XUPGRADE_UI_DIR)\n",
      });
      mkdirSync(join(dir, "assets"));
      writeFileSync(join(dir, "index.html"), "<!doctype html>");
      writeFileSync(join(dir, "assets", "core-1.wasm"), Uint8Array.of(0, 0x61, 0x73, 0x6d));
      expect(await call(file, "index.html")).toMatchObject({ headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-cache" } });
      const wasm = await call(asset, "core-1.wasm");
      expect([wasm.headers?.["Content-Type"], wasm.body]).toEqual(["application/wasm", Uint8Array.of(0, 0x61, 0x73, 0x6d)]);
      expect(await call(file, "config.json")).toMatchObject({ body: '{"chain_id":"c","rpc":"http://127.0.0.1:26657"}' });
      for (const name of ["..", ".env", "a/b", "..%2Findex.html", "assets"]) expect(await call(file, name)).toMatchObject({ status: 404 });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** localStorage as a Map; `broken`: every call throws, as in a private window whose storage is disabled. */
function storage(broken = false): Storage & { map: Map<string, string> } {
  const map = new Map<string, string>();
  const guard = () => {
    if (broken) throw new DOMException("The operation is insecure.", "SecurityError");
  };
  return {
    map,
    get length() {
      return map.size;
    },
    clear: () => map.clear(),
    key: (i: number) => [...map.keys()][i] ?? null,
    getItem: (k: string) => (guard(), map.get(k) ?? null),
    setItem: (k: string, v: string) => (guard(), void map.set(k, v)),
    removeItem: (k: string) => (guard(), void map.delete(k)),
  };
}

const ROOT_A: SavedRoot = {
  chainId: "chain-a",
  height: 120n,
  hash: "AB".repeat(32),
  time: "2026-01-02T03:04:05.000000006Z",
  origin: { how: "link", node: "http://node:26657", height: 3n, hash: "CD".repeat(32), at: "2026-01-01T00:00:00.000Z" },
  confirmed: false,
  updatedAt: "2026-01-02T03:04:06.000Z",
};

describe("the page's saved trust roots (localStorage)", () => {
  const KEY = "xupgrade-light-client:trust:chain-a";

  it("keeps one root per chain id, with where trust began and whether it was confirmed", async () => {
    const s = storage();
    const store = new BrowserRootStore(() => s);
    expect(await store.load("chain-a")).toBeUndefined();
    await store.save(ROOT_A);
    await store.save({ ...ROOT_A, chainId: "chain-b", confirmed: true });
    expect([...s.map.keys()].sort()).toEqual([KEY, "xupgrade-light-client:trust:chain-b"]);
    // A fresh store (another page load) reads what the last one saved.
    const again = new BrowserRootStore(() => s);
    expect(await again.load("chain-a")).toEqual(ROOT_A);
    expect((await again.load("chain-b"))?.confirmed).toBe(true);
  });

  it("forgets a damaged entry (and one saved under another chain's key) instead of guessing a root", async () => {
    const s = storage();
    const store = new BrowserRootStore(() => s);
    for (const damaged of [
      "{",
      "null",
      JSON.stringify({ chainId: "chain-a", height: "x", hash: "AB".repeat(32), origin: {} }),
      JSON.stringify({ chainId: "chain-b", height: "1", hash: "AB".repeat(32), origin: { how: "given", height: "1", hash: "AB".repeat(32) } }),
    ]) {
      s.map.set(KEY, damaged);
      expect(await store.load("chain-a")).toBeUndefined();
      expect(s.map.has(KEY)).toBe(false);
    }
  });

  it("reads an entry written before roots were confirmed as unconfirmed (a root from the address is a link's)", async () => {
    const s = storage();
    s.map.set(
      KEY,
      JSON.stringify({
        chainId: "chain-a",
        height: "7",
        hash: "AB".repeat(32),
        origin: { how: "address", node: "n", at: "t", height: "3", hash: "CD".repeat(32) },
      }),
    );
    expect(await new BrowserRootStore(() => s).load("chain-a")).toMatchObject({ height: 7n, confirmed: false, origin: { how: "link", height: 3n } });
  });

  it("without usable storage (private mode), keeps roots for the page's lifetime", async () => {
    const store = new BrowserRootStore(() => storage(true));
    expect(await store.load("chain-a")).toBeUndefined();
    await store.save(ROOT_A);
    expect(await store.load("chain-a")).toEqual(ROOT_A);
    const full = storage();
    full.setItem = () => {
      throw new DOMException("full", "QuotaExceededError");
    };
    const store2 = new BrowserRootStore(() => full);
    await store2.save(ROOT_A);
    expect(await store2.load("chain-a")).toEqual(ROOT_A);
  });
});

describe("a root typed into the page", () => {
  it("is a positive height and a 32-byte hash, pasted in any case, with or without 0x and spaces", () => {
    expect(parseRoot(" 42 ", ` 0x${"ab".repeat(32)}\n`)).toEqual({ height: 42n, hash: "AB".repeat(32) });
    expect(parseRoot("x", "AB".repeat(32))).toEqual({ error: "The height is a block height: a whole number, like 1234567." });
    expect(parseRoot("0", "AB".repeat(32))).toEqual({ error: "Trust height must be positive, got 0." });
    expect(parseRoot("5", "abcd")).toEqual({ error: "Trust hash must be 32 bytes (64 hex digits), got 2 bytes." });
    expect(parseRoot("5", "zz".repeat(32))).toMatchObject({ error: expect.stringMatching(/^Trust hash ".*" is not hex\.$/) });
  });
});

describe("the page's links and the roots the user confirmed (resolveTrustRoot)", () => {
  /** A node that only says which chain a height is of. */
  const node = { label: "n", signedHeader: async () => ({ header: { chainId: "chain-a" } }) } as unknown as LightProvider;
  const pinned: SavedRoot = { ...ROOT_A, confirmed: true, origin: { ...ROOT_A.origin, how: "given" } };
  const link = (height: bigint, hash: string) => ({ node: "n", given: { height, hash, how: "link" as const, confirmed: false } });

  it("a link naming the confirmed root (where trust began, or the header saved) is that root, still confirmed", async () => {
    const store = new BrowserRootStore(() => storage());
    await store.save(pinned);
    for (const [h, hash] of [
      [3n, "CD".repeat(32)],
      [120n, "AB".repeat(32)],
    ] as const) {
      const r = await resolveTrustRoot(node, store, link(h, hash));
      expect(r).toMatchObject({ source: "saved", confirmed: true, trust: { height: 120n, hash: "AB".repeat(32) } });
      expect(r.setAside).toBeUndefined();
    }
  });

  it("a link naming another root is set aside; the confirmed root is used", async () => {
    const store = new BrowserRootStore(() => storage());
    await store.save(pinned);
    const r = await resolveTrustRoot(node, store, link(3n, "EF".repeat(32)));
    expect(r).toMatchObject({ source: "saved", confirmed: true, setAside: { height: 3n, hash: "EF".repeat(32) } });
  });

  it("the freshness bound: a Go duration, 10 min unless told; 0 is none; anything else refused", () => {
    expect([DEFAULT_MAX_AGE, maxAgeMs(DEFAULT_MAX_AGE), maxAgeMs("1h30m"), maxAgeMs("0")]).toEqual(["10m", 600_000, 5_400_000, 0]);
    expect(() => maxAgeMs("-1s")).toThrow('invalid maximum age "-1s": must not be negative');
    expect(() => maxAgeMs("soon")).toThrow('invalid maximum age "soon": time: invalid duration "soon"');
  });
});
