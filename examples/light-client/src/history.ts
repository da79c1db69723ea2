/**
 * What this page has seen of a chain, kept in localStorage per chain (chain id + earliest block hash):
 * module-version snapshots, so that "what changed at the last upgrade" can be shown even by a node that
 * keeps no historic state, and the names of plans seen, so that REST mode can ask for their applied heights.
 */
import type { VersionView } from "./model.js";

interface Snapshot {
  height: string;
  versions: Record<string, string>;
}

interface Seen {
  snapshots: Snapshot[];
  planNames: string[];
}

const MAX_SNAPSHOTS = 16;
const memory = new Map<string, string>();

function load(chainKey: string): Seen {
  const raw = read(`xupgrade-light-client:${chainKey}`);
  try {
    const v = raw ? (JSON.parse(raw) as Seen) : undefined;
    if (v && Array.isArray(v.snapshots) && Array.isArray(v.planNames)) {
      // Keep only well-formed entries: another tab, an old version or a person may have written this.
      const snapshots = v.snapshots.filter(
        (s) =>
          typeof s?.height === "string" &&
          /^[0-9]{1,19}$/.test(s.height) &&
          s.versions !== null &&
          typeof s.versions === "object" &&
          Object.values(s.versions).every((x) => typeof x === "string" && /^[0-9]{1,20}$/.test(x)),
      );
      return { snapshots, planNames: v.planNames.filter((n) => typeof n === "string") };
    }
  } catch {
    /* a damaged entry is forgotten */
  }
  return { snapshots: [], planNames: [] };
}

function save(chainKey: string, seen: Seen): void {
  write(`xupgrade-light-client:${chainKey}`, JSON.stringify(seen));
}

// localStorage can be missing or throw (privacy modes, opaque origins): fall back to memory.
function read(key: string): string | null {
  try {
    return localStorage.getItem(key);
  } catch {
    return memory.get(key) ?? null;
  }
}
function write(key: string, value: string): void {
  try {
    localStorage.setItem(key, value);
  } catch {
    memory.set(key, value);
  }
}

/** Records the versions read at `height` when they differ from the last snapshot. */
export function observeVersions(chainKey: string, height: bigint, versions: VersionView[]): void {
  const seen = load(chainKey);
  const map = Object.fromEntries(versions.map((v) => [v.name, v.version.toString()]));
  const last = seen.snapshots[seen.snapshots.length - 1];
  if (last && JSON.stringify(last.versions) === JSON.stringify(map)) return;
  seen.snapshots.push({ height: height.toString(), versions: map });
  seen.snapshots = seen.snapshots.slice(-MAX_SNAPSHOTS);
  save(chainKey, seen);
}

/**
 * The versions this page saw before the upgrade at `height`: the last snapshot below it (and not below the
 * previous upgrade, `since`). Versions change only at upgrades, so a snapshot equal to `current` filed just
 * below the height (a node answering from the block it was committing) is passed over for an older,
 * different one.
 */
export function versionsBefore(
  chainKey: string,
  height: bigint,
  current: VersionView[] = [],
  since = 0n,
): { height: bigint; versions: VersionView[] } | undefined {
  const now = JSON.stringify(Object.fromEntries(current.map((v) => [v.name, v.version.toString()])));
  const candidates = load(chainKey).snapshots.filter((s) => BigInt(s.height) < height && BigInt(s.height) >= since);
  const snap = candidates.filter((s) => JSON.stringify(s.versions) !== now).pop() ?? candidates.pop();
  if (!snap) return undefined;
  return { height: BigInt(snap.height), versions: Object.entries(snap.versions).map(([name, v]) => ({ name, version: BigInt(v) })) };
}

export function rememberPlanName(chainKey: string, name: string): void {
  const seen = load(chainKey);
  if (seen.planNames.includes(name)) return;
  seen.planNames = [...seen.planNames, name].slice(-64);
  save(chainKey, seen);
}

export function planNames(chainKey: string): string[] {
  return load(chainKey).planNames;
}
