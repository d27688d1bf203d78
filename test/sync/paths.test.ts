/** The checks that keep every file sync writes inside its skill's folder, on every system, with hostile names. */
import { describe, expect, it } from "vitest";
import { citedPaths } from "../../src/sync/citations.js";
import { clashingPaths, pathBelow, relativePathProblem } from "../../src/sync/paths.js";

const ROOT = "skill://team/review";

describe("pathBelow", () => {
  it.each([
    ["skill://team/review/SKILL.md", "SKILL.md"],
    ["skill://team/review/references/guide.md", "references/guide.md"],
    ["skill://team/review/Q%26A.md", "Q&A.md"],
    ["skill://team/review/r%C3%A9sum%C3%A9.md", "résumé.md"],
    ["skill://team/review/a/./b.md", "a/b.md"],
  ])("takes %s as %s", (uri, path) => {
    expect(pathBelow(ROOT, uri)).toEqual({ path });
  });

  it.each([
    ["skill://team/review/../other/SKILL.md", /is not a file below/],
    ["skill://team/review/%2e%2e/%2e%2e/etc/passwd", /is not a file below/],
    ["skill://team/reviewer/SKILL.md", /is not a file below/],
    ["skill://team/review", /is not a file below/],
    ["file:///etc/passwd", /is not a file below/],
    ["skill://team/review/a.md?x=1", /is not a file below/],
    ["skill://team/review/..%2F..%2Fx.md", /holds a slash/],
    ["skill://team/review/..%5C..%5Cx.md", /holds "\\"/],
    ["skill://team/review/C%3A%5Cx.md", /holds ":"/],
    ["skill://team/review/a%00b.md", /control character \(U\+0000\)/],
    ["skill://team/review/a%1Bb.md", /control character \(U\+001B\)/],
    ["skill://team/review/doc%E2%80%AEdm.exe", /no reader sees: "doc\{U\+202E\}dm\.exe"/],
    [
      "skill://team/review/readme%F3%A0%81%A9%F3%A0%81%A7.md",
      /no reader sees: "readme\{U\+E0069\}\{U\+E0067\}\.md"/,
    ],
    ["skill://team/review/line%E2%80%A8break.md", /no reader sees: "line\{U\+2028\}break\.md"/],
    ["skill://team/review/%E0%A4%A.md", /broken percent-encoding/],
    [`skill://team/review/${"a".repeat(256)}.md`, /longer than 255 bytes/],
    [`skill://team/review/${"a/".repeat(16)}x.md`, /deeper than 16 folders/],
    ["not a uri", /is not a URI/],
  ])("refuses %s", (uri, problem) => {
    const below = pathBelow(ROOT, uri);
    expect(below).toHaveProperty("problem");
    expect("problem" in below ? below.problem : "").toMatch(problem);
  });
});

describe("relativePathProblem", () => {
  it.each([
    ["..", '".." is not a name'],
    ["a/../b", '".." is not a name'],
    ["./a", '"." is not a name'],
    ["a//b", '"" is not a name'],
    ["/etc/passwd", '"" is not a name'],
    ["", '"" is not a name'],
    ["a\\b", 'a name holds "\\"'],
    ["con:x", 'a name holds ":"'],
  ])("refuses %j, saying why", (path, problem) => {
    expect(relativePathProblem(path)).toBe(problem);
  });
  it("takes a plain path", () => {
    expect(relativePathProblem("references/style guide.md")).toBeUndefined();
  });
  it.each([
    "con",
    "CON",
    "nul.md",
    "AUX.txt",
    "lpt1.md",
    "com9",
    "COM\u00b9.md",
    "lpt\u00b3",
    "nul .md",
    "a/prn/b.md",
    "a/Aux",
  ])("refuses the Windows device name in %j", (path) => {
    expect(relativePathProblem(path)).toMatch(/a device on Windows/);
  });
  it.each(["trailing.", "trailing ", "a.md.", "notes./a.md"])(
    "refuses %j, whose name Windows would cut",
    (path) => {
      expect(relativePathProblem(path)).toMatch(/ends in a dot or a space/);
    },
  );
  it.each(["console.md", "conx", "com10.md", "nul-x.md", "auxiliary/a.md", "lpt.md", ".hidden"])(
    "takes %j, which only looks like a device name",
    (path) => {
      expect(relativePathProblem(path)).toBeUndefined();
    },
  );
});

describe("clashingPaths", () => {
  it.each([
    [
      ["Guide.md", "guide.md"],
      ["Guide.md", "guide.md"],
    ],
    [
      ["caf\u00e9.md", "cafe\u0301.md"],
      ["caf\u00e9.md", "cafe\u0301.md"],
    ],
    [
      ["notes", "notes/a.md"],
      ["notes", "notes/a.md"],
    ],
    [
      ["\u017fx.md", "sx.md"],
      ["\u017fx.md", "sx.md"],
    ],
    [
      ["\u212a.md", "k.md"],
      ["\u212a.md", "k.md"],
    ],
    [
      ["Notes/a.md", "notes"],
      ["notes", "Notes/a.md"],
    ],
    [
      ["refs/a.md", "Refs/b.md"],
      ["refs/a.md", "Refs/b.md"],
    ],
    [
      ["SKILL.md", "docs/caf\u00e9/a.md", "docs/cafe\u0301/b.md"],
      ["docs/caf\u00e9/a.md", "docs/cafe\u0301/b.md"],
    ],
  ])("finds %j", (paths, pair) => {
    expect(clashingPaths(paths)).toEqual(pair);
  });
  it("finds none among distinct files", () => {
    expect(clashingPaths(["SKILL.md", "notes/a.md", "notes/b.md", "notes.md"])).toBeUndefined();
    expect(clashingPaths(["Refs/a.md", "Refs/b/c.md", "refs.md"])).toBeUndefined();
  });
});

describe("citedPaths", () => {
  it("finds the relative paths a text cites, in order, once each", () => {
    const text = [
      "Follow `shared/tokens.md`, then [the checklist](../shared/checklist.md#top).",
      "See references/guide.md. And shared/tokens.md again; ./scripts/run.sh runs it.",
      "Not: https://example.com/a/b.md, /etc/passwd.md, ~/notes/x.md, and/or, e.g. 1/2, a/../b.md, dir/.hidden",
    ].join("\n");
    expect(citedPaths(text, 10)).toEqual([
      "shared/tokens.md",
      "../shared/checklist.md",
      "references/guide.md",
      "scripts/run.sh",
    ]);
  });

  it("stops at the limit", () => {
    const text = Array.from({ length: 100 }, (_, i) => `docs/file-${i}.md`).join(" ");
    expect(citedPaths(text, 3)).toEqual(["docs/file-0.md", "docs/file-1.md", "docs/file-2.md"]);
  });

  // One long run of path characters is read once: a scanner that backed off on it would never finish.
  it("reads a long run of path characters in one pass", () => {
    const text = `${"a".repeat(2_000_000)}/x.md ${"/".repeat(2_000_000)}`;
    expect(citedPaths(text, 10)).toEqual([`${"a".repeat(2_000_000)}/x.md`]);
  });
});
