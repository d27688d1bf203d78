/**
 * The diffs of the repin review (issue 26): the shortest edit script behind the word-by-word description
 * diff and the unified diff of SKILL.md bodies, and the bounds that keep untrusted text cheap.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  compareIgnoringEndings,
  countLineChanges,
  type Edit,
  editScript,
  hashOf,
  lineTable,
  sameButWhitespace,
  spanScript,
  UNIFIED_LIMITS,
  unifiedDiff,
  withLineFeeds,
} from "../../scripts/repin-review/diff.js";

const side = (edits: readonly Edit<string>[], other: Edit<string>["kind"]) =>
  edits.filter((edit) => edit.kind !== other).map((edit) => edit.item);
const changes = (edits: readonly Edit<string>[]) => edits.filter((edit) => edit.kind !== "same").length;
const lines = (items: readonly string[]) => items.map((item) => `${item}\n`).join("");

describe("editScript", () => {
  it("turns one side into the other in the fewest insertions and deletions", () => {
    const words = fc.array(fc.constantFrom("a", "b", "c", "d"), { maxLength: 40 });
    fc.assert(
      fc.property(words, words, (a, b) => {
        const edits = editScript(a, b, { items: 100, edits: 100 });
        expect(edits).toBeDefined();
        const script = edits ?? [];
        expect(side(script, "added")).toEqual(a);
        expect(side(script, "removed")).toEqual(b);
        // The count of the same search without its script (what the review's line counts say).
        const counted = countLineChanges(lines(a), lines(b));
        expect(changes(script)).toBe(counted.added + counted.removed);
      }),
      { numRuns: 500 },
    );
  });

  it("marks only the word that changed in a sentence", () => {
    const before = "Drive nails into oak and pine boards, then pull them out.".split(" ");
    const after = "Drive nails into oak and cedar boards, then pull them out.".split(" ");
    const edits = editScript(before, after, { items: 100, edits: 10 }) ?? [];
    expect(edits.filter((edit) => edit.kind !== "same")).toEqual([
      { kind: "removed", item: "pine" },
      { kind: "added", item: "cedar" },
    ]);
  });

  it("gives up past its limits, where the span from the first to the last difference stands in", () => {
    const many = Array.from({ length: 3000 }, (_, index) => `w${index}`);
    const reversed = [...many].reverse();
    expect(editScript(many, reversed, { items: 2000, edits: 200 })).toBeUndefined();
    expect(editScript(many, reversed, { items: 5000, edits: 200 })).toBeUndefined();
    const span = spanScript(["same", ...many, "end"], ["same", ...reversed, "end"]);
    expect(side(span, "added")).toEqual(["same", ...many, "end"]);
    expect(side(span, "removed")).toEqual(["same", ...reversed, "end"]);
    expect(span.filter((edit) => edit.kind === "same").map((edit) => edit.item)).toEqual(["same", "end"]);
  });

  it("counts only what lies between the start and the end both sides share against its limits", () => {
    const shared = Array.from({ length: 10_000 }, (_, index) => `line ${index}`);
    const edits = editScript([...shared, "old", ...shared], [...shared, "new", ...shared], {
      items: 10,
      edits: 2,
    });
    expect(edits?.filter((edit) => edit.kind !== "same")).toEqual([
      { kind: "removed", item: "old" },
      { kind: "added", item: "new" },
    ]);
  });
});

// The review numbers each line of a file without an array of its lines (a file of 16 MiB of line feeds
// is 16 million of them: as arrays, a pair of such files took the review from 351 to 665 MiB): its counts
// are those of the lines split.
describe("countLineChanges", () => {
  it("counts the lines of texts as split, empty ones and a last one without a line feed included", () => {
    const text = fc
      .array(fc.constantFrom("a", "b", "\n", "\r"), { maxLength: 30 })
      .map((chars) => chars.join(""));
    const split = (value: string) => (value === "" ? [] : value.replace(/\n$/, "").split("\n"));
    fc.assert(
      fc.property(text, text, (before, after) => {
        const counted = countLineChanges(before, after);
        const [a, b] = [split(before), split(after)];
        expect(counted.unchanged + counted.added).toBe(b.length);
        expect(counted.unchanged + counted.removed).toBe(a.length);
        const edits = editScript(a, b, { items: 100, edits: 100 }) ?? [];
        expect(counted.added + counted.removed).toBe(changes(edits));
      }),
      { numRuns: 1000 },
    );
  });

  // Lines are numbered through a table of their hashes, not a Map of one string each (which took some 12
  // times a pair of files of short distinct lines): many distinct lines, long ones alike but for their end,
  // are still told apart exactly.
  it("counts texts of thousands of distinct lines exactly, by order or, past 2,000 edits, by content", () => {
    const line = fc.integer({ min: 0, max: 5000 }).map((n) => `${"x".repeat(n % 7 === 0 ? 300 : 3)}${n}`);
    const texts = fc.array(line, { maxLength: 600 });
    fc.assert(
      fc.property(texts, texts, (a, b) => {
        const counted = countLineChanges(lines(a), lines(b));
        const edits = editScript(a, b, { items: 1000, edits: 1200 }) ?? [];
        expect(counted.added + counted.removed).toBe(changes(edits));
        expect(counted.unchanged + counted.added).toBe(b.length);
      }),
      { numRuns: 200 },
    );
    const many = Array.from({ length: 3000 }, (_, n) => `line ${n}`);
    expect(countLineChanges(lines(many), lines([...many].reverse()))).toEqual({
      added: 0,
      removed: 0,
      unchanged: 3000,
    });
    expect(countLineChanges(lines(many), lines(many.map((text) => `${text}!`)))).toEqual({
      added: 3000,
      removed: 3000,
      unchanged: 0,
    });
  });
});

describe("lineTable", () => {
  // Lines of one hash are told apart by their characters: two such lines, found for a fixed seed.
  it("gives two different lines of one hash two numbers, and each line the same number every time", () => {
    const seed = 1;
    const seen = new Map<number, string>();
    let pair: [string, string] | undefined;
    for (let n = 0; pair === undefined; n++) {
      const line = `line ${n}`;
      const hash = hashOf(line, 0, line.length, seed);
      const other = seen.get(hash);
      if (other === undefined) seen.set(hash, line);
      else pair = [other, line];
    }
    const [first, second] = pair;
    expect(first).not.toBe(second);
    const table = lineTable(seed);
    const text = `${first}\n${second}\n${first}\n${second}`;
    const number = table.add(text);
    const ids = [
      0,
      first.length + 1,
      first.length + second.length + 2,
      2 * first.length + second.length + 3,
    ].map((start, index) => table.idOf(number, start, start + (index % 2 === 0 ? first : second).length));
    expect(ids).toEqual([0, 1, 0, 1]);
  });
});

describe("unifiedDiff", () => {
  it("writes hunks as diff -u does, three lines of context around each change", () => {
    const before = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\n";
    const after = "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n";
    expect(unifiedDiff(before, after)).toEqual([
      "@@ -1,5 +1,5 @@",
      " a",
      "-b",
      "+B",
      " c",
      " d",
      " e",
      "@@ -9,3 +9,4 @@",
      " i",
      " j",
      " k",
      "+l",
    ]);
  });

  it("joins changes closer than twice the context into one hunk, and names an empty side by the line before", () => {
    expect(unifiedDiff("1\n2\n3\n4\n5\n6\n7\n8\n", "1\nTWO\n3\n4\n5\n6\n7\nEIGHT\n")).toEqual([
      "@@ -1,8 +1,8 @@",
      " 1",
      "-2",
      "+TWO",
      " 3",
      " 4",
      " 5",
      " 6",
      " 7",
      "-8",
      "+EIGHT",
    ]);
    expect(unifiedDiff("", "x\ny\n")).toEqual(["@@ -0,0 +1,2 @@", "+x", "+y"]);
    expect(unifiedDiff("x\n", "")).toEqual(["@@ -1,1 +0,0 @@", "-x"]);
  });

  it("declines texts that differ in more lines than it may diff", () => {
    const numbered = (prefix: string) =>
      lines(Array.from({ length: UNIFIED_LIMITS.edits }, (_, index) => `${prefix} ${index}`));
    expect(unifiedDiff(numbered("old"), numbered("new"))).toBeUndefined();
  });
});

describe("compareIgnoringEndings", () => {
  it("tells a change of line endings alone, either way, from one of content", () => {
    expect(compareIgnoringEndings("a\nb\n", "a\r\nb\r\n")).toMatchObject({
      lines: { added: 0, removed: 0 },
      endings: { before: "LF", after: "CRLF", only: true },
    });
    expect(compareIgnoringEndings("a\r\nb\r\nc\n", "a\nb\nc\n").endings).toEqual({
      before: "CRLF on 2 of 3 lines",
      after: "LF",
      only: true,
    });
    expect(compareIgnoringEndings("a\r\nb\n", "a\nb\r\n").endings).toEqual({
      before: "CRLF on 1 of 2 lines",
      after: "CRLF on 1 of 2 lines",
      only: true,
    });
    // The last line given an ending: said, not "CRLF → CRLF".
    expect(compareIgnoringEndings("a\r\nb", "a\r\nb\r\n").endings).toEqual({
      before: "CRLF on 1 of 2 lines",
      after: "CRLF",
      only: false,
    });
    expect(compareIgnoringEndings("a\r\nb\r\n", "a\nB\n")).toMatchObject({
      after: "a\nB\n",
      lines: { added: 1, removed: 1 },
      endings: { before: "CRLF", after: "LF", only: false },
    });
  });

  // A file of old Mac OS line endings (CR, no LF at all) read as one line of content: converted to LF or
  // CRLF it was every line removed and added, and an edit in it was a whole-file change.
  it("reads CR endings in a text without line feeds as line endings", () => {
    expect(compareIgnoringEndings("a\rb\r", "a\nb\n")).toMatchObject({
      lines: { added: 0, removed: 0 },
      endings: { before: "CR", after: "LF", only: true },
    });
    expect(compareIgnoringEndings("a\r\nb\r\n", "a\rb\r").endings).toEqual({
      before: "CRLF",
      after: "CR",
      only: true,
    });
    expect(compareIgnoringEndings("a\rb\rc", "a\nb\nc\n").endings).toEqual({
      before: "CR on 2 of 3 lines",
      after: "LF",
      only: false,
    });
    expect(compareIgnoringEndings("a\rb\rc\r", "a\rB\rc\rd\r")).toMatchObject({
      before: "a\nb\nc\n",
      after: "a\nB\nc\nd\n",
      lines: { added: 2, removed: 1, unchanged: 2 },
      endings: undefined,
    });
    expect(unifiedDiff(withLineFeeds("a\rb\rc\r"), withLineFeeds("a\rB\rc\r"))).toEqual([
      "@@ -1,3 +1,3 @@",
      " a",
      "-b",
      "+B",
      " c",
    ]);
  });

  it("counts a carriage return that ends no line as content", () => {
    for (const [before, after] of [
      ["a\rb\n", "ab\n"],
      ["a\r\r\n", "a\r\n"],
    ]) {
      expect(compareIgnoringEndings(before ?? "", after ?? "")).toMatchObject({
        lines: { added: 1, removed: 1 },
        endings: undefined,
      });
    }
    // In a text with line feeds, a carriage return is no ending even where a line feed was made of it.
    expect(compareIgnoringEndings("a\rb\n", "a\nb\n")).toMatchObject({
      lines: { added: 2, removed: 1 },
      endings: undefined,
    });
    // Endings unchanged, CRLF throughout: no note, and the lines compared without them.
    expect(compareIgnoringEndings("a\r\nb\r\n", "a\r\nc\r\n")).toMatchObject({
      lines: { added: 1, removed: 1 },
      endings: undefined,
    });
  });
});

// A file reads "whitespace only" in the review when this holds: read word by word, in step, it must still
// tell a word split or joined, or moved to another line, from spacing.
describe("sameButWhitespace", () => {
  it.each([
    ["a  b\n\n  c \n", "a b\nc", true],
    ["", " \n\t", true],
    ["a\u00a0b\u3000c", "a b c", true],
    ["a\rb", "a b", true],
    ["a b", "a\nb", false],
    ["ab", "a b", false],
    ["a\u200bb", "ab", false],
    ["a", "a b", false],
    ["a b", "a", false],
    ["a b\n", "a c\n", false],
  ])("%j and %j: %s", (before, after, same) => {
    expect(sameButWhitespace(before, after)).toBe(same);
    expect(sameButWhitespace(after, before)).toBe(same);
  });

  it("holds when each run of whitespace is another, a line feed kept where there was one", () => {
    const word = fc.constantFrom("a", "bc", "d-e", "\u200b");
    const gap = fc.constantFrom(" ", "\t", "  ", "\u00a0", "\n", " \n\n ", "\r\n");
    fc.assert(
      fc.property(fc.array(fc.tuple(word, gap, gap)), (parts) => {
        const before = parts.map(([text, space]) => `${text}${space}`).join("");
        const after = parts
          .map(
            ([text, space, other]) =>
              `${text}${space.includes("\n") === other.includes("\n") ? other : space}`,
          )
          .join("");
        expect(sameButWhitespace(before, after)).toBe(true);
      }),
    );
  });
});
