/** The CLI's text rules, in process: YAML text output, Go durations and times, Go URL errors, plan-info parsing and checks. */
import { describe, expect, it } from "vitest";
import { formatGoDuration, parseGoDuration } from "../../../bindings/go/duration.js";
import { goQuote } from "../../../bindings/go/quote-cli.js";
import { toIndentedJson, toJson } from "../../../bindings/apps/cli/output.js";
import { checkBinaries, checkUrl, parseChecksum } from "../../../bindings/module/plan-info/check.js";
import { GoUrlError, parseGoUrl, queryGet } from "../../../bindings/go/url.js";
import { parseInfoJson } from "../../../bindings/module/plan-info/parse.js";
import { formatRfc3339Nano, normalizeRfc3339, parseRfc3339Nanos } from "../../../bindings/go/rfc3339.js";
import { needsQuotes, toYaml } from "../../../bindings/apps/cli/yaml.js";

describe("text output (YAML, keys sorted)", () => {
  it("renders the plan exactly as interfaces.md §7.1", () => {
    const plan = { name: "test-upgrade", time: "0001-01-01T00:00:00Z", height: "130", info: "", upgraded_client_state: null };
    expect(toYaml(plan)).toBe('height: "130"\ninfo: ""\nname: test-upgrade\ntime: "0001-01-01T00:00:00Z"\nupgraded_client_state: null\n');
    expect(toJson(plan) + "\n").toBe('{"name":"test-upgrade","time":"0001-01-01T00:00:00Z","height":"130","info":"","upgraded_client_state":null}\n');
  });

  it("renders module versions and tx results as §7.1/§7.2", () => {
    expect(toYaml({ module_versions: [{ name: "auth", version: "5" }, { name: "bank", version: "2" }] })).toBe(
      'module_versions:\n- name: auth\n  version: "5"\n- name: bank\n  version: "2"\n',
    );
    expect(toYaml({ txhash: "6D45", code: 0, height: "123", proposal_id: "7" })).toBe('code: 0\nheight: "123"\nproposal_id: "7"\ntxhash: 6D45\n');
  });

  it("quotes strings that would read back as something else, and only those", () => {
    const quoted = ["", "true", "False", "yes", "NO", "on", "Off", "y", "N", "null", "~", "Null", "130", "-5", "+5", "1.5", ".5", "1e10", "0x1F", "0o17", "017", "1_000",
      ".inf", "-.Inf", ".nan", "0001-01-01T00:00:00Z", "2021-04-10", "2021-04-10 04:37:57", " lead", "trail ", "a: b", "a #b", "key:", "- x", "-", "? x", "[x]", "{x}", "*x", "&x", "!x", "|x", ">x", "'x'", '"x"', "%x", "@x", "`x", "#x", "a\nb", "tab\there", "\u0000", "---", "..."];
    const plain = ["test-upgrade", "v2", "cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn", "6D45233A", "stake", "a b", "a:b", "hello world!", "ünïcødé", "1abc", "x-1", "-abc", "/cosmos.gov.v1.MsgVote", "PROPOSAL_STATUS_PASSED", "yes please"];
    for (const s of quoted) expect(needsQuotes(s), JSON.stringify(s)).toBe(true);
    for (const s of plain) expect(needsQuotes(s), JSON.stringify(s)).toBe(false);
    expect(toYaml({ a: "line1\nline2", b: "\u2028" })).toBe('a: "line1\\nline2"\nb: "\\u2028"\n');
  });

  it("renders nested maps, lists of scalars and empty collections", () => {
    expect(toYaml({ z: { b: [], a: {} }, a: ["x", "1", null, true] })).toBe('a:\n- x\n- "1"\n- null\n- true\nz:\n  a: {}\n  b: []\n');
    expect(toYaml([])).toBe("[]\n");
    expect(toYaml([{ b: "1", a: "2" }])).toBe('- a: "2"\n  b: "1"\n');
  });

  it("JSON uses Go's escaping and keeps key order", () => {
    expect(toJson({ b: "<&>", a: "\u2028" })).toBe('{"b":"\\u003c\\u0026\\u003e","a":"\\u2028"}');
    expect(toIndentedJson({ a: { b: 1, c: [] }, d: "x" })).toBe('{\n  "a": {\n    "b": 1,\n    "c": []\n  },\n  "d": "x"\n}');
  });
});

