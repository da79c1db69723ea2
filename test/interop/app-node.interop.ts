/**
 * appd on each SDK line through the helper other suites start it with (support/app-node.ts; live only): a
 * node of each line answers on its RPC, REST and gRPC ports with that line's module versions, and a real
 * upgrade across lines on one home — appd v0.53 halting at `v053-to-v054`, appd v0.54 applying it — leaves
 * the version map SDK v0.54's modules say (auth 5 → 6) and the plan applied at its height.
 */
import { afterAll, describe, expect, it } from "vitest";
import { removeTempDirs } from "../support/temp.js";
import { APP_V050_VERSIONS, APP_V053_VERSIONS, APP_V054_VERSIONS } from "./support/apps.js";
import { APP_LINES, startAppNode, upgradeAcross, type AppLine } from "./support/app-node.js";
import { killAll, type SimdNode } from "./support/simd.js";
import { captureGrpc } from "./support/wire.js";

const VERSIONS: Record<AppLine, Record<string, number>> = { "v0.50": APP_V050_VERSIONS, "v0.53": APP_V053_VERSIONS, "v0.54": APP_V054_VERSIONS };

const versionsOf = async (node: SimdNode): Promise<Record<string, number>> => {
  const j = (await (await fetch(`${node.restUrl}/cosmos/upgrade/v1beta1/module_versions`)).json()) as { module_versions: { name: string; version: string }[] };
  return Object.fromEntries(j.module_versions.map((m) => [m.name, Number(m.version)]));
};

afterAll(async () => {
  await killAll();
  removeTempDirs();
});

describe("startAppNode: a node of each line, ready, on its own ports", () => {
  for (const line of Object.keys(APP_LINES) as AppLine[]) {
    it(`appd ${APP_LINES[line].sdk}: RPC, REST and gRPC answer; module_versions as the line's modules say`, async () => {
      const node = await startAppNode(line);
      try {
        const status = (await (await fetch(`${node.rpcUrl}/status`)).json()) as { result: { node_info: { network: string } } };
        expect(status.result.node_info.network).toBe(node.chainId);
        expect(await versionsOf(node)).toEqual(VERSIONS[line]);
        const grpc = await captureGrpc(node.grpcAddress, { state: "none", known: "never-applied" });
        expect(grpc.find((r) => r.id === "Authority")?.code).toBe(0);
        expect(new Set(Object.values(node.ports)).size).toBe(4);
      } finally {
        await node.stop();
      }
    }, 180_000);
  }
});

describe("upgradeAcross: appd v0.53 → v0.54 on one home", () => {
  it("v0.53 halts at v053-to-v054, v0.54 applies it: auth 5 → 6 (RunMigrations), the plan applied at its height", async () => {
    const { node, name, height } = await upgradeAcross("v0.54");
    try {
      expect(await versionsOf(node)).toEqual(APP_V054_VERSIONS);
      expect(await (await fetch(`${node.restUrl}/cosmos/upgrade/v1beta1/applied_plan/${name}`)).text()).toBe(`{"height":"${height}"}`);
      const said = node.child.records.map((r) => r.message);
      expect(said).toContain(`applying upgrade "${name}" at height: ${height}`);
      expect(said).toContain("migrating module auth from version 5 to version 6");
    } finally {
      await node.stop();
    }
  }, 300_000);
});
