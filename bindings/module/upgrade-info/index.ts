/** upgrade-info.json: its bytes (encode), Go's reading of them (decode) and the file on disk (file, Node only). */
export { UPGRADE_INFO_FILE, ZERO_TIME, encodeUpgradeInfo } from "./encode.js";
export { parseUpgradeInfo, type ParsedUpgradeInfo } from "./decode.js";
export { readUpgradeInfo, upgradeInfoPath, writeUpgradeInfo } from "./file.js";