describe("Go durations", () => {
  it("formats as Duration.String()", () => {
    const cases: [bigint, string][] = [
      [0n, "0s"], [1n, "1ns"], [1500n, "1.5µs"], [200_000_000n, "200ms"], [1_000_000_000n, "1s"], [100_000_000_000n, "1m40s"],
      [3_600_000_000_000n, "1h0m0s"], [5_400_000_000_000n, "1h30m0s"], [202_800_075n, "202.800075ms"], [10_545_603_900n, "10.5456039s"], [-2_000_000_000n, "-2s"],
    ];
    for (const [ns, text] of cases) expect(formatGoDuration(ns)).toBe(text);
  });

  it("parses Go syntax with Go's errors", () => {
    expect(parseGoDuration("300ms")).toBe(300_000_000n);
    expect(parseGoDuration("1.5s")).toBe(1_500_000_000n);
    expect(parseGoDuration("1h30m")).toBe(5_400_000_000_000n);
    expect(parseGoDuration("2us")).toBe(2000n);
    expect(parseGoDuration("2µs")).toBe(2000n);
    expect(parseGoDuration("0")).toBe(0n);
    expect(() => parseGoDuration("600")).toThrow('time: missing unit in duration "600"');
    expect(() => parseGoDuration("5x")).toThrow('time: unknown unit "x" in duration "5x"');
    expect(() => parseGoDuration("")).toThrow('time: invalid duration ""');
    expect(() => parseGoDuration(".s")).toThrow('time: invalid duration ".s"');
  });
});

describe("RFC 3339 times", () => {
  it("parses and prints nanoseconds, trailing zeros trimmed", () => {
    expect(normalizeRfc3339("2021-04-10T04:37:57.085493838Z")).toBe("2021-04-10T04:37:57.085493838Z");
    expect(normalizeRfc3339("2021-04-10T04:37:57.500000000Z")).toBe("2021-04-10T04:37:57.5Z");
    expect(normalizeRfc3339("2021-04-10T06:37:57+02:00")).toBe("2021-04-10T04:37:57Z");
    expect(normalizeRfc3339("2021-02-30T00:00:00Z")).toBeUndefined();
    expect(formatRfc3339Nano(-62135596800n, 0)).toBe("0001-01-01T00:00:00Z");
    expect(parseRfc3339Nanos("0001-01-01T00:00:00Z")).toBe(-62135596800n * 1_000_000_000n);
    expect(parseRfc3339Nanos("1970-01-01T00:00:01.000000001Z")).toBe(1_000_000_001n);
  });
});

