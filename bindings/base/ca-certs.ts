/**
 * NODE_EXTRA_CA_CERTS when the bin's launcher kept it out of Node's start-up (bin.ts): the certificates an
 * https request must then trust itself, the same ones Node would have — its bundled root store and every
 * certificate of the file. The bin leaves the file's path under DEFERRED_CA_CERTS on the global object, where
 * the query bundle and the `--verify` bundle (each with its own copy of this module) both find it.
 */
import { readFileSync } from "node:fs";

export const DEFERRED_CA_CERTS = Symbol.for("xupgrade.cli.deferredExtraCaCerts");

let loaded: { ca?: string[] } | undefined;

/** The TLS options of an https request: `{ ca }` when the file was deferred, else nothing (Node's own store). */
export function extraCaCerts(): { ca?: string[] } {
  if (loaded) return loaded;
  const file = (globalThis as Record<symbol, unknown>)[DEFERRED_CA_CERTS];
  if (typeof file !== "string" || file === "") return (loaded = {});
  let certs: string[];
  try {
    certs = pemCertificates(readFileSync(file, "latin1"));
    if (certs.length === 0) throw new Error("no certificate in the file");
  } catch (e) {
    // Node's own words when it cannot load the file at start-up; it then goes on with its root store alone.
    process.stderr.write(`Warning: Ignoring extra certs from \`${file}\`, load failed: ${(e as Error).message}\n`);
    return (loaded = {});
  }
  const tls = process.getBuiltinModule("node:tls");
  return (loaded = { ca: [...tls.rootCertificates, ...certs] });
}

/** The PEM certificates of a file, each checked by parsing it (a block that does not parse fails the file). */
function pemCertificates(text: string): string[] {
  const { X509Certificate } = process.getBuiltinModule("node:crypto");
  const blocks = text.match(/-----BEGIN CERTIFICATE-----[^-]+-----END CERTIFICATE-----/g) ?? [];
  for (const b of blocks) new X509Certificate(b);
  return blocks;
}
