/** encoding/json: Marshal's string escaping, the syntax check and the struct decoder's key folding. */
import { describe, expect, it } from "vitest";
import { goFoldName, goJsonString, goJsonSyntaxError, jsonObjectEntries, jsonUnquote, readJsonToken } from "../../bindings/go/json.js";

describe("encoding/json", () => {
  it("encoding/json strings: HTML-safe, U+2028/2029, short escapes, lone surrogates", () => {
    expect(goJsonString("plain")).toBe('"plain"');
    expect(goJsonString("<a href='x'>&</a>")).toBe("\"\\u003ca href='x'\\u003e\\u0026\\u003c/a\\u003e\"");
    expect(goJsonString("\b\f\n\r\t\x01\x1f\x7f")).toBe('"\\b\\f\\n\\r\\t\\u0001\\u001f\x7f"');
    expect(goJsonString("\u2028\u2029")).toBe('"\\u2028\\u2029"');
    expect(goJsonString('"\\')).toBe('"\\"\\\\"');
    expect(goJsonString("😀名")).toBe('"😀名"');
    expect(goJsonString("a\ud800b")).toBe('"a\\ufffdb"');
  });

  it("reports syntax errors with Go's texts", () => {
    expect(goJsonSyntaxError('{"a":1}')).toBeUndefined();
    expect(goJsonSyntaxError("")).toBe("unexpected end of JSON input");
    expect(goJsonSyntaxError("v2.0.0")).toBe("invalid character 'v' looking for beginning of value");
    expect(goJsonSyntaxError('{"a":1}x')).toBe("invalid character 'x' after top-level value");
    expect(goJsonSyntaxError('{"a" 1}')).toBe("invalid character '1' after object key");
    expect(goJsonSyntaxError("[1,]")).toBe("invalid character ']' looking for beginning of value");
    expect(goJsonSyntaxError('"\\x"')).toBe("invalid character 'x' in string escape code");
    expect(goJsonSyntaxError("é")).toBe("invalid character 'Ã' looking for beginning of value");
  });

  it("reads object members in order, duplicates included, and unquotes as Go", () => {
    const text = ' {"a": 1, "b": [1, {"c": 2}], "a": "\\ud800x\\u00e9"} ';
    const entries = [...jsonObjectEntries(text, readJsonToken(text, 0))];
    expect(entries.map(([k, v]) => [k, v.kind])).toEqual([
      ["a", "number"],
      ["b", "array"],
      ["a", "string"],
    ]);
    expect(jsonUnquote(text, entries[2][1])).toBe("\ufffdxé");
  });

  it("folds keys as the struct decoder matches them", () => {
    expect(goFoldName("Binaries")).toBe("BINARIES");
    expect(goFoldName("binarie\u017f")).toBe("BINARIES");
    expect(goFoldName("\u212aey")).toBe("KEY");
    expect(goFoldName("é")).toBe("É");
  });
});
