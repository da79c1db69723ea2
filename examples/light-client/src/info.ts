/**
 * Plan.info as people read it: the cosmovisor form `{"binaries":{"<os>/<arch>":"<url>?checksum=<algo>:<hex>"}}`
 * listed binary by binary with its checksum, a URL to such a file, or plain text.
 */

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

export function parseInfo(info: string): InfoView {
  const text = info.trim();
  if (text === "") return { kind: "empty" };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    if (/^(https?|file):\/\/\S+$/i.test(text)) return { kind: "url", url: text, checksum: checksumOf(text) };
    return { kind: "text", text: info };
  }
  if (json === null || typeof json !== "object" || Array.isArray(json)) return { kind: "text", text: info, note: "JSON, but not an object" };
  // The `binaries` key is matched case-insensitively, as the SDK's parser does.
  const key = Object.keys(json).find((k) => k.toLowerCase() === "binaries");
  const binaries = key === undefined ? undefined : (json as Record<string, unknown>)[key];
  if (binaries === null || typeof binaries !== "object" || Array.isArray(binaries)) {
    return { kind: "text", text: info, note: 'JSON without a "binaries" object' };
  }
  const list = Object.entries(binaries as Record<string, unknown>).map(([platform, url]) => ({
    platform,
    url: typeof url === "string" ? url : JSON.stringify(url),
    checksum: typeof url === "string" ? checksumOf(url) : undefined,
  }));
  if (list.length === 0) return { kind: "text", text: info, note: 'no "binaries" entries' };
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
