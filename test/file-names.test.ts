/** The one rule of which names a skill's files may have, shared by the fetcher, the server and sync. */
import { describe, expect, it } from "vitest";
import { nameShapeProblem, portableNameProblem, readsAsDotGit } from "../src/shared/index.js";

describe("readsAsDotGit", () => {
  it.each([
    ".git",
    ".GIT",
    ".Git",
    ".git.",
    ".git ",
    ".git. . ",
    ".git::$INDEX_ALLOCATION",
    ".git:stream",
    "git~1",
    "GIT~1",
    "git~1.",
    "git~1::$INDEX_ALLOCATION",
    ".g\u200cit",
    "\u200c.git",
    ".git\ufeff",
    "\u202e.g\u200di\u206at",
  ])("takes %j for .git, as macOS or Windows reads it", (name) => {
    expect(readsAsDotGit(name)).toBe(true);
  });

  it.each([
    ".github",
    ".gitignore",
    ".git-credentials",
    "git",
    "git~2",
    "agit",
    ".git.md",
    "g.it",
    ".gıt",
    ".gİt",
  ])("does not take %j for .git", (name) => {
    expect(readsAsDotGit(name)).toBe(false);
  });
});

describe("portableNameProblem", () => {
  it.each([
    [".git", /reads as \.git: "\.git"/],
    ["git~1", /reads as \.git: "git~1"/],
    ["\u200c.git", /reads as \.git: "\{U\+200C\}\.git"/],
    // NTFS may give `references` the short name REFERE~1: served, REFERE~1 could be written as that folder.
    [
      "REFERE~1",
      /short \(8\.3\) name NTFS gives a longer one, which Windows may read as that one: "REFERE~1"/,
    ],
    ["refere~1", /short \(8\.3\) name/],
    ["RELEA~12.MD", /short \(8\.3\) name/],
    ["RE1A2B~1.md", /short \(8\.3\) name/],
    ["a~1", /short \(8\.3\) name/],
    ["git~2", /short \(8\.3\) name/],
    ["aux.txt", /a device on Windows: "aux\.txt"/],
    ["CON", /a device on Windows: "CON"/],
    ["COM1", /a device on Windows: "COM1"/],
    ["conin$", /a device on Windows: "conin\$"/],
    ["CONOUT$.txt", /a device on Windows: "CONOUT\$\.txt"/],
    ["C:x", /holds ":"/],
    ["a\\..\\..\\x", /holds "\\"/],
    ["notes.", /ends in a dot or a space/],
    ["..", /is not a name/],
    ["a\u200bb.md", /no reader sees: "a\{U\+200B\}b\.md"/],
  ])("refuses %j", (name, why) => {
    expect(portableNameProblem(name)).toMatch(why);
  });

  it.each([
    "SKILL.md",
    "style guide.md",
    "console.md",
    "conin.md",
    ".hidden",
    "résumé.md",
    // Not of the short-name shape: a `~` not followed by digits alone, more than 8 before the dot, more
    // than 3 after it, a second dot, or no `~` at all.
    "notes.md~",
    "draft~.md",
    "~1",
    "a~b.md",
    "READMEX~1",
    "backup~1.markdown",
    "abcdef~12345.md",
    "a~1.tar.gz",
    "refere~1x",
  ])("takes %j", (name) => {
    expect(portableNameProblem(name)).toBeUndefined();
  });

  // Names come from untrusted repositories and servers: each check reads a name once, however it is made.
  it("reads long names of the shapes its checks look for in one pass each", () => {
    expect(readsAsDotGit(`.git${" .".repeat(500_000)}x`)).toBe(false);
    expect(readsAsDotGit(`${"\u200c".repeat(1_000_000)}.git`)).toBe(true);
    expect(portableNameProblem(`con${" ".repeat(1_000_000)}x`)).toMatch(/longer than 255 bytes/);
    expect(portableNameProblem(`con ${".".repeat(1_000_000)}`)).toMatch(/a device on Windows/);
    expect(portableNameProblem(`a~${"1".repeat(1_000_000)}`)).toMatch(/longer than 255 bytes/);
    expect(portableNameProblem(`${"a".repeat(1_000_000)}~1`)).toMatch(/longer than 255 bytes/);
  });
});

describe("nameShapeProblem", () => {
  // What every sync refused: a lock recording such a path is none a sync wrote, and is refused whole.
  it.each(["", ".", "..", "a/b", "a\\b", "a:b", "a\u0000b", "a\nb", "x".repeat(256)])(
    "refuses %j, which no sync ever wrote",
    (name) => {
      expect(nameShapeProblem(name)).toBeDefined();
    },
  );

  // Refused since by portableNameProblem, but an older sync wrote them: a lock recording them is read.
  it.each(["aux.txt", "git~1", ".GIT", "notes.", "REFERE~1", "a\u200bb"])("takes %j", (name) => {
    expect(nameShapeProblem(name)).toBeUndefined();
    expect(portableNameProblem(name)).toBeDefined();
  });
});
