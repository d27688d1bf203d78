/**
 * The repin review's render step on its own: what it shows of many changed files when the review is cut
 * to fit (6,000 characters of file contents, each file a fair share), and the `git diff` each cut file
 * points at. The fetch and the comparison are left out: the content is given as the comparison makes it.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import type { FileChange } from "../../scripts/repin-review/compare.js";
import { type ReviewContent, renderReview, shellWord } from "../../scripts/repin-review/render.js";

const FROM = "a".repeat(40);
const TO = "b".repeat(40);
/** What the fetcher gives the review of a pull request body (see REVIEW_BUDGET). */
const BUDGET = 52_000;

/** A changed text file of the pack whose diff is `lines` long. */
function changed(file: string, lines: readonly string[]): FileChange {
  return {
    path: file,
    movedFrom: undefined,
    kind: "changed",
    lines: { added: lines.length, removed: 0, unchanged: 0 },
    endings: undefined,
    notAudited: undefined,
    content: { kind: "diff", lines: { lines, total: lines.length } },
    sides: { before: undefined, after: undefined },
  };
}

/** A review of one moved source, `pack`, whose supporting files are `files`. */
function reviewOf(files: readonly FileChange[], padding = 0): ReviewContent {
  return {
    reviews: [
      {
        source: { name: "pack", repo: "file:///upstream", path: "skills", extras: [], from: FROM, to: TO },
        changes: {
          added: [],
          addedDocuments: [],
          addedKeys: [],
          removed: [],
          renamed: [],
          notPaired: [],
          pastRenameText: { added: 0, removed: 0 },
          descriptions: [],
          documents: [],
          skillFiles: files,
          packFiles: [],
          changedPaths: new Set(),
        },
        skills: { before: 1, after: 1 },
        descriptionTokens: { before: 5, after: 5 },
        findings: [],
        unsafe: [],
      },
    ],
    listPacks: { before: 10, after: 10 },
    refused: undefined,
    elsewhere: [],
    // Room the rest of a real review takes, to push this one past its budget when asked.
    shared: padding === 0 ? [] : [["x".repeat(padding)]],
    skipped: [],
    collisions: [],
  };
}

const lineOf = (file: number, line: number) => `+line ${line} of file ${file}, some words of padding here`;

describe("the repin review's file contents, when the review is cut", () => {
  const PADDING = BUDGET - 20_000;

  it("points each cut file at its own diff upstream", () => {
    const markdown = renderReview(
      reviewOf(
        [
          changed(
            "tool/my notes.md",
            Array.from({ length: 2000 }, (_, line) => lineOf(0, line)),
          ),
        ],
        PADDING,
      ),
      BUDGET,
    );
    expect(markdown).toMatch(
      /… and 1,9\d\d more lines of this diff, cut to keep the review short: read it upstream: `git diff aaaaaaa bbbbbbb -- 'skills\/tool\/my notes\.md'` in a clone of `file:\/\/\/upstream`\./,
    );
  });
});

describe("shellWord", () => {
  const shell = promisify(execFile);
  const roundTrip = async (word: string) =>
    (await shell("bash", ["-c", `printf %s ${shellWord(word)}`], { encoding: "buffer" })).stdout;

  it("leaves a plain path as it is, and quotes one a shell would read otherwise", async () => {
    expect(shellWord("skills/tool/run-it_2.sh")).toBe("skills/tool/run-it_2.sh");
    expect(shellWord("a b's $HOME `x` !1 *.md")).toBe("'a b'\\''s $HOME `x` !1 *.md'");
    for (const word of ["a b's $HOME `x` !1 *.md", "café/ünï.md", "-n", "a\\b"])
      expect((await roundTrip(word)).toString("utf8")).toBe(word);
  });

  // The review writes hidden characters as `{U+202E}`: a path holding one, copied from the review, would
  // name another file. `$'…'` writes its bytes instead, in characters the review shows as they are.
  it("writes a character the review would show as {U+…} as its bytes", async () => {
    const spoof = "scripts/b\u202Egnp.sh\nx'\\";
    const word = shellWord(spoof);
    expect(word).toBe("$'scripts/b\\xe2\\x80\\xaegnp.sh\\x0ax\\x27\\x5c'");
    expect(await roundTrip(spoof)).toEqual(Buffer.from(spoof));
  });
});
