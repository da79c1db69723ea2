/**
 * The layout and the `current` link (docs/spec/sidecar.md §2, §9, §10.3 F8–F9, S4/R6, R12): resolution without a
 * silent fallback, atomic switching, `init` and `add-upgrade`.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Layout } from "../../../bindings/apps/visor/layout.js";
import { addUpgrade, initVisor } from "../../../bindings/apps/visor/setup.js";
import { captureLog, CHAIN2_DUMMYD, newHome, removeTempDirs, runVisorIn, script, silent, stage, tempDir } from "./helpers.js";

afterAll(removeTempDirs);

const layoutOf = (home: string, name = "dummyd", disableRecase = false) => new Layout({ home, name, disableRecase });

describe("the current link", () => {
  it("F8/F9: genesis first; switching to a missing or binary-less upgrade fails and keeps current; chain2 → chain3 → chain2", async () => {
    const h = await newHome("echo genesis");
    const l = layoutOf(h.home);
    const current = () => readlinkSync(l.currentLink);
    expect(current()).toBe("genesis");
    expect((await l.resolveCurrent()).bin).toBe(join(h.home, "cosmovisor/genesis/bin/dummyd"));
    await expect(l.switchTo("missing")).rejects.toThrow(/no such file or directory/);
    mkdirSync(join(l.upgradesDir, "nobin"), { recursive: true });
    writeFileSync(join(l.upgradesDir, "nobin", ".keep"), "");
    await expect(l.switchTo("nobin")).rejects.toThrow(/no such file or directory/);
    expect(current()).toBe("genesis");
    await stage(h, "chain2", CHAIN2_DUMMYD);
    await stage(h, "chain3", "echo chain3");
    await l.switchTo("chain2");
    expect(current()).toBe("upgrades/chain2");
    await l.switchTo("chain3");
    expect(current()).toBe("upgrades/chain3");
    await l.switchTo("chain2");
    expect(current()).toBe("upgrades/chain2");
    expect(readdirSync(l.tmpDir)).toEqual([]);
  });

  it("never falls back silently: a regular file or a dangling link is an error", async () => {
    const h = await newHome("echo genesis");
    const l = layoutOf(h.home);
    rmSync(l.currentLink);
    writeFileSync(l.currentLink, "not a link");
    await expect(l.resolveCurrent()).rejects.toThrow("symlink genesis current: file exists");
    rmSync(l.currentLink);
    symlinkSync("upgrades/gone", l.currentLink);
    await expect(l.resolveCurrent()).rejects.toThrow(/the current link points to "upgrades\/gone", which is missing/);
    rmSync(l.currentLink);
    expect((await l.resolveCurrent()).target).toBe("genesis"); // missing → created
    expect(readlinkSync(l.currentLink)).toBe("genesis");
  });

  it("S4/R6: a crash between the temporary link and the rename leaves current on the old target; the next start finishes the upgrade", async () => {
    const h = await newHome("echo genesis");
    await stage(h, "chain2", CHAIN2_DUMMYD);
    const l = layoutOf(h.home);
    let tempLink = "";
    await expect(
      l.switchTo("chain2", {
        beforeRename: (t) => {
          tempLink = t;
          expect(readlinkSync(t)).toBe("upgrades/chain2");
          throw new Error("killed");
        },
      }),
    ).rejects.toThrow("killed");
    expect(readlinkSync(l.currentLink)).toBe("genesis");
    expect(existsSync(tempLink)).toBe(false);
    // The state a SIGKILL at that point leaves: the temporary link still there, current on genesis, the plan pending.
    symlinkSync("upgrades/chain2", join(l.tmpDir, "current-deadbeef0000"));
    writeFileSync(l.infoFile, '{"name":"chain2","height":49}');
    const r = await runVisorIn(h, ["after", "crash"], { UNSAFE_SKIP_BACKUP: "true" });
    expect(r.code).toBe(0);
    expect(readlinkSync(l.currentLink)).toBe("upgrades/chain2");
    expect(r.logs).toContain("removed temporary files of an earlier run entries=current-deadbeef0000");
    expect(r.stdout).toBe("Chain 2 is live!\nArgs: after crash\nFinished successfully\n");
    expect(readdirSync(l.tmpDir)).toEqual([]);
  });

  it("R12: a staged upgrades/v8-rho is found for the plan v8-Rho", async () => {
    const h = await newHome("echo genesis");
    await stage(h, "v8-rho", 'echo "v8-rho $@"');
    expect(existsSync(join(h.home, "cosmovisor/upgrades/v8-rho/bin/dummyd"))).toBe(true);
    writeFileSync(join(h.home, "data/upgrade-info.json"), '{"name":"v8-Rho","height":8}');
    const r = await runVisorIn(h, ["go"], { UNSAFE_SKIP_BACKUP: "true" });
    expect(r.code).toBe(0);
    expect(readlinkSync(join(h.home, "cosmovisor/current"))).toBe("upgrades/v8-rho");
    expect(r.stdout).toBe("v8-rho go\n");
    // add-upgrade recases too, so the staged directory and the plan meet.
    const h2 = await newHome("echo genesis");
    await stage(h2, "V9-Sigma", "echo v9");
    expect(readdirSync(join(h2.home, "cosmovisor/upgrades"))).toEqual(["v9-sigma"]);
  });
});

describe("init and add-upgrade (docs/spec/sidecar.md §9)", () => {
  it("init: its checks and log lines; a second init keeps the binary", async () => {
    const home = join(tempDir(), "home");
    const bin = script(join(home, "..", "src", "appd"), "echo appd");
    const cfg = { home, name: "appd" };
    await expect(initVisor(cfg, undefined, silent)).rejects.toThrow("no <path to executable> provided");
    await expect(initVisor(cfg, join(home, "nope"), silent)).rejects.toThrow(/^executable file not found: stat .*nope: no such file or directory$/);
    await expect(initVisor(cfg, join(home, ".."), silent)).rejects.toThrow("invalid path to executable: must not be a directory");
    const logs = captureLog();
    await initVisor(cfg, bin, logs.log);
    const gbin = join(home, "cosmovisor/genesis/bin/appd");
    for (const line of [
      "checking on the genesis/bin directory",
      `creating directory (and any parents): "${join(home, "cosmovisor/genesis/bin")}"`,
      "checking on the genesis/bin executable",
      `copying executable into place: "${gbin}"`,
      `making sure "${gbin}" is executable`,
      "checking on the current symlink and creating it if needed",
      `the current symlink points to: "${gbin}"`,
    ])
      expect(logs.text()).toContain(line);
    expect(statSync(gbin).mode & 0o111).toBe(0o111);
    expect(readlinkSync(join(home, "cosmovisor/current"))).toBe("genesis");
    await initVisor(cfg, bin, silent);
    const h2 = join(tempDir(), "home");
    mkdirSync(join(h2, "cosmovisor/genesis"), { recursive: true });
    writeFileSync(join(h2, "cosmovisor/genesis/bin"), "");
    await expect(initVisor({ home: h2, name: "appd" }, bin, silent)).rejects.toThrow(
      `the path "${join(h2, "cosmovisor/genesis/bin")}" already exists but is not a directory`,
    );
  });

  it("add-upgrade: copies with mode 0755, refuses to overwrite without --force, refuses bad names", async () => {
    const h = await newHome("echo genesis");
    const cfg = { home: h.home, name: h.name, disableRecase: false };
    const logs = captureLog();
    const src = script(join(h.src, "v2"), "echo v2");
    const dest = await addUpgrade(cfg, "v2", src, {}, logs.log);
    expect(dest).toBe(join(h.home, "cosmovisor/upgrades/v2/bin/dummyd"));
    expect(statSync(dest).mode & 0o777).toBe(0o755);
    expect(logs.text()).toContain(`Using ${src} for v2 upgrade`);
    expect(logs.text()).toContain(`Upgrade binary located at ${dest}`);
    await expect(addUpgrade(cfg, "v2", src, {}, silent)).rejects.toThrow(`file already exists at ${dest}`);
    await addUpgrade(cfg, "v2", src, { force: true }, silent);
    for (const n of ["..", ".", ""]) await expect(addUpgrade(cfg, n, src, {}, silent)).rejects.toThrow(`invalid upgrade name ${JSON.stringify(n)}`);
    expect(readdirSync(join(h.home, "cosmovisor/upgrades"))).toEqual(["v2"]);
    expect(readdirSync(h.parent).sort()).toEqual(["home", "outside", "src"]);
  });

  it("add-upgrade --upgrade-height writes the record, then the plan (0600)", async () => {
    const h = await newHome("echo genesis");
    await addUpgrade({ home: h.home, name: h.name, disableRecase: false }, "Manual-1", join(h.src, "genesis"), { height: 77n }, silent);
    const info = join(h.home, "data/upgrade-info.json");
    expect(statSync(info).mode & 0o777).toBe(0o600);
    expect(readFileSync(info, "utf8")).toBe('{"name":"Manual-1","time":"0001-01-01T00:00:00Z","height":77}');
    expect(JSON.parse(readFileSync(join(h.home, "cosmovisor/manual-upgrade.json"), "utf8"))).toEqual({ name: "Manual-1", height: "77", info: "" });
    expect(existsSync(join(h.home, "cosmovisor/upgrades/manual-1/bin/dummyd"))).toBe(true);
  });
});
