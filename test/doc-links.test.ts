/**
 * Every relative Markdown link of README.md and docs/*.md leads somewhere: to a file or folder of the
 * repository and, for a `#fragment`, to a heading of that Markdown file as GitHub names its anchor. The
 * README's reference sections moved to docs/ once, and a link left behind fails silently on GitHub.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers/process.js";

/** The Markdown files whose links are checked, relative to the repository's root. */
function documents(): string[] {
  const docs = readdirSync(path.join(ROOT, "docs")).filter((name) => name.endsWith(".md"));
  return ["README.md", ...docs.sort().map((name) => path.join("docs", name))];
}

/** `text` without its fenced code blocks, each of their lines left empty, so that line numbers hold. */
function withoutFences(text: string): string[] {
  let fence: string | undefined;
  return text.split("\n").map((line) => {
    const opening = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence === undefined) {
      if (opening === undefined) return line;
      fence = opening;
      return "";
    }
    const closing = new RegExp(`^ {0,3}${fence[0] === "`" ? "`" : "~"}{${fence.length},}\\s*$`);
    if (closing.test(line)) fence = undefined;
    return "";
  });
}

/** GitHub's anchor for a heading's text: lowercase, punctuation dropped, spaces as dashes. */
function slugOf(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, "")
    .replace(/ /g, "-");
}

/** The anchors of a Markdown file's headings, a repeated one numbered as GitHub numbers it (`-1`, `-2`). */
function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const line of withoutFences(text)) {
    const heading = /^ {0,3}#{1,6} +(.*?)(?: +#+)? *$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = slugOf(heading);
    const count = seen.get(slug) ?? 0;
    anchors.add(count === 0 ? slug : `${slug}-${count}`);
    seen.set(slug, count + 1);
  }
  return anchors;
}

/** The targets of a Markdown file's inline links, outside code, with the line each is on. */
function linksOf(text: string): { line: number; target: string }[] {
  // Code spans may run over a line break: they are blanked in the whole text, keeping its line breaks.
  const prose = withoutFences(text)
    .join("\n")
    .replace(/(`+)[\s\S]*?\1/g, (span) => span.replace(/[^\n]/g, " "));
  const links: { line: number; target: string }[] = [];
  for (const match of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    const line = prose.slice(0, match.index).split("\n").length;
    links.push({ line, target: match[1] ?? "" });
  }
  return links;
}

/** What is wrong with a relative link of `doc` to `target`, or undefined when it leads somewhere. */
function brokenBecause(doc: string, target: string): string | undefined {
  const [file = "", fragment] = target.split("#");
  const destination = file === "" ? doc : path.normalize(path.join(path.dirname(doc), decodeURI(file)));
  const absolute = path.join(ROOT, destination);
  if (destination.startsWith("..") || !existsSync(absolute)) return `no file ${destination}`;
  if (fragment === undefined) return undefined;
  if (!destination.endsWith(".md") || statSync(absolute).isDirectory())
    return `no headings in ${destination}`;
  const anchors = anchorsOf(readFileSync(absolute, "utf8"));
  return anchors.has(fragment) ? undefined : `no heading #${fragment} in ${destination}`;
}

describe("the links of README.md and docs/*.md", () => {
  it("names GitHub's anchors for headings as GitHub does", () => {
    expect(slugOf("Sync into coding agents: `skills-mcp sync`")).toBe(
      "sync-into-coding-agents-skills-mcp-sync",
    );
    expect(slugOf("Skill packs from git: `skills.toml`")).toBe("skill-packs-from-git-skillstoml");
    expect(slugOf("5. Under load, limits rather than collapse")).toBe(
      "5-under-load-limits-rather-than-collapse",
    );
    expect([...anchorsOf("# A\n```\n# not a heading\n```\n## A\n### A b_c\n")]).toEqual([
      "a",
      "a-1",
      "a-b_c",
    ]);
  });

  it("finds links outside code only, also a code span running over a line break", () => {
    const text = "[a](x.md) `[b](y.md)`\n``` \n[c](z.md)\n```\n`one\n[d](w.md)` [e](v.md#f)\n";
    expect(linksOf(text)).toEqual([
      { line: 1, target: "x.md" },
      { line: 6, target: "v.md#f" },
    ]);
  });

  it.each(documents())("in %s, leads each relative link to a file and heading that exist", (doc) => {
    const text = readFileSync(path.join(ROOT, doc), "utf8");
    const relative = linksOf(text).filter(({ target }) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
    const broken = relative.flatMap(({ line, target }) => {
      const why = brokenBecause(doc, target);
      return why === undefined ? [] : [`${doc}:${line}: (${target}): ${why}`];
    });
    expect(broken).toEqual([]);
    if (doc === "README.md") expect(relative.length).toBeGreaterThan(10);
  });
});
