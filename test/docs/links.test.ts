/**
 * Links in the project's documents: README.md, every Markdown file under docs/, and bench/README.md.
 *
 * 1. Every relative link and image points at a file or folder of the repository: tracked, or new and not
 *    ignored — so a link into dist/, build/ or test-output/ fails here as it would on GitHub.
 * 2. Every `#anchor` names a heading of its Markdown target, slugged as GitHub slugs headings (github-slugger:
 *    lower case, punctuation dropped, spaces to `-`, a repeated heading `-1`, `-2` …), or an HTML `id`/`name`.
 *    On any other file only GitHub's line anchors (`#L10`, `#L10-L20`) are allowed.
 *
 * Absolute URLs (`https:`, `mailto:` …) are not fetched: the test needs no network. Markdown is parsed by
 * markdown-it, so links inside code spans and fenced blocks are not links, and reference-style ones are.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path/posix";
import GithubSlugger from "github-slugger";
import MarkdownIt from "markdown-it";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/paths.js";

/** The documents whose links are checked. */
function isDocument(path: string): boolean {
  return path === "README.md" || path === "bench/README.md" || (path.startsWith("docs/") && path.endsWith(".md"));
}

const markdown = new MarkdownIt({ html: true });
type Token = ReturnType<MarkdownIt["parse"]>[number];

export interface Link {
  /** The document and line it is on. */
  where: string;
  href: string;
}

const HTML_ATTR = /\b(href|src)\s*=\s*(?:"([^"]*)"|'([^']*)')/gi;
const HTML_ANCHOR = /\b(?:id|name)\s*=\s*(?:"([^"]*)"|'([^']*)')/gi;

/** The links and images of one Markdown text, with their lines. */
export function linksOf(path: string, text: string): Link[] {
  const out: Link[] = [];
  const add = (href: string | null, line: number) => {
    if (href !== null) out.push({ where: `${path}:${line}`, href });
  };
  const fromHtml = (html: string, line: number) => {
    for (const m of html.matchAll(HTML_ATTR)) add(m[2] ?? m[3], line);
  };
  // Inline tokens inside tables carry no line of their own: they take their row's (the last token that had one).
  let line = 1;
  for (const block of markdown.parse(text, {})) {
    if (block.map) line = block.map[0] + 1;
    if (block.type === "html_block") fromHtml(block.content, line);
    for (const t of block.children ?? []) {
      if (t.type === "link_open") add(t.attrGet("href"), line);
      else if (t.type === "image") add(t.attrGet("src"), line);
      else if (t.type === "html_inline") fromHtml(t.content, line);
    }
  }
  return out;
}

/** The plain text GitHub slugs a heading from: the inline content without its markup. */
function headingText(inline: Token): string {
  return (inline.children ?? []).map((t) => (t.type === "text" || t.type === "code_inline" ? t.content : t.type === "image" ? t.content : "")).join("");
}

/** The anchors a Markdown text offers: its headings as GitHub slugs them, and explicit HTML ids and names. */
export function anchorsOf(text: string): Set<string> {
  const slugger = new GithubSlugger();
  const out = new Set<string>();
  const tokens = markdown.parse(text, {});
  tokens.forEach((t, i) => {
    if (t.type === "heading_open") out.add(slugger.slug(headingText(tokens[i + 1])));
    const htmls = t.type === "html_block" ? [t.content] : (t.children ?? []).filter((c) => c.type === "html_inline").map((c) => c.content);
    for (const html of htmls) for (const m of html.matchAll(HTML_ANCHOR)) out.add(m[1] ?? m[2]);
  });
  return out;
}

/** The repository as the checks see it: its files, and a reader for Markdown targets. */
export interface Repo {
  files: Set<string>;
  read(path: string): string;
}

function foldersOf(files: Set<string>): Set<string> {
  const out = new Set<string>();
  for (const f of files) for (let d = dirname(f); d !== "." && !out.has(d); d = dirname(d)) out.add(d);
  return out;
}

/** A percent-decoded path or anchor, or undefined when its escapes are malformed (`%E0%A4%A`). */
function decodedOrUndefined(decode: (text: string) => string, text: string): string | undefined {
  try {
    return decode(text);
  } catch {
    return undefined;
  }
}

