/**
 * upgrade-info.json (docs/spec/keeper.md §7, §7.1; acceptance K15, B13, B18, B21): Go-exact bytes on write,
 * Go json.Unmarshal semantics and wording on read, atomic replacement under SIGKILL.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { UpgradeError } from "../../bindings/core/errors.js";
import {
  encodeUpgradeInfo,
  parseUpgradeInfo,
  readUpgradeInfo,
  upgradeInfoPath,
  writeUpgradeInfo,
  type ParsedUpgradeInfo,
} from "../../bindings/module/upgrade-info/index.js";
import { goJsonString } from "../../bindings/go/json.js";

import wire from "../vectors/wire.json" with { type: "json" };

const ZERO = "0001-01-01T00:00:00Z";
const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;
const P = "/home/x/data/upgrade-info.json";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempHome(): string {
  const d = mkdtempSync(join(tmpdir(), "xupgrade-info-"));
  dirs.push(d);
  return d;
}

/** The error a call throws (sync or async). */
async function caught(fn: () => unknown): Promise<UpgradeError> {
  try {
    await fn();
  } catch (err) {
    expect(err).toBeInstanceOf(UpgradeError);
    return err as UpgradeError;
  }
  throw new Error("expected an error");
}

/** parseUpgradeInfo's error message for `text`, asserting it is the invalid-upgrade-info error (xupgrade/3). */
function parseError(text: string): string {
  let err: unknown;
  try {
    parseUpgradeInfo(text, P);
  } catch (e) {
    err = e;
  }
  expect(err).toBeInstanceOf(UpgradeError);
  const u = err as UpgradeError;
  expect([u.codespace, u.code, u.kind]).toEqual(["xupgrade", 3, "invalid-upgrade-info"]);
  return u.message;
}
const syntaxError = (text: string) => parseError(text).replace(`invalid upgrade-info.json in "${P}": `, "");

const plan = (fields: Partial<ParsedUpgradeInfo>): ParsedUpgradeInfo => ({
  name: "",
  height: 0n,
  info: "",
  time: null,
  timeIsZero: true,
  ...fields,
});

describe("upgradeInfoPath", () => {
  it("is <home>/data/upgrade-info.json", () => {
    expect(upgradeInfoPath("/srv/node")).toBe("/srv/node/data/upgrade-info.json");
  });
});

