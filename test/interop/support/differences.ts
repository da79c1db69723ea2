/**
 * Every difference between xupgrade and the real Cosmos SDK that the comparisons accept, with its reason.
 * docs/spec/interop.md lists the same keys in its tables (test/interop/differences.test.ts holds the two
 * together). A record pair that differs in an aspect no entry covers fails its test.
 *
 * - `deliberate`: kept on purpose; the reason says why.
 * - `bug`: ours should change; the test of that pair is an `it.fails` that asserts identity, so it starts
 *   failing (and the entry must go) once the fix lands. `fix` says where.
 */
import { comparable, type AnyRecord, type Pair } from "./compare.js";
import type { LineKey } from "./lines.js";

export type Area = "rest" | "grpc" | "cli-v047" | "cli-v050" | "cli-v053" | "cli-v054" | "upgrade-info" | "tx" | "light-client" | "visor" | "cosmovisor";

export interface Difference {
  key: string;
  /** The comparison (or comparisons: the same difference of autocli on several lines) it is found in. */
  area: Area | Area[];
  kind: "deliberate" | "bug";
  /** The record ids it covers (REST/gRPC ids of ./wire.ts, CLI `query upgrade` arguments with the known name as `<known>`). */
  ids: string[];
  /** The aspects that differ: REST `status`, `body`, `header:<name>`; gRPC `code`, `details`, `response`, `height_header`; CLI `code`, `stdout`, `stderr`; `*` for all. */
  aspects: string[];
  /** simd's side and ours, in short. */
  what: string;
  reason: string;
  /** For bugs: the change that removes the difference. */
  fix?: string;
  /** The SDK lines (./lines.ts) it occurs on; every line compared in its area when absent. */
  lines?: LineKey[];
  /**
   * It occurs or not by the build of the peer, not by its version (see REST-8): the check that every entry still
   * occurs skips it.
   */
  unstable?: boolean;
}

/** Whether an entry belongs to a comparison area. */
export const inArea = (d: Difference, area: Area): boolean => (Array.isArray(d.area) ? d.area.includes(area) : d.area === area);

/** Whether an entry is about a line (entries without `lines` are about every line). */
export const onLine = (d: Difference, line: LineKey | undefined): boolean => !d.lines || line === undefined || d.lines.includes(line);

/** The autocli comparisons of every line: simd v0.50's, appd v0.53's and appd v0.54's own `query upgrade`. */
const AUTOCLI: Area[] = ["cli-v050", "cli-v053", "cli-v054"];

/** REST requests whose answer is an error Status (a JSON body written by the gateway's error handler). */
const REST_ERRORS = [
  "module_versions?unknown",
  "upgraded_consensus_state/abc",
  "route/unknown",
  "route/trailing-slash",
  "route/outside",
  "height/future",
  "height/not-a-number",
];

const ALL_REST_OK = [
  "current_plan",
  "current_plan?query",
  "applied_plan/known",
  "applied_plan/unknown",
  "applied_plan/known-uppercased",
  "applied_plan/space",
  "applied_plan/nul",
  "applied_plan/euro",
  "applied_plan/long-300",
  "module_versions",
  "module_versions?bank",
  "module_versions?upgrade",
  "module_versions?runtime",
  "module_versions?unknown",
  "module_versions?empty",
  "authority",
  "upgraded_consensus_state/5",
  "applied_plan/empty",
];

