/** The watch's config (bindings/apps/watch/config.ts): trust rules, witnesses, chain-registry files. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { loadWatchConfig } from "../../../bindings/apps/watch/config-file.js";
import { parseWatchConfig } from "../../../bindings/apps/watch/config.js";
import { WatchConfigError } from "../../../bindings/apps/watch/errors.js";
import { removeTempDirs, tempDir } from "../../support/temp.js";

afterAll(removeTempDirs);
const HASH = "AB".repeat(32);
const problems = (raw: unknown, reg = new Map<string, unknown>()) => {
  try {
    parseWatchConfig(raw, reg);
    return [];
  } catch (e) {
    expect(e).toBeInstanceOf(WatchConfigError);
    return [...(e as WatchConfigError).problems];
  }
};

describe("watch config", () => {
  it("reads a TOML file with chains, webhooks and durations; a registry gives ids and endpoints", async () => {
    const dir = tempDir("xupgrade-watch-config-");
    writeFileSync(
      join(dir, "chain.json"),
      JSON.stringify({
        chain_name: "cosmoshub",
        chain_id: "cosmoshub-4",
        apis: {
          rpc: [
            { address: "https://rpc-a.example/" },
            { address: "https://rpc-b.example" },
            { address: "https://rpc-c.example" },
            { address: "https://rpc-d.example" },
          ],
        },
      }),
    );
    writeFileSync(
      join(dir, "watch.toml"),
      [
        'leads = ["24h", "10m", "2h"]',
        'poll = "3s"',
        "[[chains]]",
        'registry = "chain.json"',
        `trust_height = 100`,
        `trust_hash = "${HASH.toLowerCase()}"`,
        "[[chains]]",
        'name = "simd"',
        'rpc = "http://127.0.0.1:26657"',
        "without_witnesses = true",
        "trust_on_first_use = true",
        "[[webhooks]]",
        'url = "https://hooks.slack.com/services/X"',
        'format = "slack"',
        "[[webhooks]]",
        'url = "https://api.telegram.org/botTOKEN/sendMessage"',
        'format = "telegram"',
        'chat_id = "-100123"',
        'chains = ["simd"]',
      ].join("\n"),
    );
    const cfg = await loadWatchConfig(join(dir, "watch.toml"));
    expect(cfg.leadsMs).toEqual([86_400_000, 7_200_000, 600_000]);
    expect(cfg.pollMs).toBe(3000);
    expect(cfg.chains[0]).toMatchObject({
      name: "cosmoshub",
      chainId: "cosmoshub-4",
      rpc: "https://rpc-a.example",
      witnesses: ["https://rpc-b.example", "https://rpc-c.example"],
      trust: { height: 100n, hash: HASH },
      trustOnFirstUse: false,
    });
    expect(cfg.chains[1]).toMatchObject({ name: "simd", withoutWitnesses: true, witnesses: [], trustOnFirstUse: true });
    expect(cfg.webhooks[1]).toMatchObject({ format: "telegram", chatId: "-100123", chains: ["simd"] });
  });

  it("a registry is never a trust root, and a chain without witnesses must opt out", () => {
    const reg = new Map<string, unknown>([["c.json", { chain_id: "x-1", apis: { rpc: [{ address: "https://one.example" }] } }]]);
    expect(problems({ chains: [{ registry: "c.json" }] }, reg)).toEqual([
      expect.stringMatching(/chains\[0\]\.witnesses: at least one witness .* or set without_witnesses = true/),
    ]);
    const cfg = parseWatchConfig({ chains: [{ registry: "c.json", without_witnesses: true }] }, reg);
    expect(cfg.chains[0].trust).toBeUndefined();
    expect(cfg.chains[0].trustOnFirstUse).toBe(false);
  });

  it("says every problem at once", () => {
    const got = problems({
      poll: "soon",
      colour: "blue",
      chains: [
        { name: "a", rpc: "ftp://x", witnesses: ["http://w"], trust_height: 5 },
        { name: "a", rpc: "http://x", witnesses: ["http://w"], trust_on_first_use: true, trust_height: 5, trust_hash: HASH },
        { name: "b", rpc: "http://x", without_witnesses: true, witnesses: ["http://w"], trust_hash: "zz" },
      ],
      webhooks: [
        { url: "http://h", format: "telegram" },
        { url: "http://h", format: "teams", chains: ["nope"] },
      ],
    });
    expect(got).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^colour: unknown key/),
        expect.stringMatching(/^poll: /),
        expect.stringMatching(/chains\[0\]\.rpc: "ftp:\/\/x" is not/),
        expect.stringMatching(/chains\[0\]\.trust_height and trust_hash go together/),
        expect.stringMatching(/chains\[1\]\.: trust_on_first_use and trust_height\/trust_hash contradict/),
        expect.stringMatching(/chains\[2\]\.: without_witnesses = true and witnesses are given/),
        expect.stringMatching(/chains\[2\]\.trust_hash: must be 64 hex digits/),
        expect.stringMatching(/two chains are named "a"/),
        expect.stringMatching(/webhooks\[0\]\.chat_id: telegram needs/),
        expect.stringMatching(/webhooks\[1\]\.format: must be one of/),
        expect.stringMatching(/webhooks\[1\]\.chains: no chain is named "nope"/),
      ]),
    );
  });
});
