/** The parts of net/url the project reproduces: url.Parse errors, Query().Get and url.PathEscape. */
import { describe, expect, it } from "vitest";
import { GoUrlError, parseGoUrl, pathEscape, queryGet } from "../../bindings/go/url.js";

describe("net/url", () => {
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

  it("escapes paths as url.PathEscape", () => {
    expect(pathEscape("some spaces")).toBe("some%20spaces");
    expect(pathEscape("v1/evil")).toBe("v1%2Fevil");
    expect(pathEscape("名前")).toBe("%E5%90%8D%E5%89%8D");
    expect(pathEscape("a-_.~$&+:=@Z9")).toBe("a-_.~$&+:=@Z9");
  });
});
