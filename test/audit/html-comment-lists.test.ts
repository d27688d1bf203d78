import { describe, expect, it } from "vitest";
import { auditFile, type Finding } from "../../src/audit/index.js";

function audit(path: string, text: string): Finding[] {
  return auditFile(path, new TextEncoder().encode(text), { executable: false });
}

function rules(path: string, text: string): string[] {
  return audit(path, text).map((found) => `${found.line} ${found.rule}`);
}

describe("html-comment in list items, quotes and paragraphs", () => {
  // Regression: a quote that ends a paragraph (`   >`) kept the list item that a marker in the paragraph's
  // text (`2) Run it`) seemed to open: after the quote, a line four columns in, indented code that shows
  // its comment, was read as that item's text.
  it("ends the items a paragraph's text seemed to open at a quote that ends the paragraph", () => {
    expect(rules("p/s/SKILL.md", "Steps:\n2) Run it\n   >     code\n    <!-- shown -->\n")).toEqual([]);
  });

  // Regression: a list item that ends a paragraph (`   - # Title`) kept the item that a marker in the
  // paragraph's text (`2) Run it`) seemed to open, around it: after the item, a line four columns in,
  // indented code that shows its comment, was read as that item's text.
  it("ends the items a paragraph's text seemed to open at a list item that ends the paragraph", () => {
    expect(rules("p/s/SKILL.md", "Steps:\n2) Run it\n   - # Title\n    <!-- shown -->\n")).toEqual([]);
  });

  // Regression: a tab after a list item's marker was counted as four columns wherever it stood, not as
  // reaching the next multiple of four (`-→` is four columns in all): the item's text was read a column
  // or more further in than it is, and its next paragraph after a blank line, four columns in, as
  // indented code, so the comment the rendered view hides there was missed.
  it.each([
    ["a bullet", "-\tStep one\n\n    <!-- hidden -->\n"],
    ["a number", "1.\tStep one\n\n    <!-- hidden -->\n"],
    ["a bullet in a quote", "> -\tStep one\n>\n>     <!-- hidden -->\n"],
  ])("reads a tab after %s to the next multiple of four columns", (_, markdown) => {
    expect(rules("p/s/SKILL.md", markdown)).toEqual(["3 html-comment"]);
  });

  // Regression: after a `>` with no space after it in a list item (`-  >-→~~~`), the tab after the next
  // marker was counted from where that marker's text would be, a column on from where it is: the fence's
  // item was read a column deeper, and the next line of its quote (`   >→* <!--`), an item after it whose
  // comment the rendered view hides, as a line of the fence.
  it("reads a tab after a marker right after a quote's `>` in a list item from where it stands", () => {
    expect(rules("p/s/SKILL.md", "-  >-\t~~~\n   >\t* <!-- hidden -->\n")).toEqual(["2 html-comment"]);
  });

  // Regression: the paragraph reader counted a tab after a list item's marker as one column (`-→Run`: its
  // text at column 2, not 4): a line short of the item's text (`   2) b`), which opens a list after it, was
  // read as the paragraph's text, and a code span across the two lines hid the comment the rendered view
  // hides too.
  it("ends a paragraph after a tab after a list item's marker where the item ends", () => {
    expect(rules("p/s/SKILL.md", "-\tRun `a <!-- hidden -->\n   2) b`\n")).toEqual(["1 html-comment"]);
  });

  // Regression: the paragraph reader placed a quote opened on a list item's line by characters, so after
  // `-→` its `>` was at column 2, not 4: a line without its `>` six columns in (`      - b`), an item in
  // the list item that ends the quote, was read as four columns past the `>` and so as the paragraph's
  // text, and a code span across the two lines covered the comment the rendered view hides.
  it("places a quote after a tab after a list item's marker where it stands", () => {
    expect(rules("p/s/SKILL.md", "-\t> Run `a <!-- hidden -->\n      - b`\n")).toEqual(["1 html-comment"]);
  });

  // Regression: the paragraph reader stopped at the spaces after a quote's `>` and its optional space, so
  // a quote nested past them (`- >  > Run`) was not counted as the paragraph's: the next line with both
  // `>` was read as a deeper quote that ends the paragraph, and the comment inside a code span across
  // the two lines, which the rendered view shows, flagged.
  it("reads a quote nested two spaces past another's `>` as the paragraph's", () => {
    expect(rules("p/s/SKILL.md", "- >  > Run ```<!-- shown -->\n  > > b ```\n")).toEqual([]);
  });

  // Regression: past the eight containers read on a line, the rest of its markers opened nothing: the
  // tenth item's next paragraph after a blank line, twenty columns in, was read as indented code of the
  // eighth, and the comment the rendered view hides there missed (a way to hide one from the audit).
  it("reads a line in the innermost of more than eight items opened on one line as its text", () => {
    expect(rules("p/s/SKILL.md", `${"- ".repeat(10)}x\n\n${" ".repeat(20)}<!-- hidden -->\n`)).toEqual([
      "3 html-comment",
    ]);
  });

  // Regression: past the eight containers read on a line, the rest of its markers were read as text
  // (`>`) or as one item whose text starts where the line's does: indented code or a fence in the ninth
  // quote or the tenth item, which shows its comment, was read as text and flagged.
  it.each([
    ["indented code in the ninth quote", `${">".repeat(9)}     <!-- shown -->\n`],
    ["a fence in the twelfth quote", `${"> ".repeat(12)}\`\`\`\n${"> ".repeat(12)}<!-- shown -->\n`],
    ["indented code in the tenth item", `${"- ".repeat(10)}    <!-- shown -->\n`],
    ["indented code in a quote in the ninth item", `${"- ".repeat(9)}>     <!-- shown -->\n`],
  ])("leaves alone %s opened on one line", (_, markdown) => {
    expect(rules("p/s/SKILL.md", markdown)).toEqual([]);
  });

  // Regression: those markers opened one container whose text starts at the last's: a line after a blank
  // line indented short of it, but into the tenth of twelve items (twenty columns in), was read as
  // indented code of the eighth, and the comment the rendered view hides there missed.
  it("reads a line in one of the items past the eighth opened on one line as that item's text", () => {
    expect(rules("p/s/SKILL.md", `${"- ".repeat(12)}x\n\n${" ".repeat(20)}<!-- hidden -->\n`)).toEqual([
      "3 html-comment",
    ]);
  });

  // Regressions of the groups above, found by `bench/audit-commonmark.ts --wide`: a line with only some
  // of a group's `>` was read as opening new quotes, which ends the paragraph where CommonMark goes on
  // with it lazily; an empty item that ends at a blank line ended the whole group it is the last of; a
  // quote in the ninth item, counted with the item in one group, ended where the item goes on.
  it.each([
    [
      "a line with some of ten quotes' `>` going on lazily",
      `${">".repeat(10)}\`\n${">".repeat(9)}     <!-- hidden -->\n`,
      2,
    ],
    [
      "the item before an empty one past the eighth",
      `${"* ".repeat(8)}+ *\n\n${" ".repeat(20)}<!-- hidden -->\n`,
      3,
    ],
    [
      "the ninth item, after a fence in a quote in it",
      `${"- ".repeat(9)}>\`\`\`\n${" ".repeat(20)}<!-- hidden -->\n`,
      2,
    ],
  ])("flags a comment in %s", (_, markdown, line) => {
    expect(rules("p/s/SKILL.md", markdown)).toEqual([`${line} html-comment`]);
  });

  // An empty item in a quote in an item (`- >-`) ends at the blank line with the quote: the item around
  // them goes on, and a comment four columns in after it is its text (a reading of the empty item's end
  // that looked for it after the quote had ended it closed every container, and read the line as code).
  it.each([
    ["one item", "- >-\n\n    <!-- hidden -->\n"],
    ["thirteen items", `${"1. ".repeat(13)}>-\n\n    <!-- hidden -->\n`],
  ])("flags a comment after an empty item in a quote in %s", (_, markdown) => {
    expect(rules("p/s/SKILL.md", markdown)).toEqual(["3 html-comment"]);
  });

  // Regression: items past the eighth evenly spaced but for the text of the last (`-    # a`) were read as
  // uneven, and a line four columns past the eleventh (short of the twelfth's text) as at the text of
  // one: the indented code after the heading, which shows its comment, was flagged.
  it("reads indented code in the eleventh item of twelve whose last has its text further in", () => {
    expect(rules("p/s/SKILL.md", `${"- ".repeat(11)}-    # a\n${" ".repeat(26)}<!-- shown -->\n`)).toEqual(
      [],
    );
  });

  // Regression: items past the eighth not evenly spaced (`- `, then `123456789.    `, whose text is 14
  // columns past the ninth's) were read with no column between their outermost's and innermost's text: a
  // line after a blank one, four columns past the ninth's text and short of the tenth's, was read as at
  // the text of one, and the indented code of the ninth there, which shows its comment, was flagged.
  it.each([
    [
      "in the ninth item, short of a wide tenth",
      `${"- ".repeat(9)}123456789.    - - x

${" ".repeat(22)}<!-- shown -->
`,
    ],
    [
      "in the tenth, short of a wide eleventh",
      `${"- ".repeat(10)}1. -    - x

${" ".repeat(27)}<!-- shown -->
`,
    ],
  ])("reads indented code between items past the eighth not evenly spaced, %s", (_, markdown) => {
    expect(rules("p/s/SKILL.md", markdown)).toEqual([]);
  });

  it("still flags a comment at the text of an item past the eighth not evenly spaced", () => {
    const markdown = `${"- ".repeat(9)}123456789.    - - x

${" ".repeat(20)}<!-- hidden -->
`;
    expect(rules("p/s/SKILL.md", markdown)).toEqual(["3 html-comment"]);
  });

  // Regression: a line indented short of the tenth of such items ended none of them, and a line after it
  // four columns or more past the text of the item it is in, but short of the innermost's, was read in
  // the innermost: not code, and the comment it shows was flagged.
  it.each([
    [
      "in a wide gap",
      `${"- ".repeat(9)}123456789.    - - x

${" ".repeat(20)}<!-- hidden -->

${" ".repeat(33)}<!-- shown -->
`,
    ],
    [
      "in a narrow one",
      `${"- ".repeat(10)}1. -    - x

${" ".repeat(21)}<!-- hidden -->

${" ".repeat(25)}<!-- shown -->
`,
    ],
  ])("ends the items past the eighth not evenly spaced that a line is short of, %s", (_, markdown) => {
    expect(rules("p/s/SKILL.md", markdown)).toEqual(["3 html-comment"]);
  });

  // Regression: of items past the eighth not evenly spaced, only gaps of more than four columns were kept:
  // a line indented a column past the ninth's text (18), short of the tenth's (20), was read as at the text
  // of an item there (19), so the lines after it were read a column short. Found by
  // `bench/audit-commonmark.ts --uneven`. Four columns past the ninth's text is its indented code, which
  // shows its comment (it was flagged); a fence there is code too, and a comment after it, which the
  // rendered view hides, was read as in a fence (missed).
  it.each([
    ["shows a comment in indented code", `${" ".repeat(22)}<!-- shown -->\n`, ["2 html-comment"]],
    [
      "opens no fence in indented code",
      `${" ".repeat(22)}\`\`\`\n${" ".repeat(19)}<!-- hidden -->\n`,
      ["2 html-comment", "5 html-comment"],
    ],
  ])("reads the lines after one between items past the eighth by their columns: %s", (_, after, found) => {
    const markdown = `${"- ".repeat(10)}1. 1. x\n${" ".repeat(19)}<!-- hidden -->\n\n${after}`;
    expect(rules("p/s/SKILL.md", markdown)).toEqual(found);
  });

  // Regression: a line without the `>` of the quote an HTML block is in, but with a `>` of its own
  // (`- > </div>`, then `>   >`), was read as a line of that block when indented as far as its text: the
  // block, which no line goes on with lazily, was kept open, and the quote's indented code after the
  // second `>`, which shows its comment, read as raw HTML.
  it("ends an HTML block in a quote at a line without the quote's `>`", () => {
    expect(rules("p/s/SKILL.md", "- > </div>\n>   >     <!-- shown -->\n")).toEqual([]);
  });

  // Regression: a line's text after its markers was read as list items up to its last `-` (`- --` as an
  // item holding `--`), though CommonMark reads a thematic break first: the paragraph seen there took
  // the indented code after the break, which shows its comment, for its text.
  it.each([
    ["alone", "- --\n    <!-- shown -->\n"],
    ["in a quote", "> - --\n>     <!-- shown -->\n"],
    ["in a list item", "1. - --\n       <!-- shown -->\n"],
  ])("reads a thematic break that starts with a list item's marker as a break, %s", (_, markdown) => {
    expect(rules("p/s/SKILL.md", markdown)).toEqual([]);
  });

  // Regression: a list item marker followed by white space alone (trailing spaces) was read as an item
  // whose text starts past those spaces, not one column past the marker: the item's lines were read as
  // less indented in it than they are, indented code as text, and text as closing it.
  it("leaves alone indented code in a list item whose marker has trailing spaces", () => {
    expect(rules("p/s/SKILL.md", "-   \n    Step one\n\n      <!-- shown -->\n")).toEqual([]);
  });

  it("flags a comment in a list item, opened after one whose marker has trailing spaces", () => {
    expect(rules("p/s/SKILL.md", "- -   \n    > Note\n\n      Run it <!-- hidden -->\n")).toEqual([
      "4 html-comment",
    ]);
  });

  // Regression: the list item that a line going on with a paragraph looked like (`2) Run it` under text,
  // which CommonMark reads as the paragraph's text) was kept as a guess past the blank line after it: a
  // line four columns in after that, indented code that shows its comment, was read as its text.
  it.each([
    ["in the text", "Steps:\n2) Run it\n\n    <!-- shown -->\n"],
    ["in a quote", "> Steps:\n> 2. Run it\n>\n>     <!-- shown -->\n"],
  ])("reads no list item under a paragraph past the blank line after it, %s", (_, markdown) => {
    expect(rules("p/s/SKILL.md", markdown)).toEqual([]);
  });

  // Regression: a line going on with a list item's paragraph lazily, though it looks like a list item
  // (indented four columns past the container it is in, or numbered other than 1), ended the item it is
  // short of the text of: after a blank line, the item's next paragraph was read as indented code, and
  // the comment the rendered view hides there was missed.
  it.each([
    ["a bullet", "-    Step one\n    * and two\n\n     <!-- hidden -->\n"],
    ["a number", "-    Step one\n    2. and two\n\n     <!-- hidden -->\n"],
  ])("keeps a list item open across a lazy line that looks like %s", (_, markdown) => {
    expect(rules("p/s/SKILL.md", markdown)).toEqual(["4 html-comment"]);
  });

  // Regression: the paragraph reader ended a paragraph at a lazy line (one short of its list item's text,
  // or without its quote's `>`) that starts a comment, though the line is indented four columns past the
  // container it is in and so opens no block: a code span across the two lines was missed, and the
  // comment inside it, which the rendered view shows as code, flagged.
  it.each([
    ["a list item", "  1.  Run `a\n     <!-- shown --> `\n"],
    ["a quote", "  > Run ` ``\n     <!-- shown --> `\n"],
  ])(
    "reads a code span across a lazy line four columns past the container it is in, after %s",
    (_, markdown) => {
      expect(rules("p/s/SKILL.md", markdown)).toEqual([]);
    },
  );

  // Regression: an empty list item (`-` alone) stayed open across the blank line after it, where CommonMark
  // ends it (an item begins with at most one blank line): a line indented four columns after it, indented
  // code that shows its comment, was read as the item's text and its comment flagged.
  it.each([
    ["in a list", "Steps:\n\n- a\n\n  -\n\n      <!-- shown -->\n"],
    ["in a quote", "> 1.\n>\n>     <!-- shown -->\n"],
  ])("ends an empty list item at the blank line after it, %s", (_, markdown) => {
    expect(rules("p/s/SKILL.md", markdown)).toEqual([]);
  });

  // Regression: a line of an HTML block opened the list items its text looked like (`<details>`, then
  // `- Step`): raw HTML opens no container, and a line four columns in after the block's blank line,
  // indented code that shows its comment, was read as such an item's text and its comment flagged.
  it.each([
    ["a block-level tag", "<details>\n- Step one\n\n    <!-- shown -->\n"],
    ["a tag alone", "<span>\n1. Step one\n\n    <!-- shown -->\n"],
  ])("opens no list item on a line of an HTML block opened by %s", (_, markdown) => {
    expect(rules("p/s/SKILL.md", markdown)).toEqual([]);
  });

  it("still reads a list item under a tag alone that a paragraph goes on with", () => {
    expect(rules("p/s/SKILL.md", "Text\n<span>\n- x\n\n    <!-- hidden -->\n")).toEqual(["5 html-comment"]);
  });

  // Regression: an empty list item, or one numbered other than 1, was read as going on with the paragraph
  // before it also where that paragraph is in a quote the line has no `>` of, or in a list item the line
  // is not indented into: CommonMark opens an item there, after the quote or the item, and a code span
  // across the two lines, around a comment the rendered view hides, was read where there is none.
  it.each([
    ["a quote", "> Use `a\n1.\n   b <!-- hidden --> `\n"],
    ["a list item", "- Use `a\n1.\n   b <!-- hidden --> `\n"],
  ])("reads an empty list item after a paragraph in %s as opening an item", (_, markdown) => {
    expect(rules("p/s/SKILL.md", markdown)).toEqual(["3 html-comment"]);
  });

  it("reads a list item numbered other than 1 under a paragraph as its text", () => {
    expect(rules("p/s/SKILL.md", "Use `a\n2. b <!-- shown --> `\n")).toEqual([]);
  });

  // Regression: an HTML block opened in a list item went on past the item's end, at a line not indented
  // into it (no line goes on with an HTML block lazily): what followed was read as raw HTML, its comments
  // flagged where the rendered view shows them as code, and the lines of the next item read as the
  // block's, so that a lazy line of its paragraph, as the block read it, was taken for indented code.
  it.each([
    ["before indented code", "- <pre>\nText after the list\n\n    <!-- shown -->\n"],
    ["before a code span in the next item", "> 1. <div>\n> 2. `a\n> b <!-- shown --> `\n"],
  ])("ends an HTML block in a list item with the item, %s", (_, markdown) => {
    expect(rules("p/s/SKILL.md", markdown)).toEqual([]);
  });

  it("flags a comment in a list item after one holding an HTML block, in a quote", () => {
    const markdown = "> 1. <span>\n> 2. Step\n    *\n      <!-- hidden -->\n";
    expect(rules("p/s/SKILL.md", markdown)).toEqual(["4 html-comment"]);
  });

  // Regression: what a quote on a list item's line holds was read past one space after its `>` only:
  // `- >  -` (an empty item) and `- >  # Title` (a heading) were read as text, a paragraph that the next
  // line went on with lazily, and indented code after them as that paragraph's text.
  it.each([
    ["an empty list item", "- >  -\n      <!-- shown -->\n"],
    ["a heading", "- >  # Title\n      <!-- shown -->\n"],
  ])("leaves alone indented code after %s in a quote on a list item's line", (_, markdown) => {
    expect(rules("p/s/SKILL.md", markdown)).toEqual([]);
  });

  // Regression: the paragraph reader ended a list item's paragraph at a list item numbered other than 1
  // indented into the item, which CommonMark reads as the paragraph's text (only a line short of the
  // item's text opens the next item): a code span across the two lines was not seen, and the comment it
  // shows was flagged.
  it.each([
    ["a bulleted", "- Run `a\n  2) b <!-- shown --> `\n"],
    ["a numbered", "1. Run `a\n   2) b <!-- shown --> `\n"],
  ])("reads a code span across a line numbered 2 in %s list item's paragraph", (_, markdown) => {
    expect(rules("p/s/SKILL.md", markdown)).toEqual([]);
    expect(rules("p/s/SKILL.md", markdown.replace(/\n +2\)/, "\n2)").replace("shown", "hidden"))).toEqual([
      "2 html-comment",
    ]);
  });

  // Regression: the paragraph reader took a quote opened on a list item's line for none: a line without
  // its `>`, indented into the item, was read as going on with the paragraph, also when it opens a list
  // item there (which ends the quote), so that a code span was read across the two lines around a
  // comment the rendered view hides. Four columns past the item's text, the line does go on with it.
  it.each([
    ["opens an item after the quote", "- > Run `a <!-- hidden -->\n    10. b `\n", ["1 html-comment"]],
    ["goes on with the quote's paragraph", "- > * Run `a <!-- shown -->\n      10. b `\n", []],
  ])("reads a line without the `>` of a quote on a list item's line that %s", (_, markdown, found) => {
    expect(rules("p/s/SKILL.md", markdown)).toEqual(found);
  });

  // Regression: a line of a paragraph in a list item (or in a quote in one), short of the item's text but
  // four columns past the text of the container it is in, was read as opening a block (a heading, an
  // item); it opens none there and goes on with the paragraph, and a code span across the two lines,
  // which the rendered view shows a comment in, was not seen.
  it.each([
    ["a heading", "  1.   - Run `a\n      # b <!-- shown --> `\n", []],
    ["a list item, after a quote", "-    > Run `a\n    + b <!-- shown --> `\n", []],
    ["a list item in the item", "-    > Run `a\n     + b <!-- hidden --> `\n", ["2 html-comment"]],
  ])("reads a line four columns past its container that starts like %s", (_, markdown, found) => {
    expect(rules("p/s/SKILL.md", markdown)).toEqual(found);
  });

  // Regression: a line not indented into a list item, after a block in it that is no paragraph (a heading,
  // a fence), but four columns past the text of the container left, was read as text: it is indented code
  // there, and the rendered view shows its comment.
  it.each([
    ["a heading", "1.   # Heading\n    <!-- shown -->\n"],
    ["a fence", "  -  Step\n\n     ```\n     x\n     ```\n    <!-- shown -->\n"],
  ])("leaves alone indented code after %s in a list item, short of the item's text", (_, markdown) => {
    expect(rules("p/s/SKILL.md", markdown)).toEqual([]);
  });

  // Regression: a comment starting a line of a list item's paragraph, indented four columns but short of
  // the item's text, was read as an HTML block that ends the item, not as the paragraph's text: the
  // item's next paragraph, after a blank line, was read as indented code, and its comment missed.
  it("keeps a list item open across a paragraph line starting with a comment short of the item's text", () => {
    const markdown = "  1.  Install the tool:\n    <!-- step one -->\n\n      <!-- hidden -->\n";
    expect(rules("p/s/SKILL.md", markdown)).toEqual(["2 html-comment", "4 html-comment"]);
  });

  // Regression: the paragraph reader took an indented first line's text for its container's, so a line
  // indented four columns past the container but not past that text ended the paragraph at its list
  // marker; the walker read it as going on, and the code span across the two lines was not seen.
  it("reads a code span across a paragraph line indented four columns that starts like a list item", () => {
    expect(rules("p/s/SKILL.md", "  Run `a\n     - b ` <!-- hidden --> ` c\n")).toEqual(["2 html-comment"]);
  });

  // Regression: a line that ended a fence was read for quotes as code is, its `>` as text: a quote it
  // opened was seen only on the next line, as a new quote ending the paragraph, and that line, indented
  // four columns in it, as code.
  it("reads the quote that a line ending a list item's fence opens", () => {
    expect(rules("p/s/SKILL.md", "- ```\n> Quoted\n>     text <!-- hidden -->\n")).toEqual([
      "3 html-comment",
    ]);
  });

  // Regression: an empty list item under text, which cannot end the paragraph, was read as ending it:
  // the next line, indented past the item's marker, was read as a quote opened in that item, and
  // indented four columns in the quote, as code.
  it.each([
    ["numbered", "Text\n1.\n      >     <!-- hidden -->\n"],
    ["bulleted", "Text\n+\n      >     <!-- hidden -->\n"],
  ])("reads an empty %s list item under text as the paragraph's text", (_, markdown) => {
    expect(rules("p/s/SKILL.md", markdown)).toEqual(["3 html-comment"]);
  });

  it("leaves alone a comment in indented code under a setext heading, whose underline is no list item", () => {
    expect(rules("p/s/SKILL.md", "Text\n-\n      >     <!-- shown -->\n")).toEqual([]);
  });

  // Regression: a fence in a quote was not seen, and a comment it shows as code was flagged.
  it("leaves alone a comment in a fence in a quote, also in a list item, until a line without `>` ends it", () => {
    expect(rules("p/s/SKILL.md", "> ```html\n> <!-- shown -->\n> ```\n")).toEqual([]);
    expect(rules("p/s/SKILL.md", "- > ```html\n  > <!-- shown -->\n  > ```\n")).toEqual([]);
    expect(rules("p/s/SKILL.md", "> - ```html\n>   <!-- shown -->\n")).toEqual([]);
    // A line without the quote's `>` ends the quote and the fence: CommonMark reads no fence lazily.
    expect(rules("p/s/SKILL.md", "> ```html\n> x\n<!-- hidden -->\n")).toEqual(["3 html-comment"]);
    expect(rules("p/s/SKILL.md", "> ```html\n\n<!-- hidden -->\n")).toEqual(["3 html-comment"]);
  });

  it("leaves a comment alone inside a code span across the lines of a paragraph", () => {
    expect(rules("p/s/SKILL.md", "Run ` the\ntool <!-- shown --> ` now.\n")).toEqual([]);
    expect(rules("p/s/SKILL.md", "> Run `` the\n> tool <!-- shown --> `` now.\n")).toEqual([]);
    // A blank line ends the paragraph, and the span with it: the backticks after it open nothing.
    expect(rules("p/s/SKILL.md", "Run ` the\n\ntool <!-- hidden --> ` now.\n")).toEqual(["3 html-comment"]);
  });

  it("leaves alone a comment in a fence opened on a list item's line, and one that is its info string", () => {
    expect(rules("p/s/SKILL.md", "- ```\n  <!-- shown -->\n  ```\n")).toEqual([]);
    expect(rules("p/s/SKILL.md", "* ````<!-- shown -->\n  ````\n")).toEqual([]);
    // Text goes on: a list item numbered other than 1 ends no paragraph, and opens no fence.
    expect(rules("p/s/SKILL.md", "a\n10. ``` <!-- hidden -->\n")).toEqual(["2 html-comment"]);
  });

  it("leaves comments in code blocks inside <details> and list items alone", () => {
    const details = "<details>\n<summary>Example</summary>\n\n```html\n<!-- example -->\n```\n\n</details>\n";
    expect(rules("p/s/SKILL.md", details)).toEqual([]);
    expect(rules("p/s/SKILL.md", "- step:\n\n  ```html\n  <!-- example -->\n  ```\n")).toEqual([]);
    // Text that goes on with the item's paragraph (lazily) ends nothing: the fence is still the item's.
    expect(rules("p/s/SKILL.md", "- step\nmore\n  ```\n  <!-- example -->\n  ```\n")).toEqual([]);
  });

  // Regression: under a paragraph, a line four columns past the container it is surely in goes on with
  // the paragraph, but a list item marker on it that may interrupt one (`-    > x`) was read as opening an
  // item, as deep as the items the paragraph's text only seemed to open: a later line read as that item's
  // indented code (`  2) >     <!-- x -->`), though it is text, and its hidden comment missed.
  it("opens no list item four columns past the container a paragraph is surely in", () => {
    const markdown = "word\n2) + a\n     -    >  -  b\n  2) >     <!-- hidden -->x\n";
    expect(rules("p/s/SKILL.md", markdown)).toEqual(["4 html-comment"]);
  });

  // Regression: a `-` alone under a paragraph, its setext underline (a heading), was also kept as a list
  // item that may hold text: a line five columns in after it, indented code that shows its comment, was
  // read as that item's text and the comment flagged.
  it.each([
    ["in the text", "Steps\n-\n     <!-- shown -->\n"],
    ["in a quote", "> Steps\n> -\n>      <!-- shown -->\n"],
  ])("reads a - alone under a paragraph as its underline, %s", (_, markdown) => {
    expect(rules("p/s/SKILL.md", markdown)).toEqual([]);
  });

  // Regression: the paragraph reader read a line whose `>` is short of the list item the paragraph's quote
  // is in (`- > Run`, then `> b`) as going on with the paragraph, its quote as deep; CommonMark opens a new
  // quote there, which ends the paragraph. A code span closed on that line was read across the two, and
  // the comment before it, which the renderer hides, missed.
  it("ends a paragraph in a list item's quote at a quote outside the item", () => {
    expect(rules("p/s/SKILL.md", "- > Run\n  > `a <!-- hidden -->\n> b `\n")).toEqual(["2 html-comment"]);
  });

  // Regression: a tag alone on its line (`<span>`, `</pre>`) under a paragraph was read as an HTML block,
  // where CommonMark reads it as the paragraph's text (such a tag interrupts no paragraph): a code span
  // going on past it, which shows its comment, was flagged, and a line going on with the paragraph after
  // it in a quote was read as indented code, and its hidden comment missed.
  it("reads a tag alone under a paragraph as the paragraph's text", () => {
    expect(rules("p/s/SKILL.md", "Run `x\n<span>\ny <!-- shown --> z`\n")).toEqual([]);
    expect(rules("p/s/SKILL.md", "> Note\n> </pre>\n        <!-- hidden -->\n")).toEqual(["3 html-comment"]);
  });

  // Regression: a line of `===` without the `>` of the quote its paragraph is in was read as a setext
  // underline that ends the quote; CommonMark reads it as the paragraph's text (an underline belongs to a
  // paragraph of its own container), so a line four columns past the quote's text after it goes on with
  // the paragraph, and its comment is hidden, not indented code.
  // Regression: a line going on lazily with a paragraph in a quote's list item, without the quote's `>`
  // and four columns in (`    ***`), was read as a thematic break that ends the item, though CommonMark
  // reads it as the paragraph's text: the next line, a comment short of the item's text, which opens an
  // HTML block there, was read as the paragraph's, inside a code span, and its hidden comment missed.
  it("ends no list item at a line going on lazily in a quote that looks like a break", () => {
    const markdown = "> 1. Run `x\n    ***\n>      <!-- hidden --> y`\n";
    expect(rules("p/s/SKILL.md", markdown)).toEqual(["3 html-comment"]);
  });

  // Regression: such a line that looks like a list item (`    - y`) opened one, as deep as the quote's
  // text, though without the quote's `>` it is four columns past no container: the next line in the quote
  // was read as that item's HTML block, and the line after as its indented code, where CommonMark reads
  // both as the paragraph's text, their comments hidden.
  it("opens no list item on a line going on lazily in a quote, four columns in", () => {
    const markdown = "> Run `x\n    - y`\n>     <!-- hidden -->\n    <!-- hidden -->\n";
    expect(rules("p/s/SKILL.md", markdown)).toEqual(["3 html-comment", "4 html-comment"]);
  });

  // Regression: a `>` in a list item of a quote (`> 1.`, then `>` and a `>` five columns on) was measured
  // against the quote's text, not the item's, and read as text four columns past it: the line was read
  // as the item's paragraph, where CommonMark opens a quote in the item, and the comment indented four
  // columns past that quote's text, which it shows as code, was flagged.
  it.each([
    ["an empty item", "> 1.\n>      >     <!-- shown -->\n"],
    ["an item holding text", "> - Run\n>\n>     >     <!-- shown -->\n"],
  ])("reads a quote opened in the list item of a quote, in %s", (_, markdown) => {
    expect(rules("p/s/SKILL.md", markdown)).toEqual([]);
  });

  // Regression: the paragraph reader counted a quote's `>` on the paragraph's first line twice, as the
  // quote's and as one its list item opened, and so read every line of the quote as outside the
  // paragraph's container, where any list item marker ends it: `2) b` under `> Run` ended the paragraph,
  // though CommonMark reads it as the paragraph's text (an item numbered other than 1 interrupts none), and
  // a code span across the two lines was not seen. A comment after the span, hidden, was missed; one in
  // it, shown, flagged.
  it("reads a list item numbered other than 1 under a paragraph in a quote as its text", () => {
    expect(rules("p/s/SKILL.md", "> Run `a\n> 2) b` <!-- hidden --> `\n")).toEqual(["2 html-comment"]);
    expect(rules("p/s/SKILL.md", "> Run `a\n> 2) <!-- shown --> b`\n")).toEqual([]);
    // Short of the text of the list item the paragraph is in, it opens an item after it, which ends it.
    expect(rules("p/s/SKILL.md", "> - Run `a\n> 2) <!-- hidden --> b`\n")).toEqual(["2 html-comment"]);
  });

  // Regression: the paragraph reader took a `>` alone four columns in under a paragraph (`    >`) for a
  // quote holding nothing, a blank line that ends the paragraph; CommonMark reads it as the paragraph's
  // text, and a code span across it: a comment in the span, shown, was flagged, one after it missed.
  it("reads a > alone four columns in under a paragraph as its text", () => {
    expect(rules("p/s/SKILL.md", "Run `a\n    >\nb <!-- shown --> c`\n")).toEqual([]);
    expect(rules("p/s/SKILL.md", "Run ``a\n    >\nb`` <!-- hidden --> ``\n")).toEqual(["3 html-comment"]);
  });

  // Regression: the paragraph reader took the `>` of a quote opened on the paragraph's list item line
  // (`1. > Run`), on the next line, for a deeper quote that ends the paragraph: a code span across the two
  // lines was not seen, and the comment in it, which the rendered view shows, flagged.
  it("reads a paragraph in a quote opened on a list item's line across the quote's next line", () => {
    expect(rules("p/s/SKILL.md", "1. > Run `a <!-- shown -->\n   > b`\n")).toEqual([]);
  });

  // Regression: a block that ends a paragraph (a fence, a heading) was placed in the list item that a
  // marker alone in the paragraph's text (`2)`, `*`) seemed to open, and that item kept open after it:
  // a line short of it was read as ending the fence, or one four columns in under the heading as the
  // item's text, where CommonMark shows both comments as code.
  it.each([
    ["a fence", "Steps\n2)\n   ```\n<!-- shown -->\n"],
    ["a heading", "Steps\n*\n  # Title\n    <!-- shown -->\n"],
  ])("places %s under a paragraph in the container the paragraph is in", (_, markdown) => {
    expect(rules("p/s/SKILL.md", markdown)).toEqual([]);
  });

  // Regression: a setext underline was measured against the innermost container open, which a marker
  // alone in the paragraph's text (`2)`) seemed to open: `=` under it was read as lazy text, not as the
  // underline of a heading, and the indented code after the heading as the paragraph's text.
  it("reads = under a marker alone in a paragraph's text as its underline", () => {
    expect(rules("p/s/SKILL.md", "Steps\n2)\n=\n    <!-- shown -->\n")).toEqual([]);
    // The paragraph of a list item opened under another is the item's: `=` short of it is lazy text.
    expect(rules("p/s/SKILL.md", "Run\n- b\n=\n      <!-- hidden -->\n")).toEqual(["4 html-comment"]);
  });

  it("reads a lazy line of === in a quote as the paragraph's text", () => {
    expect(rules("p/s/SKILL.md", "> Setup\n===\n>     <!-- hidden -->\n")).toEqual(["3 html-comment"]);
    // As in a list item, which was read so already.
    expect(rules("p/s/SKILL.md", "- Setup\n===\n      <!-- hidden -->\n")).toEqual(["3 html-comment"]);
  });
});
