/** The committed CLI reference is the one the command tree generates (`npm run docs` rewrites it). */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { CLI_REFERENCE, cliReference } from "../../scripts/cli-reference.js";

describe("docs/reference/cli.md", () => {
  it("is what the command tree generates (run `npm run docs` after changing a command)", () => {
    expect(readFileSync(CLI_REFERENCE, "utf8")).toBe(cliReference());
  });

  it("lists every command and flag, e.g. query upgrade plan --verify's trust flags", () => {
    const text = cliReference();
    for (const s of [
      "#### `xupgrade query upgrade`",
      "`--trust-on-first-use`",
      "`--without-witnesses`",
      "`--max-age <duration>`",
      "### `xupgrade visor`",
      "### `xupgrade watch`",
    ])
      expect(text).toContain(s);
  });
});
