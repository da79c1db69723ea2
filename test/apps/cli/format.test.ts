/** The CLI's text rules, in process: YAML text output and compact Go-style JSON. */
import { describe, expect, it } from "vitest";
import { toIndentedJson, toJson } from "../../../bindings/apps/cli/output.js";
import { needsQuotes, toYaml } from "../../../bindings/apps/cli/yaml.js";
import { formatReadiness } from "../../../bindings/apps/cli/query/readiness.js";
import type { ReadinessAttestation, ReadinessTally, ValidatorReadiness } from "../../../bindings/module/readiness/index.js";

describe("text output (YAML, keys sorted)", () => {
  it("renders the plan exactly as docs/spec/interfaces.md §7.1", () => {
    const plan = { name: "test-upgrade", time: "0001-01-01T00:00:00Z", height: "130", info: "", upgraded_client_state: null };
    expect(toYaml(plan)).toBe('height: "130"\ninfo: ""\nname: test-upgrade\ntime: "0001-01-01T00:00:00Z"\nupgraded_client_state: null\n');
    expect(toJson(plan) + "\n").toBe('{"name":"test-upgrade","time":"0001-01-01T00:00:00Z","height":"130","info":"","upgraded_client_state":null}\n');
  });

  it("renders module versions and tx results as docs/spec/interfaces.md §7.1/§7.2", () => {
    expect(
      toYaml({
        module_versions: [
          { name: "auth", version: "5" },
          { name: "bank", version: "2" },
        ],
      }),
    ).toBe('module_versions:\n- name: auth\n  version: "5"\n- name: bank\n  version: "2"\n');
    expect(toYaml({ txhash: "6D45", code: 0, height: "123", proposal_id: "7" })).toBe('code: 0\nheight: "123"\nproposal_id: "7"\ntxhash: 6D45\n');
  });

  it("quotes strings that would read back as something else, and only those", () => {
    const quoted = [
      "",
      "true",
      "False",
      "yes",
      "NO",
      "on",
      "Off",
      "y",
      "N",
      "null",
      "~",
      "Null",
      "130",
      "-5",
      "+5",
      "1.5",
      ".5",
      "1e10",
      "0x1F",
      "0o17",
      "017",
      "1_000",
      ".inf",
      "-.Inf",
      ".nan",
      "0001-01-01T00:00:00Z",
      "2021-04-10",
      "2021-04-10 04:37:57",
      " lead",
      "trail ",
      "a: b",
      "a #b",
      "key:",
      "- x",
      "-",
      "? x",
      "[x]",
      "{x}",
      "*x",
      "&x",
      "!x",
      "|x",
      ">x",
      "'x'",
      '"x"',
      "%x",
      "@x",
      "`x",
      "#x",
      "a\nb",
      "tab\there",
      "\u0000",
      "---",
      "...",
    ];
    const plain = [
      "test-upgrade",
      "v2",
      "cosmos10d07y265gmmuvt4z0w9aw880jnsr700j6zn9kn",
      "6D45233A",
      "stake",
      "a b",
      "a:b",
      "hello world!",
      "ünïcødé",
      "1abc",
      "x-1",
      "-abc",
      "/cosmos.gov.v1.MsgVote",
      "PROPOSAL_STATUS_PASSED",
      "yes please",
    ];
    for (const s of quoted) expect(needsQuotes(s), JSON.stringify(s)).toBe(true);
    for (const s of plain) expect(needsQuotes(s), JSON.stringify(s)).toBe(false);
    expect(toYaml({ a: "line1\nline2", b: "\u2028" })).toBe('a: "line1\\nline2"\nb: "\\u2028"\n');
  });

  it("renders nested maps, lists of scalars and empty collections", () => {
    expect(toYaml({ z: { b: [], a: {} }, a: ["x", "1", null, true] })).toBe('a:\n- x\n- "1"\n- null\n- true\nz:\n  a: {}\n  b: []\n');
    expect(toYaml([])).toBe("[]\n");
    expect(toYaml([{ b: "1", a: "2" }])).toBe('- a: "2"\n  b: "1"\n');
  });

  it("JSON uses Go's escaping and keeps key order", () => {
    expect(toJson({ b: "<&>", a: "\u2028" })).toBe('{"b":"\\u003c\\u0026\\u003e","a":"\\u2028"}');
    expect(toIndentedJson({ a: { b: 1, c: [] }, d: "x" })).toBe('{\n  "a": {\n    "b": 1,\n    "c": []\n  },\n  "d": "x"\n}');
  });
});

describe("the readiness tally as text", () => {
  const attestation = (over: Partial<ReadinessAttestation>): ReadinessAttestation => ({
    planName: "v2",
    planHeight: 300n,
    platform: "linux/amd64",
    binarySha256: new Uint8Array(32).fill(0xab),
    preflightOk: true,
    rehearsal: "passed",
    rehearsalExitCode: 0,
    appHash: new Uint8Array(32).fill(0xcd),
    snapshotHeight: 250n,
    binaryVersion: "",
    ...over,
  });
  const validator = (name: string, power: bigint, status: ValidatorReadiness["status"], a?: ReadinessAttestation): ValidatorReadiness => ({
    address: new Uint8Array(20).fill(name.charCodeAt(0)),
    name,
    power,
    status,
    attestation: a,
    attestedHeight: a ? 240n : 0n,
  });

  it("says which failed validators have no binary at all and which have a wrong one", () => {
    const tally: ReadinessTally = {
      planName: "v2",
      planHeight: 300n,
      updatedHeight: 241n,
      totalPower: 40n,
      readyPower: 10n,
      differentBinaryPower: 0n,
      failedPower: 20n,
      notRehearsedPower: 0n,
      noAttestationPower: 10n,
      validators: [
        validator("alice", 10n, "ready", attestation({})),
        validator(
          "bob",
          10n,
          "failed",
          attestation({ binarySha256: new Uint8Array(0), preflightOk: false, rehearsal: "not_rehearsed", appHash: new Uint8Array(0), snapshotHeight: 0n }),
        ),
        validator("carol", 10n, "failed", attestation({ preflightOk: false, rehearsal: "not_rehearsed", appHash: new Uint8Array(0), snapshotHeight: 0n })),
        validator("dave", 10n, "no_attestation"),
      ],
      appHashGroups: [],
      expectedBinaries: [],
      appHashesDisagree: false,
    };
    const lines = formatReadiness(tally, 250n).split("\n");
    const line = (name: string) => lines.find((l) => l.trimStart().startsWith(`${name} `)) ?? "";
    expect(line("alice")).toMatch(/ ready .*pre-flight ok, rehearsed at 250/);
    expect(line("bob")).toMatch(/ failed .*linux\/amd64 -, pre-flight found no binary, not rehearsed/);
    expect(line("carol")).toMatch(/ failed .*linux\/amd64 ABABABAB…, pre-flight failed, not rehearsed/);
    expect(line("dave")).toMatch(/ no attestation .*nothing attested for this plan/);
    expect(lines[2]).toBe("not ready:   different binary 0.0%, failed 50.0%, not rehearsed 0.0%, no attestation 25.0%");
  });
});
