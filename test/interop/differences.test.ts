/**
 * docs/spec/interop.md and test/interop/support/differences.ts list the same differences: every key of the
 * code is a row of the docs' tables with the same kind, and every row is a key of the code. Bugs say how to fix
 * them. The recorded fixture names the simd versions that scripts/peers/paths.mjs pins.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  SDK_V047_VERSION,
  SDK_V050_VERSION,
  SIMAPP_V047_COMMIT,
  SIMAPP_V047_VERSION,
  SIMAPP_V050_COMMIT,
  SIMAPP_V050_VERSION,
  XUPGRADE_V050_VERSION,
} from "../../scripts/peers/paths.mjs";
import { ROOT } from "../support/paths.js";
import { DIFFERENCES } from "./support/differences.js";
import { fixturePath, loadFixture } from "./support/fixture.js";
import { LINES, lineByKey } from "./support/lines.js";

const DOC = readFileSync(join(ROOT, "docs/spec/interop.md"), "utf8");
/** `| KEY | kind | …` rows of the docs' tables. */
const rows = new Map([...DOC.matchAll(/^\| ([A-Z]+-\d+) \| (deliberate|bug) \|/gm)].map((m) => [m[1], m[2]]));

describe("docs/spec/interop.md and differences.ts", () => {
  it("every difference of the code is a row of the docs, with the same kind", () => {
    expect(DIFFERENCES.map((d) => [d.key, rows.get(d.key)])).toEqual(DIFFERENCES.map((d) => [d.key, d.kind]));
  });

  it("every row of the docs is a difference of the code", () => {
    const keys = new Set(DIFFERENCES.map((d) => d.key));
    expect([...rows.keys()].filter((k) => !keys.has(k))).toEqual([]);
  });

  it("keys are unique, and every bug says where it is fixed", () => {
    expect(new Set(DIFFERENCES.map((d) => d.key)).size).toBe(DIFFERENCES.length);
    expect(DIFFERENCES.filter((d) => d.kind === "bug" && !d.fix).map((d) => d.key)).toEqual([]);
  });

  it("docs/spec.md lists interop.md", () => {
    expect(readFileSync(join(ROOT, "docs/spec.md"), "utf8")).toContain("[interop.md](spec/interop.md)");
  });
});

describe("the recorded fixtures", () => {
  for (const line of LINES) {
    it(`${line.fixtureName} names the ${line.label} versions (and those before its upgrade) that npm run peers builds`, () => {
      expect(loadFixture(fixturePath(line)).simd).toEqual(line.pins);
    });
  }

  it("the simd line is simd v0.50.15 at the pinned simapp commit, upgraded from simd v0.47.17", () => {
    expect(lineByKey("simd-v050").pins).toEqual({
      sdk: SDK_V050_VERSION,
      simapp: SIMAPP_V050_VERSION,
      commit: SIMAPP_V050_COMMIT,
      x_upgrade: XUPGRADE_V050_VERSION,
      binary: "cosmossdk.io/simapp/simd (npm run peers: simd-v050)",
      from: { sdk: SDK_V047_VERSION, simapp: SIMAPP_V047_VERSION, commit: SIMAPP_V047_COMMIT },
    });
  });
});
