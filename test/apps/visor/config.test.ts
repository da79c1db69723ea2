/**
 * docs/spec/sidecar.md §10.1 (configuration and paths), docs/spec/sidecar.md §10.2 I1–I8 (reading the info file), F7 (skip heights),
 * F11 (os/arch), D10 (EnsureBinary), and the name rules of docs/spec/sidecar.md §2.
 */
import { chmodSync, mkdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { detailString, loadConfig, mergeSources, parseConfig, validateConfig, type VisorConfig } from "../../../bindings/apps/visor/config/index.js";
import { planFromText, readPlanFile, skipHeights } from "../../../bindings/apps/visor/node/info-file.js";
import { ensureBinary, Layout } from "../../../bindings/apps/visor/layout.js";
import { osArch, recase, upgradeDirName } from "../../../bindings/apps/visor/names.js";
import { pathEscape } from "../../../bindings/go/url.js";
import { formatGoTime, TIME_FORMAT_NAMES, TIME_LAYOUTS } from "../../../bindings/go/time-layout.js";
import { removeTempDirs, tempDir } from "./helpers.js";

afterAll(removeTempDirs);

/** A valid home (with cosmovisor/) and its environment. */
function validHome(): string {
  const home = tempDir();
  mkdirSync(join(home, "cosmovisor"));
  return home;
}

function errorsOf(env: Record<string, string | undefined>): string[] {
  try {
    loadConfig({ env });
    return [];
  } catch (e) {
    return (e as Error).message.split("\n");
  }
}

describe("configuration from the environment (C1–C7)", () => {
  it("C1: every upstream variable invalid at once → exactly 13 errors, one per line", () => {
    const env = {
      DAEMON_HOME: "",
      DAEMON_NAME: "",
      DAEMON_ALLOW_DOWNLOAD_BINARIES: "bad",
      DAEMON_RESTART_AFTER_UPGRADE: "bad",
      DAEMON_RESTART_DELAY: "bad",
      UNSAFE_SKIP_BACKUP: "bad",
      DAEMON_DATA_BACKUP_DIR: "bad",
      DAEMON_POLL_INTERVAL: "bad",
      DAEMON_PREUPGRADE_MAX_RETRIES: "bad",
      COSMOVISOR_DISABLE_LOGS: "bad",
      COSMOVISOR_COLOR_LOGS: "bad",
      COSMOVISOR_TIMEFORMAT_LOGS: "bad",
      COSMOVISOR_DISABLE_RECASE: "bad",
    };
    const errs = errorsOf(env);
    expect(errs).toHaveLength(13);
    expect(errs).toEqual(
      expect.arrayContaining([
        "DAEMON_NAME is not set",
        "DAEMON_HOME is not set",
        'env variable "DAEMON_ALLOW_DOWNLOAD_BINARIES" must have a boolean value ("true" or "false"), got "bad"',
        "invalid: DAEMON_RESTART_DELAY: could not parse 'bad' into a duration: time: invalid duration \"bad\"",
        "invalid: DAEMON_POLL_INTERVAL: could not parse 'bad' into a duration: time: invalid duration \"bad\"",
        'DAEMON_PREUPGRADE_MAX_RETRIES could not be parsed to int: strconv.Atoi: parsing "bad": invalid syntax',
        'env variable "COSMOVISOR_TIMEFORMAT_LOGS" must have a timeformat value ("layout|ansic|unixdate|rubydate|rfc822|rfc822z|rfc850|rfc1123|rfc1123z|rfc3339|rfc3339nano|kitchen"), got "bad"',
        "bad must be an absolute path",
      ]),
    );
    // The two later upstream variables add one each.
    expect(errorsOf({ ...env, DAEMON_DOWNLOAD_MUST_HAVE_CHECKSUM: "bad", DAEMON_SHUTDOWN_GRACE: "bad" })).toHaveLength(15);
  });

  it("C2: nothing set → 3 errors: name, home, backup dir", () => {
    expect(errorsOf({})).toEqual(["DAEMON_NAME is not set", "DAEMON_HOME is not set", "DAEMON_DATA_BACKUP_DIR must not be empty"]);
  });

  it("C3: the poll interval", () => {
    const home = validHome();
    const base = { DAEMON_HOME: home, DAEMON_NAME: "d" };
    expect(errorsOf({ ...base, DAEMON_POLL_INTERVAL: "bad" })).toEqual([
      "invalid: DAEMON_POLL_INTERVAL: could not parse 'bad' into a duration: time: invalid duration \"bad\"",
    ]);
    expect(errorsOf({ ...base, DAEMON_POLL_INTERVAL: "0" })).toEqual(["invalid: DAEMON_POLL_INTERVAL: must be greater than 0"]);
    expect(errorsOf({ ...base, DAEMON_POLL_INTERVAL: "600" })).toEqual([
      "invalid: DAEMON_POLL_INTERVAL: could not parse '600' into a duration: time: missing unit in duration \"600\"",
    ]);
    expect(errorsOf({ ...base, DAEMON_POLL_INTERVAL: "-3m" })).toEqual(["invalid: DAEMON_POLL_INTERVAL: must be greater than 0"]);
    expect(loadConfig({ env: base }).pollInterval).toBe(300_000_000n);
    expect(loadConfig({ env: { ...base, DAEMON_POLL_INTERVAL: "1s" } }).pollInterval).toBe(1_000_000_000n);
  });

  it("C4: restart delay, shutdown grace, pre-upgrade retries", () => {
    const base = { DAEMON_HOME: validHome(), DAEMON_NAME: "d" };
    expect(loadConfig({ env: base }).restartDelay).toBe(0n);
    expect(loadConfig({ env: { ...base, DAEMON_SHUTDOWN_GRACE: "15s" } }).shutdownGrace).toBe(15_000_000_000n);
    expect(errorsOf({ ...base, DAEMON_PREUPGRADE_MAX_RETRIES: "bad" })).toEqual([
      'DAEMON_PREUPGRADE_MAX_RETRIES could not be parsed to int: strconv.Atoi: parsing "bad": invalid syntax',
    ]);
    expect(errorsOf({ ...base, DAEMON_PREUPGRADE_MAX_RETRIES: "-1" })).toEqual(["DAEMON_PREUPGRADE_MAX_RETRIES must not be negative"]);
    expect(loadConfig({ env: base }).preupgradeMaxRetries).toBe(0);
    expect(loadConfig({ env: { ...base, DAEMON_PREUPGRADE_MAX_RETRIES: "2" } }).preupgradeMaxRetries).toBe(2);
  });

  it("C5: booleans", () => {
    const b = (v: string, def: boolean) => {
      const { cfg, errors } = parseConfig({ UNSAFE_SKIP_BACKUP: v, DAEMON_RESTART_AFTER_UPGRADE: v });
      return errors.length > 0 ? "error" : def ? cfg.restartAfterUpgrade : cfg.unsafeSkipBackup;
    };
    expect([b("", true), b("", false)]).toEqual([true, false]);
    expect([b("wrong", false), b("truee", false)]).toEqual(["error", "error"]);
    expect([b("false", true), b("faLSe", true), b("true", false), b("TRUE", false)]).toEqual([false, false, true, true]);
    expect(parseConfig({ COSMOVISOR_COLOR_LOGS: "truee" }).errors).toEqual([
      'env variable "COSMOVISOR_COLOR_LOGS" must have a boolean value ("true" or "false"), got "truee"',
    ]);
    expect(parseConfig({ COSMOVISOR_COLOR_LOGS: "WRONG" }).errors[0]).toMatch(/got "wrong"$/);
  });

  it("C6: the log time format", () => {
    expect(parseConfig({}).cfg.timeFormatLogs).toBe("kitchen");
    expect(parseConfig({ COSMOVISOR_TIMEFORMAT_LOGS: "" }).cfg.timeFormatLogs).toBe("");
    expect(parseConfig({ COSMOVISOR_TIMEFORMAT_LOGS: "wrong" }).errors).toHaveLength(1);
    expect(TIME_FORMAT_NAMES).toHaveLength(12);
    const d = new Date(2024, 7, 5, 15, 4, 5, 120);
    for (const name of TIME_FORMAT_NAMES) {
      const { cfg, errors } = parseConfig({ COSMOVISOR_TIMEFORMAT_LOGS: name });
      expect(errors).toEqual([]);
      expect(cfg.timeFormatLogs).toBe(name);
      expect(formatGoTime(d, TIME_LAYOUTS[name])).not.toBe("");
    }
    expect(formatGoTime(d, TIME_LAYOUTS.kitchen)).toBe("3:04PM");
    expect(formatGoTime(d, TIME_LAYOUTS.ansic)).toBe("Mon Aug  5 15:04:05 2024");
    expect(formatGoTime(d, TIME_LAYOUTS.rfc3339nano)).toMatch(/^2024-08-05T15:04:05\.12(Z|[+-]\d\d:\d\d)$/);
    expect(formatGoTime(d, TIME_LAYOUTS.rfc850)).toMatch(/^Monday, 05-Aug-24 15:04:05 /);
    expect(formatGoTime(d, TIME_LAYOUTS.layout)).toMatch(/^08\/05 03:04:05PM '24 [+-]\d{4}$/);
  });

  it("C7: the home and the backup directory", () => {
    const noRoot = tempDir();
    const home = validHome();
    const cfg = (o: Partial<VisorConfig>) => ({ ...parseConfig({ DAEMON_NAME: "d", DAEMON_HOME: home }).cfg, ...o });
    const invalid = [
      cfg({ home: noRoot, dataBackupDir: noRoot }),
      cfg({ home: "relative/home" }),
      cfg({ home: "/no/such/dir" }),
      cfg({ dataBackupDir: "" }),
      cfg({ dataBackupDir: "/no/such/dir" }),
      cfg({ dataBackupDir: "relative/dir" }),
    ];
    for (const c of invalid) expect(validateConfig(c).length, JSON.stringify(c.home + " " + c.dataBackupDir)).toBeGreaterThan(0);
    expect(validateConfig(invalid[0])).toEqual([`cannot stat home dir: stat ${noRoot}/cosmovisor: no such file or directory`]);
    expect(validateConfig(invalid[1])).toEqual(["DAEMON_HOME must be an absolute path"]);
    expect(validateConfig(invalid[4])).toEqual(['"/no/such/dir" must be a valid directory: stat /no/such/dir: no such file or directory']);
    expect(validateConfig(invalid[5])).toEqual(["relative/dir must be an absolute path"]);
    writeFileSync(join(noRoot, "cosmovisor"), "");
    expect(validateConfig(invalid[0])).toEqual([`${noRoot}/cosmovisor is not a directory`]);
    for (const c of invalid.slice(3)) expect(validateConfig({ ...c, unsafeSkipBackup: true })).toEqual([]);
  });
});

describe("config listing, paths and the config file (C8–C11)", () => {
  it("C8: `config` lists every value and the derived paths", () => {
    const home = validHome();
    const text = detailString(loadConfig({ env: { DAEMON_HOME: home, DAEMON_NAME: "test-name", DAEMON_POLL_INTERVAL: "406ms" } }));
    for (const piece of ["Configurable Values:", "DAEMON_POLL_INTERVAL: 406ms", "Derived Values:", "Root Dir:", "Monitored File:", "Data Backup Dir:"])
      expect(text).toContain(piece);
    expect(text).toContain(`  DAEMON_HOME: ${home}\n`);
    expect(text).toContain("  DAEMON_RESTART_DELAY: 0s\n");
    expect(text).toContain(`     Genesis Bin: ${home}/cosmovisor/genesis/bin/test-name\n`);
    expect(text).toContain(`  Monitored File: ${home}/data/upgrade-info.json\n`);
  });

  it("C12 ★: the download deadline and minimum rate: defaults, values, every problem collected, listed by `config`", () => {
    const home = validHome();
    const base = { DAEMON_HOME: home, DAEMON_NAME: "d" };
    const def = loadConfig({ env: base });
    expect([def.downloadTimeout, def.downloadMinRate, def.downloadIdleTimeout]).toEqual([3_600_000_000_000n, 1024, 60_000_000_000n]);
    const text = detailString(def);
    expect(text).toContain("  DAEMON_DOWNLOAD_IDLE_TIMEOUT: 1m0s\n  DAEMON_DOWNLOAD_TIMEOUT: 1h0m0s\n  DAEMON_DOWNLOAD_MIN_RATE: 1024\n");
    const set = loadConfig({ env: { ...base, DAEMON_DOWNLOAD_TIMEOUT: "90s", DAEMON_DOWNLOAD_MIN_RATE: "0" } });
    expect([set.downloadTimeout, set.downloadMinRate]).toEqual([90_000_000_000n, 0]);
    expect(errorsOf({ ...base, DAEMON_DOWNLOAD_TIMEOUT: "600", DAEMON_DOWNLOAD_MIN_RATE: "fast", DAEMON_DOWNLOAD_IDLE_TIMEOUT: "-1s" })).toEqual([
      "invalid: DAEMON_DOWNLOAD_IDLE_TIMEOUT: must be greater than 0",
      `invalid: DAEMON_DOWNLOAD_TIMEOUT: could not parse '600' into a duration: time: missing unit in duration "600"`,
      'invalid: DAEMON_DOWNLOAD_MIN_RATE: must be a non-negative integer, got "fast"',
    ]);
  });

  it("C9: upgrade directories; a home with a trailing slash is normalised", () => {
    const l = new Layout({ home: "/longer/prefix", name: "yourd", disableRecase: false });
    expect(l.upgradeBin("some spaces")).toBe("/longer/prefix/cosmovisor/upgrades/some%20spaces/bin/yourd");
    expect(new Layout({ home: "/longer/prefix", name: "appd", disableRecase: true }).upgradeDir("myUpgrade")).toBe(
      "/longer/prefix/cosmovisor/upgrades/myUpgrade",
    );
    expect(l.upgradeDir("myUpgrade")).toBe("/longer/prefix/cosmovisor/upgrades/myupgrade");
    expect(parseConfig({ DAEMON_HOME: "/longer/prefix/" }).cfg.home).toBe("/longer/prefix");
    expect(parseConfig({ DAEMON_HOME: "/a//b/./c/" }).cfg.home).toBe("/a/b/c");
  });

  it("C10: the names '..', '.' and '' are refused", () => {
    const l = new Layout({ home: "/h", name: "d", disableRecase: false });
    for (const n of ["..", ".", ""]) expect(() => l.upgradeDir(n)).toThrow(`invalid upgrade name ${JSON.stringify(n)}`);
    expect(l.upgradeDir("../x")).toBe("/h/cosmovisor/upgrades/..%2Fx");
  });

  it("C11: a config file under the environment", () => {
    const home = validHome();
    const file = join(tempDir(), "visor.toml");
    writeFileSync(file, `daemon_home = "${home}"\ndaemon_name = "from-file"\ndaemon_allow_download_binaries = true\ndaemon_restart_delay = "2s"\n`);
    const fromFile = loadConfig({ configFile: file, env: {} });
    expect([fromFile.name, fromFile.allowDownloadBinaries, fromFile.restartDelay, fromFile.pollInterval]).toEqual([
      "from-file",
      true,
      2_000_000_000n,
      300_000_000n,
    ]);
    expect(loadConfig({ configFile: file, env: { DAEMON_NAME: "from-env" } }).name).toBe("from-env");
    expect(loadConfig({ configFile: "", env: { DAEMON_HOME: home, DAEMON_NAME: "env-only" } }).name).toBe("env-only");
    expect(mergeSources({ DAEMON_NAME: "f" }, { DAEMON_NAME: "" }).DAEMON_NAME).toBe("f");
    expect(() => loadConfig({ configFile: join(home, "missing.toml"), env: {} })).toThrow(/failed to read config file/);
  });
});

describe("names and platforms", () => {
  it("recases per character and escapes as Go's url.PathEscape", () => {
    expect(recase("v8-Rho")).toBe("v8-rho");
    expect(recase("İSTANBUL")).toBe("istanbul");
    expect(pathEscape("some spaces")).toBe("some%20spaces");
    expect(pathEscape("v1/evil")).toBe("v1%2Fevil");
    expect(pathEscape("名前")).toBe("%E5%90%8D%E5%89%8D");
    expect(pathEscape("a-_.~$&+:=@b;,?")).toBe("a-_.~$&+:=@b%3B%2C%3F");
    expect(upgradeDirName("Chain2", true)).toBe("Chain2");
  });

  it("F11: OSArch is one of the supported Go keys here, and maps Node's names", () => {
    expect(["linux/amd64", "linux/arm64", "darwin/amd64", "darwin/arm64"]).toContain(osArch());
    expect(osArch("win32", "ia32")).toBe("windows/386");
    expect(osArch("darwin", "x64")).toBe("darwin/amd64");
  });

  it("F7: --unsafe-skip-upgrades parsing", () => {
    const s = skipHeights(["--unsafe-skip-upgrades", "10", "20", "--abcd", "34"]);
    expect(s).toContain(20n);
    expect(s).not.toContain(11n);
    expect(s).not.toContain(34n);
    expect(skipHeights(["--unsafe-skip-upgrades", "--abcd", "34"])).toEqual([]);
    expect(skipHeights(["--unsafe-skip-upgrades", "10", "as", "20", "--abcd", "34"])).toEqual([10n, 20n]);
    expect(skipHeights(["start", "--unsafe-skip-upgrades", "5,6", "x", "--unsafe-skip-upgrades=7,8"])).toEqual([5n, 6n, 7n, 8n]);
  });
});

describe("reading upgrade-info.json (I1–I8)", () => {
  const parse = (text: string, disableRecase = false) => {
    try {
      return planFromText(text, "/h/data/upgrade-info.json", disableRecase);
    } catch (e) {
      return (e as Error).message;
    }
  };

  it("I1–I2: valid files, recased names", () => {
    expect(parse('{"name":"upgrade1","info":"some info","height":123}')).toEqual({ name: "upgrade1", rawName: "upgrade1", height: 123n, info: "some info" });
    expect(parse('{"name":"Upgrade2","info":"some info","height":125}')).toMatchObject({ name: "upgrade2", rawName: "Upgrade2", height: 125n });
    expect(parse('{"name":"Upgrade2","info":"some info","height":125}', true)).toMatchObject({ name: "Upgrade2" });
    expect(parse('{"NAME":"v2","Height":7,"time":"0001-01-01T00:00:00Z"}')).toMatchObject({ name: "v2", height: 7n });
  });

  it("I3–I7: clear errors for garbage, wrong types, missing fields", () => {
    expect(parse('{"name":"upgrade1","info":123,"heigh":123}')).toContain("cannot unmarshal number into Go struct");
    expect(parse('{"name":"upgrade1","heigh":"123"}')).toContain("height must be greater than 0: invalid request");
    expect(parse("")).toContain("empty upgrade-info.json in");
    expect(parse("{}")).toMatch(/^invalid upgrade-info.json content: name cannot be empty/);
    expect(parse('{"name":"upgrade2"}')).toContain("height must be greater than 0");
    expect(parse('{"height":1}')).toContain("name cannot be empty: invalid request");
    expect(parse('{"name":"v2","height":"123"}')).toBe("json: cannot unmarshal string into Go struct field Plan.height of type int64");
    expect(parse('{"name":"","height":5}')).toBe("invalid upgrade-info.json content: name cannot be empty: invalid request");
    expect(parse("garbage{")).toMatch(/^invalid upgrade-info.json in "\/h\/data\/upgrade-info.json": invalid character 'g'/);
    expect(parse('{"name":"chain2","hei')).toMatch(/unexpected end of JSON input/);
  });

  it("I8: a missing file is 'nothing yet'", async () => {
    expect(await readPlanFile(join(tempDir(), "upgrade-info.json"), false)).toBeUndefined();
  });
});

describe("D10: EnsureBinary", () => {
  it("missing, a directory, a 0600 file, an executable", async () => {
    const d = tempDir();
    await expect(ensureBinary(join(d, "missing"))).rejects.toThrow(/no such file or directory/);
    mkdirSync(join(d, "dir"));
    await expect(ensureBinary(join(d, "dir"))).rejects.toThrow("dir is not a regular file");
    writeFileSync(join(d, "plain"), "x", { mode: 0o600 });
    chmodSync(join(d, "plain"), 0o600);
    await ensureBinary(join(d, "plain"));
    expect(statSync(join(d, "plain")).mode & 0o777).toBe(0o711);
    writeFileSync(join(d, "exe"), "x", { mode: 0o755 });
    await ensureBinary(join(d, "exe"));
  });
});
