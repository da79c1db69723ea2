// Writes a generated file only when its text changed, through a temporary file renamed over it: a build that
// regenerates the same text leaves the file alone, and a reader running beside it (the type-checker, a test)
// never sees half a file.
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";

/**
 * @param {string | URL} file
 * @param {string} text
 * @returns {boolean} whether the file was written
 */
export function writeGenerated(file, text) {
  const path = typeof file === "string" ? file : fileURLToPath(file);
  try {
    if (readFileSync(path, "utf8") === text) return false;
  } catch {
    // not there yet
  }
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
  return true;
}
