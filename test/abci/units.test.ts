/** The pieces without sockets: framing, request decoding, defaults, addresses. */
import type { DeepPartial } from "cosmjs-types/helpers";
import { Request } from "cosmjs-types/tendermint/abci/types";
import { describe, expect, it } from "vitest";
import {
  DEFAULT_RESPONSES,
  FrameError,
  FrameReader,
  RequestError,
  decodeRequest,
  encodeFrame,
  encodeUvarint,
  fitTxs,
  parseAddress,
  formatAddress,
  txDataSize,
} from "../../bindings/abci/index.js";

const bytes = (...b: number[]) => Uint8Array.from(b);
const hex = (b: Uint8Array) => Buffer.from(b).toString("hex");

describe("uvarint framing (Go binary.PutUvarint)", () => {
  it("encodes lengths like Go", () => {
    expect(hex(encodeUvarint(0))).toBe("00");
    expect(hex(encodeUvarint(1))).toBe("01");
    expect(hex(encodeUvarint(127))).toBe("7f");
    expect(hex(encodeUvarint(128))).toBe("8001");
    expect(hex(encodeUvarint(300))).toBe("ac02");
    expect(hex(encodeUvarint(2 ** 31 - 1))).toBe("ffffffff07");
    expect(hex(encodeFrame(bytes(0x12, 0x00)))).toBe("021200"); // Request{flush}
  });

  it("reassembles frames fed byte by byte", () => {
    const payload = new Uint8Array(300).map((_, i) => i & 0xff);
    const stream = Buffer.concat([encodeFrame(payload), encodeFrame(bytes(7)), encodeFrame(new Uint8Array(0))]);
    const r = new FrameReader();
    const out: Uint8Array[] = [];
    for (const b of stream) {
      r.push(bytes(b));
      for (let f = r.next(); f !== undefined; f = r.next()) out.push(f);
    }
    expect(out.map(hex)).toEqual([hex(payload), "07", ""]);
    expect(r.partialBytes).toBe(0);
  });

  it("returns several frames from one chunk and keeps a split one for later", () => {
    const r = new FrameReader();
    const stream = Buffer.concat([encodeFrame(bytes(1, 2)), encodeFrame(bytes(3)), encodeFrame(bytes(4, 5, 6))]);
    r.push(stream.subarray(0, 7));
    expect(hex(r.next()!)).toBe("0102");
    expect(hex(r.next()!)).toBe("03");
    expect(r.next()).toBeUndefined();
    expect(r.partialBytes).toBe(2);
    expect(r.announcedLength).toBe(3);
    r.push(stream.subarray(7));
    expect(hex(r.next()!)).toBe("040506");
    expect(r.next()).toBeUndefined();
  });

  it("refuses a length over the maximum, and stays failed", () => {
    const r = new FrameReader(1000);
    r.push(encodeUvarint(1001));
    expect(() => r.next()).toThrow(FrameError);
    expect(() => r.next()).toThrow(/exceeds the maximum of 1000 bytes/);
    const ok = new FrameReader(1000);
    ok.push(encodeFrame(new Uint8Array(1000)));
    expect(ok.next()!.length).toBe(1000);
  });

  it("refuses a varint longer than 10 bytes and one that overflows 64 bits", () => {
    const long = new FrameReader();
    long.push(new Uint8Array(11).fill(0x80));
    expect(() => long.next()).toThrow(/longer than 10 bytes/);
    const overflow = new FrameReader(Number.MAX_SAFE_INTEGER);
    overflow.push(bytes(0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x02));
    expect(() => overflow.next()).toThrow(/overflows a 64-bit integer/);
  });
});

