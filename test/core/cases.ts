/**
 * The conformance cases that need no filesystem: every wire.json vector and the acceptance cases P, K, B
 * and M of docs/spec/keeper.md §11. Registered once per backend by the Node and the browser suites.
 */
import { describe, expect, it } from "vitest";
import { CacheStore } from "../../bindings/store/cache.js";
import { MemoryStore } from "../../bindings/store/memory.js";
import { loadCore } from "../../bindings/core/index.js";
import type { Backend, Core } from "../../bindings/core/contract.js";
import { GOV_AUTHORITY, UpgradeKeeper, type KeeperOptions } from "../../bindings/module/keeper.js";
import { UpgradeError } from "../../bindings/core/errors.js";
import { createMsgServer } from "../../bindings/module/msg-server.js";
import { decodeMsgCancelUpgrade, decodeMsgSoftwareUpgrade, encodeMsgCancelUpgrade, encodeMsgSoftwareUpgrade } from "../../bindings/module/msgs.js";
import { planToText } from "../../bindings/module/plan-text.js";
import wire from "../vectors/wire.json" with { type: "json" };
import { defineCachedAnswerCases } from "./cached.js";

export const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
export const unhex = (s: string) => Uint8Array.from(s.match(/../g) ?? [], (x) => parseInt(x, 16));

const noop = (_ctx: unknown, _plan: unknown, vm: Map<string, bigint>) => vm;

/** Asserts a call fails with exactly this message (and, when given, codespace/code). */
export async function expectError(fn: () => unknown, message: string | RegExp, codes?: { codespace: string; code: number }): Promise<unknown> {
  let caught: unknown;
  try {
    await fn();
  } catch (e) {
    caught = e;
  }
  expect(caught, "expected an error").toBeInstanceOf(Error);
  const err = caught as Error;
  if (typeof message === "string") expect(err.message).toBe(message);
  else expect(err.message).toMatch(message);
  if (codes) {
    expect(err).toBeInstanceOf(UpgradeError);
    expect((err as UpgradeError).codespace).toBe(codes.codespace);
    expect((err as UpgradeError).code).toBe(codes.code);
  }
  return err;
}

export const INVALID = { codespace: "sdk", code: 18 };
const CORRUPT = { codespace: "xupgrade", code: 1 };
const MALFORMED = { codespace: "xupgrade", code: 2 };