describe("Go URL rules (interfaces.md §9 step 5)", () => {
  it("reports url.Parse errors with Go's detail", () => {
    const err = (u: string) => {
      try {
        parseGoUrl(u);
        return "";
      } catch (e) {
        expect(e).toBeInstanceOf(GoUrlError);
        return (e as Error).message;
      }
    };
    expect(err("https://foo:not-a-port/x")).toBe('invalid port ":not-a-port" after host');
    expect(err("http://[::1/x")).toBe("missing ']' in host");
    expect(err("://x")).toBe("missing protocol scheme");
    expect(err("a:b/c")).toBe("");
    expect(err("x/a:b")).toBe("");
    expect(err("a/b%zz")).toBe('invalid URL escape "%zz"');
    expect(err("http://a b/")).toBe('invalid character " " in host name');
    expect(err("http://x/\u0001")).toBe("net/url: invalid control character in URL");
    expect(err("1http:x")).toBe("first path segment in URL cannot contain colon");
    expect(parseGoUrl("HTTPS://x/y?checksum=a").scheme).toBe("https");
  });

  it("reads the first checksum value as Query().Get does", () => {
    expect(queryGet("a=1&checksum=sha256%3Aab&checksum=x", "checksum")).toBe("sha256:ab");
    expect(queryGet("checksum", "checksum")).toBe("");
    expect(queryGet("x;checksum=1&checksum=2", "checksum")).toBe("2");
  });

  it("checks schemes and checksums", () => {
    const h = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    expect(checkUrl(`https://x/a?checksum=sha256:${h}`, true)).toMatchObject({ scheme: "https", checksum: { algo: "sha256", hex: h } });
    expect(checkUrl(`/abs/path?checksum=sha256:${h}`, true)).toMatchObject({ scheme: "file" });
    expect(checkUrl("ftp://x/y", false)).toEqual({ problem: 'unsupported scheme "ftp"' });
    expect(checkUrl("relative/path", false)).toEqual({ problem: 'unsupported scheme ""' });
    expect(checkUrl("https://x/y", true)).toEqual({ problem: "missing checksum query parameter" });
    expect(checkUrl("https://x/y", false)).toMatchObject({ checksum: undefined });
    expect(checkUrl("https://x/y?checksum=sha256:abc", false)).toEqual({ problem: 'invalid checksum "sha256:abc"' });
    expect(checkUrl(`https://x/y?checksum=${h}`, false)).toEqual({ problem: `invalid checksum "${h}"` });
    expect(parseChecksum("md5:" + "A".repeat(32))).toEqual({ algo: "md5", hex: "a".repeat(32) });
    expect(parseChecksum("sha1:" + "0".repeat(40))).toEqual({ algo: "sha1", hex: "0".repeat(40) });
    expect(parseChecksum("sha512:" + "0".repeat(128))?.algo).toBe("sha512");
    expect(parseChecksum("sha384:" + "0".repeat(96))).toBeUndefined();
  });

  it("reports every entry's problems, keys ascending", () => {
    const u = "https://x/a?checksum=sha256:" + "0".repeat(64);
    const { problems } = checkBinaries(new Map([["xx linux/amd64 yy", u], ["badkey", u], ["", u], ["linux/amd64", u], ["any", "ftp://x"]]), true);
    expect(problems).toEqual([
      'invalid os/arch format in key ""',
      'invalid url "ftp://x" in binaries[any]: unsupported scheme "ftp"',
      'invalid os/arch format in key "badkey"',
      'invalid os/arch format in key "xx linux/amd64 yy"',
    ]);
  });

  it("quotes as Go's %q", () => {
    expect(goQuote('a"b\\c\n\u0007é')).toBe('"a\\"b\\\\c\\n\\aé"');
    expect(goQuote("\u0000\u007f")).toBe('"\\x00\\x7f"');
  });
});

describe("plan info JSON (interfaces.md §9 steps 3-4)", () => {
  const parseErr = (text: string) => {
    try {
      parseInfoJson(text);
      return "";
    } catch (e) {
      return (e as Error).message;
    }
  };
  it("uses Go's type errors", () => {
    expect(parseErr("[1]")).toBe("could not parse plan info: json: cannot unmarshal array into Go value of type plan.Info");
    expect(parseErr('"x"')).toBe("could not parse plan info: json: cannot unmarshal string into Go value of type plan.Info");
    expect(parseErr('{"binaries":["foo","bar"]}')).toBe(
      "could not parse plan info: json: cannot unmarshal array into Go struct field Info.binaries of type plan.BinaryDownloadURLMap",
    );
    expect(parseErr('{"binaries":{"os1/arch1":1}}')).toBe("could not parse plan info: json: cannot unmarshal number into Go struct field Info.binaries of type string");
    expect(parseErr('{"binaries":{"a/b":true}}')).toBe("could not parse plan info: json: cannot unmarshal bool into Go struct field Info.binaries of type string");
    expect(parseErr("v2.0.0")).toMatch(/^could not parse plan info: /);
  });

  it("matches binaries case-insensitively (last wins), ignores other keys, treats null as empty", () => {
    expect(parseInfoJson('{"BINARIES":{"a/b":"x"},"Binaries":{"c/d":"y"},"other":1}')).toEqual(new Map([["c/d", "y"]]));
    expect(parseInfoJson("null")).toEqual(new Map());
    expect(parseInfoJson("{}")).toEqual(new Map());
    expect(parseInfoJson('{"binaries":null}')).toEqual(new Map());
    expect(parseInfoJson('{"binaries":{"a/b":null}}')).toEqual(new Map([["a/b", ""]]));
  });
});
