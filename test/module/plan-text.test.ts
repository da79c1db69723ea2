/** Plan.String(): gogoproto CompactTextString (docs/spec/keeper.md §3.3, acceptance P1–P3). */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { planToText, quoteProtoText } from "../../bindings/module/plan-text.js";

describe("planToText acceptance vectors", () => {
  it("P1: {test, 100}, twice with the same result", () => {
    const plan = { name: "test", height: 100n, info: "" };
    expect(planToText(plan)).toBe('name:"test" time:<seconds:-62135596800 > height:100 ');
    expect(planToText(plan)).toBe(planToText(plan));
  });

  it("P2: {by height, 7890, https://foo.bar/baz}", () => {
    expect(planToText({ name: "by height", height: 7890n, info: "https://foo.bar/baz" })).toBe(
      'name:"by height" time:<seconds:-62135596800 > height:7890 info:"https://foo.bar/baz" ',
    );
  });

  it("P3: {almost-empty}: zero height and empty info are omitted, time is not", () => {
    expect(planToText({ name: "almost-empty", height: 0n, info: "" })).toBe('name:"almost-empty" time:<seconds:-62135596800 > ');
  });
});

describe("planToText fields", () => {
  it("omits an empty name but always prints time", () => {
    expect(planToText({ name: "", height: 5n, info: "" })).toBe("time:<seconds:-62135596800 > height:5 ");
    expect(planToText({ name: "", height: 0n, info: "" })).toBe("time:<seconds:-62135596800 > ");
  });

  it("prints info without a height", () => {
    expect(planToText({ name: "missing", height: 0n, info: "important" })).toBe('name:"missing" time:<seconds:-62135596800 > info:"important" ');
  });

  it("prints int64 extremes and negative heights exactly", () => {
    expect(planToText({ name: "x", height: 9223372036854775807n, info: "" })).toBe('name:"x" time:<seconds:-62135596800 > height:9223372036854775807 ');
    expect(planToText({ name: "minus", height: -12345n, info: "" })).toBe('name:"minus" time:<seconds:-62135596800 > height:-12345 ');
    expect(planToText({ name: "x", height: -9223372036854775808n, info: "" })).toContain("height:-9223372036854775808 ");
  });

  it("treats a missing info as empty", () => {
    expect(planToText({ name: "a", height: 1n } as never)).toBe('name:"a" time:<seconds:-62135596800 > height:1 ');
  });
});

describe("Go proto text string quoting", () => {
  it('uses the short escapes for \\n \\r \\t \\" \\\\', () => {
    expect(quoteProtoText('a\nb\rc\td"e\\f')).toBe('"a\\nb\\rc\\td\\"e\\\\f"');
  });

  it("leaves apostrophes and all printable ASCII literal", () => {
    let printable = "";
    for (let c = 0x20; c < 0x7f; c++) if (c !== 0x22 && c !== 0x5c) printable += String.fromCharCode(c);
    expect(quoteProtoText(printable)).toBe(`"${printable}"`);
    expect(quoteProtoText("it's")).toBe(`"it's"`);
  });

  it("writes other control bytes and DEL as 3-digit octal", () => {
    expect(quoteProtoText("\0\x01\x07\b\f\v\x1b\x1f\x7f")).toBe('"\\000\\001\\007\\010\\014\\013\\033\\037\\177"');
  });

  it("writes each UTF-8 byte of non-ASCII characters as octal", () => {
    expect(quoteProtoText("é")).toBe('"\\303\\251"');
    expect(quoteProtoText("€")).toBe('"\\342\\202\\254"');
    expect(quoteProtoText("😀")).toBe('"\\360\\237\\230\\200"');
    expect(quoteProtoText("\u2028")).toBe('"\\342\\200\\250"');
    expect(planToText({ name: "v2 ünïcode", height: 1n, info: "<&>" })).toBe(
      'name:"v2 \\303\\274n\\303\\257code" time:<seconds:-62135596800 > height:1 info:"<&>" ',
    );
  });

  it("property: output is printable ASCII and decodes back to the UTF-8 bytes", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (s) => {
        const q = quoteProtoText(s);
        expect(q).toMatch(/^"[\x20-\x7e]*"$/);
        // Reverse the escapes into bytes and compare with the UTF-8 encoding.
        const body = q.slice(1, -1);
        const bytes: number[] = [];
        for (let i = 0; i < body.length; i++) {
          if (body[i] !== "\\") {
            bytes.push(body.charCodeAt(i));
            continue;
          }
          const e = body[++i];
          if (/[0-7]/.test(e)) {
            bytes.push(parseInt(body.slice(i, i + 3), 8));
            i += 2;
          } else {
            bytes.push(({ n: 10, r: 13, t: 9, '"': 0x22, "\\": 0x5c } as Record<string, number>)[e]);
          }
        }
        expect(Buffer.from(bytes).toString("utf8")).toBe(s);
      }),
    );
  });
});
