/** `xupgrade watch` as the CLI runs it (the transpiled CLI, a real process): --once, a refused config, no root. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { FleetJson } from "../../../bindings/apps/watch/fleet.js";
import { runCli } from "../cli/helpers.js";
import { serveJsonRpc } from "../../support/light/rpc-server.js";
import { hexOf, syntheticSdkNode } from "../../support/light/synthetic-sdk.js";
import { removeTempDirs, tempDir } from "../../support/temp.js";

afterAll(() => {
  removeTempDirs();
});

describe("xupgrade watch", { timeout: 120_000 }, () => {
  it("--once: one poll per chain, the rows on stdout; a chain without a root is refused with how to get one (exit 1)", async () => {
    const node = await syntheticSdkNode({
      chain: { chainId: "cli-1", validators: 4, genesisNs: BigInt(Date.now() - 120_000) * 1_000_000n, intervalNs: 1_000_000_000n, latest: 40n },
      state: { plan: { name: "v9", height: 900n, info: "" } },
    });
    const witness = await serveJsonRpc((m, p) => node.chain.handle(m, p));
    const dir = tempDir("xupgrade-watch-cli-");
    try {
      const chain = { name: "one", chain_id: "cli-1", rpc: node.url, witnesses: [witness.url], trust_height: 30, trust_hash: hexOf(node.chain.hash(30n)) };
      writeFileSync(join(dir, "ok.json"), JSON.stringify({ max_age: "0s", chains: [chain] }));
      const ok = await runCli(["watch", "--config", join(dir, "ok.json"), "--state-dir", join(dir, "s1"), "--once"]);
      expect(ok.stderr).not.toMatch(/^Error/m);
      expect(ok.code).toBe(0);
      const rows = JSON.parse(ok.stdout) as FleetJson;
      expect(rows.chains[0]).toMatchObject({
        name: "one",
        status: "verified",
        plan: { name: "v9", height: "900" },
        trust_root: { source: "given", confirmed: true },
        witnesses: { confirmed: [witness.url] },
      });
      expect(rows.chains[0].alerts.map((a) => a.id)).toEqual(["plan_scheduled/one/v9@900"]);

      writeFileSync(join(dir, "noroot.json"), JSON.stringify({ chains: [{ name: "one", rpc: node.url, witnesses: [witness.url] }] }));
      const refused = await runCli(["watch", "--config", join(dir, "noroot.json"), "--state-dir", join(dir, "s2"), "--once"]);
      expect(refused.code).toBe(1);
      expect(JSON.parse(refused.stdout).chains[0]).toMatchObject({
        status: "no-root",
        failure: { check: "trust-options", message: expect.stringMatching(/no trust root for chain "cli-1"/) },
      });
      expect(refused.stderr).toMatch(/^Error: not every chain verified: one \(no-root: no trust root/m);

      writeFileSync(join(dir, "bad.toml"), 'poll = "often"\n[[chains]]\nname = "x"\nrpc = "http://127.0.0.1:1"\n');
      const bad = await runCli(["watch", "--config", join(dir, "bad.toml"), "--once"]);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/^Error: the watch config has 2 problems:\n {2}chains\[0\]\.witnesses: at least one witness/m);
    } finally {
      await witness.close();
      await node.close();
    }
  });
});