describe("encodeUpgradeInfo: Go encoding/json bytes", () => {
  it("matches the wire vector", () => {
    expect(encodeUpgradeInfo({ name: "test", height: 11n, info: "" })).toBe(wire.upgrade_info_json.test_11);
    expect(wire.upgrade_info_json.test_11).toBe('{"name":"test","time":"0001-01-01T00:00:00Z","height":11}');
  });

  it("orders keys name, time, height, info with no whitespace", () => {
    const info = '{"binaries":{"linux/amd64":"https://example.com/app.tar.gz?checksum=sha256:…"}}';
    expect(encodeUpgradeInfo({ name: "v2", height: 11n, info })).toBe(
      '{"name":"v2","time":"0001-01-01T00:00:00Z","height":11,"info":"{\\"binaries\\":{\\"linux/amd64\\":' +
        '\\"https://example.com/app.tar.gz?checksum=sha256:…\\"}}"}',
    );
  });

  it("omits empty info, and (Go omitempty) an empty name and a zero height", () => {
    expect(encodeUpgradeInfo({ name: "a", height: 1n, info: "" })).not.toContain("info");
    // K15: what Go dumps for an empty name.
    expect(encodeUpgradeInfo({ name: "", height: 101n, info: "" })).toBe('{"time":"0001-01-01T00:00:00Z","height":101}');
    expect(encodeUpgradeInfo({ name: "", height: 0n, info: "" })).toBe('{"time":"0001-01-01T00:00:00Z"}');
  });

  it("writes int64 heights as exact JSON numbers", () => {
    expect(encodeUpgradeInfo({ name: "m", height: INT64_MAX, info: "" })).toBe('{"name":"m","time":"0001-01-01T00:00:00Z","height":9223372036854775807}');
    expect(encodeUpgradeInfo({ name: "m", height: INT64_MIN, info: "" })).toContain('"height":-9223372036854775808}');
  });

  it("escapes <, > and & as \\u003c \\u003e \\u0026 (HTML-safe, unlike JSON.stringify)", () => {
    expect(goJsonString("<a href='x'>&</a>")).toBe("\"\\u003ca href='x'\\u003e\\u0026\\u003c/a\\u003e\"");
  });

  it("escapes U+2028 and U+2029", () => {
    expect(goJsonString("a\u2028b\u2029c")).toBe('"a\\u2028b\\u2029c"');
  });

  it('escapes " and \\ and uses \\b \\f \\n \\r \\t, lowercase \\u00xx for other controls', () => {
    expect(goJsonString('q"b\\s')).toBe('"q\\"b\\\\s"');
    expect(goJsonString("\b\f\n\r\t")).toBe('"\\b\\f\\n\\r\\t"');
    expect(goJsonString("\0\x01\x0b\x1b\x1f")).toBe('"\\u0000\\u0001\\u000b\\u001b\\u001f"');
  });

  it("keeps DEL, non-ASCII and astral characters literal; a lone surrogate becomes \\ufffd", () => {
    expect(goJsonString("\x7fé€😀/'")).toBe('"\x7fé€😀/\'"');
    expect(goJsonString("a\ud800b\udc00")).toBe('"a\\ufffdb\\ufffd"');
  });

  it("property: equals JSON.stringify plus Go's extra escapes, for well-formed strings", () => {
    const goExtra = (s: string) => JSON.stringify(s).replace(/[<>&\u2028\u2029]/g, (c) => "\\u" + c.charCodeAt(0).toString(16).padStart(4, "0"));
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), fc.string({ unit: "binary-ascii" }), (a, b) => {
        expect(goJsonString(a)).toBe(goExtra(a));
        expect(goJsonString(b)).toBe(goExtra(b));
      }),
    );
  });

  it("treats a non-bigint or out-of-range height as misuse (TypeError)", () => {
    expect(() => encodeUpgradeInfo({ name: "a", height: 5 as never, info: "" })).toThrow(TypeError);
    expect(() => encodeUpgradeInfo({ name: "a", height: INT64_MAX + 1n, info: "" })).toThrow(TypeError);
    expect(() => encodeUpgradeInfo({ name: 7 as never, height: 1n, info: "" })).toThrow(TypeError);
  });
});

