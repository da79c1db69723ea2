/** The small primitives of base/: bytes, messageOf, sleep, host:port, exists. */
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compareBytes, concatBytes, equalBytes } from "../../bindings/base/bytes.js";
import { exists } from "../../bindings/base/file.js";
import { messageOf } from "../../bindings/base/errors.js";
import { HostPortError, joinHostPort, parseHostPort } from "../../bindings/base/host-port.js";
import { sleep } from "../../bindings/base/sleep.js";

describe("messageOf", () => {
  it("is an Error's message, anything else as text", () => {
    expect(messageOf(new TypeError("bad"))).toBe("bad");
    expect(messageOf("plain")).toBe("plain");
    expect(messageOf(42)).toBe("42");
    expect(messageOf(undefined)).toBe("undefined");
  });
});

describe("sleep", () => {
  it("waits at least the time asked for", async () => {
    const t0 = performance.now();
    await sleep(30);
    expect(performance.now() - t0).toBeGreaterThanOrEqual(29);
  });

  it("rejects with the signal's reason when it fires, and at once when it already has", async () => {
    const c = new AbortController();
    const waiting = sleep(60_000, c.signal);
    const reason = new Error("stop");
    c.abort(reason);
    await expect(waiting).rejects.toBe(reason);
    await expect(sleep(60_000, c.signal)).rejects.toBe(reason);
  });
});

describe("host:port", () => {
  it("reads host and port as Go's net.SplitHostPort does, IPv6 in brackets, an empty host for every interface", () => {
    expect(parseHostPort("127.0.0.1:26657")).toEqual({ host: "127.0.0.1", port: 26657 });
    expect(parseHostPort("localhost:0")).toEqual({ host: "localhost", port: 0 });
    expect(parseHostPort("[::1]:9090")).toEqual({ host: "::1", port: 9090 });
    expect(parseHostPort("[fe80::1%eth0]:1")).toEqual({ host: "fe80::1%eth0", port: 1 });
    expect(parseHostPort(":26658")).toEqual({ host: "", port: 26658 });
    expect(parseHostPort("h:65535").port).toBe(65535);
  });

  it("refuses anything else, with the reason", () => {
    for (const bad of ["host", "host:", "::1:80", "[::1]", "a/b:1", "[zz]:1", "h: 1", "h:-1", "tcp://h:1", ""]) {
      expect(() => parseHostPort(bad), bad).toThrow(new HostPortError("expected host:port"));
    }
    expect(() => parseHostPort("h:65536")).toThrow(new HostPortError("port out of range"));
    expect(() => parseHostPort("h:99999999999")).toThrow(new HostPortError("port out of range"));
  });

  it("joins them back, brackets around an IPv6 host", () => {
    expect(joinHostPort("::1", 0)).toBe("[::1]:0");
    expect(joinHostPort("127.0.0.1", 1317)).toBe("127.0.0.1:1317");
    for (const text of ["127.0.0.1:26657", "[::1]:9090", "localhost:1"]) {
      const { host, port } = parseHostPort(text);
      expect(joinHostPort(host, port)).toBe(text);
    }
  });
});

describe("bytes", () => {
  it("compares unsigned, lexicographically, a prefix first", () => {
    const b = (...x: number[]) => Uint8Array.from(x);
    expect(compareBytes(b(1, 2), b(1, 3))).toBeLessThan(0);
    expect(compareBytes(b(0xff), b(0x00, 0x01))).toBeGreaterThan(0);
    expect(compareBytes(b(1), b(1, 0))).toBeLessThan(0);
    expect(compareBytes(b(), b())).toBe(0);
    expect(equalBytes(b(1, 2), b(1, 2))).toBe(true);
    expect(equalBytes(b(1, 2), b(1, 2, 3))).toBe(false);
    expect(equalBytes(b(1, 2), b(1, 3))).toBe(false);
    expect(concatBytes(b(1), b(), b(2, 3))).toEqual(b(1, 2, 3));
    expect(concatBytes()).toEqual(b());
  });
});

describe("exists", () => {
  it("is true for a file or a directory, false for nothing", async () => {
    expect(await exists(import.meta.dirname)).toBe(true);
    expect(await exists(join(import.meta.dirname, "primitives.test.ts"))).toBe(true);
    expect(await exists(join(import.meta.dirname, "no-such-file"))).toBe(false);
  });
});
