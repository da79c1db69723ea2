/**
 * The sidecar scenarios (docs/spec/interop.md §12): cosmovisor's open bugs as situations a node is put in,
 * each run under cosmovisor v1.5.0 and under `xupgrade visor` on the same node (test/interop/
 * sidecar-scenarios.interop.ts). `cosmovisor` and `visor` are what each did, as the docs' table says it;
 * test/interop/scenarios.test.ts holds the table and this list together, cell for cell.
 */
export interface Scenario {
  key: string;
  /** cosmovisor's issues. */
  bugs: string;
  situation: string;
  cosmovisor: string;
  visor: string;
  /** The visor ended on the right binary at the right height with the data intact (every scenario: yes). */
  visorRight: true;
  cosmovisorRight: boolean;
}

export const SCENARIOS: Scenario[] = [
  {
    key: "SC-1",
    bugs: "#25861, #22731",
    situation: "the sidecar is killed between the halt and the switch (`v2` staged), then started again",
    cosmovisor: "starts the old binary again; its poller finds the file on its first tick, kills it, backs up again and upgrades",
    visor: "upgrades before starting anything (the node halted at H: data at H − 1); the old binary never runs again",
    visorRight: true,
    cosmovisorRight: true,
  },
  {
    key: "SC-2",
    bugs: "#22731, #25097",
    situation: "the new binary is killed after the switch, before its first block; the service manager starts the sidecar again",
    cosmovisor: "exits 1 (not the node's status); started again it runs `v2`, which applies the upgrade",
    visor: "exits with the node's status (137); started again it runs `v2`, which applies the upgrade",
    visorRight: true,
    cosmovisorRight: true,
  },
  {
    key: "SC-3",
    bugs: "#10428, #8964, #9874",
    situation: "`upgrade-info.json` is half-written at the start (a write cut short by a crash at the halt)",
    cosmovisor:
      "panics on its first poll (`failed to parse upgrade info file: unexpected end of JSON input`, exit 2), and again at every restart: the node, which cannot start with the file either, never rewrites it",
    visor:
      "sets the unreadable file aside (`cosmovisor/upgrade-info.json.unreadable`) and runs the old binary, which halts at H and writes it again; then upgrades",
    visorRight: true,
    cosmovisorRight: false,
  },
  {
    key: "SC-4",
    bugs: "#8013, #22167",
    situation: "the plan was replaced after its binary was staged: `upgrades/v2` holds `v2-rc1`, the plan's info names the final `v2` with its sha256",
    cosmovisor: "switches to the staged `v2-rc1`: a binary the chain's plan does not name",
    visor: "sees the staged binary's sha256 differ from the plan's, sets it aside, downloads and verifies the plan's `v2`, switches to it",
    visorRight: true,
    cosmovisorRight: false,
  },
  {
    key: "SC-5",
    bugs: "#23720, #25861",
    situation: "a restart with `current` pointing at a stale upgrade: data/ already applied `v2` (past H), `current` → genesis, `v2` staged",
    cosmovisor: "starts the old binary on the upgraded data, then carries the upgrade out again: a second backup and `v2`'s pre-upgrade run again",
    visor: "reads the committed height (past H), points `current` at `v2` without a backup or a pre-upgrade, and runs it",
    visorRight: true,
    cosmovisorRight: true,
  },
  {
    key: "SC-6",
    bugs: "#20464, §10",
    situation: "the node exits at the halt while cosmovisor's poller is inside its check (the devnet exits 20 right after writing the file)",
    cosmovisor: "misses the upgrade and exits 1 with `exit status 20`; started again with nothing in the way, it upgrades",
    visor: "upgrades: its one loop reads the file afresh when the node exits",
    visorRight: true,
    cosmovisorRight: false,
  },
];
