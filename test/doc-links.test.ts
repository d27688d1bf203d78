/**
 * Every relative Markdown link of the project's docs (README.md, docs/*.md and every other Markdown file
 * but the skills') leads somewhere: to a file or folder of the repository and, for a `#fragment`, to a
 * heading of that Markdown file as GitHub names its anchor. Inline links and reference definitions are
 * checked alike, and a reference (`[text][label]`, `[text][]`) needs a definition. The README's reference
 * sections moved to docs/ once, and a link left behind fails silently on GitHub.
 */
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "./helpers/process.js";

/**
 * Folders whose Markdown is not the project's docs: skill content (the bundled examples, a fetched
 * ./skills), the tests' fixtures, what is installed or built, and dot folders.
 */
const NOT_DOCS: ReadonlySet<string> = new Set([
  "node_modules",
  "dist",
  "skills",
  path.join("examples", "skills"),
  "test",
]);

/** The Markdown files whose links are checked, relative to the repository's root. */
function documents(dir = ""): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true })
    .flatMap((entry) => {
      const relative = path.join(dir, entry.name);
      if (entry.name.startsWith(".") || NOT_DOCS.has(relative)) return [];
      if (entry.isDirectory()) return documents(relative);
      return entry.isFile() && entry.name.endsWith(".md") ? [relative] : [];
    })
    .sort();
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

/**
 * `text` with each code span blanked, line breaks kept (a span may run over one). As CommonMark pairs
 * them, a run of backticks opens a span that the next run of the same length closes, and a run that no
 * such run follows is text. One pass to find the runs, one back to find each run's closer, one to blank.
 */
function withoutCodeSpans(text: string): string {
  const runs = [...text.matchAll(/`+/g)].map(({ index, 0: run }) => ({
    start: index,
    end: index + run.length,
  }));
  const closers: (number | undefined)[] = [];
  const nextOfLength = new Map<number, number>();
  for (let at = runs.length - 1; at >= 0; at--) {
    const length = (runs[at]?.end ?? 0) - (runs[at]?.start ?? 0);
    closers[at] = nextOfLength.get(length);
    nextOfLength.set(length, at);
  }
  let blanked = "";
  let copied = 0;
  for (let at = 0; at < runs.length; at++) {
    const opener = runs[at];
    const closerAt = closers[at];
    const closer = closerAt === undefined ? undefined : runs[closerAt];
    if (opener === undefined || closer === undefined || closerAt === undefined) continue;
    blanked += text.slice(copied, opener.start) + text.slice(opener.start, closer.end).replace(/[^\n]/g, " ");
    copied = closer.end;
    at = closerAt;
  }
  return blanked + text.slice(copied);
}

/** The lines of a Markdown file outside code: fenced blocks and code spans blanked. */
function proseLines(text: string): string[] {
  return withoutCodeSpans(withoutFences(text).join("\n")).split("\n");
}

/** A reference's label as CommonMark matches it to a definition's: case and runs of spaces aside. */
function labelKey(label: string): string {
  return label.trim().replace(/\s+/g, " ").toLowerCase();
}

/** A definition, `[label]: target` (the target may be in `<>`), at the start of a line. */
const DEFINITION = /^ {0,3}\[([^[\]]+)\]:[ \t]*(?:<([^>]*)>|(\S+))/;

/**
 * The targets of a Markdown file's links outside code, with the line each is on: those of inline links
 * and of reference definitions (which `[text][label]`, `[text][]` and `[label]` take theirs from).
 */
function linksOf(text: string): { line: number; target: string }[] {
  return proseLines(text).flatMap((prose, index) => {
    const line = index + 1;
    const inline = [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)].map((match) => ({
      line,
      target: match[1] ?? "",
    }));
    const defined = DEFINITION.exec(prose);
    const target = defined?.[2] ?? defined?.[3];
    return target === undefined ? inline : [...inline, { line, target }];
  });
}

/**
 * The references of a Markdown file that no definition of it names: `[text][label]` and `[text][]` (whose
 * label is its text), which GitHub shows as the brackets themselves. A `[label]` alone with no definition
 * is text, as in prose, and not told.
 */
function undefinedReferences(text: string): { line: number; label: string }[] {
  const lines = proseLines(text);
  const defined = new Set(
    lines.flatMap((prose) => {
      const label = DEFINITION.exec(prose)?.[1];
      return label === undefined ? [] : [labelKey(label)];
    }),
  );
  return lines.flatMap((prose, index) =>
    [...prose.matchAll(/\]\[([^[\]]+)\]|\[([^[\]]+)\]\[\]/g)]
      .map((match) => match[1] ?? match[2] ?? "")
      .filter((label) => !defined.has(labelKey(label)))
      .map((label) => ({ line: index + 1, label })),
  );
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

describe("the links of the project's Markdown", () => {
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

  it("finds reference links' targets in their definitions, and references no definition names", () => {
    const text = [
      "[a][one] [b][] [two] `[c][code]`",
      "[One]:  x.md#f",
      ' [b]: <y z.md> "title"',
      "[d][none] [e][] [f] x[0]",
      "```",
      "[in]: fence.md",
      "```",
    ].join("\n");
    expect(linksOf(text)).toEqual([
      { line: 2, target: "x.md#f" },
      { line: 3, target: "y z.md" },
    ]);
    expect(undefinedReferences(text)).toEqual([
      { line: 4, label: "none" },
      { line: 4, label: "e" },
    ]);
  });

  it("checks the project's Markdown beyond README.md and docs/, and not the skills'", () => {
    const docs = documents();
    expect(docs).toEqual(expect.arrayContaining(["README.md", path.join("docs", "skill-packs.md")]));
    expect(docs.filter((doc) => !doc.startsWith("docs") && doc !== "README.md").length).toBeGreaterThan(0);
    expect(docs.filter((doc) => doc.startsWith(path.join("examples", "skills")))).toEqual([]);
  });

  it.each(documents())("in %s, leads each relative link to a file and heading that exist", (doc) => {
    const text = readFileSync(path.join(ROOT, doc), "utf8");
    const relative = linksOf(text).filter(({ target }) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
    const broken = [
      ...relative.flatMap(({ line, target }) => {
        const why = brokenBecause(doc, target);
        return why === undefined ? [] : [`${doc}:${line}: (${target}): ${why}`];
      }),
      ...undefinedReferences(text).map(({ line, label }) => `${doc}:${line}: [${label}]: no definition`),
    ];
    expect(broken).toEqual([]);
    if (doc === "README.md") expect(relative.length).toBeGreaterThan(10);
  });
});
