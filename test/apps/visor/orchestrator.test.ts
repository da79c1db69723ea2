/**
 * Orchestrator mode (docs/spec/sidecar.md §12.2), as a visor process under an orchestrator would live it: at
 * the halt the data is backed up and the image tag of Plan.Info's `docker` key is written to
 * DAEMON_ORCHESTRATOR_IMAGE_FILE, the visor exits 75 and `current` is untouched; the container started again
 * on the new image (its binary the volume's `current`, here the same layout) runs the node instead of handing
 * the plan over again. A plan naming no image is refused with nothing changed.
 */
import { existsSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { removeTempDirs as removeCliBuild } from "../cli/helpers.js";
import { newHome, removeTempDirs, seal, expectIntact, visor, type Home } from "./helpers.js";

afterAll(() => {
  removeTempDirs();
  removeCliBuild();
});

const plan = (h: Home, info: unknown) =>
  writeFileSync(
    join(h.home, "data", "upgrade-info.json"),
    JSON.stringify({ name: "v2", time: "0001-01-01T00:00:00Z", height: 49, info: JSON.stringify(info) }),
  );
const backupsIn = (h: Home) => readdirSync(h.home).filter((n) => n.startsWith("data-backup-"));

describe("orchestrator mode", () => {
  it("at the halt: backup, the image tag written, exit 75, current untouched; the restarted container runs the node", async () => {
    const h = await newHome(`echo "node ran"`);
    const imageFile = join(h.parent, "next-image");
    const env = { DAEMON_ORCHESTRATOR_IMAGE_FILE: imageFile, DAEMON_RPC_ADDRESS: "http://127.0.0.1:9" };
    plan(h, { docker: { "linux/amd64": "ghcr.io/chain/node:v2-amd64", "linux/arm64": "ghcr.io/chain/node:v2-arm64", any: "ghcr.io/chain/node:v2" } });
    const r = await visor(h, ["run", "start"], env);
    expect(r.code).toBe(75);
    const want =
      process.platform === "linux" && process.arch === "x64"
        ? "ghcr.io/chain/node:v2-amd64"
        : process.platform === "linux" && process.arch === "arm64"
          ? "ghcr.io/chain/node:v2-arm64"
          : "ghcr.io/chain/node:v2";
    expect(readFileSync(imageFile, "utf8")).toBe(`${want}\n`);
    expect(r.stderr).toContain(`upgrade "v2" handed to the orchestrator: image ${want} written to ${imageFile}; exiting with 75`);
    expect(r.stdout).toBe(""); // no node ran
    expect(readlinkSync(join(h.home, "cosmovisor", "current"))).toBe("genesis");
    expect(backupsIn(h)).toHaveLength(1);
    expect(JSON.parse(readFileSync(join(h.home, "cosmovisor", "orchestrator-upgrade.json"), "utf8"))).toMatchObject({ name: "v2", height: "49", image: want });

    // The orchestrator starts the container again (with the new image): the plan is the current upgrade now.
    const again = await visor(h, ["run", "start"], env);
    expect([again.code, again.stdout]).toEqual([0, "node ran\n"]);
    expect(again.stderr).toMatch(/start: found upgrade-info\.json=v2@49 current=genesis \(v2\)/);
  }, 90_000);

  it("a plan naming no image: refused before the backup, nothing changed", async () => {
    const h = await newHome(`echo "node ran"`);
    const imageFile = join(h.parent, "next-image");
    plan(h, { binaries: { any: "https://example.invalid/app.tar.gz" } });
    const before = seal(h);
    const r = await visor(h, ["run", "start"], { DAEMON_ORCHESTRATOR_IMAGE_FILE: imageFile, DAEMON_RPC_ADDRESS: "http://127.0.0.1:9" });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('Error: orchestrator mode: the plan\'s info has no "docker" image tag\n');
    expect(existsSync(imageFile)).toBe(false);
    expect(backupsIn(h)).toEqual([]);
    expectIntact(h, before);
  }, 90_000);
});