export const DIFFERENCES: Difference[] = [
  // ---- REST gateway (docs/spec/interfaces.md §3) ----
  {
    key: "REST-1",
    area: "rest",
    kind: "deliberate",
    ids: ALL_REST_OK,
    aspects: ["header:x-cosmos-block-height"],
    what: "simd sends the served height only as `Grpc-Metadata-X-Cosmos-Block-Height`; xupgrade sends it also as `x-cosmos-block-height`",
    reason: "the plain header is the one gRPC clients and the CORS `Access-Control-Expose-Headers` name; an extra response header changes no client",
  },
  {
    key: "REST-2",
    area: "rest",
    kind: "deliberate",
    ids: ["applied_plan/dot", "applied_plan/dotdot", "applied_plan/dotdot-escaped", "applied_plan/slash-escaped", "route/double-slash"],
    aspects: ["*"],
    what: 'simd\'s router cleans the path and answers `301` to it (`…/applied_plan/..` → `Location: /cosmos/upgrade/v1beta1`); xupgrade answers `.`, `..`, `%2e%2e`, `%2F` as names (`{"height":"0"}`) and `//cosmos/…` with 501',
    reason: "Decision B: `{name}` is one raw segment and the path is never normalised, so a name is never turned into another route",
  },
  {
    key: "REST-4",
    area: "rest",
    kind: "deliberate",
    ids: ["applied_plan/two-segments"],
    aspects: ["status", "body"],
    what: '`…/applied_plan/a/b`: simd 501 Not Implemented; xupgrade 400 `invalid path parameter "name": it must be one path segment, …`',
    reason: "(project) docs/spec/interfaces.md §3: a request that names the route but carries an unusable name is a bad request, said in words",
  },
  {
    key: "REST-5",
    area: "rest",
    kind: "deliberate",
    ids: ["applied_plan/bad-escape"],
    aspects: ["header:content-type", "body"],
    what: '`…/applied_plan/%zz`: simd\'s Go HTTP server refuses the request line, 400 `text/plain` `400 Bad Request`; xupgrade 400 with a JSON Status `invalid URL escape "%zz"`',
    reason: "(project) every error of the gateway is a `google.rpc.Status` in JSON (docs/spec/interfaces.md §3)",
  },
  {
    key: "REST-6",
    area: "rest",
    kind: "deliberate",
    ids: ["applied_plan/not-utf8"],
    aspects: ["*"],
    what: '`…/applied_plan/%ff`: simd 200 `{"height":"0"}` (gogoproto does not check UTF-8); xupgrade 400 `not valid UTF-8 after percent-decoding`',
    reason: "(project) names are Unicode strings in the keeper and in both cores; bytes that are not UTF-8 cannot name an upgrade",
  },
  {
    key: "REST-7",
    area: "rest",
    kind: "deliberate",
    ids: ["method/POST", "method/DELETE"],
    aspects: ["status", "header:allow", "body"],
    what: 'a known path with POST or DELETE: simd 501 `{"code":12,"message":"Not Implemented","details":[]}`; xupgrade 405, `Allow: GET, OPTIONS`, `{"code":12,"message":"Method Not Allowed","details":[]}`',
    reason: "(project) HTTP semantics; note that simd's body says `Not Implemented`, not `Method Not Allowed` as docs/spec/interfaces.md §3 supposed",
  },

  {
    key: "REST-8",
    area: "rest",
    kind: "deliberate",
    ids: REST_ERRORS,
    aspects: ["body"],
    unstable: true,
    what: 'an error Status from some builds\' gateway has a space after each comma (`{"code":12, "message":"Not Implemented", "details":[]}`: appd v0.50 and v0.53 as built here); xupgrade\'s (and simd v0.50\'s) has none',
    reason:
      "the space is google.golang.org/protobuf's deliberate output instability (internal/detrand: protojson adds it or not by a hash of the running binary's bytes), not the SDK's format: any build of any line may print either, so this entry is not required to occur; xupgrade keeps the compact form",
  },

  // ---- gRPC (docs/spec/interfaces.md §2) ----
  {
    key: "GRPC-1",
    area: "grpc",
    kind: "deliberate",
    ids: ["AppliedPlan/not-utf8"],
    aspects: ["*"],
    what: "AppliedPlan with a name that is not UTF-8 (`0a01ff`): simd OK, empty response; xupgrade 13 INTERNAL `grpc: error unmarshalling request: proto: field Name contains invalid UTF-8`",
    reason: "as REST-6: a proto3 string must be UTF-8 (protobuf-go refuses it the same way); gogoproto, which simd v0.50 decodes with, does not check",
  },
  {
    key: "GRPC-3",
    area: "grpc",
    kind: "deliberate",
    ids: ["method/unknown", "service/unknown"],
    aspects: ["details"],
    what: "an unknown method or service: both 12 UNIMPLEMENTED; grpc-go says `unknown method Nope for service cosmos.upgrade.v1beta1.Query` / `unknown service cosmos.upgrade.v1beta1.Nope`, @grpc/grpc-js `The server does not implement the method /cosmos.upgrade.v1beta1.Query/Nope`",
    reason: "the text is the gRPC library's own and clients check only the code (docs/spec/interfaces.md §2)",
  },

  // ---- CLI against the same simd node: simd v0.47's legacy commands (the form the seed's CLI follows) ----
  {
    key: "CLI-1",
    area: "cli-v047",
    kind: "deliberate",
    ids: [
      "plan -o json",
      "plan -o text",
      "applied <known> -o json",
      "applied <known> -o text",
      "applied never-applied -o json",
      "applied never-applied -o text",
      "module_versions foo -o json",
      "module_versions foo -o text",
    ],
    aspects: ["stderr"],
    what: "a failing query: v0.47 prints `Error: <message>` and then the command's whole usage text; xupgrade prints the one `Error: <message>` line",
    reason: "docs/spec/interfaces.md §7: every failure is one `Error: …` line on stderr, exit code 1 (the same code as v0.47)",
  },

  // ---- CLI against the same node: the node's own autocli (simd v0.50: client/v2 beta.8; appd v0.53: beta.11;
  // appd v0.54: v2.11.0), which prints the same bytes on all three lines (docs/spec/interop.md §5) ----
  {
    key: "CLI-3",
    area: AUTOCLI,
    kind: "deliberate",
    ids: ["plan -o json", "module_versions -o json", "module_versions bank -o json", "authority -o json"],
    aspects: ["stdout"],
    what: 'JSON output: v0.50 (autocli) indents by two spaces, wraps the plan as `{"plan":{…}}` and leaves out empty fields (`info`, `upgraded_client_state`); xupgrade prints one compact line, the plan itself with every field',
    reason: "docs/spec/interfaces.md §7.1 keeps the seed's (and v0.47's) output, which xupgrade matches byte for byte (the cli-v047 comparison)",
  },
  {
    key: "CLI-4",
    area: AUTOCLI,
    kind: "deliberate",
    ids: ["plan -o json", "plan -o text"],
    aspects: ["code", "stdout", "stderr"],
    what: "no plan: v0.50 prints `{}` and exits 0; xupgrade `Error: no upgrade scheduled`, exit 1",
    reason: "docs/spec/interfaces.md §7.1 (the seed's and v0.47's behaviour): scripts can test the exit code",
  },
  {
    key: "CLI-5",
    area: AUTOCLI,
    kind: "deliberate",
    ids: ["applied <known> -o json", "applied <known> -o text", "applied never-applied -o json", "applied never-applied -o text"],
    aspects: ["code", "stdout", "stderr"],
    what: '`applied <name>`: v0.50 prints the AppliedPlan answer (`{"height":"40"}`, `height: "40"`; `{}` exit 0 when not applied); xupgrade prints the block record of that height (always JSON), or `Error: no upgrade found`, exit 1',
    reason: "docs/spec/interfaces.md §6–§7.1: the seed's `applied` shows the block header, as v0.47 does (identical bytes on the same node)",
  },
  {
    key: "CLI-6",
    area: AUTOCLI,
    kind: "deliberate",
    ids: ["plan -o text"],
    aspects: ["stdout"],
    what: "`plan -o text`: v0.50 `plan:` then the fields indented, info single-quoted, no `upgraded_client_state`; xupgrade the fields at the top level with `upgraded_client_state: null`",
    reason: "the seed's (v0.47's) text form (its single-quoted `info` matches v0.47's and v0.50's)",
  },
  {
    key: "CLI-7",
    area: AUTOCLI,
    kind: "deliberate",
    ids: ["module_versions -o text"],
    aspects: ["stdout"],
    what: '`module_versions -o text`: v0.50 leaves out a zero version (`- name: runtime`); xupgrade writes `version: "0"`',
    reason:
      "xupgrade's text is the YAML of its JSON, which emits defaults like the REST gateway (docs/spec/interfaces.md §7); v0.47 prints the same as xupgrade",
  },
  {
    key: "CLI-8",
    area: AUTOCLI,
    kind: "deliberate",
    ids: ["module_versions foo -o json", "module_versions foo -o text"],
    aspects: ["stderr"],
    what: "an unknown module: v0.50 prints `rpc error: code = Unknown desc = …` without a prefix; xupgrade `Error: rpc error: code = Unknown desc = …`",
    reason: "docs/spec/interfaces.md §7: every failure is one `Error: …` line (v0.47 prints the same first line)",
  },

  // ---- transactions on a real chain of each line (tx.interop.ts) ----
  {
    key: "TX-1",
    area: "tx",
    kind: "deliberate",
    ids: ["generate-only"],
    aspects: ["stdout"],
    lines: ["app-v053", "app-v054"],
    what: '`tx upgrade software-upgrade --generate-only`: the node\'s TxBody JSON has `"unordered":false,"timeout_timestamp":null` after `timeout_height` (fields 4 and 5, new in SDK v0.53); xupgrade prints the v0.50 body without them, otherwise byte for byte the same',
    reason:
      "both are defaults (an ordered tx, no timeout time), so the bodies mean the same and encode to the same bytes; a v0.53 and a v0.54 node's own `tx sign` signs xupgrade's file (tested), while a v0.50 node refuses the v0.53 file (`unknown field \"unordered\" in tx.TxBody: tx parse error`, seen with simd v0.50.15 and appd v0.50.15): the v0.50 shape is the one every line reads",
  },

  // ---- supervisors: the same simd v0.47 → v0.50 upgrade under each (docs/spec/sidecar.md; checked in visor-upgrade.interop.ts) ----
  {
    key: "VISOR-1",
    area: "visor",
    kind: "deliberate",
    ids: [],
    aspects: [],
    what: "`cosmovisor/current` after the switch: the visor's link is relative (`upgrades/v047-to-v050`), cosmovisor's absolute (`$DAEMON_HOME/cosmovisor/upgrades/v047-to-v050`)",
    reason: "docs/spec/sidecar.md: a relative link survives moving or mounting DAEMON_HOME elsewhere; the switch is a link renamed over `current` (atomic)",
  },
  {
    key: "VISOR-2",
    area: "visor",
    kind: "deliberate",
    ids: [],
    aspects: [],
    what: "the download: the visor fetches the tarball once; cosmovisor v1.5.0 (go-getter) fetched the same 53 MiB tarball 4 times, each GET after a HEAD",
    reason: "the visor downloads once into `.tmp/`, verifies the checksum, then unpacks (D6, docs/spec/sidecar.md §7)",
  },
  {
    key: "VISOR-3",
    area: "visor",
    kind: "deliberate",
    ids: [],
    aspects: [],
    what: 'SIGTERM after an upgrade: cosmovisor v1.5.0\'s stale handler of the first node fails (`ERR terminated error="os: process already finished"`) and it exits 1 at once, while simd v0.50 is still stopping — or, when that handler wins the race, is never signalled and keeps running (seen here); the visor forwards the signal once, waits for simd and exits with its status (0)',
    reason: "D6 #4 (one signal handler for the current child) and the exit status passed through",
  },
  {
    key: "VISOR-4",
    area: "visor",
    kind: "deliberate",
    ids: [],
    aspects: [],
    what: "the order of the steps: cosmovisor backs up data/ and then downloads; the visor downloads, verifies and unpacks first, then backs up",
    reason: "docs/spec/sidecar.md §6 (project): a download that keeps failing never copies the chain data",
  },

  // ---- the light-client page against simd (light-client.interop.ts) ----
];

