/**
 * Where a plan name meets a path (docs/spec/sidecar.md §2): recase (Go's strings.ToLower, per character) unless
 * COSMOVISOR_DISABLE_RECASE, then Go's url.PathEscape; empty, `.` and `..` are refused. And the Go
 * `<os>/<arch>` key of this platform (docs/spec/sidecar.md §7.1).
 */
import { pathEscape } from "../../go/url.js";

/** Go's strings.ToLower: the simple per-character mapping (no context, one character in, one out). */
export function recase(name: string): string {
  let out = "";
  for (const ch of name) {
    const lower = ch.toLowerCase();
    out += [...lower].length === 1 ? lower : ([...lower][0] ?? ch); // İ → i, as unicode.ToLower
  }
  return out;
}

export class InvalidUpgradeName extends Error {}

/** The directory name under `upgrades/` for a plan name. */
export function upgradeDirName(name: string, disableRecase: boolean): string {
  if (name === "" || name === "." || name === "..") throw new InvalidUpgradeName(`invalid upgrade name ${JSON.stringify(name)}`);
  return pathEscape(disableRecase ? name : recase(name));
}

/** Case-insensitive name comparison (the trigger rule of docs/spec/sidecar.md §5.2). */
export const sameName = (a: string, b: string): boolean => recase(a) === recase(b);

const GOOS: Record<string, string> = { linux: "linux", darwin: "darwin", win32: "windows", freebsd: "freebsd", openbsd: "openbsd" };
const GOARCH: Record<string, string> = { x64: "amd64", arm64: "arm64", ia32: "386", arm: "arm", ppc64: "ppc64le", s390x: "s390x", riscv64: "riscv64" };

/** This platform's key in Plan.Info `binaries`, in Go's names (`linux/amd64`). */
export function osArch(platform: string = process.platform, arch: string = process.arch): string {
  return `${GOOS[platform] ?? platform}/${GOARCH[arch] ?? arch}`;
}
