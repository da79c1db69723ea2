/**
 * docs/spec/interop.md §12 and test/interop/support/scenarios.ts say the same thing: every scenario of the code
 * is a row of the table with the same issues, situation and outcomes, word for word, and every row is a
 * scenario of the code; the visor ends right in each; the live suite runs each one.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/paths.js";
import { SCENARIOS } from "./support/scenarios.js";

const DOC = readFileSync(join(ROOT, "docs/spec/interop.md"), "utf8");
const section = DOC.slice(DOC.indexOf("## 12. cosmovisor's open bugs as scenarios"), DOC.indexOf("## Notes for review"));
/** `| SC-n | issues | situation | cosmovisor | visor |` rows. */
const rows = new Map(
  [...section.matchAll(/^\| (SC-\d+) \| (.*) \|$/gm)].map((m) => {
    const cells = m[2].split(" | ");
    return [m[1], { bugs: cells[0], situation: cells[1], cosmovisor: cells[2], visor: cells[3] }];
  }),
);

describe("docs/spec/interop.md §12 and support/scenarios.ts", () => {
  it("every scenario of the code is a row of the table, cell for cell", () => {
    expect(SCENARIOS.map((s) => [s.key, rows.get(s.key)])).toEqual(
      SCENARIOS.map((s) => [s.key, { bugs: s.bugs, situation: s.situation, cosmovisor: s.cosmovisor, visor: s.visor }]),
    );
  });

  it("every row is a scenario of the code; keys are unique", () => {
    expect([...rows.keys()]).toEqual(SCENARIOS.map((s) => s.key));
    expect(new Set(SCENARIOS.map((s) => s.key)).size).toBe(SCENARIOS.length);
  });

  it("the visor ends right in every scenario; the table names cosmovisor's wrong ends", () => {
    expect(SCENARIOS.every((s) => s.visorRight)).toBe(true);
    expect(SCENARIOS.filter((s) => !s.cosmovisorRight).map((s) => s.key)).toEqual(["SC-3", "SC-4", "SC-6"]);
  });

  it("the live suite has a test for every scenario", () => {
    const suite = readFileSync(join(ROOT, "test/interop/sidecar-scenarios.interop.ts"), "utf8");
    for (const s of SCENARIOS) expect(suite).toContain(`it(\`${s.key} \${scenario("${s.key}").situation}`);
  });
});
