/**
 * gRPC side by side with simd v0.50 (docs/spec/interop.md §3): the same unary calls (raw request bytes,
 * @grpc/grpc-js with identity serializers) to the devnet and to simd in the same three states, compared on
 * the status code, the status message and the response bytes. simd's answers come from the recorded
 * fixture, or live under `npm run test:interop`.
 */
import { afterAll } from "vitest";
import { removeTempDirs } from "../support/temp.js";
import { stateSpec } from "./support/capture.js";
import { devnetInState, type DevnetState } from "./support/devnet.js";
import { simdSource } from "./support/fixture.js";
import { describeComparison } from "./support/suite.js";
import { captureGrpc, type GrpcRecord } from "./support/wire.js";

const { capture, label } = simdSource();
const nodes = new Map<string, DevnetState>();

afterAll(async () => {
  await Promise.all([...nodes.values()].map((d) => d.stop()));
  removeTempDirs();
});

describeComparison<GrpcRecord>({
  area: "grpc",
  title: (state) => `gRPC, state "${state}": the devnet beside ${label}`,
  simd: (state) => capture.states[state].grpc,
  ours: async (state) => {
    const d = await devnetInState(state, capture.states.applied.plan!.height);
    nodes.set(state, d);
    return captureGrpc(d.node.grpcAddress, stateSpec(state));
  },
  after: async (state) => {
    await nodes.get(state)?.stop();
    nodes.delete(state);
  },
});
