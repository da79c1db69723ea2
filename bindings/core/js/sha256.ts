/**
 * SHA-256 for the TypeScript core: @noble/hashes, audited and held to the NIST vectors by its authors. Twin
 * of assembly/sha256.ts, which the tests hold to the same vectors and to this one.
 */
export { sha256 } from "@noble/hashes/sha2.js";