const SCHEME = /^[a-z][a-z0-9+.-]*:/i;
const LINE_ANCHOR = /^L\d+(?:-L\d+)?$/;

/** Why each link of `links` does not resolve in `repo` (empty when all do). */
export function brokenLinks(links: Link[], repo: Repo): string[] {
  const folders = foldersOf(repo.files);
  const anchorCache = new Map<string, Set<string>>();
  const anchors = (path: string) => {
    if (!anchorCache.has(path)) anchorCache.set(path, anchorsOf(repo.read(path)));
    return anchorCache.get(path)!;
  };
  const out: string[] = [];
  for (const { where, href } of links) {
    if (SCHEME.test(href) || href.startsWith("//")) continue;
    const from = where.slice(0, where.lastIndexOf(":"));
    const hash = href.indexOf("#");
    const rawPath = (hash < 0 ? href : href.slice(0, hash)).replace(/\?.*$/, "");
    const fragment = hash < 0 ? "" : href.slice(hash + 1);
    const fail = (why: string) => out.push(`${where}: ${href}: ${why}`);
    let target = from;
    if (rawPath !== "") {
      const decoded = decodedOrUndefined(decodeURI, rawPath);
      if (decoded === undefined) {
        fail("not a valid URL path");
        continue;
      }
      target = normalize(decoded.startsWith("/") ? decoded.slice(1) : join(dirname(from), decoded)).replace(/\/$/, "");
      if (target === "." || target === "" || target.startsWith("../")) {
        fail("points outside the repository");
        continue;
      }
      if (decoded.endsWith("/") ? !folders.has(target) : !repo.files.has(target) && !folders.has(target)) {
        fail(`${target} is not in the repository`);
        continue;
      }
    }
    if (fragment === "") continue;
    if (!repo.files.has(target)) {
      fail(`${target} is a folder: an anchor needs a file`);
      continue;
    }
    if (!target.endsWith(".md")) {
      if (!LINE_ANCHOR.test(fragment)) fail(`${target} is not Markdown: only line anchors (#L10) can point into it`);
      continue;
    }
    const name = decodedOrUndefined(decodeURIComponent, fragment);
    if (name === undefined) {
      fail("not a valid anchor");
      continue;
    }
    if (!anchors(target).has(name)) fail(`${target} has no heading or anchor "${name}"`);
  }
  return out;
}

/** The repository's files: tracked and present, or new and not ignored. */
function repository(): Repo {
  const listed = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], { cwd: ROOT, encoding: "utf8" })
    .split("\0")
    .filter((f) => f !== "" && existsSync(join(ROOT, f)));
  return { files: new Set(listed), read: (path) => readFileSync(join(ROOT, path), "utf8") };
}

