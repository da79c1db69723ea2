// The whole life of an upgrade on one node, as a chain host embeds the module:
// governance schedules "v2" → the v1 binary halts at the height and writes upgrade-info.json →
// the v2 binary starts, its handler migrates the module versions → the chain goes on.
// State lives in a real durable store (LevelDB) under a temporary home directory.
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { GOV_AUTHORITY, UpgradeError, createKeeper, createMsgServer, openNodeStore, upgradeInfoPath } from "xupgrade";

const backend = process.env.XUPGRADE_BACKEND ?? "wasm";
if (backend !== "wasm" && backend !== "js") throw new Error(`XUPGRADE_BACKEND is wasm or js, not ${backend}`);
const home = await mkdtemp(join(tmpdir(), "xupgrade-demo-"));
const dbPath = join(home, "data", "upgrade.db");
const step = (text) => console.log(`\n▶ ${text}`);
const block = (h, text = "") => console.log(`  block ${String(h).padStart(2)} ${text}`);

try {
  step(`v1 binary starts (core: ${backend}, home: a fresh temporary directory)`);
  let store = await openNodeStore(dbPath);
  let keeper = await createKeeper({ backend, store, homePath: home });
  keeper.setModuleVersionMap({ auth: 5n, bank: 2n, gov: 4n, staking: 4n, upgrade: 2n });
  await store.commit();
  console.log("  module versions:", fmtVersions(keeper));

  let height = 1;
  const produce = async (h, beforeCommit) => {
    await keeper.preBlock(h);
    beforeCommit?.();
    await store.commit();
  };

  for (; height <= 2; height++) {
    await produce(height);
    block(height);
  }

  step("governance passes MsgSoftwareUpgrade{v2 at height 5}");
  const msgs = createMsgServer(keeper);
  await produce(height, () => msgs.softwareUpgrade({ authority: GOV_AUTHORITY, plan: { name: "v2", height: 5, info: '{"binaries":{}}' } }, height));
  block(height, `plan scheduled: ${JSON.stringify(keeper.getUpgradePlan(), bigints)}`);
  height++;
  await produce(height);
  block(height, "v1 keeps running; the upgrade is not due yet");
  height++;

  step("height 5: v1 has no handler for v2 and halts");
  try {
    await keeper.preBlock(height);
    throw new Error("v1 should have halted");
  } catch (err) {
    if (!(err instanceof UpgradeError) || err.kind !== "upgrade-needed") throw err;
    store.rollback(); // the failed block is never committed
    console.log(`  halt: ${err.message}  (exit code ${err.exitCode})`);
    console.log(`  upgrade-info.json: ${await readFile(upgradeInfoPath(home), "utf8")}`);
  }
  await store.close();

  step("v2 binary starts on the same data, with the v2 handler");
  store = await openNodeStore(dbPath);
  keeper = await createKeeper({ backend, store, homePath: home });
  const info = await keeper.readUpgradeInfoFromDisk();
  if (!info) throw new Error("v1 halted without writing upgrade-info.json");
  console.log(`  read upgrade-info.json: name ${info.name}, height ${info.height}`);
  keeper.setUpgradeHandler("v2", (ctx, plan, fromVM) => {
    console.log(`  handler "${plan.name}" runs at block ${ctx.blockHeight}: bank 2 → 3, adds feegrant`);
    const vm = new Map(fromVM);
    vm.set("bank", 3n);
    vm.set("feegrant", 2n);
    return vm;
  });
  const { consensusParamsChanged } = await keeper.preBlock(height);
  await store.commit();
  block(height, `upgrade applied (consensusParamsChanged: ${consensusParamsChanged})`);
  for (height++; height <= 7; height++) {
    await produce(height);
    block(height);
  }

  step("after the upgrade");
  console.log(`  applied: v2 at height ${keeper.getDoneHeight("v2")}; last completed: ${JSON.stringify(keeper.getLastCompletedUpgrade(), bigints)}`);
  console.log(`  scheduled plan: ${keeper.getUpgradePlan() ?? "none"}`);
  console.log(`  protocol version: ${keeper.getProtocolVersion()}`);
  console.log("  module versions:", fmtVersions(keeper));
  await store.close();
  console.log("\n✔ full cycle: schedule → halt → handler → applied");
} finally {
  await rm(home, { recursive: true, force: true });
}

function fmtVersions(k) {
  return k
    .getModuleVersions()
    .map((m) => `${m.name}=${m.version}`)
    .join(" ");
}

function bigints(_key, value) {
  return typeof value === "bigint" ? value.toString() : value;
}
