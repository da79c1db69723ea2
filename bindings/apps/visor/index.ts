/** The sidecar (`xupgrade visor`, docs/spec/sidecar.md): configuration, layout, watcher, pipeline and run loop. */
export { detailString, loadConfig, parseConfig, validateConfig, type VisorConfig } from "./config/index.js";
export { Layout, ensureBinary } from "./layout.js";
export { createLogger, type VisorLogger } from "./log.js";
export { osArch, recase, upgradeDirName } from "./names.js";
export { planFromText, readPlanFile, skipHeights, type VisorPlan } from "./info-file.js";
export { InfoWatcher } from "./watch.js";
export { Supervisor } from "./child.js";
export { binarySource, checkDownloadUrl, fetchUpgrade, parseSidecarChecksum } from "./fetch.js";
export { backupData, backupName } from "./backup.js";
export { runPipeline, Interrupted } from "./pipeline.js";
export { runVisor, type RunOptions } from "./run.js";
export { addUpgrade, initVisor } from "./setup.js";
export { formatReport, prepareUpgrade, showUpgradeInfo } from "./preflight.js";
