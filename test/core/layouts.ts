/**
 * Done records in either store layout (docs/spec/core.md §2.6), as properties over both cores: random
 * records of the seed's layout (`01 ‖ name → BE64(height)`) or the SDK's (`01 ‖ BE64(height) ‖ name → 01`)
 * decode to the names and heights they were made from, with the layout said; random mixes, records that
 * fit neither layout, names that are not UTF-8 and keys outside the range give both cores the same result
 * or the same error, the one a model of the rule written here predicts. Registered by the Node suite
 * (layouts.test.ts) and the browser suite (layouts.browser.test.ts).
 */
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { Core } from "../../bindings/core/contract.js";
import { loadCore } from "../../bindings/core/index.js";
import type { DoneLayout } from "../../bindings/core/types.js";

const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
const utf8 = new TextEncoder();
const INT64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n };

function be64(height: bigint): Uint8Array {
  const out = new Uint8Array(8);
  new DataView(out.buffer).setBigInt64(0, height);
  return out;
}

const seedRecord = (name: Uint8Array, height: bigint): [Uint8Array, Uint8Array] => [Uint8Array.of(1, ...name), be64(height)];
const sdkRecord = (name: Uint8Array, height: bigint): [Uint8Array, Uint8Array] => [Uint8Array.of(1, ...be64(height), ...name), Uint8Array.of(1)];

/** Names as UTF-8: any Unicode (NUL, U+FEFF, astral), and for the seed layout the empty name too. */
const name = (minLength: number) => fc.string({ unit: "grapheme", minLength, maxLength: 24 }).filter((s) => utf8.encode(s).length >= minLength);

/** The result of a call, or its error's class, kind and message, so that failures compare too. */
function outcome(fn: () => unknown): unknown {
  try {
    return { ok: fn() };
  } catch (e) {
    const err = e as Error & { codespace?: string; code?: number };
    return { error: err.name, codespace: err.codespace, code: err.code, message: err.message };
  }
}

const corrupt = (message: string) => ({ error: "UpgradeError", codespace: "xupgrade", code: 1, message });

/** The rule of §2.6, written once more: the layout over every record in order, then the names. */
function model(keys: Uint8Array[], values: Uint8Array[]): unknown {
  let layout: DoneLayout | undefined;
  for (let i = 0; i < keys.length; i++) {
    const [key, value] = [keys[i], values[i]];
    if (key.length === 0 || key[0] !== 1)
      return { error: "TypeError", codespace: undefined, code: undefined, message: `key 0x${hex(key)} is outside the range being decoded` };
    const l: DoneLayout | undefined = value.length === 8 ? "seed" : value.length === 1 && value[0] === 1 && key.length >= 10 ? "sdk" : undefined;
    if (!l) {
      return corrupt(
        `done record at key 0x${hex(key)} with a ${value.length}-byte value fits neither layout (seed: an 8-byte height; sdk: the value 01 under a key of at least 10 bytes): corrupt store value`,
      );
    }
    layout ??= l;
    if (l !== layout)
      return corrupt(
        `done records in both layouts: key 0x${hex(key)} is in the ${l} layout, the records before it in the ${layout} layout: corrupt store value`,
      );
  }
  const strict = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });
  const entries = [];
  for (let i = 0; i < keys.length; i++) {
    const at = layout === "sdk" ? 9 : 1;
    let n: string;
    try {
      n = strict.decode(keys[i].subarray(at));
    } catch {
      return corrupt(`key 0x${hex(keys[i])} holds a name that is not valid UTF-8: corrupt store value`);
    }
    const height = new DataView((layout === "sdk" ? keys[i].subarray(1, 9) : values[i]).slice().buffer).getBigInt64(0);
    entries.push({ name: n, height });
  }
  return { ok: { layout, entries } };
}

