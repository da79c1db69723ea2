/** The repository root, for tests that spawn the project's programs or read its files. */
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
