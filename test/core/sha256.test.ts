/**
 * The WebAssembly core's own SHA-256 (assembly/sha256.ts) against @noble/hashes, on random lengths that cross
 * every padding boundary (55, 56, 63, 64 bytes and their multiples) and on random contents. The NIST vectors
 * run on both cores in ics23.ts.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import type { Core } from "../../bindings/core/contract.js";
import { loadCore } from "../../bindings/core/index.js";

describe("SHA-256: the wasm core against @noble/hashes", () => {
  let wasm: Core;
  beforeAll(async () => {
    wasm = await loadCore("wasm");
  });

  it("every length from 0 to 300 bytes", () => {
    for (let n = 0; n <= 300; n++) {
      const data = Uint8Array.from({ length: n }, (_, i) => (i * 31 + n) & 0xff);
      expect(wasm.sha256(data), `${n} bytes`).toEqual(sha256(data));
    }
  });

  it("random contents and lengths", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 5000 }), (data) => {
        expect(wasm.sha256(data)).toEqual(sha256(data));
      }),
      { numRuns: 500 },
    );
  });
});