describe("the link check", () => {
  const repo: Repo = {
    files: new Set(["README.md", "docs/spec/sidecar.md", "docs/guides/operator.md", "docs/shot.png", "bench/run.ts"]),
    read: (path) =>
      ({
        "README.md": "# xupgrade\n\n## Two commands\n\n## Two commands\n",
        "docs/spec/sidecar.md":
          '# The sidecar\n\n## 13. Rollback (project)\n\n### 5.1 Reconciliation at every start (D6, project)\n\n#### `xupgrade query upgrade module_versions`\n\n<a id="here"></a>\n',
        "docs/guides/operator.md": "# Operator\n\n## The visor: `xupgrade visor`\n",
      })[path] ?? "",
  };
  const check = (href: string, from = "docs/guides/operator.md") => brokenLinks([{ where: `${from}:1`, href }], repo);

  it("slugs headings as GitHub does", () => {
    expect([...anchorsOf(repo.read("docs/spec/sidecar.md"))]).toEqual([
      "the-sidecar",
      "13-rollback-project",
      "51-reconciliation-at-every-start-d6-project",
      "xupgrade-query-upgrade-module_versions",
      "here",
    ]);
    expect([...anchorsOf(repo.read("README.md"))]).toEqual(["xupgrade", "two-commands", "two-commands-1"]);
    expect([...anchorsOf("## The visor: `xupgrade visor` and **its** [layout](x.md)\n")]).toEqual(["the-visor-xupgrade-visor-and-its-layout"]);
  });

  it("finds links and images, not the ones in code", () => {
    const text = [
      "See [the spec](docs/spec/sidecar.md#13-rollback-project) and ![a shot](docs/shot.png).",
      "`[not](a-link.md)`",
      "```",
      "[not](either.md)",
      "```",
      "[ref]: bench/run.ts",
      'A [reference][ref] and <img src="docs/shot.png"> and <https://example.org>.',
    ].join("\n");
    expect(linksOf("README.md", text).map((l) => `${l.where} ${l.href}`)).toEqual([
      "README.md:1 docs/spec/sidecar.md#13-rollback-project",
      "README.md:1 docs/shot.png",
      "README.md:7 bench/run.ts",
      "README.md:7 docs/shot.png",
      "README.md:7 https://example.org",
    ]);
    // Cells have no line of their own: each takes its row's.
    const table = "# T\n\n| a | b |\n| --- | --- |\n| [x](y.md) | z |\n| w | [v](u.md) |\n";
    expect(linksOf("docs/t.md", table).map((l) => l.where)).toEqual(["docs/t.md:5", "docs/t.md:6"]);
  });

  it("accepts what resolves", () => {
    expect(check("../spec/sidecar.md#13-rollback-project")).toEqual([]);
    expect(check("../spec/sidecar.md#here")).toEqual([]);
    expect(check("#the-visor-xupgrade-visor")).toEqual([]);
    expect(check("../shot.png")).toEqual([]);
    expect(check("../spec/")).toEqual([]);
    expect(check("/bench/run.ts#L3-L9")).toEqual([]);
    expect(check("README.md#two-commands-1", "README.md")).toEqual([]);
    expect(check("https://example.org/missing.md#nowhere")).toEqual([]);
  });

  it("refuses what does not, each with its reason", () => {
    expect(check("../spec/keeper.md")).toEqual(["docs/guides/operator.md:1: ../spec/keeper.md: docs/spec/keeper.md is not in the repository"]);
    expect(check("../spec/sidecar.md#13-rollback")).toEqual([
      'docs/guides/operator.md:1: ../spec/sidecar.md#13-rollback: docs/spec/sidecar.md has no heading or anchor "13-rollback"',
    ]);
    expect(check("#Two-Commands", "README.md")).toEqual(['README.md:1: #Two-Commands: README.md has no heading or anchor "Two-Commands"']);
    expect(check("../../../etc/passwd")).toEqual(["docs/guides/operator.md:1: ../../../etc/passwd: points outside the repository"]);
    expect(check("../shot.png#top")).toEqual([
      "docs/guides/operator.md:1: ../shot.png#top: docs/shot.png is not Markdown: only line anchors (#L10) can point into it",
    ]);
    expect(check("../spec#x")).toEqual(["docs/guides/operator.md:1: ../spec#x: docs/spec is a folder: an anchor needs a file"]);
    expect(check("../shot.png/")).toEqual(["docs/guides/operator.md:1: ../shot.png/: docs/shot.png is not in the repository"]);
    expect(check("../spec/%E0%A4%A.md")).toEqual(["docs/guides/operator.md:1: ../spec/%E0%A4%A.md: not a valid URL path"]);
    expect(check("#%E0%A4%A")).toEqual(["docs/guides/operator.md:1: #%E0%A4%A: not a valid anchor"]);
  });
});

describe("links in README.md, docs/ and bench/README.md", () => {
  const repo = repository();
  const documents = [...repo.files].filter(isDocument).sort();
  const links = documents.flatMap((path) => linksOf(path, repo.read(path)));

  it("reads the documents and their links", () => {
    expect(documents).toEqual(expect.arrayContaining(["README.md", "bench/README.md", "docs/spec.md", "docs/reference/cli.md"]));
    expect(links.length).toBeGreaterThan(100);
  });

  it("every relative link and image points at a file of the repository, every #anchor at a heading", () => {
    expect(brokenLinks(links, repo)).toEqual([]);
  });

  it("a folder or file ignored by git (dist/, test-output/) is not the repository's", () => {
    expect(repo.files.has("package.json")).toBe(true);
    expect([...repo.files].some((f) => f.startsWith("node_modules/") || f.startsWith("dist/") || f.startsWith("test-output/"))).toBe(false);
  });
});