describe("writeUpgradeInfo", () => {
  it("B13: no file reads as nothing; dump(11, {test}) writes the exact bytes with mode 0600; removable", async () => {
    const home = tempHome();
    expect(await readUpgradeInfo(home)).toBeUndefined();
    await writeUpgradeInfo(home, { name: "test", height: 11n, info: "" });
    const path = join(home, "data", "upgrade-info.json");
    expect(readFileSync(path, "utf8")).toBe('{"name":"test","time":"0001-01-01T00:00:00Z","height":11}');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(await readUpgradeInfo(home)).toEqual(plan({ name: "test", height: 11n, time: ZERO }));
    rmSync(path);
    expect(await readUpgradeInfo(home)).toBeUndefined();
  });

  it("creates data/ when missing and leaves no temp file behind", async () => {
    const home = tempHome();
    expect(existsSync(join(home, "data"))).toBe(false);
    await writeUpgradeInfo(home, { name: "v2", height: 7n, info: "{}" });
    expect(statSync(join(home, "data")).isDirectory()).toBe(true);
    expect(readdirSync(join(home, "data"))).toEqual(["upgrade-info.json"]);
  });

  it("replaces an existing file completely and resets its mode to 0600", async () => {
    const home = tempHome();
    mkdirSync(join(home, "data"));
    const path = join(home, "data", "upgrade-info.json");
    writeFileSync(path, "x".repeat(500), { mode: 0o644 });
    await writeUpgradeInfo(home, { name: "b", height: 2n, info: "" });
    expect(readFileSync(path, "utf8")).toBe('{"name":"b","time":"0001-01-01T00:00:00Z","height":2}');
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("K15: reads back what it wrote, including Go's dump of an empty name", async () => {
    const home = tempHome();
    await writeUpgradeInfo(home, { name: "test_upgrade", height: 101n, info: "" });
    expect(await readUpgradeInfo(home)).toEqual(plan({ name: "test_upgrade", height: 101n, time: ZERO }));
    writeFileSync(upgradeInfoPath(home), '{"time":"0001-01-01T00:00:00Z","height":101}');
    // Parses; the keeper's ValidateBasic (step 6) then reports `name cannot be empty`.
    expect(await readUpgradeInfo(home)).toEqual(plan({ height: 101n, time: ZERO }));
  });

  it("fails with `homePath is not set` when there is no home", async () => {
    for (const home of [undefined, ""]) {
      const err = await caught(() => writeUpgradeInfo(home, { name: "a", height: 1n, info: "" }));
      expect(err.message).toBe("unable to write upgrade info to filesystem: homePath is not set");
      expect([err.codespace, err.code, err.kind, err.exitCode]).toEqual(["undefined", 1, "info-write-failed", 24]);
    }
  });

  it("B18: fails with the write error when homePath is a regular file", async () => {
    const home = join(tempHome(), "not-a-dir");
    writeFileSync(home, "file");
    const err = await caught(() => writeUpgradeInfo(home, { name: "test", height: 11n, info: "" }));
    expect(err.message).toMatch(/^unable to write upgrade info to filesystem: could not create directory ".*not-a-dir\/data": /);
    expect(err.kind).toBe("info-write-failed");
  });

  it("removes its temp file when the final rename fails", async () => {
    const home = tempHome();
    mkdirSync(join(home, "data", "upgrade-info.json", "occupied"), { recursive: true });
    const err = await caught(() => writeUpgradeInfo(home, { name: "test", height: 11n, info: "" }));
    expect(err.message).toMatch(/^unable to write upgrade info to filesystem: \S/);
    expect(readdirSync(join(home, "data"))).toEqual(["upgrade-info.json"]);
  });

  it("rejects misuse as a TypeError before touching the disk", async () => {
    const home = tempHome();
    await expect(writeUpgradeInfo(home, { name: "a", height: 1 as never, info: "" })).rejects.toThrow(TypeError);
    expect(existsSync(join(home, "data"))).toBe(false);
  });
});

describe("B21: SIGKILL during writes", () => {
  const module = fileURLToPath(new URL("../../bindings/module/upgrade-info/file.ts", import.meta.url));
  const root = fileURLToPath(new URL("../..", import.meta.url));
  const big = (c: string) => ({ name: `plan-${c}`, height: 1000n, info: c.repeat(2_000_000) });

  /** Runs `body` in a child node process (with `writeUpgradeInfo` and `home` in scope); resolves on exit. */
  function runChild(home: string, body: string) {
    const script = `
      const { readdirSync } = await import("node:fs");
      const { writeUpgradeInfo } = await import(${JSON.stringify(module)});
      const home = ${JSON.stringify(home)};
      const plans = ["a", "b"].map((c) => ({ name: "plan-" + c, height: 1000n, info: c.repeat(2_000_000) }));
      ${body}`;
    const proc = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", script], {
      cwd: root,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    proc.stderr.on("data", (d) => (stderr += d));
    const exited = new Promise<void>((resolve) => proc.on("exit", () => resolve()));
    const ready = new Promise<void>((resolve, reject) => {
      proc.stdout.on("data", (d) => String(d).includes("ready") && resolve());
      proc.on("exit", (code) => reject(new Error(`child exited (${code}): ${stderr}`)));
    });
    ready.catch(() => {});
    return { proc, ready, exited };
  }

  it("killed while the temp file is being written: the old file stays whole, the stray temp is ignored", async () => {
    const home = tempHome();
    // The child writes plan a, starts writing plan b and SIGKILLs itself as soon as b's temp file exists.
    const child = runChild(
      home,
      `await writeUpgradeInfo(home, plans[0]);
      writeUpgradeInfo(home, plans[1]);
      for (;;) {
        if (readdirSync(home + "/data").some((f) => f.endsWith(".tmp"))) process.kill(process.pid, "SIGKILL");
        await new Promise((r) => setImmediate(r));
      }`,
    );
    await child.exited;
    expect(child.proc.signalCode).toBe("SIGKILL");
    const files = readdirSync(join(home, "data"));
    expect(files).toContain("upgrade-info.json");
    expect(files.filter((f) => /^\.upgrade-info\.json\..*\.tmp$/.test(f))).toHaveLength(1);
    expect(readFileSync(upgradeInfoPath(home), "utf8")).toBe(encodeUpgradeInfo(big("a")));
    expect(await readUpgradeInfo(home)).toEqual(plan({ ...big("a"), time: ZERO }));
    // The next write replaces the target normally despite the stray.
    await writeUpgradeInfo(home, { name: "next", height: 2n, info: "" });
    expect((await readUpgradeInfo(home))!.name).toBe("next");
  }, 30_000);

  it("killed at random points of a write loop: the target is absent or complete, never partial", async () => {
    const expected = [encodeUpgradeInfo(big("a")), encodeUpgradeInfo(big("b"))];
    for (let round = 0; round < 6; round++) {
      const home = tempHome();
      const w = runChild(
        home,
        `for (let i = 0; ; i++) {
          await writeUpgradeInfo(home, plans[i % 2]);
          if (i === 1) process.stdout.write("ready\\n");
        }`,
      );
      try {
        await w.ready;
        await new Promise((r) => setTimeout(r, 3 + round * 7)); // land at different points of a write
      } finally {
        w.proc.kill("SIGKILL");
        await w.exited;
      }
      expect(w.proc.signalCode).toBe("SIGKILL");
      expect(expected).toContain(readFileSync(upgradeInfoPath(home), "utf8"));
      const info = await readUpgradeInfo(home);
      expect(["plan-a", "plan-b"]).toContain(info!.name);
      expect(info!.info.length).toBe(2_000_000);
    }
  }, 60_000);

  it("a fresh home with only a half-written temp file reads as no upgrade", async () => {
    const home = tempHome();
    mkdirSync(join(home, "data"));
    writeFileSync(join(home, "data", ".upgrade-info.json.123.deadbeef.tmp"), '{"name":"half","ti');
    expect(await readUpgradeInfo(home)).toBeUndefined();
    await writeUpgradeInfo(home, { name: "next", height: 3n, info: "" });
    expect((await readUpgradeInfo(home))!.name).toBe("next");
  });
});

describe("readUpgradeInfo / parseUpgradeInfo: docs/spec/keeper.md §7.1 steps 1–3", () => {
  it("step 1: a missing file (or no home) is no upgrade", async () => {
    expect(await readUpgradeInfo(tempHome())).toBeUndefined();
    expect(await readUpgradeInfo(undefined)).toBeUndefined();
  });

  it("step 2: zero bytes", async () => {
    const home = tempHome();
    mkdirSync(join(home, "data"));
    writeFileSync(upgradeInfoPath(home), "");
    const err = await caught(() => readUpgradeInfo(home));
    expect(err.message).toBe(`empty upgrade-info.json in "${upgradeInfoPath(home)}"`);
    expect([err.codespace, err.code, err.kind]).toEqual(["xupgrade", 3, "invalid-upgrade-info"]);
  });

  it("step 3: every truncation of a written file is invalid (a half-written file)", async () => {
    const home = tempHome();
    await writeUpgradeInfo(home, { name: "v2", height: 11n, info: '{"b":"x"}' });
    const full = readFileSync(upgradeInfoPath(home), "utf8");
    for (let n = 1; n < full.length; n++) {
      writeFileSync(upgradeInfoPath(home), full.slice(0, n));
      const err = await caught(() => readUpgradeInfo(home));
      expect(err.message.startsWith(`invalid upgrade-info.json in "${upgradeInfoPath(home)}": `)).toBe(true);
      expect(err.code).toBe(3);
    }
    expect(syntaxError(full.slice(0, 20))).toBe("unexpected end of JSON input");
  });

  it("step 3: Go scanner messages", () => {
    const cases: [string, string][] = [
      ["   ", "unexpected end of JSON input"],
      ["hello", "invalid character 'h' looking for beginning of value"],
      ['{"a" 1}', "invalid character '1' after object key"],
      ['{"a":1 "b":2}', "invalid character '\"' after object key:value pair"],
      ['{"a":[1 2]}', "invalid character '2' after array element"],
      ["{} x", "invalid character 'x' after top-level value"],
      ["01", "invalid character '1' after top-level value"],
      ["{'a':1}", "invalid character '\\'' looking for beginning of object key string"],
      ['{"a":1,}', "invalid character '}' looking for beginning of object key string"],
      ["[1,]", "invalid character ']' looking for beginning of value"],
      ['{"a":tru}', "invalid character '}' in literal true (expecting 'e')"],
      ['{"a":nul', "invalid character ' ' in literal null (expecting 'l')"],
      ['{"a":-}', "invalid character '}' in numeric literal"],
      ['{"a":-', "invalid character ' ' in numeric literal"],
      ['{"a":1.}', "invalid character '}' after decimal point in numeric literal"],
      ['{"a":1e+}', "invalid character '}' in exponent of numeric literal"],
      ['{"a":"\\x"}', "invalid character 'x' in string escape code"],
      ['{"a":"\\u12G4"}', "invalid character 'G' in \\u hexadecimal character escape"],
      ['{"a":"x\ny"}', "invalid character '\\n' in string literal"],
      ['{"a":"\x01"}', "invalid character '\\x01' in string literal"],
      ['{"a":"abc', "unexpected end of JSON input"],
      ["\ufeff{}", "invalid character 'ï' looking for beginning of value"],
      // Go scans bytes: it reports the first UTF-8 byte of U+00A0 (0xC2) read as a Latin-1 rune.
      ["{\u00a0}", "invalid character 'Â' looking for beginning of object key string"],
    ];
    for (const [text, detail] of cases) expect(syntaxError(text), JSON.stringify(text)).toBe(detail);
  });

  it("step 3: a byte-order mark in the file is rejected, as in Go", async () => {
    const home = tempHome();
    mkdirSync(join(home, "data"));
    writeFileSync(upgradeInfoPath(home), "\ufeff" + encodeUpgradeInfo({ name: "a", height: 1n, info: "" }));
    expect((await caught(() => readUpgradeInfo(home))).message).toContain("invalid character 'ï'");
  });

  it("step 3: nesting deeper than Go's 10000 limit is a syntax error, not a stack overflow", () => {
    expect(syntaxError("[".repeat(10001) + "]".repeat(10001))).toBe("invalid character '[' exceeded max nesting depth");
    expect(syntaxError('{"x":' + "[".repeat(200_000))).toBe("invalid character '[' exceeded max nesting depth");
    // 10000 levels are fine for the syntax check; an unknown key's deep value is then skipped.
    const deep = "[".repeat(9999) + "]".repeat(9999);
    expect(parseUpgradeInfo(`{"name":"d","x":${deep}}`, P)).toEqual(plan({ name: "d" }));
  });

  it("property: valid exactly when JSON.parse accepts (syntax), on JSON-ish noise", () => {
    const token = fc.constantFrom(...'{}[]:,"\\ u 0 1 9 - + . e E t r f a l s n x \n \t'.split(" "), " ", '"a"', "true", "null", "1.5e3");
    fc.assert(
      fc.property(
        fc.array(token, { maxLength: 14 }).map((t) => t.join("")),
        (text) => {
          if (text.length === 0) return;
          let jsOk = true;
          try {
            JSON.parse(text);
          } catch {
            jsOk = false;
          }
          let syntaxOk = true;
          try {
            parseUpgradeInfo(text, P);
          } catch (e) {
            syntaxOk = !(e as Error).message.startsWith("invalid upgrade-info.json");
          }
          expect(syntaxOk, JSON.stringify(text)).toBe(jsOk);
        },
      ),
      { numRuns: 3000 },
    );
  });
});

describe("parseUpgradeInfo: docs/spec/keeper.md §7.1 steps 4–5 (Go json.Unmarshal into Plan)", () => {
  it("null at the top level counts as {}", () => {
    expect(parseUpgradeInfo("null", P)).toEqual(plan({}));
    expect(parseUpgradeInfo(" {} ", P)).toEqual(plan({}));
  });

  it("a non-object top level is a Go type error", () => {
    expect(parseError("[]")).toBe("json: cannot unmarshal array into Go value of type types.Plan");
    expect(parseError('"x"')).toBe("json: cannot unmarshal string into Go value of type types.Plan");
    expect(parseError("12")).toBe("json: cannot unmarshal number into Go value of type types.Plan");
    expect(parseError("true")).toBe("json: cannot unmarshal bool into Go value of type types.Plan");
  });

  it("matches keys case-insensitively; the last match wins", () => {
    expect(parseUpgradeInfo('{"NAME":"a","Height":5,"iNfO":"x"}', P)).toEqual(plan({ name: "a", height: 5n, info: "x" }));
    expect(parseUpgradeInfo('{"name":"a","NAME":"b","Name":"c","height":1,"HEIGHT":2}', P)).toEqual(plan({ name: "c", height: 2n }));
    expect(parseUpgradeInfo('{"n\\u0061me":"escaped key"}', P).name).toBe("escaped key");
  });

  it("folds keys like Go (Unicode simple folding: ſ matches s)", async () => {
    expect((await caught(() => parseUpgradeInfo('{"upgraded_client_\u017ftate":{}}', P))).message).toBe(
      "upgrade logic for IBC has been moved to the IBC module: invalid request",
    );
    expect(parseUpgradeInfo('{"nämé":"x","NAME ":"y"}', P)).toEqual(plan({}));
  });

  it("null leaves a field unchanged (Go); a null-only field is empty", () => {
    expect(parseUpgradeInfo('{"name":null,"height":null,"info":null,"time":null}', P)).toEqual(plan({}));
    expect(parseUpgradeInfo('{"name":"a","name":null,"height":4,"height":null}', P)).toEqual(plan({ name: "a", height: 4n }));
  });

  it("ignores unknown keys, whatever their value", () => {
    const text = '{"foo":{"deep":[1,2,{"a":"}]"}]},"name":"x","bar":"]}","baz":[[],{}],"q":-1.5e-3,"height":3}';
    expect(parseUpgradeInfo(text, P)).toEqual(plan({ name: "x", height: 3n }));
  });

  it('{"name":"x","heigh":"123"} parses with height 0 (ValidateBasic, step 6, rejects it later)', () => {
    expect(parseUpgradeInfo('{"name":"x","heigh":"123"}', P)).toEqual(plan({ name: "x" }));
  });

  it("parses the height token exactly over the whole int64 range", () => {
    const h = (t: string) => parseUpgradeInfo(`{"height":${t}}`, P).height;
    expect(h("9223372036854775807")).toBe(INT64_MAX);
    expect(h("-9223372036854775808")).toBe(INT64_MIN);
    expect(h("9007199254740993")).toBe(9007199254740993n); // 2^53 + 1: lost by JSON.parse
    expect(h("-0")).toBe(0n);
    expect(h("0")).toBe(0n);
  });

  it("height type errors use Go's wording", () => {
    const msg = (what: string) => `json: cannot unmarshal ${what} into Go struct field Plan.height of type int64`;
    expect(parseError('{"height":"123"}')).toBe(msg("string"));
    expect(parseError('{"height":12.5}')).toBe(msg("number 12.5"));
    expect(parseError('{"height":1e3}')).toBe(msg("number 1e3"));
    expect(parseError('{"height":1.0}')).toBe(msg("number 1.0"));
    expect(parseError('{"height":9223372036854775808}')).toBe(msg("number 9223372036854775808"));
    expect(parseError('{"height":-9223372036854775809}')).toBe(msg("number -9223372036854775809"));
    expect(parseError('{"height":true}')).toBe(msg("bool"));
    expect(parseError('{"height":{}}')).toBe(msg("object"));
    expect(parseError('{"height":[1]}')).toBe(msg("array"));
  });

  it("string field type errors use Go's wording", () => {
    expect(parseError('{"name":12}')).toBe("json: cannot unmarshal number into Go struct field Plan.name of type string");
    expect(parseError('{"name":false}')).toBe("json: cannot unmarshal bool into Go struct field Plan.name of type string");
    expect(parseError('{"info":{"a":1}}')).toBe("json: cannot unmarshal object into Go struct field Plan.info of type string");
    expect(parseError('{"INFO":[]}')).toBe("json: cannot unmarshal array into Go struct field Plan.info of type string");
  });

  it("reports the first type error in document order (Go keeps decoding)", () => {
    expect(parseError('{"name":1,"height":"x"}')).toContain("Plan.name of type string");
    expect(parseError('{"height":"x","name":1}')).toContain("Plan.height of type int64");
  });

  it("syntax errors anywhere win over earlier type errors (Go checks the whole input first)", () => {
    expect(parseError('{"name":1,"height":}')).toBe(`invalid upgrade-info.json in "${P}": invalid character '}' looking for beginning of value`);
  });

  it("decodes strings like Go: escapes, surrogate pairs, lone surrogates as U+FFFD", () => {
    const s = (body: string) => parseUpgradeInfo(`{"name":"${body}"}`, P).name;
    expect(s('\\"\\\\\\/\\b\\f\\n\\r\\t')).toBe('"\\/\b\f\n\r\t');
    expect(s("\\u00e9\\u003c\\u2028")).toBe("é<\u2028");
    expect(s("\\ud83d\\ude00")).toBe("😀");
    expect(s("a\\ud800b")).toBe("a\ufffdb");
    expect(s("\\udc00\\ud800")).toBe("\ufffd\ufffd");
    expect(s("\\ud800\\u0041")).toBe("\ufffdA");
    expect(s("raw é 😀 \u2028")).toBe("raw é 😀 \u2028");
  });
});

describe("parseUpgradeInfo: time (time.Time.UnmarshalJSON, strict RFC 3339)", () => {
  const t = (value: string) => parseUpgradeInfo(`{"name":"a","time":${value}}`, P);

  it("absent or null: zero", () => {
    expect(parseUpgradeInfo('{"name":"a"}', P)).toMatchObject({ time: null, timeIsZero: true });
    expect(t("null")).toMatchObject({ time: null, timeIsZero: true });
  });

  it("every spelling of the zero instant is zero", () => {
    for (const z of [
      ZERO,
      "0001-01-01T00:00:00.000Z",
      "0001-01-01T00:00:00+00:00",
      "0001-01-01T00:00:00-00:00",
      "0001-01-01T01:30:00+01:30",
      "0000-12-31T23:00:00-01:00",
      "0001-01-01T00:00:00.0000000009Z", // Go keeps 9 fractional digits
    ]) {
      expect(t(`"${z}"`), z).toEqual(plan({ name: "a", time: z, timeIsZero: true }));
    }
  });

  it("any other instant is not zero", () => {
    for (const nz of [
      "2020-01-01T00:00:00Z",
      "0001-01-01T00:00:00.000000001Z",
      "0001-01-01T00:00:01Z",
      "0001-01-01T00:00:00-00:01",
      "0001-01-01T00:00:00+00:01",
      "9999-12-31T23:59:59.999999999+23:59",
    ]) {
      expect(t(`"${nz}"`), nz).toEqual(plan({ name: "a", time: nz, timeIsZero: false }));
    }
  });

  it("the last time key wins; a later null keeps the earlier value (Go)", () => {
    expect(parseUpgradeInfo(`{"time":"2020-01-01T00:00:00Z","TIME":"${ZERO}"}`, P).timeIsZero).toBe(true);
    expect(parseUpgradeInfo(`{"time":"2020-01-01T00:00:00Z","time":null}`, P).timeIsZero).toBe(false);
  });

  it("invalid times fail with Go's time.Parse wording (xupgrade/3)", () => {
    const L = '"2006-01-02T15:04:05Z07:00"';
    const cases: [string, string][] = [
      ["bad", `parsing time "bad" as ${L}: cannot parse "bad" as "2006"`],
      ["", `parsing time "" as ${L}: cannot parse "" as "2006"`],
      ["2006/01/02T15:04:05Z", `parsing time "2006/01/02T15:04:05Z" as ${L}: cannot parse "/01/02T15:04:05Z" as "-"`],
      ["2006-1-02T15:04:05Z", `parsing time "2006-1-02T15:04:05Z" as ${L}: cannot parse "1-02T15:04:05Z" as "01"`],
      ["2006-13-02T15:04:05Z", `parsing time "2006-13-02T15:04:05Z": month out of range`],
      ["2006-02-30T15:04:05Z", `parsing time "2006-02-30T15:04:05Z": day out of range`],
      ["2006-01-02 15:04:05Z", `parsing time "2006-01-02 15:04:05Z" as ${L}: cannot parse " 15:04:05Z" as "T"`],
      ["2006-01-02t15:04:05Z", `parsing time "2006-01-02t15:04:05Z" as ${L}: cannot parse "t15:04:05Z" as "T"`],
      ["2006-01-02T24:04:05Z", `parsing time "2006-01-02T24:04:05Z": hour out of range`],
      ["2006-01-02T15:60:05Z", `parsing time "2006-01-02T15:60:05Z": minute out of range`],
      ["2006-01-02T15:04:60Z", `parsing time "2006-01-02T15:04:60Z": second out of range`],
      ["2006-01-02T15:04:05", `parsing time "2006-01-02T15:04:05" as ${L}: cannot parse "" as "Z07:00"`],
      ["2006-01-02T15:04:05z", `parsing time "2006-01-02T15:04:05z" as ${L}: cannot parse "z" as "Z07:00"`],
      ["2006-01-02T15:04:05+0700", `parsing time "2006-01-02T15:04:05+0700" as ${L}: cannot parse "+0700" as "Z07:00"`],
      ["2006-01-02T15:04:05Zjunk", `parsing time "2006-01-02T15:04:05Zjunk": extra text: "junk"`],
      ["2006-01-02T15:04:05+25:00", `parsing time "2006-01-02T15:04:05+25:00": time zone offset hour out of range`],
      ["2006-01-02T15:04:05+24:00", `parsing time "2006-01-02T15:04:05+24:00": timezone hour out of range`],
      ["2006-01-02T15:04:05+01:60", `parsing time "2006-01-02T15:04:05+01:60": timezone minute out of range`],
      ["2006-01-02T1:04:05Z", `parsing time "2006-01-02T1:04:05Z" as ${L}: cannot parse "1" as "15"`],
      ["2006-01-02T15:04:05,5Z", `parsing time "2006-01-02T15:04:05,5Z" as ${L}: cannot parse "," as "."`],
      ["é", `parsing time "\\xc3\\xa9" as ${L}: cannot parse "\\xc3\\xa9" as "2006"`],
      // Go hands the raw JSON bytes to time.Parse: escapes are not decoded.
      ["\\u0032006-01-02T15:04:05Z", `parsing time "\\\\u0032006-01-02T15:04:05Z" as ${L}: cannot parse "\\\\u0032006-01-02T15:04:05Z" as "2006"`],
    ];
    for (const [value, message] of cases) expect(parseError(`{"time":"${value}"}`), value).toBe(message);
  });

  it("a non-string time is not a JSON string", () => {
    for (const v of ["5", "true", "{}", "[]"]) {
      expect(parseError(`{"time":${v}}`)).toBe("Time.UnmarshalJSON: input is not a JSON string");
    }
  });

  it("a time error aborts decoding, so it wins over an earlier saved type error", () => {
    expect(parseError('{"height":"x","time":"bad","name":1}')).toMatch(/^parsing time "bad"/);
  });
});

describe("parseUpgradeInfo: upgraded_client_state", () => {
  it("absent or null is fine; the last null clears an earlier value", () => {
    expect(parseUpgradeInfo('{"name":"a","upgraded_client_state":null}', P)).toEqual(plan({ name: "a" }));
    expect(parseUpgradeInfo('{"upgraded_client_state":{},"UPGRADED_CLIENT_STATE":null}', P)).toEqual(plan({}));
  });

  it("any other value fails as ValidateBasic would (time check first, then IBC)", async () => {
    const ibc = await caught(() => parseUpgradeInfo('{"name":"a","height":5,"upgraded_client_state":{}}', P));
    expect([ibc.message, ibc.codespace, ibc.code]).toEqual(["upgrade logic for IBC has been moved to the IBC module: invalid request", "sdk", 18]);
    expect((await caught(() => parseUpgradeInfo('{"upgraded_client_state":5}', P))).message).toContain("IBC module");
    expect((await caught(() => parseUpgradeInfo('{"upgraded_client_state":{},"time":"2020-01-01T00:00:00Z"}', P))).message).toBe(
      "time-based upgrades have been deprecated in the SDK: invalid request",
    );
  });
});

describe("round trip", () => {
  it("property: parse(encode(x)) keeps name, height and info for any Unicode strings and int64", () => {
    fc.assert(
      fc.property(
        fc.string({ unit: "binary" }),
        fc.bigInt({ min: INT64_MIN, max: INT64_MAX }),
        fc.oneof(fc.string({ unit: "binary" }), fc.string({ unit: "binary-ascii" }), fc.json()),
        (name, height, info) => {
          const parsed = parseUpgradeInfo(encodeUpgradeInfo({ name, height, info }), P);
          expect(parsed).toEqual({ name, height, info, time: ZERO, timeIsZero: true });
        },
      ),
      { numRuns: 500 },
    );
  });

  it("property: strings written with JSON.stringify's escaping decode like JSON.parse", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (s) => {
        const text = `{"info":${JSON.stringify(s)}}`;
        expect(parseUpgradeInfo(text, P).info).toBe(JSON.parse(text).info);
      }),
    );
  });

  it("round-trips the extreme height 9223372036854775807 through the disk", async () => {
    const home = tempHome();
    await writeUpgradeInfo(home, { name: "max", height: INT64_MAX, info: "<&>\u2028" });
    expect(readFileSync(upgradeInfoPath(home), "utf8")).toBe(
      '{"name":"max","time":"0001-01-01T00:00:00Z","height":9223372036854775807,"info":"\\u003c\\u0026\\u003e\\u2028"}',
    );
    expect(await readUpgradeInfo(home)).toEqual(plan({ name: "max", height: INT64_MAX, info: "<&>\u2028", time: ZERO }));
  });
});