export const byKey = new Map(DIFFERENCES.map((d) => [d.key, d]));

/** The aspects in which two records differ. */
export function differingAspects(a: AnyRecord, b: AnyRecord): string[] {
  const x = comparable(a);
  const y = comparable(b);
  const out: string[] = [];
  for (const k of new Set([...Object.keys(x), ...Object.keys(y)])) {
    if (k === "headers") {
      const hx = (x.headers ?? {}) as Record<string, string>;
      const hy = (y.headers ?? {}) as Record<string, string>;
      for (const h of new Set([...Object.keys(hx), ...Object.keys(hy)])) if (hx[h] !== hy[h]) out.push(`header:${h}`);
    } else if (JSON.stringify(x[k]) !== JSON.stringify(y[k])) out.push(k);
  }
  return out.sort();
}

export interface Verdict {
  id: string;
  aspects: string[];
  /** Entries covering some aspect. */
  covered: Difference[];
  /** Aspects no entry covers. */
  uncovered: string[];
  /** True when a bug entry covers a difference of this pair. */
  bug: boolean;
}

/** Judges one pair of records of an area (on a line): which differences are listed, which are not. */
export function judge(area: Area, pair: Pair<AnyRecord>, line?: LineKey): Verdict {
  const aspects = differingAspects(pair.simd, pair.ours);
  const entries = DIFFERENCES.filter((d) => inArea(d, area) && onLine(d, line) && d.ids.includes(pair.id));
  const covered = entries.filter((d) => d.aspects.includes("*") || aspects.some((a) => d.aspects.includes(a)));
  const uncovered = aspects.filter((a) => !covered.some((d) => d.aspects.includes("*") || d.aspects.includes(a)));
  return { id: pair.id, aspects, covered, uncovered, bug: covered.some((d) => d.kind === "bug") };
}
