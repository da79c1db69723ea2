/**
 * upgrade-info.json side by side (docs/spec/interop.md §6), on every SDK line: the files the peers wrote at
 * their halts (the binary before the line at the line's upgrade — simd v0.47 at `v047-to-v050`, appd v0.50 at
 * `v050-to-v053`, appd v0.53 at `v053-to-v054` — and the line's own binary at a plan whose info needs every
 * escape Go's encoding/json makes) beside the file the keeper writes for the same plan, and the file the
 * devnet wrote when its stand-in halted at the same plan and height: bytes and permission bits. The peers'
 * files come from the recorded fixtures, or live under `npm run test:interop`.
 */
import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeUpgradeInfo } from "../../bindings/module/upgrade-info/file.js";
import { removeTempDirs, tempDir } from "../support/temp.js";
import { devnetInState } from "./support/devnet.js";
import { lineSources } from "./support/fixture.js";

afterAll(() => removeTempDirs());

const read = (file: string) => ({ bytes: readFileSync(file, "utf8"), mode: (statSync(file).mode & 0o777).toString(8) });

for (const { line, capture, label } of lineSources()) {
  describe(`upgrade-info.json: the keeper's file beside ${label}'s`, () => {
    for (const rec of capture.upgrade_info) {
      it(`${rec.writer} at "${rec.plan.name}" (height ${rec.plan.height}${rec.plan.info ? ", an info with escapes" : ""}): same bytes, mode ${rec.mode}`, async () => {
        const home = tempDir("xupgrade-interop-info-");
        await writeUpgradeInfo(home, { name: rec.plan.name, height: BigInt(rec.plan.height), info: rec.plan.info });
        expect(read(join(home, "data/upgrade-info.json"))).toEqual({ bytes: rec.bytes, mode: rec.mode });
      });
    }

    it(`the devnet's ${line.apps.old.name} stand-in halting at ${line.upgrade.name} writes the same file as ${line.writers.old}`, async () => {
      const peer = capture.upgrade_info.find((r) => r.plan.name === line.upgrade.name)!;
      const d = await devnetInState("applied", peer.plan.height, line);
      try {
        expect(read(join(d.home, "data/upgrade-info.json"))).toEqual({ bytes: peer.bytes, mode: peer.mode });
      } finally {
        await d.stop();
      }
    }, 120_000);
  });
}