export function defineCoreCases(backend: Backend): void {
  defineCachedAnswerCases(backend);
  let core: Core;
  const keeper = async (options: KeeperOptions = {}) => {
    core ??= await loadCore(backend);
    return new UpgradeKeeper(core, { backend, ...options });
  };

  describe(`core vectors (${backend})`, () => {
    it("encodes and decodes every wire.json plan byte for byte", async () => {
      core = await loadCore(backend);
      for (const v of [...wire.plans, ...wire.plans_uint32_range.cases]) {
        const plan = { name: v.name, height: BigInt(v.height), info: v.info };
        expect(hex(core.encodePlan(plan)), v.name).toBe(v.hex);
        expect(core.decodePlan(unhex(v.hex))).toEqual(plan);
      }
    });

    it("decodes the wire.json decode cases", async () => {
      core = await loadCore(backend);
      expect(core.decodePlan(unhex(wire.plan_decode_cases[0].hex))).toEqual({ name: "x", height: 1n, info: "" });
      await expectError(
        () => core.decodePlan(unhex(wire.plan_decode_cases[1].hex)),
        "time-based upgrades have been deprecated in the SDK: invalid request",
        INVALID,
      );
    });

    it("builds every store key of wire.json", async () => {
      core = await loadCore(backend);
      expect(hex(core.planKey())).toBe(wire.keys.plan);
      expect(hex(core.protocolVersionKey())).toBe(wire.keys.protocol_version);
      for (const d of wire.keys.done) expect(hex(core.doneKey(d.name))).toBe(d.key);
      for (const m of wire.keys.module_version) expect(hex(core.moduleVersionKey(m.module))).toBe(m.key);
      expect(hex(core.upgradedClientKey(11n))).toBe("75706772616465644942435374617465" + "2f31312f" + "7570677261646564436c69656e74");
    });

    it("encodes and decodes every big-endian vector", async () => {
      core = await loadCore(backend);
      for (const v of wire.big_endian.int64) {
        expect(hex(core.encodeInt64BE(BigInt(v.value)))).toBe(v.hex);
        expect(core.decodeInt64BE(unhex(v.hex))).toBe(BigInt(v.value));
      }
      for (const v of wire.big_endian.uint64) {
        expect(hex(core.encodeUint64BE(BigInt(v.value)))).toBe(v.hex);
        expect(core.decodeUint64BE(unhex(v.hex))).toBe(BigInt(v.value));
      }
      expect(() => core.decodeInt64BE(new Uint8Array(7))).toThrow(TypeError);
    });

    it("encodes the messages of wire.json", async () => {
      core = await loadCore(backend);
      const upgrade = { authority: GOV_AUTHORITY, plan: { name: "test", height: 100n, info: "" } };
      expect(hex(encodeMsgSoftwareUpgrade(core, upgrade))).toBe(wire.messages.msg_software_upgrade_test_100);
      expect(decodeMsgSoftwareUpgrade(core, unhex(wire.messages.msg_software_upgrade_test_100))).toEqual(upgrade);
      expect(hex(encodeMsgCancelUpgrade({ authority: GOV_AUTHORITY }))).toBe(wire.messages.msg_cancel_upgrade);
      expect(decodeMsgCancelUpgrade(unhex(wire.messages.msg_cancel_upgrade))).toEqual({ authority: GOV_AUTHORITY });
      await expectError(() => decodeMsgCancelUpgrade(unhex("0a05")), /malformed protobuf$/, MALFORMED);
    });

    it("batch-decodes done and module-version entries and encodes heights", async () => {
      core = await loadCore(backend);
      const done = core.decodeDoneEntries([unhex("0174657374"), unhex("01e5908de5898d")], [unhex("000000000000000b"), unhex("0000000000000014")]);
      expect(done).toEqual([
        { name: "test", height: 11n },
        { name: "名前", height: 20n },
      ]);
      const mv = core.decodeModuleVersionEntries([unhex("0262616e6b")], [unhex("ffffffffffffffff")]);
      expect(mv).toEqual([{ name: "bank", version: 2n ** 64n - 1n }]);
      await expectError(
        () => core.decodeDoneEntries([unhex("0174657374")], [unhex("00000000000000")]),
        "value at key 0x0174657374 is 7 bytes, expected 8: corrupt store value",
        CORRUPT,
      );
      expect(() => core.decodeDoneEntries([unhex("0274657374")], [unhex("000000000000000b")])).toThrow(TypeError);
      await expectError(
        () => core.decodeModuleVersionEntries([unhex("02ff")], [unhex("0000000000000001")]),
        "key 0x02ff holds a name that is not valid UTF-8: corrupt store value",
        CORRUPT,
      );
      expect(hex(core.encodeHeightsBE(BigInt64Array.of(11n, -1n, 256n)))).toBe("000000000000000bffffffffffffffff0000000000000100");
    });
  });

  describe(`done records in either layout (${backend})`, () => {
    /** simd v0.50's record of the real upgrade v047-to-v050 at height 45 (0x2d): 01 ‖ BE64(45) ‖ name → 01. */
    const SIMD_KEY = "01" + "000000000000002d" + "763034372d746f2d76303530";
    const sdkKey = (height: string, nameHex: string) => unhex("01" + height + nameHex);
    const decode = (keys: string[], values: string[]) => core.decodeDoneEntriesAnyLayout(keys.map(unhex), values.map(unhex));

    it("the SDK layout (v0.46 and later): simd's real bytes and more, the height from the key, in input order", async () => {
      core = await loadCore(backend);
      expect(decode([SIMD_KEY], ["01"])).toEqual({ layout: "sdk", entries: [{ name: "v047-to-v050", height: 45n }] });
      const keys = [
        sdkKey("000000000000000b", "74657374"), // "test" at 11
        sdkKey("0000000000000014", "e5908de5898d"), // "名前" at 20
        sdkKey("7fffffffffffffff", "00"), // "\0" at 2^63 - 1
        sdkKey("ffffffffffffffff", "78"), // "x" at -1: heights are int64, as in the seed layout
        sdkKey("0000000000000001", "efbbbf61"), // a leading U+FEFF is part of the name
      ];
      expect(
        core.decodeDoneEntriesAnyLayout(
          keys,
          keys.map(() => unhex("01")),
        ),
      ).toEqual({
        layout: "sdk",
        entries: [
          { name: "test", height: 11n },
          { name: "名前", height: 20n },
          { name: "\u0000", height: 2n ** 63n - 1n },
          { name: "x", height: -1n },
          { name: "\ufeffa", height: 1n },
        ],
      });
      // The SDK keeps a record per application, so a name applied twice has two (keeper.md K14): both come back.
      const twice = [sdkKey("000000000000000a", "74657374"), sdkKey("0000000000000014", "74657374")];
      expect(core.decodeDoneEntriesAnyLayout(twice, [unhex("01"), unhex("01")]).entries).toEqual([
        { name: "test", height: 10n },
        { name: "test", height: 20n },
      ]);
      // A 100-byte name crosses the boundary whole.
      expect(decode([`01${"00".repeat(7)}05${"61".repeat(100)}`], ["01"]).entries).toEqual([{ name: "a".repeat(100), height: 5n }]);
    });

    it("the seed layout: the same records as decodeDoneEntries; no records: no layout", async () => {
      core = await loadCore(backend);
      const keys = [unhex("0174657374"), unhex("01e5908de5898d"), unhex("01")];
      const values = [unhex("000000000000000b"), unhex("0000000000000014"), unhex("0000000000000003")];
      expect(core.decodeDoneEntriesAnyLayout(keys, values)).toEqual({
        layout: "seed",
        entries: [
          { name: "test", height: 11n },
          { name: "名前", height: 20n },
          { name: "", height: 3n },
        ],
      });
      expect(core.decodeDoneEntriesAnyLayout(keys, values).entries).toEqual(core.decodeDoneEntries(keys, values));
      // A seed key as long as an SDK one with an 8-byte value is a seed record: the value decides.
      expect(decode([SIMD_KEY], ["000000000000002a"])).toEqual({ layout: "seed", entries: [{ name: "\u0000".repeat(7) + "-v047-to-v050", height: 42n }] });
      expect(decode([], [])).toEqual({ layout: undefined, entries: [] });
    });

    it("refuses a mix of layouts, naming the first record of the second one", async () => {
      core = await loadCore(backend);
      await expectError(
        () => decode(["0174657374", "0176", SIMD_KEY], ["000000000000000b", "0000000000000001", "01"]),
        `done records in both layouts: key 0x${SIMD_KEY} is in the sdk layout, the records before it in the seed layout: corrupt store value`,
        CORRUPT,
      );
      await expectError(
        () => decode([SIMD_KEY, "0174657374"], ["01", "000000000000000b"]),
        "done records in both layouts: key 0x0174657374 is in the seed layout, the records before it in the sdk layout: corrupt store value",
        CORRUPT,
      );
    });

    it("refuses a record that fits neither layout, and garbage", async () => {
      core = await loadCore(backend);
      const neither = (key: string, n: number) =>
        `done record at key 0x${key} with a ${n}-byte value fits neither layout (seed: an 8-byte height; sdk: the value 01 under a key of at least 10 bytes): corrupt store value`;
      const cases: [string, string][] = [
        ["017639", "0001"], // the light-client suite's corrupting proxy
        ["0174657374", "00000000000000"], // a 7-byte seed height
        ["0174657374", "000000000000000b00"], // 9 bytes
        ["0174657374", ""],
        [SIMD_KEY, "02"], // the SDK's key with another value byte
        [SIMD_KEY, "0101"],
        ["01000000000000002d", "01"], // an SDK key without a name
        ["0176", "01"],
      ];
      for (const [key, value] of cases) await expectError(() => decode([key], [value]), neither(key, value.length / 2), CORRUPT);
      // The layout is settled over every record before any name is decoded: the first record's bad name is not reached.
      await expectError(() => decode(["01ff", SIMD_KEY], ["0000000000000001", "00"]), neither(SIMD_KEY, 1), CORRUPT);
      await expectError(() => decode(["01ff", SIMD_KEY], ["0000000000000001", "01"]), /^done records in both layouts: key 0x01000000000000002d/, CORRUPT);
      // Names that are not UTF-8, in either layout, name the whole key.
      await expectError(() => decode(["01ff"], ["0000000000000001"]), "key 0x01ff holds a name that is not valid UTF-8: corrupt store value", CORRUPT);
      await expectError(
        () => decode([SIMD_KEY, "01000000000000002ec0af"], ["01", "01"]),
        "key 0x01000000000000002ec0af holds a name that is not valid UTF-8: corrupt store value",
        CORRUPT,
      );
      // A key outside the range is a programmer's mistake, as for decodeDoneEntries; it is found before the layout.
      await expectError(() => decode(["0274657374"], ["000000000000000b"]), "key 0x0274657374 is outside the range being decoded");
      await expectError(() => decode(["", "017639"], ["01", "0001"]), "key 0x is outside the range being decoded");
      await expectError(() => decode(["0274657374"], ["00"]), "key 0x0274657374 is outside the range being decoded");
      expect(() => decode(["02" + SIMD_KEY.slice(2)], ["01"])).toThrow(TypeError);
    });

    it("decodeDoneEntries keeps reading the seed layout only", async () => {
      core = await loadCore(backend);
      await expectError(
        () => core.decodeDoneEntries([unhex(SIMD_KEY)], [unhex("01")]),
        `value at key 0x${SIMD_KEY} is 1 bytes, expected 8: corrupt store value`,
        CORRUPT,
      );
    });
  });

  describe(`plan (${backend})`, () => {
    it("P1–P3 text form", () => {
      expect(planToText({ name: "test", height: 100n, info: "" })).toBe('name:"test" time:<seconds:-62135596800 > height:100 ');
      expect(planToText({ name: "by height", height: 7890n, info: "https://foo.bar/baz" })).toBe(
        'name:"by height" time:<seconds:-62135596800 > height:7890 info:"https://foo.bar/baz" ',
      );
      expect(planToText({ name: "almost-empty", height: 0n, info: "" })).toBe('name:"almost-empty" time:<seconds:-62135596800 > ');
    });

    it("P4–P9 ValidateBasic", async () => {
      core = await loadCore(backend);
      expect(() => core.validateBasic({ name: "all-good", height: 123450000n, info: "" })).not.toThrow();
      await expectError(() => core.validateBasic({ name: "", height: 123450000n, info: "" }), "name cannot be empty: invalid request", INVALID);
      await expectError(
        () => core.validateBasic({ name: "x", height: 1n, info: "" }, false),
        "time-based upgrades have been deprecated in the SDK: invalid request",
        INVALID,
      );
      await expectError(() => core.decodePlan(unhex("0a017818012a00")), "upgrade logic for IBC has been moved to the IBC module: invalid request", INVALID);
      await expectError(
        () => core.validateBasic({ name: "missing", height: 0n, info: "important" }),
        "height must be greater than 0: invalid request",
        INVALID,
      );
      await expectError(() => core.validateBasic({ name: "minus", height: -12345n, info: "" }), "height must be greater than 0: invalid request");
      // a timestamp one second before the zero time is a non-zero time
      await expectError(
        () => core.decodePlan(unhex("0a0178120b08ff91b8c398feffffff011801")),
        "time-based upgrades have been deprecated in the SDK: invalid request",
      );
      // the zero time written with an explicit nanos field is still the zero time
      expect(core.decodePlan(unhex("0a0178120d088092b8c398feffffff0110001801"))).toEqual({ name: "x", height: 1n, info: "" });
    });

    it("P10 shouldExecute", async () => {
      core = await loadCore(backend);
      expect(core.shouldExecute(1234n, 1000n)).toBe(false);
      expect(core.shouldExecute(1234n, 1234n)).toBe(true);
      expect(core.shouldExecute(1234n, 1235n)).toBe(true);
      expect(core.shouldExecute(0n, 1235n)).toBe(false);
    });

    it("P12 malformed bytes give a clear error, never a trap", async () => {
      core = await loadCore(backend);
      const cases: [string, string][] = [
        ["0a0474", "proto: field 1: length exceeds the remaining bytes: malformed protobuf"],
        ["18ffff", "proto: truncated varint: malformed protobuf"],
        ["18ffffffffffffffffffff01", "proto: varint overflows 64 bits: malformed protobuf"],
        ["0801", "proto: field 1: wrong wire type 0: malformed protobuf"],
        ["0001", "proto: illegal field number 0: malformed protobuf"],
        ["0f", "proto: illegal wire type 7: malformed protobuf"],
        ["3f", "proto: illegal wire type 7: malformed protobuf"],
        ["0a02c328", "proto: field 1: invalid UTF-8: malformed protobuf"],
        ["2202eda0", "proto: field 4: invalid UTF-8: malformed protobuf"],
        ["2203eda080", "proto: field 4: invalid UTF-8: malformed protobuf"],
        ["1a00", "proto: field 3: wrong wire type 2: malformed protobuf"],
        ["33", "proto: field 6: groups are not supported: malformed protobuf"],
        ["3d0102", "proto: field 7: truncated fixed-width value: malformed protobuf"],
        ["120108", "proto: truncated varint: malformed protobuf"],
        ["1202087f", "time-based upgrades have been deprecated in the SDK: invalid request"],
      ];
      for (const [bytes, message] of cases) await expectError(() => core.decodePlan(unhex(bytes)), message);
      // unknown fields are skipped; repeated scalars: last wins
      expect(core.decodePlan(unhex("0a01613a02ffff0a01621802180345000000001803"))).toEqual({ name: "b", height: 3n, info: "" });
      // negative heights are 10-byte varints and decode as such (ValidateBasic refuses them elsewhere)
      expect(core.decodePlan(unhex("0a0178120b088092b8c398feffffff0118ffffffffffffffffff01")).height).toBe(-1n);
      expect(core.decodePlan(unhex("120b088092b8c398feffffff01"))).toEqual({ name: "", height: 0n, info: "" });
    });

    it("refuses to encode an invalid plan", async () => {
      core = await loadCore(backend);
      await expectError(() => core.encodePlan({ name: "", height: 1n, info: "" }), "name cannot be empty: invalid request");
      await expectError(() => core.encodePlan({ name: "x", height: 0n, info: "" }), "height must be greater than 0: invalid request");
    });
  });

  describe(`keeper (${backend})`, () => {
    const S = (h: number, skip: number[] = []) => keeper({ store: new MemoryStore(), skipUpgradeHeights: skip });

    it("K1/K2 schedule stores the Go bytes and overwrites silently", async () => {
      const k = await S(10);
      k.scheduleUpgrade({ name: "alt-good", info: "new text here", height: 543210000n }, 10);
      k.scheduleUpgrade({ name: "all-good", info: "some text here", height: 123450000n }, 10);
      expect(hex(k.store.get(unhex("00"))!)).toBe(wire.plans.find((p) => p.name === "all-good")!.hex);
      expect(k.getUpgradePlan()).toEqual({ name: "all-good", height: 123450000n, info: "some text here" });
    });

    it("K3/K4/K6 schedule validation and the equal-height rule", async () => {
      const k = await S(10);
      await expectError(() => k.scheduleUpgrade({ name: "", height: 123450000n }, 10), "name cannot be empty: invalid request", INVALID);
      await expectError(() => k.scheduleUpgrade({ name: "all-good", height: 1 }, 10), "upgrade cannot be scheduled in the past: invalid request", INVALID);
      k.scheduleUpgrade({ name: "x", height: 10 }, 10);
      expect(k.getUpgradePlan()?.height).toBe(10n);
    });

    it("K5 a completed upgrade cannot be scheduled again", async () => {
      const k = await S(10);
      k.setUpgradeHandler("all-good", noop);
      await k.applyUpgrade({ name: "all-good", height: 123450000n }, 10);
      await expectError(
        () => k.scheduleUpgrade({ name: "all-good", height: 123450000n }, 10),
        "upgrade with name all-good has already been completed: invalid request",
        INVALID,
      );
    });

    it("K7/B8 skip heights", async () => {
      expect((await S(10)).isSkipHeight(11)).toBe(false);
      const k = await S(10, [9]);
      expect(k.isSkipHeight(9)).toBe(true);
      expect(k.isSkipHeight(10)).toBe(false);
      const b8 = await S(10, [11]);
      expect(b8.isSkipHeight(11)).toBe(true);
      expect(b8.isSkipHeight(4)).toBe(false);
    });

    it("K8 protocol version and the version setter", async () => {
      const calls: bigint[] = [];
      const k = await keeper({ versionSetter: { setProtocolVersion: (v) => calls.push(v) } });
      expect(k.getProtocolVersion()).toBe(0n);
      await expectError(() => k.applyUpgrade({ name: "dummy", height: 100 }, 10), "ApplyUpgrade should never be called without first checking HasHandler", {
        codespace: "undefined",
        code: 1,
      });
      k.setUpgradeHandler("dummy", noop);
      await k.applyUpgrade({ name: "dummy", height: 100 }, 10);
      expect(k.getProtocolVersion()).toBe(1n);
      expect(hex(k.store.get(unhex("03"))!)).toBe("0000000000000001");
      expect(calls).toEqual([1n]);
    });

    it("K9 a handler migrates the version map", async () => {
      const k = await keeper();
      k.setModuleVersionMap(new Map([["bank", 1n]]));
      k.setUpgradeHandler("bump", (_c, _p, vm) => {
        vm.set("bank", vm.get("bank")! + 1n);
        return vm;
      });
      await k.applyUpgrade({ name: "bump", height: 5 }, 5);
      expect(k.getModuleVersionMap().get("bank")).toBe(2n);
      expect(hex(k.store.get(unhex("0262616e6b"))!)).toBe("0000000000000002");
    });

    it("K10–K12 last completed upgrade", async () => {
      const k = await keeper();
      expect(k.getLastCompletedUpgrade()).toBeUndefined();
      for (const n of ["test0", "test1", "test-v0.9", "test-v0.10", "a", "b"]) k.setUpgradeHandler(n, noop);
      await k.applyUpgrade({ name: "test0", height: 10 }, 10);
      expect(k.getLastCompletedUpgrade()).toEqual({ name: "test0", height: 10n });
      await k.applyUpgrade({ name: "test1", height: 15 }, 15);
      expect(k.getLastCompletedUpgrade()).toEqual({ name: "test1", height: 15n });

      const k11 = await keeper();
      k11.setUpgradeHandler("test-v0.9", noop);
      k11.setUpgradeHandler("test-v0.10", noop);
      await k11.applyUpgrade({ name: "test-v0.9", height: 10 }, 10);
      await k11.applyUpgrade({ name: "test-v0.10", height: 15 }, 15);
      expect(k11.getLastCompletedUpgrade()).toEqual({ name: "test-v0.10", height: 15n });

      for (const order of [
        ["a", "b"],
        ["b", "a"],
      ]) {
        const k12 = await keeper();
        for (const n of order) {
          k12.setUpgradeHandler(n, noop);
          await k12.applyUpgrade({ name: n, height: 20 }, 20);
        }
        expect(k12.getLastCompletedUpgrade()).toEqual({ name: "b", height: 20n });
      }
    });

    it("K10–K12 over many records: the highest height, ties to the greatest name, the first corrupt value, across chunks", async () => {
      // The wasm core takes the range in chunks of 256 records and reads heights only (docs/spec/core.md §12):
      // winners and ties placed on both sides of chunk edges, checked against a plain reading of §5.5.
      const c = await loadCore(backend);
      const name = (i: number) => `u${String(i).padStart(4, "0")}`;
      const expected = (heights: Map<string, bigint>) => {
        let best: { name: string; height: bigint } | undefined;
        for (const [n, h] of heights) if (!best || h > best.height || (h === best.height && n > best.name)) best = { name: n, height: h };
        return best;
      };
      const layouts: [string, (i: number) => bigint][] = [
        ["rising", (i) => BigInt(i)],
        ["falling", (i) => BigInt(1000 - i)],
        ["all equal", () => 7n],
        ["a tie across a chunk edge", (i) => (i === 255 || i === 256 ? 900n : BigInt(i % 300))],
        ["a tie within a late chunk", (i) => (i === 520 || i === 530 ? 2n ** 40n : BigInt(i))],
        ["negative and int64 extremes", (i) => (i === 3 ? -(2n ** 63n) : i === 600 ? 2n ** 63n - 1n : -BigInt(i))],
      ];
      for (const [what, height] of layouts) {
        for (const count of [1, 255, 256, 257, 700]) {
          const store = new MemoryStore();
          const heights = new Map<string, bigint>();
          // Written in reverse, so store order and write order differ.
          for (let i = count - 1; i >= 0; i--) {
            heights.set(name(i), height(i));
            store.set(c.doneKey(name(i)), c.encodeInt64BE(height(i)));
          }
          const k = await keeper({ store });
          expect(k.getLastCompletedUpgrade(), `${what}, ${count} records`).toEqual(expected(new Map([...heights].sort())));
        }
      }
      for (const at of [0, 255, 256, 600]) {
        const store = new MemoryStore();
        for (let i = 0; i < 700; i++) store.set(c.doneKey(name(i)), i === at ? new Uint8Array(9) : c.encodeInt64BE(BigInt(i)));
        store.set(c.doneKey(name(650)), new Uint8Array(3)); // a second corrupt record: the first one is reported
        const k = await keeper({ store });
        const key = hex(c.doneKey(name(at)));
        await expectError(() => k.getLastCompletedUpgrade(), `value at key 0x${key} is 9 bytes, expected 8: corrupt store value`, CORRUPT);
      }
      const bad = new MemoryStore();
      for (let i = 0; i < 300; i++) bad.set(c.doneKey(name(i)), c.encodeInt64BE(1n));
      bad.set(Uint8Array.of(1, 0xff, 0xfe), c.encodeInt64BE(1n)); // the winner (greatest key at the top height) is not UTF-8
      const kb = await keeper({ store: bad });
      await expectError(() => kb.getLastCompletedUpgrade(), "key 0x01fffe holds a name that is not valid UTF-8: corrupt store value", CORRUPT);
    });

    it("K13/K14 one done record per name, the current block height", async () => {
      const k = await S(11);
      k.scheduleUpgrade({ name: "test", height: 11 }, 11);
      k.setUpgradeHandler("test", noop);
      expect(await k.preBlock(11)).toEqual({ consensusParamsChanged: true });
      expect(hex(k.store.get(unhex("0174657374"))!)).toBe("000000000000000b");
      expect([...k.store.iterate(unhex("01"), unhex("02"))]).toHaveLength(1);
      expect(k.getDoneHeight("test")).toBe(11n);
      await k.applyUpgrade({ name: "test", height: 10 }, 20);
      expect([...k.store.iterate(unhex("01"), unhex("02"))]).toHaveLength(1);
      expect(hex(k.store.get(unhex("0174657374"))!)).toBe("0000000000000014");
      expect(k.getDoneHeight("test")).toBe(20n);
    });

    it("K16 deprecated IBC state", async () => {
      const k = await keeper();
      const bytes = new TextEncoder().encode("IBC client state");
      await expectError(() => k.getUpgradedClient(10), "upgraded client not found", { codespace: "upgrade", code: 4 });
      k.setUpgradedClient(10, bytes);
      expect(k.getUpgradedClient(10)).toEqual(bytes);
      await expectError(() => k.getUpgradedConsensusState(10), "upgraded consensus state not found", { codespace: "upgrade", code: 5 });
      k.setUpgradedConsensusState(10, bytes);
      expect(k.getUpgradedConsensusState(10)).toEqual(bytes);
      // scheduling over a plan clears the old plan's IBC keys
      k.scheduleUpgrade({ name: "p", height: 10 }, 10);
      k.scheduleUpgrade({ name: "q", height: 12 }, 10);
      expect(() => k.getUpgradedClient(10)).toThrow(UpgradeError);
    });

    it("K17 downgradeVerified", async () => {
      const k = await keeper();
      expect(k.downgradeVerified).toBe(false);
      k.downgradeVerified = true;
      expect(k.downgradeVerified).toBe(true);
    });

    it("K18 corrupt 8-byte values are errors, never zeros", async () => {
      const store = new MemoryStore();
      const k = await keeper({ store });
      store.set(unhex("0174657374"), new Uint8Array(7));
      await expectError(() => k.getDoneHeight("test"), "value at key 0x0174657374 is 7 bytes, expected 8: corrupt store value", CORRUPT);
      await expectError(() => k.getLastCompletedUpgrade(), "value at key 0x0174657374 is 7 bytes, expected 8: corrupt store value", CORRUPT);
      store.set(unhex("03"), new Uint8Array(9));
      await expectError(() => k.getProtocolVersion(), "value at key 0x03 is 9 bytes, expected 8: corrupt store value", CORRUPT);
      store.set(unhex("0262616e6b"), new Uint8Array(0));
      await expectError(() => k.getModuleVersions(), "value at key 0x0262616e6b is 0 bytes, expected 8: corrupt store value", CORRUPT);
      await expectError(() => k.scheduleUpgrade({ name: "test", height: 20 }, 10), /is 7 bytes, expected 8: corrupt store value$/, CORRUPT);
    });

    it("K19 module versions in UTF-8 byte order", async () => {
      const k = await keeper();
      k.setModuleVersionMap(new Map(["😀", "ｚ", "é", "a", "Z"].map((n) => [n, 1n])));
      expect(k.getModuleVersions().map((m) => m.name)).toEqual(["Z", "a", "é", "ｚ", "😀"]);
      expect([...k.getModuleVersionMap().keys()]).toEqual(["Z", "a", "é", "ｚ", "😀"]);
    });

    it("K20 the version map merges and never deletes", async () => {
      const store = new MemoryStore();
      const k = await keeper({ store });
      k.setModuleVersionMap({ a: 1, b: 1 });
      k.setModuleVersionMap({ a: 2n });
      expect(k.getModuleVersionMap()).toEqual(
        new Map([
          ["a", 2n],
          ["b", 1n],
        ]),
      );
      k.setModuleVersionMap(new Map());
      expect(k.getModuleVersionMap()).toEqual(
        new Map([
          ["a", 2n],
          ["b", 1n],
        ]),
      );
      expect(k.getModuleVersion("a")).toBe(2n);
      await expectError(() => k.getModuleVersion("abcdefg"), "x/upgrade: QueryModuleVersions module abcdefg not found: module version not found", {
        codespace: "upgrade",
        code: 2,
      });
    });

    it("writes the version map in byte order (the store sees sorted writes)", async () => {
      const writes: string[] = [];
      const store = new MemoryStore();
      const spy = Object.assign(Object.create(store), {
        set(key: Uint8Array, value: Uint8Array) {
          writes.push(hex(key));
          store.set(key, value);
        },
      });
      const k = await keeper({ store: spy });
      k.setModuleVersionMap(
        new Map([
          ["b", 1n],
          ["😀", 1n],
          ["a", 1n],
        ]),
      );
      expect(writes).toEqual(["0261", "0262", "02f09f9880"]);
    });
  });

  describe(`preBlock (${backend})`, () => {
    const S = (skip: number[] = [], extra: KeeperOptions = {}) => keeper({ store: new MemoryStore(), skipUpgradeHeights: skip, ...extra });
    /** VerifyDoUpgrade without a home directory: the info file write fails before the halt message. */
    const verifyDoUpgrade = async (k: UpgradeKeeper, name: string, h: number) => {
      await expectError(() => k.preBlock(h), /^unable to write upgrade info to filesystem: |^UPGRADE ".*" NEEDED at height: /);
      k.setUpgradeHandler(name, noop);
      expect(await k.preBlock(h)).toEqual({ consensusParamsChanged: true });
      expect(k.getUpgradePlan()).toBeUndefined();
      expect(k.getDoneHeight(name)).toBe(BigInt(h));
    };

    it("B1 past height", async () => {
      const k = await S();
      await expectError(() => k.scheduleUpgrade({ name: "test", height: 9 }, 10), "upgrade cannot be scheduled in the past: invalid request", INVALID);
    });

    it("B2/B3 the due plan halts without a handler and applies with one", async () => {
      const k = await S();
      k.scheduleUpgrade({ name: "bad_test", height: 20 }, 10);
      k.scheduleUpgrade({ name: "test", height: 11 }, 10);
      await verifyDoUpgrade(k, "test", 11);
    });

    it("B4 binary updated before trigger", async () => {
      const k = await S();
      let calls = 0;
      k.setUpgradeHandler("future", (_c, _p, vm) => {
        calls++;
        return vm;
      });
      expect(await k.preBlock(11)).toEqual({ consensusParamsChanged: false });
      expect(calls).toBe(0);
      k.scheduleUpgrade({ name: "future", height: 13 }, 11);
      const err = await expectError(
        () => k.preBlock(11),
        'BINARY UPDATED BEFORE TRIGGER! UPGRADE "future" - in binary but not executed on chain. Downgrade your binary',
        { codespace: "undefined", code: 1 },
      );
      expect((err as UpgradeError).exitCode).toBe(21);
      expect(calls).toBe(0);
      expect(await k.preBlock(13)).toEqual({ consensusParamsChanged: true });
      expect(calls).toBe(1);
      expect(k.getUpgradePlan()).toBeUndefined();
    });

    it("thousands of handlers: each name is found, near misses are not, and the due plan's own handler runs", async () => {
      const k = await S();
      // Names that share prefixes, differ in one byte or in length only, hold NUL and non-ASCII characters.
      const names = Array.from({ length: 3000 }, (_, i) => ["v", "v\u0000", "vé", "upgrade-"][i % 4] + String(i).padStart(1 + (i % 5), "0"));
      const ran: string[] = [];
      for (const name of names) {
        k.setUpgradeHandler(name, (_c, p, vm) => {
          ran.push(`${name}:${p.name}`);
          return vm;
        });
      }
      for (const name of names) expect(k.hasHandler(name)).toBe(true);
      for (const miss of ["v", "v0", "upgrade-", "vé", names[2999] + "0", names[17].slice(0, -1), names[3].replace("-", "_")]) {
        expect(k.hasHandler(miss)).toBe(names.includes(miss));
      }
      let h = 10;
      for (const i of [0, 1, 2, 3, 1234, 2999]) {
        h++;
        k.scheduleUpgrade({ name: names[i], height: h }, h);
        expect(await k.preBlock(h)).toEqual({ consensusParamsChanged: true });
        expect(ran.at(-1)).toBe(`${names[i]}:${names[i]}`);
      }
      k.scheduleUpgrade({ name: "unhandled", height: h + 1 }, h + 1);
      await expectError(() => k.preBlock(h + 1), /^unable to write upgrade info to filesystem: |^UPGRADE "unhandled" NEEDED at height: /);
    });

    it("B5 clear; B7 no plan", async () => {
      const k = await S();
      k.scheduleUpgrade({ name: "test", height: 110 }, 10);
      k.clearUpgradePlan();
      expect(k.getUpgradePlan()).toBeUndefined();
      k.clearUpgradePlan();
      expect(await k.preBlock(10)).toEqual({ consensusParamsChanged: false });
    });

    it("B6 a completed upgrade cannot be rescheduled", async () => {
      const k = await S();
      k.scheduleUpgrade({ name: "test", height: 11 }, 10);
      await verifyDoUpgrade(k, "test", 11);
      await expectError(() => k.scheduleUpgrade({ name: "test", height: 11 }, 10), "upgrade with name test has already been completed: invalid request");
    });

    it("B9–B11 skip heights clear the plan and mark nothing done", async () => {
      const k = await S([11, 20]);
      k.scheduleUpgrade({ name: "test", height: 11 }, 10);
      expect(await k.preBlock(11)).toEqual({ consensusParamsChanged: false });
      k.scheduleUpgrade({ name: "test2", height: 20 }, 11);
      expect(await k.preBlock(20)).toEqual({ consensusParamsChanged: false });
      expect(k.getUpgradePlan()).toBeUndefined();
      expect(k.getDoneHeight("test")).toBe(0n);
      expect(k.getDoneHeight("test2")).toBe(0n);
      k.scheduleUpgrade({ name: "test3", height: 25 }, 20);
      await verifyDoUpgrade(k, "test3", 25);
      expect(k.getDoneHeight("test")).toBe(0n);

      const k10 = await S([11]);
      k10.scheduleUpgrade({ name: "test", height: 11 }, 10);
      await k10.preBlock(11);
      k10.scheduleUpgrade({ name: "test2", height: 20 }, 11);
      await verifyDoUpgrade(k10, "test2", 20);
      expect(k10.getDoneHeight("test")).toBe(0n);
    });

    it("B14 a sequence on one keeper", async () => {
      const k = await S([15]);
      expect(await k.preBlock(10)).toEqual({ consensusParamsChanged: false });
      k.setUpgradeHandler("test0", noop);
      k.scheduleUpgrade({ name: "test0", height: 12 }, 10);
      await k.applyUpgrade({ name: "test0", height: 12 }, 12);
      expect(await k.preBlock(12)).toEqual({ consensusParamsChanged: false });
      k.scheduleUpgrade({ name: "test2", height: 13 }, 12);
      await expectError(() => k.preBlock(13), /^unable to write upgrade info|^UPGRADE "test2" NEEDED at height: 13: $/);
    });

    it("B15/B16 downgrade detection, once per keeper", async () => {
      const store = new MemoryStore();
      const k1 = await keeper({ store });
      k1.setUpgradeHandler("downgrade", noop);
      k1.scheduleUpgrade({ name: "downgrade", height: 11 }, 10);
      expect(await k1.preBlock(11)).toEqual({ consensusParamsChanged: true });

      const fresh = async () => {
        const k = await keeper({ store: store.clone() });
        expect(k.getLastCompletedUpgrade()?.name).toBe("downgrade");
        expect(k.hasHandler("downgrade")).toBe(false);
        expect(k.downgradeVerified).toBe(false);
        expect(k.getUpgradePlan()).toBeUndefined();
        return k;
      };
      const valid = await fresh();
      valid.setUpgradeHandler("downgrade", noop);
      expect(await valid.preBlock(12)).toEqual({ consensusParamsChanged: false });

      const active = await fresh();
      active.scheduleUpgrade({ name: "anotherdowngrade", height: 13 }, 12);
      const err = await expectError(() => active.preBlock(12), "wrong app version 0, upgrade handler is missing for downgrade upgrade plan");
      expect((err as UpgradeError).exitCode).toBe(22);

      const none = await fresh();
      await expectError(() => none.preBlock(12, { appVersion: 3n }), "wrong app version 3, upgrade handler is missing for downgrade upgrade plan");
      expect(await none.preBlock(12)).toEqual({ consensusParamsChanged: false });
    });

    it("B17 a failing handler leaves the store as it was", async () => {
      for (const style of ["throw", "reject"] as const) {
        const upgradeStore = new CacheStore(new MemoryStore());
        const otherStore = new CacheStore(new MemoryStore());
        const calls: bigint[] = [];
        const k = await keeper({ store: upgradeStore, versionSetter: { setProtocolVersion: (v) => calls.push(v) } });
        k.setModuleVersionMap({ bank: 1 });
        k.scheduleUpgrade({ name: "test", height: 11 }, 10);
        upgradeStore.write();
        const before = [...upgradeStore.iterate(new Uint8Array(0), undefined)].map(([kk, v]) => hex(kk) + "=" + hex(v));
        k.setUpgradeHandler("test", (ctx) => {
          otherStore.set(unhex("6b"), unhex("01"));
          expect(ctx.blockHeight).toBe(11n);
          if (style === "throw") throw new Error("boom");
          return Promise.reject(new Error("boom"));
        });
        await expectError(() => k.preBlock(11, { ctx: { blockHeight: 11n } }), "boom");
        otherStore.discard();
        upgradeStore.discard();
        const after = [...upgradeStore.iterate(new Uint8Array(0), undefined)].map(([kk, v]) => hex(kk) + "=" + hex(v));
        expect(after).toEqual(before);
        expect(k.getUpgradePlan()).toEqual({ name: "test", height: 11n, info: "" });
        expect(k.getDoneHeight("test")).toBe(0n);
        expect(k.getProtocolVersion()).toBe(0n);
        expect(otherStore.get(unhex("6b"))).toBeUndefined();
        expect(calls).toEqual([]);
      }
    });

    it("B19 a plan scheduled at the current height runs in the next block", async () => {
      const k = await S();
      k.scheduleUpgrade({ name: "x", height: 10 }, 10);
      k.setUpgradeHandler("x", noop);
      expect(await k.preBlock(11)).toEqual({ consensusParamsChanged: true });
      expect(k.getDoneHeight("x")).toBe(11n);
    });

    it("B20 a corrupt stored plan halts with a corrupt-store error", async () => {
      const store = new MemoryStore();
      const k = await keeper({ store });
      store.set(unhex("00"), unhex("0a0474"));
      const err = await expectError(
        () => k.preBlock(5),
        "cannot decode plan at key 0x00: proto: field 1: length exceeds the remaining bytes: corrupt store value",
        CORRUPT,
      );
      expect((err as UpgradeError).exitCode).toBe(25);
      store.set(unhex("00"), unhex("0a017812001801"));
      await expectError(
        () => k.getUpgradePlan(),
        "cannot decode plan at key 0x00: time-based upgrades have been deprecated in the SDK: invalid request: corrupt store value",
      );
    });
  });

  describe(`msg server (${backend})`, () => {
    it("M1–M6", async () => {
      const k = await keeper();
      const msgs = createMsgServer(k);
      const plan = { name: "all-good", info: "some text here", height: 123450000n };
      await expectError(
        () => msgs.softwareUpgrade({ authority: "authority", plan }, 10),
        `expected ${GOV_AUTHORITY} got authority: expected authority account as only signer for proposal message`,
        { codespace: "upgrade", code: 6 },
      );
      const other = "cosmos10zg9t8vm58apjhcrkwwv9jnsly3apzyp4h37v0";
      await expectError(
        () => msgs.softwareUpgrade({ authority: other, plan }, 10),
        `expected ${GOV_AUTHORITY} got ${other}: expected authority account as only signer for proposal message`,
      );
      await expectError(
        () => msgs.softwareUpgrade({ authority: GOV_AUTHORITY, plan: { name: "", height: 123450000n } }, 10),
        "name cannot be empty: invalid request",
      );
      expect(msgs.softwareUpgrade({ authority: GOV_AUTHORITY, plan }, 10)).toEqual({});
      expect(k.getUpgradePlan()).toEqual(plan);
      await expectError(() => msgs.cancelUpgrade({ authority: "authority" }), /expected authority account/);
      await expectError(() => msgs.cancelUpgrade({ authority: other }), /expected authority account/);
      expect(k.getUpgradePlan()).toEqual(plan);
      msgs.cancelUpgrade({ authority: GOV_AUTHORITY });
      expect(k.getUpgradePlan()).toBeUndefined();
      expect(msgs.cancelUpgrade({ authority: GOV_AUTHORITY })).toEqual({});
    });
  });

  describe(`bad input (${backend})`, () => {
    it("type errors for programmer misuse, store unchanged", async () => {
      const store = new MemoryStore();
      const k = await keeper({ store });
      expect(() => k.scheduleUpgrade({ name: "x", height: 1.5 }, 1)).toThrow(TypeError);
      expect(() => k.scheduleUpgrade({ name: "x", height: 2 ** 60 }, 1)).toThrow(TypeError);
      expect(() => k.scheduleUpgrade({ name: "x", height: 2n ** 63n }, 1)).toThrow(TypeError);
      expect(() => k.scheduleUpgrade({ name: "x", height: 5 }, 0)).toThrow(TypeError);
      expect(() => k.scheduleUpgrade({ name: "x", height: 5 }, -3n)).toThrow(TypeError);
      expect(() => k.scheduleUpgrade({ name: "\ud800", height: 5 }, 1)).toThrow(/not valid UTF-8/);
      expect(() => k.scheduleUpgrade({ name: 7 as unknown as string, height: 5 }, 1)).toThrow(TypeError);
      expect(() => k.getDoneHeight("")).toThrow(TypeError);
      expect(() => k.setUpgradeHandler("", noop)).toThrow(TypeError);
      expect(() => k.setModuleVersionMap({ a: -1 })).toThrow(TypeError);
      expect(() => k.setModuleVersionMap(new Map([["a", 2n ** 64n]]))).toThrow(TypeError);
      expect(() => k.setModuleVersionMap(new Map([["", 1n]]))).toThrow(TypeError);
      await expect(k.preBlock(0)).rejects.toThrow(TypeError);
      expect(store.size).toBe(0);
    });

    it("a handler returning garbage writes nothing", async () => {
      const store = new MemoryStore();
      const k = await keeper({ store });
      k.setUpgradeHandler("x", () => "nope" as unknown as Map<string, bigint>);
      k.scheduleUpgrade({ name: "x", height: 2 }, 1);
      const before = store.clone();
      await expect(k.preBlock(2)).rejects.toThrow(TypeError);
      expect([...store.iterate(new Uint8Array(0), undefined)]).toEqual([...before.iterate(new Uint8Array(0), undefined)]);
    });

    it("names with any Unicode and embedded NUL round-trip", async () => {
      const k = await keeper();
      const names = ["a\u0000b", "名前", "😀-upgrade", "\u2028", "v1.0.0+build"];
      for (const n of names) {
        k.setUpgradeHandler(n, noop);
        await k.applyUpgrade({ name: n, height: 3 }, 3);
        expect(k.getDoneHeight(n)).toBe(3n);
      }
      expect(k.getLastCompletedUpgrade()).toEqual({ name: "😀-upgrade", height: 3n });
    });

    it("large names and info cross the boundary intact", async () => {
      const k = await keeper();
      const name = "n".repeat(100_000) + "é";
      const info = "{" + "x".repeat(300_000) + "}";
      k.scheduleUpgrade({ name, height: 5, info }, 1);
      expect(k.getUpgradePlan()).toEqual({ name, height: 5n, info });
    });
  });

  describe(`parseCoin (${backend})`, () => {
    const MAX = ((1n << 256n) - 1n).toString();
    const coin = async (text: string) => {
      core ??= await loadCore(backend);
      return core.parseCoin(text);
    };

    it("parses amount and denom, canonical amount", async () => {
      expect(await coin("10000000stake")).toEqual({ amount: "10000000", denom: "stake" });
      expect(await coin("  007 uatom\t")).toEqual({ amount: "7", denom: "uatom" });
      expect(await coin("0stake")).toEqual({ amount: "0", denom: "stake" });
      expect(await coin("1ibc/27394FB092D2ECCD56123C74F36E4C1F926001CEADA9CA97EA622B25F41E5EB2")).toEqual({
        amount: "1",
        denom: "ibc/27394FB092D2ECCD56123C74F36E4C1F926001CEADA9CA97EA622B25F41E5EB2",
      });
      expect(await coin("5a:b.c_d-e/f")).toEqual({ amount: "5", denom: "a:b.c_d-e/f" });
      expect(await coin("1" + "x".repeat(128))).toEqual({ amount: "1", denom: "x".repeat(128) });
    });

    it("accepts 2^256-1 exactly, with any number of leading zeros", async () => {
      expect(await coin(`${MAX}stake`)).toEqual({ amount: MAX, denom: "stake" });
      expect(await coin(`${"0".repeat(500)}${MAX}stake`)).toEqual({ amount: MAX, denom: "stake" });
      const p255 = (1n << 255n).toString();
      expect(await coin(`${p255}stake`)).toEqual({ amount: p255, denom: "stake" });
      const tenTo77 = "1" + "0".repeat(77);
      expect(await coin(`${tenTo77}stake`)).toEqual({ amount: tenTo77, denom: "stake" });
    });

    it("refuses amounts beyond 2^256-1", async () => {
      const over = [
        (1n << 256n).toString(),
        "115792089237316195423570985008687907853269984665640564039457584007913129639936",
        "115792089237316195423570985008687907853269984665640564039457584007913129639940",
        "9".repeat(78),
        "1" + "0".repeat(78),
        "9".repeat(10_000),
      ];
      for (const amount of over) {
        await expectError(() => coin(`${amount}stake`), `invalid coin "${amount}stake": amount exceeds 2^256-1`, {
          codespace: "xupgrade",
          code: 4,
        });
      }
    });

    it("refuses malformed expressions with one clear reason", async () => {
      const cases: [string, string][] = [
        ["1.5stake", "amount must be a whole number"],
        [".5stake", "amount must be a whole number"],
        ["1.stake", "amount must be a whole number"],
        ["-5stake", "amount must not be negative"],
        ["", "empty coin expression"],
        ["   ", "empty coin expression"],
        ["stake", "amount must start with decimal digits"],
        ["+5stake", "amount must start with decimal digits"],
        ["100", "missing denom"],
        ["100  ", "missing denom"],
        ["10st", 'invalid denom "st": must match [a-zA-Z][a-zA-Z0-9/:._-]{2,127}'],
        ["10 1stake", 'invalid denom "1stake": must match [a-zA-Z][a-zA-Z0-9/:._-]{2,127}'],
        ["10stake,5atom", 'invalid denom "stake,5atom": must match [a-zA-Z][a-zA-Z0-9/:._-]{2,127}'],
        ["10stäke", 'invalid denom "stäke": must match [a-zA-Z][a-zA-Z0-9/:._-]{2,127}'],
        ["10stake extra", 'invalid denom "stake extra": must match [a-zA-Z][a-zA-Z0-9/:._-]{2,127}'],
        ["1" + "x".repeat(129), `invalid denom "${"x".repeat(129)}": must match [a-zA-Z][a-zA-Z0-9/:._-]{2,127}`],
      ];
      for (const [text, reason] of cases) {
        const err = await expectError(() => coin(text), `invalid coin ${JSON.stringify(text)}: ${reason}`);
        expect(err).toBeInstanceOf(UpgradeError);
        expect((err as { reason?: string }).reason).toBe(reason);
      }
      // digits run into the amount, letters start the denom
      expect(await coin("0x10stake")).toEqual({ amount: "0", denom: "x10stake" });
    });

    it("both backends agree on random inputs", async () => {
      const other = await loadCore(backend === "wasm" ? "js" : "wasm");
      const alphabet = ["0", "1", "9", ".", "-", " ", "a", "Z", "/", ":", "_", "é", ","];
      let seed = 7;
      const rnd = (n: number) => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) % n;
      for (let k = 0; k < 500; k++) {
        let s = "";
        const len = rnd(12);
        for (let j = 0; j < len; j++) s += alphabet[rnd(alphabet.length)];
        const run = (c: Core) => {
          try {
            return c.parseCoin(s);
          } catch (e) {
            return (e as Error).message;
          }
        };
        expect(run(await loadCore(backend)), JSON.stringify(s)).toEqual(run(other));
      }
    });
  });
}
