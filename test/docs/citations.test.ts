/**
 * Citations of the specification (docs/spec/) in code, tests, examples, scripts and benchmarks.
 *
 * 1. Every `docs/spec/<file>.md §<n>` (or `spec/<file>.md §<n>`) must name an existing file with a heading
 *    whose number is exactly <n> (`## 5. Keeper operations` is §5, `### 5.7 ApplyUpgrade…` is §5.7).
 *    Further sections chained onto a citation (`§5.1–§5.2`, `§7, §7.1`) are checked against the same file.
 * 2. Citations inside docs/spec.md (the index) and docs/spec/ itself (`keeper.md §5.7`, `[interfaces.md](interfaces.md) §9`) must resolve too.
 * 3. The citation forms used before docs/spec/ existed must not appear: the working documents they named are
 *    not part of the repository.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { extname, join, relative } from "node:path";
import { describe, expect, it } from "vitest";

const ROOT = decodeURIComponent(new URL("../..", import.meta.url).pathname).replace(/\/$/, "");
const SPEC_DIR = join(ROOT, "docs", "spec");
const SELF = join("test", "docs", "citations.test.ts");

/** Where citations may appear. */
const SCANNED = ["bindings", "assembly", "examples", "scripts", "bench", "test"];
const SKIPPED_DIRS = new Set(["node_modules", "dist", "build", "out", "test-output", ".git"]);
const TEXT_EXTENSIONS = new Set([
  ".ts",
  ".mts",
  ".cts",
  ".tsx",
  ".js",
  ".mjs",
  ".cjs",
  ".json",
  ".md",
  ".toml",
  ".yaml",
  ".yml",
  ".sh",
  ".html",
  ".css",
  ".txt",
  ".proto",
  ".go",
]);
const MAX_BYTES = 2 * 1024 * 1024;

interface Source {
  path: string; // relative to the repository root
  text: string;
}

function walk(dir: string, out: Source[]): void {
  if (!existsSync(dir)) return;
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    const st = statSync(full);
    if (st.isDirectory()) {
      if (!SKIPPED_DIRS.has(name)) walk(full, out);
      continue;
    }
    const path = relative(ROOT, full);
    if (path === SELF || !st.isFile() || st.size > MAX_BYTES || !TEXT_EXTENSIONS.has(extname(name))) continue;
    out.push({ path, text: readFileSync(full, "utf8") });
  }
}

