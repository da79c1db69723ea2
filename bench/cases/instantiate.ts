/**
 * Case 7: instantiation. A cold start is measured once per fresh process (V8 caches compiled modules
 * within a process, so a second compile of the same bytes is not cold); module import time is excluded
 * (the bench runs TypeScript through tsx, a published build would not). The per-keeper cost — a new
 * instance of the already compiled module — is a normal in-process task.
 */
import { readFile, stat } from "node:fs/promises";
import { gzipSync } from "node:zlib";
import type { Backend } from "../../bindings/core/contract.js";
import { loadCore } from "../../bindings/core/index.js";
import { WASM_BASE64 } from "../../bindings/core/wasm/bytes.generated.js";
import { createWasmCore, wasmBytes } from "../../bindings/core/wasm/index.js";
import { MemoryStore } from "../../bindings/store/memory.js";
import { BACKENDS } from "../fixtures.js";
import { type BenchTask, nowNs, timed } from "../harness.js";

export const WASM_FILE = new URL("../../build/release.wasm", import.meta.url);

export interface ColdStart {
  mode: "file" | "inline";
  /** readFile, or base64 → bytes. */
  bytesMs: number;
  compileMs: number;
  /** createWasmCore: instance, imports, views. */
  instantiateMs: number;
  /** The first call into the new instance (encodePlan). */
  firstCallMs: number;
  totalMs: number;
}

/** Runs in a fresh process: bytes → compiled module → core → first call. */
export async function coldStart(mode: "file" | "inline"): Promise<ColdStart> {
  const ms = () => nowNs() / 1e6;
  const t0 = ms();
  const bytes = mode === "file" ? new Uint8Array(await readFile(WASM_FILE)) : wasmBytes();
  const t1 = ms();
  const module = await WebAssembly.compile(bytes as Uint8Array<ArrayBuffer>);
  const t2 = ms();
  const core = createWasmCore(module);
  const t3 = ms();
  core.encodePlan({ name: "v2", height: 1n, info: "" });
  const t4 = ms();
  return { mode, bytesMs: t1 - t0, compileMs: t2 - t1, instantiateMs: t3 - t2, firstCallMs: t4 - t3, totalMs: t4 - t0 };
}

export async function wasmSizes(): Promise<{ wasmBytes: number; gzipBytes: number; base64Chars: number }> {
  const bytes = await readFile(WASM_FILE);
  return { wasmBytes: (await stat(WASM_FILE)).size, gzipBytes: gzipSync(bytes, { level: 9 }).length, base64Chars: WASM_BASE64.length };
}

/** What each new keeper pays: a session (for wasm, a new instance of the compiled module). */
export async function newSession(backends: readonly Backend[] = BACKENDS): Promise<BenchTask[][]> {
  const tasks: BenchTask[] = [];
  for (const backend of backends) {
    const core = await loadCore(backend);
    tasks.push({
      case: 7,
      id: "new keeper session (wasm: instance of the compiled module)",
      impl: backend,
      ops: 20,
      sample: timed(20, () => core.session(new MemoryStore(), [])),
    });
  }
  return [tasks];
}
