/**
 * Plan.info as people read it: the cosmovisor form `{"binaries":{"<os>/<arch>":"<url>?checksum=<algo>:<hex>"}}`
 * listed binary by binary with its checksum, a URL to such a file, or plain text.
 */
import { PlanInfoError, parseInfoDocument } from "xupgrade";

export interface Binary {
  platform: string;
  url: string;
  /** `sha256:…` as written in the URL, or undefined when the URL carries none. */
  checksum: string | undefined;
}

export type InfoView =
  | { kind: "empty" }
  | { kind: "binaries"; binaries: Binary[] }
  | { kind: "url"; url: string; checksum: string | undefined }
  | { kind: "text"; text: string; note?: string };

/** Reads Plan.info with the package's own parser (Go's rules: the last `binaries` key wins, Go's type checks). */
export function parseInfo(info: string): InfoView {
  const text = info.trim();
  if (text === "") return { kind: "empty" };
  let doc: { binaries: Map<string, string>; hasBinaries: boolean };
  try {
    doc = parseInfoDocument(text);
  } catch (e) {
    if (!(e instanceof PlanInfoError)) throw e;
    if (/into Go value of type plan\.Info$/.test(e.message)) return { kind: "text", text: info, note: "JSON, but not an object" };
    if (/Go struct field Info\.binaries of type plan\.BinaryDownloadURLMap$/.test(e.message))
      return { kind: "text", text: info, note: 'JSON without a "binaries" object' };
    if (/Go struct field Info\.binaries of type string$/.test(e.message)) return { kind: "text", text: info, note: 'a "binaries" entry is not a URL string' };
    if (/^(https?|file):\/\/\S+$/i.test(text)) return { kind: "url", url: text, checksum: checksumOf(text) };
    return { kind: "text", text: info };
  }
  if (!doc.hasBinaries) return { kind: "text", text: info, note: 'JSON without a "binaries" object' };
  if (doc.binaries.size === 0) return { kind: "text", text: info, note: 'no "binaries" entries' };
  const list = [...doc.binaries].map(([platform, url]) => ({ platform, url, checksum: checksumOf(url) }));
  list.sort((a, b) => (a.platform < b.platform ? -1 : a.platform > b.platform ? 1 : 0));
  return { kind: "binaries", binaries: list };
}

/** The `checksum` query parameter of a URL (go-getter style), undefined when there is none. */
export function checksumOf(url: string): string | undefined {
  const m = /[?&]checksum=([^&#]*)/.exec(url);
  if (!m || m[1] === "") return undefined;
  try {
    return decodeURIComponent(m[1]);
  } catch {
    return m[1];
  }
}
