/**
 * upgrade-info.json side by side (docs/spec/interop.md §5): the file simd wrote at its halt (simd v0.47 at
 * `v047-to-v050`; simd v0.50 at a plan whose info needs every escape Go's encoding/json makes) beside the
 * file the keeper writes for the same plan, and the file the devnet wrote when its v0.47 stand-in halted at
 * the same plan and height: bytes and permission bits. simd's files come from the recorded fixture, or live
 * under `npm run test:interop`.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeUpgradeInfo } from "../../bindings/module/upgrade-info/file.js";
import { removeTempDirs, tempDir } from "../support/temp.js";
import { devnetInState } from "./support/devnet.js";
import { simdSource } from "./support/fixture.js";

const { capture, label } = simdSource();

afterAll(() => removeTempDirs());

const read = (file: string) => ({ bytes: readFileSync(file, "utf8"), mode: (statSync(file).mode & 0o777).toString(8) });

describe(`upgrade-info.json: the keeper's file beside ${label}'s`, () => {
  for (const rec of capture.upgrade_info) {
    it(`${rec.writer} at "${rec.plan.name}" (height ${rec.plan.height}${rec.plan.info ? ", an info with escapes" : ""}): same bytes, mode ${rec.mode}`, async () => {
      const home = tempDir("xupgrade-interop-info-");
      await writeUpgradeInfo(home, { name: rec.plan.name, height: BigInt(rec.plan.height), info: rec.plan.info });
      expect(read(join(home, "data/upgrade-info.json"))).toEqual({ bytes: rec.bytes, mode: rec.mode });
    });
  }

  it("the devnet's v0.47 stand-in halting at v047-to-v050 writes the same file as simd v0.47", async () => {
    const simd = capture.upgrade_info.find((r) => r.plan.name === "v047-to-v050")!;
    const d = await devnetInState("applied", simd.plan.height);
    try {
      expect(read(join(d.home, "data/upgrade-info.json"))).toEqual({ bytes: simd.bytes, mode: simd.mode });
    } finally {
      await d.stop();
    }
  }, 60_000);
});
