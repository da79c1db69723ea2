/** Static checks of plan-info URLs and platform keys (docs/spec/interfaces.md §9 step 5), all problems reported. */
import { goQuote } from "../../go/quote.js";
import { GoUrlError, parseGoUrl, queryGet } from "../../go/url.js";
import { compareBytes } from "../../base/bytes.js";

export type ChecksumAlgo = "sha256" | "sha512" | "sha1" | "md5";

export interface Checksum {
  algo: ChecksumAlgo;
  /** lower-case hex */
  hex: string;
}

export interface CheckedUrl {
  raw: string;
  scheme: "http" | "https" | "file";
  checksum: Checksum | undefined;
}

const HEX_LENGTH: Record<ChecksumAlgo, number> = { sha256: 64, sha512: 128, sha1: 40, md5: 32 };
const KEY = /^[a-zA-Z0-9]+\/[a-zA-Z0-9]+$/;

export function parseChecksum(value: string): Checksum | undefined {
  const m = /^(sha256|sha512|sha1|md5):([0-9a-fA-F]+)$/.exec(value);
  if (!m) return undefined;
  const algo = m[1] as ChecksumAlgo;
  if (m[2].length !== HEX_LENGTH[algo]) return undefined;
  return { algo, hex: m[2].toLowerCase() };
}

/**
 * The checksum forms a URL may carry: `prefixed`, `<algo>:<hex>` only (the CLI's validation, docs/spec/interfaces.md
 * §9, D4), or `sidecar`, which also takes bare hex of a digest's length and refuses the `file:` form with its own
 * message (docs/spec/sidecar.md §7.3).
 */
export type ChecksumForms = "prefixed" | "sidecar";

const BY_LENGTH: Record<number, ChecksumAlgo> = { 32: "md5", 40: "sha1", 64: "sha256", 128: "sha512" };

/** A `checksum=` value in the given forms, or why it is refused. */
export function checksumOf(value: string, forms: ChecksumForms = "prefixed"): Checksum | { problem: string } {
  if (forms === "sidecar" && value.toLowerCase().startsWith("file:")) return { problem: `unsupported checksum form ${goQuote(value)}` };
  const prefixed = parseChecksum(value);
  if (prefixed) return prefixed;
  if (forms === "sidecar" && /^[0-9a-fA-F]+$/.test(value) && BY_LENGTH[value.length]) return { algo: BY_LENGTH[value.length], hex: value.toLowerCase() };
  return { problem: `invalid checksum ${goQuote(value)}` };
}

/**
 * One URL: the checked form, or the reason it is refused (the text after `invalid url "<url>"…: `). The URL check
 * of the CLI's validation and of the sidecar alike; `forms` is the one difference (see ChecksumForms).
 */
export function checkUrl(raw: string, enforceChecksum: boolean, forms: ChecksumForms = "prefixed"): CheckedUrl | { problem: string } {
  let parsed;
  try {
    parsed = parseGoUrl(raw);
  } catch (e) {
    if (e instanceof GoUrlError) return { problem: e.message };
    throw e;
  }
  let scheme = parsed.scheme;
  if (scheme === "" && raw.startsWith("/")) scheme = "file"; // a bare absolute path
  if (scheme !== "http" && scheme !== "https" && scheme !== "file") return { problem: `unsupported URL scheme ${goQuote(scheme)}` };
  const value = queryGet(parsed.rawQuery, "checksum");
  if (value === "") {
    if (enforceChecksum) return { problem: "missing checksum query parameter" };
    return { raw, scheme, checksum: undefined };
  }
  const checksum = checksumOf(value, forms);
  if ("problem" in checksum) return checksum;
  return { raw, scheme, checksum };
}

export function validPlatformKey(key: string): boolean {
  return key === "any" || KEY.test(key);
}

/** Byte order of UTF-8, as Go sorts strings. */
export function compareUtf8(a: string, b: string): number {
  const utf8 = new TextEncoder();
  return compareBytes(utf8.encode(a), utf8.encode(b));
}

/** Step 5: every entry, keys ascending; returns the checked URLs and all problems, one line each. */
export function checkBinaries(binaries: Map<string, string>, enforceChecksum: boolean): { urls: Map<string, CheckedUrl>; problems: string[] } {
  const urls = new Map<string, CheckedUrl>();
  const problems: string[] = [];
  for (const key of [...binaries.keys()].sort(compareUtf8)) {
    const url = binaries.get(key)!;
    if (!validPlatformKey(key)) problems.push(`invalid os/arch format in key ${goQuote(key)}`);
    const checked = checkUrl(url, enforceChecksum);
    if ("problem" in checked) problems.push(`invalid url ${goQuote(url)} in binaries[${key}]: ${checked.problem}`);
    else urls.set(key, checked);
  }
  return { urls, problems };
}
