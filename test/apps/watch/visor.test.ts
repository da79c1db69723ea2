/** The local visor's state as the watch reads it (bindings/apps/watch/visor.ts), from the visor's own /metrics text. */
import { describe, expect, it } from "vitest";
import { VisorMetrics } from "../../../bindings/apps/visor/telling/metrics.js";
import { visorReader } from "../../../bindings/apps/watch/visor.js";
import { httpServer } from "../../support/http.js";
import { closedPort } from "../../examples/light-client/helpers.js";

describe("the local visor", () => {
  it("reads the stage, the current upgrade and the node's height from the visor's real metrics; says when it does not answer", async () => {
    const m = new VisorMetrics({ currentUpgrade: "" });
    const plan = { name: "v2", height: 1234n };
    m.observe({ stage: "node_height", at: Date.now(), details: { height: 1233 } });
    m.observe({ stage: "halt", at: Date.now(), plan, details: {} });
    m.observe({ stage: "switch", at: Date.now(), plan, details: {} });
    const server = await httpServer(async (_req, res) => {
      res.writeHead(200, { "content-type": m.registry.contentType }).end(await m.registry.metrics());
    });
    try {
      expect(await visorReader(server.url).read()).toEqual({ stage: "switch", current: "v2", nodeHeight: 1233 });
    } finally {
      await server.close();
    }
    expect((await visorReader(await closedPort()).read()).problem).toMatch(/did not answer/);
  });
});
