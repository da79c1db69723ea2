/**
 * The CLIs side by side (docs/spec/interop.md §5), each against the same peer node in the three states, on
 * every SDK line (simd v0.50, appd v0.53 and v0.54):
 *
 * - `xupgrade query upgrade …` beside simd v0.47's own `query upgrade …` (the legacy commands the seed's CLI
 *   follows; v0.47's CLI queries a v0.50 node through the same abci_query paths and RPC) — simd line only;
 * - `xupgrade query upgrade …` beside the peer's own (autocli: simd v0.50's, appd v0.53's, appd v0.54's);
 * - `xupgrade query upgrade …` against the devnet in the same state beside the same command against the peer:
 *   identical bytes, except the block record of `applied`, which describes another chain's block (same
 *   fields and formats, other hashes and times).
 *
 * The peers' answers come from the recorded fixtures, or live under `npm run test:interop`.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeTempDirs } from "../support/temp.js";
import { stateSpec } from "./support/capture.js";
import { captureCli, cliQueries, type CliRecord, type CliTool } from "./support/cli.js";
import { normaliseVolatile } from "./support/compare.js";
import { devnetInState, type DevnetState } from "./support/devnet.js";
import { lineSources } from "./support/fixture.js";
import { STATES, describeComparison } from "./support/suite.js";
import type { StateName } from "./support/wire.js";

afterAll(() => removeTempDirs());

/** The block record describes another chain's block: compare its shape (fields, order, formats), not its values. */
const shape = (text: string) =>
  normaliseVolatile(text)
    .replace(/"chain_id": "[^"]*"/g, '"chain_id": "<CHAIN>"')
    .replace(/"height": "\d+"/g, '"height": "<N>"');

for (const { line, capture, label } of lineSources()) {
  /** A record's id with the state's known upgrade name as `<known>`, so one differences entry covers every state. */
  const generic = (state: StateName, r: CliRecord): CliRecord => ({ ...r, id: r.args.join(" ").replace(stateSpec(state, line.upgrade.name).known, "<known>") });
  const of = (state: StateName, tool: CliTool) => capture.states[state].cli.filter((r) => r.tool === tool).map((r) => generic(state, r));

  if (line.tools.includes("simd047")) {
    // simd v0.47's CLI has no `authority` command: those pairs are not compared.
    const v047 = (state: StateName) => of(state, "simd047").filter((r) => r.args[0] !== "authority");
    describeComparison<CliRecord>({
      area: "cli-v047",
      line: line.key,
      title: (state) => `CLI, state "${state}": xupgrade beside simd v0.47's query upgrade, both against ${label}`,
      simd: v047,
      ours: async (state) => of(state, "xupgrade").filter((r) => r.args[0] !== "authority"),
    });
  }

  describeComparison<CliRecord>({
    area: line.cliArea,
    line: line.key,
    title: (state) => `CLI, state "${state}": xupgrade beside ${line.label}'s own query upgrade, both against ${label}`,
    simd: (state) => of(state, "simd"),
    ours: async (state) => of(state, "xupgrade"),
  });

  for (const state of STATES) {
    describe(`CLI, state "${state}": xupgrade against the devnet beside xupgrade against ${label}`, () => {
      let d: DevnetState;
      const ours = new Map<string, CliRecord>();
      beforeAll(async () => {
        d = await devnetInState(state, capture.states.applied.plan!.height, line);
        for (const r of await captureCli({ rpcUrl: d.node.rpcUrl, chainId: d.node.chainId }, stateSpec(state, line.upgrade.name), ["xupgrade"]))
          ours.set(generic(state, r).id, generic(state, r));
      }, 120_000);
      afterAll(() => d?.stop());
      for (const args of cliQueries(stateSpec(state, line.upgrade.name))) {
        const id = args.join(" ").replace(stateSpec(state, line.upgrade.name).known, "<known>");
        it(id, () => {
          const simd = of(state, "xupgrade").find((r) => r.id === id)!;
          const mine = ours.get(id)!;
          const block = args[0] === "applied" && simd.code === 0;
          const norm = (r: CliRecord) => ({ code: r.code, stdout: block ? shape(r.stdout) : r.stdout, stderr: r.stderr });
          expect(norm(mine)).toEqual(norm(simd));
        });
      }
    });
  }
}
