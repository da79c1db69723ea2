/**
 * gRPC side by side with each SDK line (docs/spec/interop.md §4; simd v0.50, appd v0.53 and v0.54): the same
 * unary calls (raw request bytes, @grpc/grpc-js with identity serializers) to the devnet and to the peer in the
 * same three states, compared on the status code, the status message and the response bytes. The peers'
 * answers come from the recorded fixtures, or live under `npm run test:interop`.
 */
import { afterAll } from "vitest";
import { removeTempDirs } from "../support/temp.js";
import { stateSpec } from "./support/capture.js";
import { devnetInState, type DevnetState } from "./support/devnet.js";
import { lineSources } from "./support/fixture.js";
import { describeComparison } from "./support/suite.js";
import { captureGrpc, type GrpcRecord } from "./support/wire.js";

const nodes = new Map<string, DevnetState>();

afterAll(async () => {
  await Promise.all([...nodes.values()].map((d) => d.stop()));
  removeTempDirs();
});

for (const { line, capture, label } of lineSources()) {
  describeComparison<GrpcRecord>({
    area: "grpc",
    line: line.key,
    title: (state) => `gRPC, state "${state}": the devnet ${state === "applied" ? `(${line.upgrade.name}) ` : ""}beside ${label}`,
    simd: (state) => capture.states[state].grpc,
    ours: async (state) => {
      const d = await devnetInState(state, capture.states.applied.plan!.height, line);
      nodes.set(`${line.key} ${state}`, d);
      return captureGrpc(d.node.grpcAddress, stateSpec(state, line.upgrade.name));
    },
    after: async (state) => {
      await nodes.get(`${line.key} ${state}`)?.stop();
      nodes.delete(`${line.key} ${state}`);
    },
  });
}