describe("decodeRequest", () => {
  const encode = (r: DeepPartial<Request>) => Request.encode(Request.fromPartial(r as never)).finish();

  it("decodes each method", () => {
    expect(decodeRequest(encode({ echo: { message: "hi" } }))).toEqual({ method: "echo", request: { message: "hi" } });
    const fb = decodeRequest(encode({ finalizeBlock: { height: 7n, txs: [bytes(1, 2)] } }));
    expect(fb.method).toBe("finalizeBlock");
    expect(fb.method === "finalizeBlock" && fb.request.height).toBe(7n);
    expect(decodeRequest(bytes(0xa2, 0x01, 0x00)).method).toBe("finalizeBlock"); // field 20 = tag 162
  });

  it("takes the last oneof member, as protobuf does", () => {
    const both = Buffer.concat([encode({ echo: { message: "a" } }), encode({ info: { version: "v" } })]);
    expect(decodeRequest(both).method).toBe("info");
  });

  it("skips unknown fields but refuses a request with no known method", () => {
    expect(() => decodeRequest(new Uint8Array(0))).toThrow(/no known method/);
    // A v0.34 DeliverTx (field 9) is not an ABCI++ method.
    expect(() => decodeRequest(bytes(0x4a, 0x02, 0x0a, 0x00))).toThrow(/no known method set \(fields present: 9\)/);
    expect(decodeRequest(Buffer.concat([bytes(0x48, 0x05), encode({ flush: {} })])).method).toBe("flush");
  });

  it.each([
    ["a field running past the end", [0x0a, 0x05, 0x01], /runs past the end/],
    ["a method field with a varint wire type", [0x08, 0x01], /wire type 0, not a message/],
    ["a truncated varint", [0x0a], /ends inside a varint/],
    ["field number 0", [0x02, 0x00], /invalid field number 0/],
    ["wire type 7 on an unknown field", [0x4f], /unsupported wire type 7/],
    ["a method payload that does not decode", [0xa2, 0x01, 0x02, 0x0a, 0x09], /cannot decode the finalizeBlock request/],
  ])("refuses %s", (_what, b, message) => {
    expect(() => decodeRequest(Uint8Array.from(b))).toThrow(RequestError);
    expect(() => decodeRequest(Uint8Array.from(b))).toThrow(message);
  });
});

describe("defaults", () => {
  it("prepareProposal keeps the leading txs that fit, counted as CometBFT counts them", () => {
    expect(txDataSize(new Uint8Array(10))).toBe(12);
    expect(txDataSize(new Uint8Array(200))).toBe(203);
    const txs = [new Uint8Array(10), new Uint8Array(10), new Uint8Array(1), new Uint8Array(10)];
    expect(fitTxs(txs, 24n)).toHaveLength(2);
    expect(fitTxs(txs, 23n)).toHaveLength(1);
    // Stops at the first that does not fit, even if a later one would.
    expect(fitTxs([new Uint8Array(10), new Uint8Array(100), new Uint8Array(1)], 20n)).toHaveLength(1);
    const res = DEFAULT_RESPONSES.prepareProposal({ txs, maxTxBytes: 36n } as never);
    expect(res.txs).toHaveLength(3);
  });

  it("accepts proposals and vote extensions, rejects snapshots, answers every tx", () => {
    expect(DEFAULT_RESPONSES.processProposal({} as never)).toEqual({ status: 1 });
    expect(DEFAULT_RESPONSES.verifyVoteExtension({} as never)).toEqual({ status: 1 });
    expect(DEFAULT_RESPONSES.offerSnapshot({} as never)).toEqual({ result: 3 });
    expect(DEFAULT_RESPONSES.finalizeBlock({ txs: [bytes(1), bytes(2)] } as never).txResults).toEqual([{ code: 0 }, { code: 0 }]);
    expect(DEFAULT_RESPONSES.echo({ message: "x" })).toEqual({ message: "x" });
  });
});

describe("addresses", () => {
  it("reads proxy_app forms", () => {
    expect(parseAddress("tcp://127.0.0.1:26658")).toEqual({ kind: "tcp", host: "127.0.0.1", port: 26658 });
    expect(parseAddress("tcp://[::1]:0")).toEqual({ kind: "tcp", host: "::1", port: 0 });
    expect(parseAddress("127.0.0.1:26658")).toEqual({ kind: "tcp", host: "127.0.0.1", port: 26658 });
    expect(parseAddress("tcp://:26658")).toEqual({ kind: "tcp", host: "0.0.0.0", port: 26658 });
    expect(parseAddress("unix:///tmp/app.sock")).toEqual({ kind: "unix", path: "/tmp/app.sock" });
    expect(parseAddress("/tmp/app.sock")).toEqual({ kind: "unix", path: "/tmp/app.sock" });
    expect(() => parseAddress("grpc://127.0.0.1:1")).toThrow(/unsupported ABCI address scheme/);
    expect(() => parseAddress("tcp://host")).toThrow(/host:port/);
    expect(formatAddress({ kind: "tcp", host: "::1", port: 5 })).toBe("tcp://[::1]:5");
    expect(formatAddress(parseAddress("unix:///tmp/a.sock"))).toBe("unix:///tmp/a.sock");
  });
});