export function defineDoneLayoutCases(): void {
  let wasm: Core;
  let js: Core;
  beforeAll(async () => {
    wasm = await loadCore("wasm");
    js = await loadCore("js");
  });

  describe("done records in either layout: both cores", () => {
    it("decode random records of one layout to their names and heights, and say which layout", () => {
      const records = fc.oneof(
        fc.record({ layout: fc.constant("seed" as const), list: fc.array(fc.tuple(name(0), fc.bigInt(INT64)), { maxLength: 12 }) }),
        fc.record({ layout: fc.constant("sdk" as const), list: fc.array(fc.tuple(name(1), fc.bigInt(INT64)), { maxLength: 12 }) }),
      );
      fc.assert(
        fc.property(records, ({ layout, list }) => {
          const made = list.map(([n, h]) => (layout === "seed" ? seedRecord : sdkRecord)(utf8.encode(n), h));
          const keys = made.map(([k]) => k);
          const values = made.map(([, v]) => v);
          const expected = { layout: list.length ? layout : undefined, entries: list.map(([n, height]) => ({ name: n, height })) };
          expect(wasm.decodeDoneEntriesAnyLayout(keys, values)).toEqual(expected);
          expect(js.decodeDoneEntriesAnyLayout(keys, values)).toEqual(expected);
          if (layout === "seed") expect(wasm.decodeDoneEntries(keys, values)).toEqual(expected.entries);
        }),
        { numRuns: 400 },
      );
    });

    it("give the same result or the same error on mixes, records of neither layout, bad names and foreign keys", () => {
      const nameBytes = fc.oneof(
        name(1).map((s) => utf8.encode(s)),
        fc.uint8Array({ minLength: 1, maxLength: 6 }), // mostly not UTF-8
      );
      const record = fc.oneof(
        { weight: 4, arbitrary: fc.tuple(nameBytes, fc.bigInt(INT64)).map(([n, h]) => seedRecord(n, h)) },
        { weight: 4, arbitrary: fc.tuple(nameBytes, fc.bigInt(INT64)).map(([n, h]) => sdkRecord(n, h)) },
        // garbage under the prefix: any key, any value (now and then 8 bytes or the byte 01)
        {
          weight: 2,
          arbitrary: fc
            .tuple(
              fc.uint8Array({ maxLength: 14 }),
              fc.oneof(fc.uint8Array({ maxLength: 10 }), fc.constant(Uint8Array.of(1)), fc.uint8Array({ minLength: 8, maxLength: 8 })),
            )
            .map(([k, v]): [Uint8Array, Uint8Array] => [Uint8Array.of(1, ...k), v]),
        },
        // a key outside the range, or empty
        {
          weight: 1,
          arbitrary: fc
            .tuple(fc.uint8Array({ maxLength: 12 }), fc.uint8Array({ maxLength: 9 }))
            .map(([k, v]): [Uint8Array, Uint8Array] => [k.length && k[0] === 1 ? Uint8Array.of(2, ...k) : k, v]),
        },
      );
      const batch = fc.oneof(
        fc.array(record, { maxLength: 8 }),
        // mostly one layout with one odd record somewhere
        fc
          .tuple(fc.constantFrom(seedRecord, sdkRecord), fc.array(fc.tuple(nameBytes, fc.bigInt(INT64)), { minLength: 1, maxLength: 6 }), record, fc.nat())
          .map(([make, list, odd, at]) => {
            const out = list.map(([n, h]) => make(n, h));
            out.splice(at % (out.length + 1), 0, odd);
            return out;
          }),
      );
      fc.assert(
        fc.property(batch, (entries) => {
          const keys = entries.map(([k]) => k);
          const values = entries.map(([, v]) => v);
          const a = outcome(() => wasm.decodeDoneEntriesAnyLayout(keys, values));
          expect(a).toEqual(model(keys, values));
          expect(outcome(() => js.decodeDoneEntriesAnyLayout(keys, values))).toEqual(a);
        }),
        { numRuns: 1500 },
      );
    });
  });
}
