/**
 * The REST gateway side by side with simd v0.50's (docs/spec/interop.md §2): the same requests to the devnet
 * and to simd, in the same three states (no plan; a plan scheduled; v047-to-v050 applied at the same
 * height), compared on status, the headers that matter and the body bytes. simd's answers come from the
 * recorded fixture, or live under `npm run test:interop`.
 */
import { afterAll } from "vitest";
import { removeTempDirs } from "../support/temp.js";
import { stateSpec } from "./support/capture.js";
import { devnetInState, type DevnetState } from "./support/devnet.js";
import { simdSource } from "./support/fixture.js";
import { describeComparison } from "./support/suite.js";
import { captureRest, type RestRecord } from "./support/wire.js";

const { capture, label } = simdSource();
const nodes = new Map<string, DevnetState>();

afterAll(async () => {
  await Promise.all([...nodes.values()].map((d) => d.stop()));
  removeTempDirs();
});

describeComparison<RestRecord>({
  area: "rest",
  title: (state) => `REST, state "${state}": the devnet's gateway beside ${label}`,
  simd: (state) => capture.states[state].rest,
  ours: async (state) => {
    const d = await devnetInState(state, capture.states.applied.plan!.height);
    nodes.set(state, d);
    return captureRest(d.node.restUrl, stateSpec(state));
  },
  after: async (state) => {
    await nodes.get(state)?.stop();
    nodes.delete(state);
  },
});
