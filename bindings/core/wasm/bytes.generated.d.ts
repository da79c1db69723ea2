/**
 * The declaration of bytes.generated.ts, which scripts/embed-wasm.mjs writes on every `npm run build:wasm`
 * and git ignores: with this file a fresh clone typechecks before its first build (docs/spec/core.md §10).
 */
export declare const WASM_BASE64: string;
