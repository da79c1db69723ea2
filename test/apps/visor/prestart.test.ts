/**
 * Prestart (bindings/apps/visor/node/prestart.ts, docs/spec/sidecar.md §5.5), in process with shell-script nodes and
 * a fake CometBFT RPC that schedules `chain2` near the node's height: with DAEMON_PRESTART the staged binary is
 * started in standby before the halt (XUPGRADE_STANDBY_FD=3, on which it says `ready`) and, at the switch, that
 * very process is told `go` and supervised — no second start; a plan that goes away dismisses it (fd 3 closes:
 * it ends having run nothing); a standby that died leaves the switch to start the binary as usual; without
 * the setting nothing is pre-started. The ordering comes from the scripts (the genesis node halts only once
 * the standby is there), not from timing.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { fakeRpc, newHome, removeTempDirs, runVisorIn, stage, startVisor, waitUntil } from "./helpers.js";

afterAll(removeTempDirs);

const infoFile = (home: string) => join(home, "data", "upgrade-info.json");

/** A genesis node that halts for chain2 at 49 once `$1` exists (the standby's mark), else after `$2` seconds. */
const HALTING_GENESIS = `echo "genesis $$"
i=0
while [ ! -f "$1" ] && [ $i -lt $(( $2 * 20 )) ]; do sleep 0.05; i=$((i+1)); done
printf '{"name":"chain2","height":49,"info":""}' > "$3"
exec sleep 30`;

/** chain2: in standby it marks `$1`, says ready on fd 3 and waits for go; then it runs (prints its pid) and exits. */
const STANDBY_CHAIN2 = `if [ -n "$XUPGRADE_STANDBY_FD" ]; then
  echo "standby $$"
  touch "$1"
  echo ready >&3
  read line <&3 || { echo "standby dismissed $$"; exit 0; }
  [ "$line" = go ] || { echo "standby dismissed $$"; exit 0; }
  echo "standby went $$"
fi
echo "chain2 live $$"`;

describe("prestart: the next binary in standby before the height", () => {
  it("starts chain2 in standby before the halt, and at the switch that process goes: no second start", async () => {
    const h = await newHome(HALTING_GENESIS);
    await stage(h, "chain2", STANDBY_CHAIN2);
    const rpc = await fakeRpc({ height: 45n, plan: { name: "chain2", height: 49n, info: "" } });
    try {
      const mark = join(h.parent, "standby-mark");
      const r = await runVisorIn(h, [mark, "20", infoFile(h.home)], {
        UNSAFE_SKIP_BACKUP: "true",
        DAEMON_PRESTART: "true",
        DAEMON_RPC_ADDRESS: rpc.url,
        DAEMON_RPC_POLL_INTERVAL: "50ms",
      });
      expect(r.error).toBeUndefined();
      expect(r.code).toBe(0);
      const lines = r.stdout.trim().split("\n");
      const pid = /^standby (\d+)$/.exec(lines.find((l) => l.startsWith("standby "))!)![1];
      // One chain2 process: the standby, told to go, is the node that ran.
      expect(lines.filter((l) => l.startsWith("chain2 live"))).toEqual([`chain2 live ${pid}`]);
      expect(lines.indexOf(`standby went ${pid}`)).toBeLessThan(lines.indexOf(`chain2 live ${pid}`));
      // Started before the halt (the genesis node halts only once the standby has marked its start).
      expect(r.logs.indexOf("started the next binary in standby for upgrade chain2@49")).toBeGreaterThan(-1);
      expect(r.logs.indexOf("started the next binary in standby")).toBeLessThan(r.logs.indexOf('upgrade "chain2" needed at height 49'));
      expect(r.logs).toContain("the standby is ready");
      expect(r.logs).toContain("the standby takes over");
      expect(r.logs).not.toContain("dismissed the standby");
    } finally {
      await rpc.close();
    }
  });

  it("a plan that goes away dismisses the standby: it ends having run nothing", async () => {
    // A genesis node that runs until `$2` exists, then exits 0 (no upgrade).
    const h = await newHome('echo "genesis $$"\nwhile [ ! -f "$2" ]; do sleep 0.05; done\nexit 0');
    await stage(h, "chain2", STANDBY_CHAIN2);
    const rpc = await fakeRpc({ height: 45n, plan: { name: "chain2", height: 49n, info: "" } });
    try {
      const stop = join(h.parent, "stop");
      const run = startVisor(h, [join(h.parent, "mark"), stop], { DAEMON_PRESTART: "true", DAEMON_RPC_ADDRESS: rpc.url, DAEMON_RPC_POLL_INTERVAL: "50ms" });
      await waitUntil(() => run.logs.text().includes("the standby is ready"), 30_000, "the standby");
      rpc.state.plan = undefined; // cancelled
      await waitUntil(() => run.stdout().includes("standby dismissed"), 10_000, "the standby to end").catch((e) => {
        throw new Error(`${e}\n${run.logs.text()}\n${run.stdout()}`);
      });
      expect(run.logs.text()).toContain("dismissed the standby: no plan is scheduled any more");
      writeFileSync(stop, "");
      expect(await run.result).toEqual({ code: 0 });
      expect(run.stdout()).not.toContain("chain2 live");
      expect(run.stdout()).not.toContain("standby went");
    } finally {
      await rpc.close();
    }
  });

  it("without DAEMON_PRESTART nothing is pre-started; a standby that died leaves the switch to start the binary as usual", async () => {
    const h = await newHome(HALTING_GENESIS);
    await stage(h, "chain2", STANDBY_CHAIN2);
    const rpc = await fakeRpc({ height: 45n, plan: { name: "chain2", height: 49n, info: "" } });
    try {
      const r = await runVisorIn(h, [join(h.parent, "never"), "1", infoFile(h.home)], {
        UNSAFE_SKIP_BACKUP: "true",
        DAEMON_RPC_ADDRESS: rpc.url,
        DAEMON_RPC_POLL_INTERVAL: "50ms",
      });
      expect(r.code).toBe(0);
      expect(r.logs).not.toContain("standby");
      expect(r.stdout).toMatch(/^genesis \d+\nchain2 live \d+\n$/);

      // A chain2 whose standby dies at once: the switch starts it normally.
      const d = await newHome(HALTING_GENESIS);
      await stage(d, "chain2", `if [ -n "$XUPGRADE_STANDBY_FD" ]; then touch "$1"; echo "standby died $$"; exit 3; fi\necho "chain2 live $$"`);
      const died = await runVisorIn(d, [join(d.parent, "mark"), "20", infoFile(d.home)], {
        UNSAFE_SKIP_BACKUP: "true",
        DAEMON_PRESTART: "true",
        DAEMON_RPC_ADDRESS: rpc.url,
        DAEMON_RPC_POLL_INTERVAL: "50ms",
      });
      expect(died.code).toBe(0);
      expect(died.logs).toContain("the standby exited before the switch: the switch starts the binary as usual");
      expect(died.stdout).toMatch(/chain2 live \d+\n$/);
      expect(readFileSync(join(d.home, "cosmovisor", "current", "upgrade-info.json"), "utf8")).toContain('"chain2"');
    } finally {
      await rpc.close();
    }
  });
});