function sources(): Source[] {
  const out: Source[] = [];
  for (const dir of SCANNED) walk(join(ROOT, dir), out);
  return out;
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** The section numbers of a spec file's headings, or undefined when the file does not exist. */
const headingCache = new Map<string, Set<string> | undefined>();

function headings(file: string): Set<string> | undefined {
  if (!headingCache.has(file)) {
    const path = join(SPEC_DIR, file);
    let numbers: Set<string> | undefined;
    if (existsSync(path) && statSync(path).isFile()) {
      numbers = new Set();
      for (const line of readFileSync(path, "utf8").split("\n")) {
        const m = /^#{1,6}[ \t]+(\d+(?:\.\d+)*)\.?(?=[ \t]|$)/.exec(line);
        if (m) numbers.add(m[1]);
      }
    }
    headingCache.set(file, numbers);
  }
  return headingCache.get(file);
}

/** Why `file §section` does not resolve, or undefined when it does. */
function problem(file: string, section: string): string | undefined {
  const numbers = headings(file);
  if (numbers === undefined) return `docs/spec/${file} does not exist`;
  if (!numbers.has(section)) return `docs/spec/${file} has no heading numbered ${section}`;
  return undefined;
}

const SECTION = String.raw`\d+(?:\.\d+)*`;
/** `§a, §b`, `§a–§b`, `§a-§b`, `§a and §b` after a citation. */
const CHAIN = String.raw`((?:\s*(?:,|–|-|and|&)\s*§${SECTION})*)`;

interface Citation {
  where: string;
  text: string;
  file: string;
  sections: string[];
}

function chained(first: string, chain: string): string[] {
  return [first, ...[...chain.matchAll(new RegExp(`§(${SECTION})`, "g"))].map((m) => m[1])];
}

function citationsIn(src: Source, pattern: RegExp): Citation[] {
  const out: Citation[] = [];
  for (const m of src.text.matchAll(pattern)) {
    out.push({
      where: `${src.path}:${lineOf(src.text, m.index)}`,
      text: m[0],
      file: `${m[1]}.md`,
      sections: chained(m[2], m[3]),
    });
  }
  return out;
}

/** In code: `docs/spec/<file>.md §<n>` or `spec/<file>.md §<n>`. */
const CODE_CITATION = new RegExp(String.raw`(?:\bdocs/)?\bspec/([A-Za-z0-9_-]+)\.md §(${SECTION})${CHAIN}`, "g");
/** Inside docs/spec: `<file>.md §<n>`, also as a Markdown link `[<file>.md](<file>.md) §<n>`. */
const SPEC_CITATION = new RegExp(String.raw`\b([A-Za-z0-9_-]+)\.md(?:\]\([A-Za-z0-9_./#-]*\))? §(${SECTION})${CHAIN}`, "g");

function unresolved(citations: Citation[]): string[] {
  const out: string[] = [];
  for (const c of citations) {
    for (const s of c.sections) {
      const why = problem(c.file, s);
      if (why !== undefined) out.push(`${c.where}: "${c.text}": ${why}`);
    }
  }
  return out;
}

/** The forms used before docs/spec/ existed. */
const OLD_FORMS: [string, RegExp][] = [
  ["interfaces.md outside docs/spec", /(?<!spec\/)\binterfaces\.md\b/g],
  ["sidecar.md outside docs/spec", /(?<!spec\/)\bsidecar\.md\b/g],
  ["keeper-behaviour", /keeper-behaviour/g],
  ["assemblyscript-notes", /assemblyscript-notes/g],
  ["shared/reference, shared/seed, shared/vectors", /\bshared\/(?:reference|seed|vectors)\b/g],
];

describe("the specification's headings", () => {
  it("resolve section numbers exactly", () => {
    expect(problem("keeper.md", "5.7")).toBeUndefined();
    expect(problem("keeper.md", "5")).toBeUndefined();
    expect(problem("interfaces.md", "0")).toBeUndefined();
    expect(problem("interfaces.md", "3")).toBeUndefined();
    expect(problem("sidecar.md", "7.2")).toBeUndefined();
    expect(problem("sidecar.md", "10.8")).toBeUndefined();
    expect(problem("core.md", "3")).toBeUndefined();
    expect(problem("keeper.md", "5.77")).toMatch(/no heading numbered 5\.77/);
    expect(problem("keeper.md", "12")).toMatch(/no heading numbered 12/);
    expect(problem("nowhere.md", "1")).toMatch(/does not exist/);
  });

  it("are found in citations with chained sections", () => {
    const src: Source = {
      path: "example.ts",
      text: "see docs/spec/sidecar.md §5.1–§5.2 and spec/keeper.md §7, §7.1; also docs/spec/core.md §3.\n",
    };
    const found = citationsIn(src, CODE_CITATION).map((c) => [c.file, c.sections]);
    expect(found).toEqual([
      ["sidecar.md", ["5.1", "5.2"]],
      ["keeper.md", ["7", "7.1"]],
      ["core.md", ["3"]],
    ]);
  });
});

describe("citations of docs/spec", () => {
  const all = sources();

  it("scans the code", () => {
    expect(all.length).toBeGreaterThan(0);
  });

  it("in bindings/, assembly/, examples/, scripts/, bench/ and test/ all resolve", () => {
    const citations = all.flatMap((src) => citationsIn(src, CODE_CITATION));
    expect(unresolved(citations)).toEqual([]);
  });

  it("inside docs/spec.md and docs/spec/ all resolve", () => {
    const files = readdirSync(SPEC_DIR)
      .filter((f) => f.endsWith(".md"))
      .sort();
    expect(files).toEqual(expect.arrayContaining(["core.md", "interfaces.md", "keeper.md", "sidecar.md"]));
    const index = join(ROOT, "docs", "spec.md");
    const citations = [
      ...citationsIn({ path: "docs/spec.md", text: readFileSync(index, "utf8") }, SPEC_CITATION),
      ...files.flatMap((f) => citationsIn({ path: `docs/spec/${f}`, text: readFileSync(join(SPEC_DIR, f), "utf8") }, SPEC_CITATION)),
    ];
    expect(citations.length).toBeGreaterThan(0);
    expect(unresolved(citations)).toEqual([]);
  });

  it("never use the old forms (interfaces.md §, sidecar.md §, keeper-behaviour, …)", () => {
    const found: string[] = [];
    for (const src of all) {
      for (const [what, pattern] of OLD_FORMS) {
        for (const m of src.text.matchAll(pattern)) {
          const line = src.text.split("\n")[lineOf(src.text, m.index) - 1].trim();
          found.push(`${src.path}:${lineOf(src.text, m.index)}: ${what}: ${line.slice(0, 160)}`);
        }
      }
    }
    expect(found).toEqual([]);
  });
});
