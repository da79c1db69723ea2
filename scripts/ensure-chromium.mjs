// The browser suite runs in the system Chromium (Playwright downloads no browser here).
// Installs Debian's chromium when it is missing and we are root; otherwise says exactly what to do.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";

const path = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
if (existsSync(path)) process.exit(0);

if (process.env.CHROMIUM_PATH) {
  console.error(`CHROMIUM_PATH=${path} does not exist: point it at a Chromium binary.`);
  process.exit(1);
}
if (process.getuid?.() !== 0) {
  console.error(
    "Chromium is missing for the browser tests. Install it with `sudo apt-get install -y chromium` (Debian/Ubuntu),\n" +
      "or set CHROMIUM_PATH to a Chromium binary.",
  );
  process.exit(1);
}
console.log("installing Debian's chromium for the browser tests (apt-get install chromium) ...");
const apt = (...args) => execFileSync("apt-get", args, { stdio: "inherit", env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" } });
apt("update", "-qq");
apt("install", "-y", "-qq", "--no-install-recommends", "chromium");
if (!existsSync(path)) {
  console.error(`apt-get finished but ${path} is still missing.`);
  process.exit(1);
}
