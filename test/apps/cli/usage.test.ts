/** `--help` on every command and the usage errors: one `Error: …` line, exit 1, before any network use. */
import { afterAll, describe, expect, it } from "vitest";
import { errorLine, removeTempDirs, runAll, runCli, tempDir, TEST_KEY } from "./helpers.js";

afterAll(removeTempDirs);

const COMMANDS: [string[], RegExp][] = [
  [[], /Commands:[\s\S]*query[\s\S]*tx[\s\S]*keys[\s\S]*devnet/],
  [["query"], /Querying subcommands/],
  [["query", "upgrade"], /Querying commands for the upgrade module/],
  [["query", "upgrade", "plan"], /Gets the currently scheduled upgrade plan, if one exists/],
  [["query", "upgrade", "applied"], /If upgrade-name was previously executed on the chain, this returns the header for the block at which it was applied\./],
  [["query", "upgrade", "module_versions"], /Gets a list of module names and their respective consensus versions\./],
  [["query", "upgrade", "module-versions"], /Gets a list of module names/],
  [["query", "upgrade", "authority"], /Get the upgrade authority address/],
  [["query", "gov"], /Querying commands for the gov module/],
  [["query", "gov", "proposal"], /Query details for a proposal by its id/],
  [["tx"], /Transactions subcommands/],
  [["tx", "upgrade"], /Upgrade transaction subcommands/],
  [
    ["tx", "upgrade", "software-upgrade"],
    /--upgrade-height[\s\S]*--upgrade-info[\s\S]*--no-validate[\s\S]*--no-checksum-required[\s\S]*--daemon-name[\s\S]*--authority[\s\S]*--generate-only[\s\S]*--yes/,
  ],
  [["tx", "upgrade", "cancel-software-upgrade"], /Cancel a software upgrade[\s\S]*--title[\s\S]*--deposit[\s\S]*--from/],
  [["tx", "gov"], /Governance transactions subcommands/],
  [["tx", "gov", "vote"], /Submit a vote for an active proposal/],
  [["keys"], /Keyring management commands/],
  [["keys", "add"], /--recover/],
  [["keys", "import-hex"], /32-byte secp256k1 private key/],
  [["keys", "import-genesis"], /genesis-keys\.json/],
  [["keys", "list"], /list of all public keys/],
  [["keys", "show"], /--address/],
  [["keys", "delete"], /Delete a key from the store/],
  [["devnet"], /rehearsal chain/],
  [["devnet", "init"], /--voting-period[\s\S]*--deposit-period[\s\S]*--block-time/],
  [["devnet", "start"], /--app[\s\S]*--unsafe-skip-upgrades/],
];

describe("--help", () => {
  it("every command has help on stdout and exits 0", async () => {
    const failures: string[] = [];
    await runAll(COMMANDS, async ([path, expected]) => {
      const r = await runCli([...path, "--help"]);
      const flat = r.stdout.replace(/\s+/g, " ");
      if (
        r.code !== 0 ||
        r.stderr !== "" ||
        !r.stdout.startsWith(`Usage: xupgrade ${path.join(" ").replace("module-versions", "module_versions")}`.trimEnd()) ||
        !expected.test(flat)
      ) {
        failures.push(`${path.join(" ")}: exit ${r.code}\n${r.stdout}${r.stderr}`);
      }
    });
    expect(failures).toEqual([]);
  }, 180_000);

  it("a group without a subcommand prints its help (exit 0)", async () => {
    const r = await runCli(["query", "upgrade"]);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/Querying commands for the upgrade module/);
    expect(r.stdout).toMatch(/plan \[options\] +get upgrade plan \(if one exists\)/);
    expect(r.stdout).toMatch(/block header for height at which a completed\s+upgrade was applied/);
    expect(r.stdout).toMatch(/module_versions\|module-versions .*get the list of module versions/);
  });
});

