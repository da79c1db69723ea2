/**
 * The REST gateway side by side with each SDK line's (docs/spec/interop.md §3; simd v0.50, appd v0.53 and
 * v0.54, support/lines.ts): the same requests to the devnet and to the peer, in the same three states (no
 * plan; a plan scheduled; the line's upgrade applied at the same height), compared on status, the headers
 * that matter and the body bytes. The peers' answers come from the recorded fixtures, or live under
 * `npm run test:interop`.
 */
import { afterAll } from "vitest";
import { removeTempDirs } from "../support/temp.js";
import { stateSpec } from "./support/capture.js";
import { devnetInState, type DevnetState } from "./support/devnet.js";
import { lineSources } from "./support/fixture.js";
import { describeComparison } from "./support/suite.js";
import { captureRest, type RestRecord } from "./support/wire.js";

const nodes = new Map<string, DevnetState>();

afterAll(async () => {
  await Promise.all([...nodes.values()].map((d) => d.stop()));
  removeTempDirs();
});

for (const { line, capture, label } of lineSources()) {
  describeComparison<RestRecord>({
    area: "rest",
    line: line.key,
    title: (state) => `REST, state "${state}": the devnet ${state === "applied" ? `(${line.upgrade.name}) ` : ""}beside ${label}`,
    simd: (state) => capture.states[state].rest,
    ours: async (state) => {
      const d = await devnetInState(state, capture.states.applied.plan!.height, line);
      nodes.set(`${line.key} ${state}`, d);
      return captureRest(d.node.restUrl, stateSpec(state, line.upgrade.name));
    },
    after: async (state) => {
      await nodes.get(`${line.key} ${state}`)?.stop();
      nodes.delete(`${line.key} ${state}`);
    },
  });
}
