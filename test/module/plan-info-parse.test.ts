/** Plan info as JSON and its checks (docs/spec/interfaces.md §9 steps 3–5), in process. */
import { describe, expect, it } from "vitest";
import { checkBinaries, checkUrl, parseChecksum } from "../../bindings/module/plan-info/check.js";
import { parseInfoJson } from "../../bindings/module/plan-info/parse.js";

describe("plan info URLs (docs/spec/interfaces.md §9 step 5)", () => {
  it("checks schemes and checksums", () => {
    const h = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
    expect(checkUrl(`https://x/a?checksum=sha256:${h}`, true)).toMatchObject({ scheme: "https", checksum: { algo: "sha256", hex: h } });
    expect(checkUrl(`/abs/path?checksum=sha256:${h}`, true)).toMatchObject({ scheme: "file" });
    expect(checkUrl("ftp://x/y", false)).toEqual({ problem: 'unsupported URL scheme "ftp"' });
    expect(checkUrl("relative/path", false)).toEqual({ problem: 'unsupported URL scheme ""' });
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
    const { problems } = checkBinaries(
      new Map([
        ["xx linux/amd64 yy", u],
        ["badkey", u],
        ["", u],
        ["linux/amd64", u],
        ["any", "ftp://x"],
      ]),
      true,
    );
    expect(problems).toEqual([
      'invalid os/arch format in key ""',
      'invalid url "ftp://x" in binaries[any]: unsupported URL scheme "ftp"',
      'invalid os/arch format in key "badkey"',
      'invalid os/arch format in key "xx linux/amd64 yy"',
    ]);
  });
});

describe("plan info JSON (docs/spec/interfaces.md §9 steps 3-4)", () => {
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
    expect(parseErr('{"binaries":{"os1/arch1":1}}')).toBe(
      "could not parse plan info: json: cannot unmarshal number into Go struct field Info.binaries of type string",
    );
    expect(parseErr('{"binaries":{"a/b":true}}')).toBe(
      "could not parse plan info: json: cannot unmarshal bool into Go struct field Info.binaries of type string",
    );
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
