/**
 * The numbers both sides of the boundary share are written once, in assembly/, and generated into
 * bindings/core/constants.generated.ts by scripts/constants.mjs (docs/spec/core.md §10). This suite fails
 * when that file and the compiled core disagree: build/release.wasm and the bytes the bindings actually
 * run (inlined in bytes.generated.ts) export constantTable(), the value of every constant as the compiler
 * resolved it, and each is compared with the generated file, name by name.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import * as generated from "../../bindings/core/constants.generated.js";
import { CONSTANT_TABLE } from "../../bindings/core/constants.generated.js";
import { wasmBytes } from "../../bindings/core/wasm/index.js";

const ROOT = new URL("../../", import.meta.url);

/** The core's constantTable(): [count, value…] as i32. */
async function tableOf(bytes: Uint8Array): Promise<number[]> {
  const refuse = () => {
    throw new Error("the core called its host while its constants were read");
  };
  const { instance } = await WebAssembly.instantiate(bytes as Uint8Array<ArrayBuffer>, {
    host: { kvGet: refuse, kvGetPlan: refuse, kvSet: refuse, kvDelete: refuse, kvScan: refuse, kvScanDone: refuse },
    env: { abort: refuse },
  });
  const x = instance.exports as { memory: WebAssembly.Memory; constantTable(): number };
  const ptr = x.constantTable();
  const count = new Int32Array(x.memory.buffer, ptr, 1)[0];
  return Array.from(new Int32Array(x.memory.buffer, ptr + 4, count));
}

/** The names in the table of assembly/constants.generated.ts, in order. */
function assemblyTableNames(): string[] {
  const source = readFileSync(new URL("assembly/constants.generated.ts", ROOT), "utf8");
  const body = /memory\.data<i32>\(\[([\s\S]*?)\]\)/.exec(source);
  if (!body) throw new Error("assembly/constants.generated.ts has no table");
  return body[1]
    .split(",")
    .map((s) => s.trim())
    .filter((s) => s !== "")
    .slice(1); // the count
}

describe("constants generated from assembly/", () => {
  it("name the same constants, in the same order, as the core's table", () => {
    const names = CONSTANT_TABLE.map(([name]) => name);
    expect(names.length).toBeGreaterThan(50);
    expect(new Set(names).size).toBe(names.length);
    expect(names).toEqual(assemblyTableNames());
  });

  for (const [what, bytes] of [
    ["build/release.wasm", () => new Uint8Array(readFileSync(new URL("build/release.wasm", ROOT)))],
    ["the inlined core (bytes.generated.ts)", wasmBytes],
  ] as const) {
    it(`agree value by value with ${what}`, async () => {
      const values = await tableOf(bytes());
      expect(values.length).toBe(CONSTANT_TABLE.length);
      const mismatches = CONSTANT_TABLE.flatMap(([name, value], i) => (values[i] === value ? [] : [`${name}: generated ${value}, ${what} ${values[i]}`]));
      expect(mismatches).toEqual([]);
    });
  }

  it("cover everything the generated file exports", () => {
    let exported = 0;
    for (const [name, value] of Object.entries(generated)) {
      if (typeof value === "number") {
        expect(new Map(CONSTANT_TABLE).get(name), name).toBe(value);
        exported++;
      } else if (name !== "CONSTANT_TABLE") exported += Object.keys(value).length;
    }
    expect(exported).toBe(CONSTANT_TABLE.length);
  });

  it("are the only copy: no hand-kept table of them is left in bindings/core", () => {
    const files = ["status.ts", "coin.ts", "wasm/layout.ts", "wasm/instance.ts", "wasm/keeper.ts", "js/keys.ts"];
    for (const file of files) {
      const text = readFileSync(new URL(`bindings/core/${file}`, ROOT), "utf8");
      expect(text, file).not.toMatch(/\b(?:Ok|TruncatedVarint|BadDenom): \d/);
      expect(text, file).not.toMatch(/\bconst (?:H_[A-Z_]+|UNCHANGED|[A-Z_]+_PREFIX) = -?\d/);
    }
  });
});