describe("usage errors", () => {
  const PROPOSER = "cosmos1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5lzv7xu";
  const su = (...extra: string[]) => [
    "tx",
    "upgrade",
    "software-upgrade",
    "v2",
    "--title",
    "t",
    "--summary",
    "s",
    "--from",
    PROPOSER,
    "--generate-only",
    ...extra,
  ];
  const cases: [string, string[], string | RegExp, Record<string, string>?][] = [
    ["unknown flag", ["query", "upgrade", "plan", "--bogus"], "unknown flag: --bogus"],
    ["unknown shorthand", ["query", "upgrade", "plan", "-x"], "unknown shorthand flag: 'x' in -x"],
    ["unknown command", ["query", "upgrade", "nope"], 'unknown command "nope" for "xupgrade query upgrade"'],
    ["argument to a command without one", ["query", "upgrade", "plan", "extra"], 'unknown command "extra" for "xupgrade query upgrade plan"'],
    ["applied without a name", ["query", "upgrade", "applied"], "accepts 1 arg(s), received 0"],
    ["too many arguments", ["query", "upgrade", "module_versions", "a", "b"], "accepts at most 1 arg(s), received 2"],
    ["flag without its value", ["tx", "upgrade", "software-upgrade", "v2", "--title"], "flag needs an argument: --title"],
    [
      "missing --title",
      ["tx", "upgrade", "software-upgrade", "v2", "--summary", "s", "--upgrade-height", "10", "--from", PROPOSER],
      'required flag(s) "title" not set',
    ],
    ["missing everything", ["tx", "upgrade", "software-upgrade", "v2"], 'required flag(s) "from", "summary", "title", "upgrade-height" not set'],
    ["missing --title (cancel)", ["tx", "upgrade", "cancel-software-upgrade", "--summary", "s", "--from", PROPOSER], 'required flag(s) "title" not set'],
    ["no upgrade name", ["tx", "upgrade", "software-upgrade", "--title", "t"], "accepts 1 arg(s), received 0"],
    ["negative height", su("--upgrade-height", "-5"), 'invalid --upgrade-height "-5": must be a positive integer'],
    ["non-numeric height", su("--upgrade-height", "abc"), 'invalid --upgrade-height "abc": must be a positive integer'],
    ["zero height", su("--upgrade-height", "0"), 'invalid --upgrade-height "0": must be a positive integer'],
    ["fractional height", su("--upgrade-height", "1.5"), 'invalid --upgrade-height "1.5": must be a positive integer'],
    ["height beyond int64", su("--upgrade-height", "9223372036854775808"), 'invalid --upgrade-height "9223372036854775808": must be a positive integer'],
    ["1.5stake", su("--upgrade-height", "10", "--no-validate", "--deposit", "1.5stake"), 'invalid deposit "1.5stake": amount must be a whole number'],
    [
      "1.5stake (js core)",
      su("--upgrade-height", "10", "--no-validate", "--deposit", "1.5stake"),
      'invalid deposit "1.5stake": amount must be a whole number',
      { XUPGRADE_CORE: "js" },
    ],
    [
      "deposit = 2^256",
      su("--upgrade-height", "10", "--no-validate", "--deposit", `${1n << 256n}stake`),
      `invalid deposit "${1n << 256n}stake": amount exceeds 2^256-1`,
    ],
    [
      "deposit beyond 2^256 (js core)",
      su("--upgrade-height", "10", "--no-validate", "--deposit", `${"9".repeat(80)}stake`),
      `invalid deposit "${"9".repeat(80)}stake": amount exceeds 2^256-1`,
      { XUPGRADE_CORE: "js" },
    ],
    ["deposit without a denom", su("--upgrade-height", "10", "--no-validate", "--deposit", "100"), 'invalid deposit "100": missing denom'],
    ["negative deposit", su("--upgrade-height", "10", "--no-validate", "--deposit", "-5stake"), 'invalid deposit "-5stake": amount must not be negative'],
    [
      "bad denom",
      su("--upgrade-height", "10", "--no-validate", "--deposit", "5st"),
      'invalid deposit "5st": invalid denom "st": must match [a-zA-Z][a-zA-Z0-9/:._-]{2,127}',
    ],
    ["bad fees", su("--upgrade-height", "10", "--no-validate", "--fees", "0.1stake"), 'invalid --fees "0.1stake": amount must be a whole number'],
    [
      "bad gas",
      su("--upgrade-height", "10", "--no-validate", "--gas", "auto"),
      'invalid --gas "auto": must be a positive integer (gas simulation is not supported)',
    ],
    ["info not JSON", su("--upgrade-height", "10", "--upgrade-info", "v2.0.0"), /^could not parse plan info: .+/],
    ["info blank", su("--upgrade-height", "10", "--upgrade-info", "   "), "plan info must not be blank"],
    [
      "info URL without checksum",
      su("--upgrade-height", "10", "--upgrade-info", "https://example.com/info.json"),
      'invalid url "https://example.com/info.json": missing checksum query parameter',
    ],
    [
      "binary URL without checksum",
      su("--upgrade-height", "10", "--upgrade-info", '{"binaries":{"darwin/amd64":"https://v1.cosmos.network/sdk"}}'),
      'invalid plan info:\ninvalid url "https://v1.cosmos.network/sdk" in binaries[darwin/amd64]: missing checksum query parameter',
    ],
    ["bad authority", su("--upgrade-height", "10", "--no-validate", "--authority", "cosmos1xyz"), /^invalid authority address: .+/],
    [
      "authority of another chain",
      su("--upgrade-height", "10", "--no-validate", "--authority", "osmo1qypqxpq9qcrsszg2pvxq6rs0zqg3yyc5fhqc5e"),
      /^invalid authority address: /,
    ],
    ["bad output", ["query", "upgrade", "plan", "-o", "yaml"], 'invalid --output "yaml": must be text or json'],
    ["bad height flag", ["query", "upgrade", "plan", "--height", "-1"], 'invalid --height "-1": must be a non-negative integer'],
    ["bad proposal id", ["query", "gov", "proposal", "x"], 'invalid proposal id "x": must be a non-negative integer'],
    [
      "bad vote option",
      ["tx", "gov", "vote", "1", "maybe", "--from", PROPOSER, "--generate-only"],
      'invalid vote option "maybe": must be one of yes, no, abstain, no_with_veto',
    ],
    ["bad keyring backend", ["keys", "list", "--keyring-backend", "os"], 'invalid --keyring-backend "os": must be test or file'],
    ["bad key name", ["keys", "add", "../x", "--keyring-backend", "test"], /^invalid key name "\.\.\/x"/],
    [
      "bad safety delta",
      su("--upgrade-height", "10", "--no-validate", "--safety-delta", "10"),
      'invalid --safety-delta "10": time: missing unit in duration "10"',
    ],
    ["bad daemon name", su("--upgrade-height", "10", "--daemon-name", "a/b"), 'invalid --daemon-name "a/b": must be a file name'],
    [
      "offline without its flags",
      su("--upgrade-height", "10", "--no-validate", "--offline"),
      /^required flag\(s\) "account-number", "chain-id", "sequence" not set/,
    ],
    [
      "empty upgrade name",
      [
        "tx",
        "upgrade",
        "software-upgrade",
        "",
        "--title",
        "t",
        "--summary",
        "s",
        "--upgrade-height",
        "5",
        "--from",
        PROPOSER,
        "--generate-only",
        "--no-validate",
      ],
      "name cannot be empty: invalid request",
    ],
    ["devnet: bad validators", ["devnet", "init", "--validators", "0"], 'invalid --validators "0": must be an integer from 1 to 100'],
    ["devnet: bad voting period", ["devnet", "init", "--voting-period", "10"], 'invalid --voting-period "10": time: missing unit in duration "10"'],
    ["devnet: bad skip height", ["devnet", "start", "--unsafe-skip-upgrades", "x"], 'invalid --unsafe-skip-upgrades "x": must be a positive integer'],
  ];

  it("each gets one clear line and exit 1", async () => {
    const home = tempDir();
    const failures: string[] = [];
    await runAll(
      cases,
      async ([name, args, expected, env]) => {
        const r = await runCli(args, { env: { HOME: home, ...env } });
        try {
          const lines = r.stderr.split("\n").filter((l) => l !== "");
          const message = lines.map((l, i) => (i === 0 ? l.replace(/^Error: /, "") : l)).join("\n");
          expect(r.code, name).toBe(1);
          expect(r.stdout, name).toBe("");
          expect(lines[0].startsWith("Error: "), name).toBe(true);
          if (typeof expected === "string") expect(message, name).toBe(expected);
          else expect(message, name).toMatch(expected);
        } catch (e) {
          failures.push(`${name}: ${(e as Error).message}\nstderr: ${r.stderr}`);
        }
      },
      4,
    );
    expect(failures).toEqual([]);
  }, 180_000);

  it("an unknown key for --from", async () => {
    const home = tempDir();
    const r = await runCli([
      "tx",
      "upgrade",
      "cancel-software-upgrade",
      "--title",
      "t",
      "--summary",
      "s",
      "--from",
      "nobody",
      "--keyring-backend",
      "test",
      "--home",
      home,
      "--generate-only",
    ]);
    expect(errorLine(r)).toBe(`key "nobody" not found in the test keyring at ${home}/keyring-test`);
  });

  it("declining the confirmation cancels the transaction", async () => {
    const home = tempDir();
    expect((await runCli(["keys", "import-hex", "k", TEST_KEY.privkey, "--keyring-backend", "test", "--home", home])).code).toBe(0);
    const args = [
      "tx",
      "gov",
      "vote",
      "1",
      "yes",
      "--from",
      "k",
      "--keyring-backend",
      "test",
      "--home",
      home,
      "--offline",
      "--chain-id",
      "c",
      "--account-number",
      "1",
      "--sequence",
      "0",
    ];
    const r = await runCli(args, { input: "n\n" });
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^\{"body":\{"messages":\[\{"@type":"\/cosmos.gov.v1.MsgVote"/);
    expect(r.stderr).toMatch(/confirm transaction before signing and broadcasting \[y\/N\]: \nError: canceled transaction\n$/);
    const ok = await runCli(args, { input: "yes\n" });
    expect(ok.code).toBe(0);
    expect(ok.stdout).toMatch(/^tx_bytes: \S+\ntxhash: [0-9A-F]{64}\n$/);
  });
});
