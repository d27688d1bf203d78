/**
 * The repin review's render step on its own: what it shows of many changed files when the review is cut
 * to fit (6,000 characters of file contents, each file a fair share), and the `git diff` each cut file
 * points at. The fetch and the comparison are left out: the content is given as the comparison makes it.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import type { FileChange } from "../../scripts/repin-review/file-change.js";
import {
  naturalOrder,
  type ReviewContent,
  renderReview,
  ShownFindings,
} from "../../scripts/repin-review/render.js";
import type { ServedFile } from "../../scripts/repin-review/served.js";
import type { Skill } from "../../src/catalog/index.js";
import { shellWord } from "../../src/shared/index.js";

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
    whitespaceOnly: false,
    mode: undefined,
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
        findings: new ShownFindings(),
        unsafe: [],
        newlyUnsafe: [],
        newlySafe: [],
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

/** Each file whose content the review shows, with the lines shown and whether it says it cut them. */
function shownContents(markdown: string): Map<string, { lines: string[]; cut: boolean }> {
  const shown = new Map<string, { lines: string[]; cut: boolean }>();
  for (const block of markdown.split("<details>\n").slice(1)) {
    const named = /^<summary>(.+): (?:diff|\(new\))<\/summary>\n\n(`{3,})\w*\n/.exec(block);
    if (named === null) continue;
    const [opening, file = "", fence = ""] = named;
    const body = block.slice(opening.length);
    const end = body.indexOf(`\n${fence}\n`);
    shown.set(file, {
      lines: end < 0 ? [] : body.slice(0, end).split("\n"),
      cut: body.slice(end).split("</details>")[0]?.includes("cut to keep the review short") ?? false,
    });
  }
  return shown;
}

const charged = (lines: readonly string[]) => lines.reduce((size, line) => size + line.length + 1, 0);
const lineOf = (file: number, line: number) => `+line ${line} of file ${file}, some words of padding here`;

describe("the repin review's file contents, when the review is cut", () => {
  // 60 changed files of 40 diff lines each (some 2,000 characters a file) in a review whose other parts
  // leave too little room for 20,000 characters of contents: they get 6,000, each file at least 200.
  const files = Array.from({ length: 60 }, (_, file) =>
    changed(
      `tool/scripts/s${String(file).padStart(3, "0")}.sh`,
      Array.from({ length: 40 }, (_, line) => lineOf(file, line)),
    ),
  );
  // Each cut file says where to read the rest, a command of some 100 characters.
  const PADDING = BUDGET - 22_000;
  const cut = renderReview(reviewOf(files, PADDING), BUDGET);

  it("is cut, and stays within its budget", () => {
    expect(cut.length).toBeLessThanOrEqual(BUDGET);
    const whole = renderReview(reviewOf(files, PADDING), Number.POSITIVE_INFINITY);
    expect(charged([...shownContents(whole).values()].flatMap(({ lines }) => lines))).toBeGreaterThan(19_000);
    expect(whole.length).toBeGreaterThan(BUDGET);
  });

  it("names every file, each either shown or listed as not shown", () => {
    const shown = shownContents(cut);
    const listed =
      /- Content not shown, past the 20,000 characters \(6,000 when the review is cut\) the review gives the contents of files: (.+); read them upstream: `git diff --text --no-ext-diff --no-textconv aaaaaaa bbbbbbb -- skills`/.exec(
        cut,
      )?.[1];
    const notShown = new Set(listed?.split(", ").map((file) => file.replaceAll("`", "")));
    for (const { path: file } of files) {
      expect(cut).toContain(`- changed \`pack/${file}\` (+40 −0 lines)`);
      expect(shown.has(`pack/${file}`) !== notShown.has(`pack/${file}`), file).toBe(true);
    }
  });

  it("shows 6,000 characters of contents at most, each file shown a fair share, in order", () => {
    const shown = [...shownContents(cut).values()];
    const total = charged(shown.flatMap(({ lines }) => lines));
    expect(total).toBeLessThanOrEqual(6000);
    // 6,000 among 60 is less than the 200 a file gets at least: the first 30 files are shown, 200 each
    // at most (a little more, as what a file leaves of its share goes to the files after it).
    expect(shown.length).toBeGreaterThanOrEqual(30);
    expect(shown.length).toBeLessThan(40);
    expect([...shownContents(cut).keys()][0]).toBe("pack/tool/scripts/s000.sh");
    for (const { lines, cut: isCut } of shown) {
      expect(charged(lines)).toBeLessThanOrEqual(200);
      expect(charged(lines)).toBeGreaterThan(200 - 60);
      expect(isCut).toBe(true);
    }
  });

  it("cuts one large file to its share, and shows the small files after it whole", () => {
    const large = changed(
      "tool/a-large.sh",
      Array.from({ length: 2000 }, (_, line) => lineOf(0, line)),
    );
    const small = Array.from({ length: 3 }, (_, file) =>
      changed(
        `tool/b-small-${file}.sh`,
        Array.from({ length: 6 }, (_, line) => lineOf(file + 1, line)),
      ),
    );
    // Room for the contents cut to 6,000, not for 20,000.
    const markdown = renderReview(reviewOf([large, ...small], BUDGET - 5000), BUDGET);
    expect(markdown.length).toBeLessThanOrEqual(BUDGET);
    const shown = shownContents(markdown);
    const big = shown.get("pack/tool/a-large.sh");
    // An even share of 6,000 among four files.
    expect(charged(big?.lines ?? [])).toBeLessThanOrEqual(6000 / 4);
    expect(charged(big?.lines ?? [])).toBeGreaterThan(6000 / 4 - 60);
    expect(big?.cut).toBe(true);
    for (const { path: file, content } of small) {
      const lines = content !== undefined && "lines" in content ? content.lines.lines : [];
      expect(shown.get(`pack/${file}`)).toEqual({ lines, cut: false });
    }
    expect(charged([...shown.values()].flatMap(({ lines }) => lines))).toBeLessThanOrEqual(6000);
  });

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
      /… and 1,\d{3} more lines of this diff, cut to keep the review short: read it upstream: `git diff --text --no-ext-diff --no-textconv aaaaaaa bbbbbbb -- 'skills\/tool\/my notes\.md'` in a clone of `file:\/\/\/upstream`\./,
    );
  });
});

describe("the repin review's git diff commands", () => {
  // `$'…'` is no quoting to dash, Debian's sh: pasted there, the command named another path, unsaid.
  it("say which shell reads them when a path is quoted with $'…'", () => {
    const lines = Array.from({ length: 2000 }, (_, line) => lineOf(0, line));
    const markdown = renderReview(
      reviewOf([changed("tool/b\u202Egnp.md", lines), changed("tool/plain.md", lines)]),
      BUDGET,
    );
    const notes = markdown.split("\n").filter((line) => line.includes("read it upstream"));
    expect(notes).toHaveLength(2);
    expect(notes[0]).toContain(
      `\`git diff --text --no-ext-diff --no-textconv aaaaaaa bbbbbbb -- $'skills/tool/b\\xe2\\x80\\xaegnp.md'\` in a clone of \`file:///upstream\`, in bash, zsh or a POSIX.1-2024 sh (for its \`$'…'\` quoting).`,
    );
    expect(notes[1]).toMatch(/-- skills\/tool\/plain\.md` in a clone of `file:\/\/\/upstream`\.$/);
  });
});

describe("the repin review's git diff of a crowd", () => {
  const crowd = (folder: (row: number) => string, from?: (row: number) => string) =>
    Array.from({ length: 25 }, (_, row): FileChange => {
      const file = { ...changed(`${folder(row)}/r${row}.csv`, ["+row"]), movedFrom: from?.(row) };
      return row < 2 ? file : { ...file, content: { kind: "crowd" } };
    });
  const added = (file: string): FileChange => ({ ...changed(file, ["+x"]), kind: "added" });
  const commandOf = (markdown: string) =>
    /^- Content not shown of 23 more files in .*?read them upstream: `([^`]+)`/m.exec(markdown)?.[1];

  it("names the crowd's folder when nothing else changed in it", () => {
    expect(commandOf(renderReview(reviewOf(crowd(() => "set/rows")), BUDGET))).toBe(
      "git diff --text --no-ext-diff --no-textconv aaaaaaa bbbbbbb -- skills/set/rows",
    );
  });

  it("names the files at the crowd's depth when other changes lie deeper, or beside a spread one", () => {
    const deeper = [...crowd(() => "set/rows"), added("set/rows/more/x.md")];
    expect(commandOf(renderReview(reviewOf(deeper), BUDGET))).toBe(
      "git diff --text --no-ext-diff --no-textconv aaaaaaa bbbbbbb -- ':(glob)skills/set/rows/*'",
    );
    const spread = [...crowd((row) => `set/f${row}`), added("set/README.md")];
    expect(commandOf(renderReview(reviewOf(spread), BUDGET))).toBe(
      "git diff --text --no-ext-diff --no-textconv aaaaaaa bbbbbbb -- ':(glob)skills/set/*/*'",
    );
  });

  it("filters by kind when other changes lie among it, unless git shows its files moved", () => {
    const among = [...crowd(() => "set/rows"), added("set/rows/new.md")];
    expect(commandOf(renderReview(reviewOf(among), BUDGET))).toBe(
      "git diff --text --no-ext-diff --no-textconv --no-renames --diff-filter=M aaaaaaa bbbbbbb -- ':(glob)skills/set/rows/*'",
    );
    // Its skill moved: git shows the rows as added at their new paths, which `M` would hide, unless the
    // folder they were in is named too, where git finds them renamed.
    const moved = [
      ...crowd(
        () => "set/rows",
        (row) => `old/rows/r${row}.csv`,
      ),
      added("set/rows/new.md"),
    ];
    expect(commandOf(renderReview(reviewOf(moved), BUDGET))).toBe(
      "git diff --text --no-ext-diff --no-textconv aaaaaaa bbbbbbb -- ':(glob)skills/set/rows/*' skills/old/rows",
    );
  });
});

describe("the repin review's git diff of a crowd that moved", () => {
  const crowd = (from: (row: number) => string) =>
    Array.from({ length: 25 }, (_, row): FileChange => {
      const file = { ...changed(`new/rows/r${row}.csv`, ["+row"]), movedFrom: `${from(row)}/r${row}.csv` };
      return row < 2 ? file : { ...file, content: { kind: "crowd" } };
    });
  const commandOf = (markdown: string) =>
    /^- Content not shown of 23 more files in .*?read them upstream: `([^`]+)`/m.exec(markdown)?.[1];

  it("names the folder it came from, at the crowd's depth when other changes lie there", () => {
    const removed: FileChange = { ...changed("old/rows/keep.md", []), kind: "removed" };
    expect(commandOf(renderReview(reviewOf([...crowd(() => "old/rows"), removed]), BUDGET))).toBe(
      "git diff --text --no-ext-diff --no-textconv aaaaaaa bbbbbbb -- skills/new/rows ':(glob)skills/old/rows/*'",
    );
  });

  // A binary file beside it, which its command shows too, got `--text` from the crowd's text files, and
  // git printed that file byte for byte.
  it("says --text only when every file its command shows is text", () => {
    const binary: FileChange = {
      ...changed("new/rows/image.bin", []),
      kind: "added",
      lines: undefined,
      content: undefined,
    };
    expect(commandOf(renderReview(reviewOf([...crowd(() => "old/rows"), binary]), BUDGET))).toBe(
      "git diff --no-ext-diff --no-textconv aaaaaaa bbbbbbb -- ':(glob)skills/new/rows/*' skills/old/rows",
    );
  });

  // Gathered from two folders, it named its new one alone, and git showed the rows from both added; from
  // five or more it still did.
  it("names each folder it came from, up to four, and the folder holding them past that", () => {
    expect(commandOf(renderReview(reviewOf(crowd((row) => `old/rows${row % 2}`)), BUDGET))).toBe(
      "git diff --text --no-ext-diff --no-textconv aaaaaaa bbbbbbb -- skills/new/rows skills/old/rows0 skills/old/rows1",
    );
    expect(commandOf(renderReview(reviewOf(crowd((row) => `old/rows${row % 5}`)), BUDGET))).toBe(
      "git diff --text --no-ext-diff --no-textconv aaaaaaa bbbbbbb -- skills/new/rows skills/old",
    );
    // Held by the top of the pack alone: the pack's own diff.
    expect(commandOf(renderReview(reviewOf(crowd((row) => `old${row % 5}/rows`)), BUDGET))).toBe(
      "git diff --text --no-ext-diff --no-textconv aaaaaaa bbbbbbb -- skills",
    );
  });
});

describe("the repin review's list of files, when it is cut", () => {
  // A data set of one file a folder (rows/0001/row.txt, …) was no crowd of one folder: cut to fit, the
  // list showed its first files, and a script removed beside it, after it by path, was not named.
  it("names a data set spread over folders in one line, and the file beside it", () => {
    const rows = Array.from({ length: 300 }, (_, row) =>
      changed(`data/rows/${String(row).padStart(4, "0")}/row.txt`, [`+row ${row}`]),
    );
    const removed: FileChange = {
      ...changed("data/scripts/run.sh", []),
      kind: "removed",
      content: undefined,
    };
    const markdown = renderReview(reviewOf([...rows, removed]), 20_000);
    expect(markdown.length).toBeLessThanOrEqual(20_000);
    expect(markdown).toContain("- Lists below show at most");
    expect(markdown).toContain("- removed `pack/data/scripts/run.sh` (+0 −0 lines)");
    expect(markdown).toContain(
      "- changed 300 files in `pack/data/rows/*/`, `0000/row.txt` to `0299/row.txt` (+300 −0 lines)",
    );
    expect(markdown).not.toContain("- changed `pack/data/rows/");
  });

  // The limits stepped from 200 to 50: 250 files of long paths, too many at 200, were cut to 50 and the
  // review filled half its budget.
  it("lists as many files as fit, not the next of a few fixed limits", () => {
    const section = "generated/api/v2/reference-pages/by-module/section";
    const files = Array.from({ length: 250 }, (_, index) => {
      const file = `tool-${Math.floor(index / 10)}/${section}/page-${String(index).padStart(5, "0")}.md`;
      return changed(
        file,
        [0, 1, 2].map((line) => `+line ${line} of ${file}`),
      );
    });
    const markdown = renderReview(reviewOf(files), BUDGET);
    expect(markdown.length).toBeLessThanOrEqual(BUDGET);
    const limit = Number(/^- Lists below show at most (\d+) items each/m.exec(markdown)?.[1]);
    expect(limit).toBeGreaterThan(150);
    expect(markdown.match(/^- changed `pack\/tool-/gm)).toHaveLength(limit);
    // The same cut on every run.
    expect(renderReview(reviewOf(files), BUDGET)).toBe(markdown);
  });

  // Named by text order, rows in folders 1 to 3,000 read `1/…` to `999/…`: as if the last two
  // thousand were not there.
  it("names a crowd's first and last file in natural order", () => {
    // In path order, as the comparison lists them: set-1, set-10, set-100, …, set-99.
    const rows = Array.from({ length: 300 }, (_, row) =>
      changed(`data/set-${row + 1}/row.txt`, ["+row"]),
    ).sort((a, b) => (a.path < b.path ? -1 : 1));
    const markdown = renderReview(reviewOf([changed("scripts/run.sh", ["+echo"]), ...rows]), 20_000);
    expect(markdown).toContain(
      "- changed 300 files in `pack/data/*/`, `set-1/row.txt` to `set-300/row.txt` (+300 −0 lines)",
    );
    expect(naturalOrder("a/x-9.txt", "a/x-10.txt")).toBeLessThan(0);
    expect(naturalOrder("a/x-010.txt", "a/x-9.txt")).toBeGreaterThan(0);
    expect(naturalOrder(`r${"9".repeat(30)}`, `r1${"0".repeat(30)}`)).toBeLessThan(0);
  });

  // Each crowd's line of contents left out, not cut with the lists, would outgrow the budget.
  it("counts the contents left out of as many crowds as the list names", () => {
    const files = Array.from({ length: 200 }, (_, folder) =>
      Array.from({ length: 22 }, (_, row): FileChange => {
        const file = changed(`d${String(folder).padStart(3, "0")}/x/r${row}.txt`, ["+row"]);
        return row < 2 ? file : { ...file, content: { kind: "crowd" } };
      }),
    ).flat();
    const markdown = renderReview(reviewOf(files), 20_000);
    const limit = Number(/^- Lists below show at most (\d+) items each/m.exec(markdown)?.[1]);
    const leftOut = markdown.match(/^- Content not shown of 20 more files in `pack\/d\d+\/x\/`/gm) ?? [];
    expect(leftOut.length).toBeGreaterThan(0);
    expect(leftOut.length).toBeLessThanOrEqual(limit);
    expect(markdown).not.toContain("the review stops here");
  });

  // A crowd moved out of one skill into another was not told from one renamed in its skill; and a crowd
  // renamed as it was counted its files as binary ones, having no lines counted.
  it("names the skills a crowd moved between, and counts files renamed as they were as unchanged", () => {
    const skill = (name: string): Skill => ({
      id: `pack/${name}`,
      name,
      description: name,
      pack: "pack",
      group: undefined,
      folder: name,
      document: { path: "SKILL.md", size: 0, mtimeMs: 0, source: "", identity: "" },
      files: new Map(),
      modelInvocable: true,
      userInvocable: true,
    });
    const served: ServedFile = {
      digest: { size: 4, sha256: "0".repeat(64) },
      notAudited: undefined,
      source: undefined,
      executable: false,
    };
    const renamed = (from: string, to: string, skills?: FileChange["skills"]) =>
      Array.from(
        { length: 300 },
        (_, row): FileChange => ({
          ...changed(`${to}${row}.csv`, []),
          kind: "renamed",
          movedFrom: `${from}${row}.csv`,
          lines: undefined,
          content: undefined,
          sides: { before: served, after: served },
          ...(skills === undefined ? {} : { skills }),
        }),
      );
    // In one folder: those renamed in their skill are a crowd of their own.
    const files = [
      ...renamed("b/old/s", "b/rows/s"),
      ...renamed("a/rows/r", "b/rows/r", { from: skill("a"), to: skill("b") }),
    ];
    const markdown = renderReview(reviewOf(files), 20_000);
    expect(markdown).toContain(
      "- Supporting files: 0 added, 0 removed, 0 changed, 300 renamed, 300 moved into another skill; pack files: none changed.",
    );
    expect(markdown).toContain(
      "- renamed 300 files in `pack/b/rows/`, `s0.csv` to `s299.csv` (300 unchanged)",
    );
    expect(markdown).toContain(
      "- moved 300 files in `pack/b/rows/`, out of skill `pack/a` into skill `pack/b`, `r0.csv` to `r299.csv` (300 unchanged)",
    );
  });

  // `+2999 −2999 lines` and `3001 changed` read beside `3,002 items`: a reader compares them digit by digit.
  it("writes every number with thousands separators", () => {
    const rows = Array.from({ length: 3001 }, (_, row) =>
      changed(`data/rows/row${String(row).padStart(4, "0")}.txt`, ["-old", "+new"]),
    );
    const script = changed("scripts/run.sh", ["+echo"]);
    const markdown = renderReview(reviewOf([script, ...rows]), BUDGET);
    expect(markdown).toContain("<summary>3,002 items</summary>");
    expect(markdown).toContain(
      "- Supporting files: 0 added, 0 removed, 3,002 changed; pack files: none changed.",
    );
    expect(markdown).toContain("- changed 3,001 files in `pack/data/rows/`");
    expect(markdown).toContain("(+6,002 −0 lines)");
    expect(markdown).not.toMatch(/[+−]\d{4}/);
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

// Regression: the review said `skills-mcp sync` lost one of two such paths, which it never writes into one
// folder; a checkout on macOS or Windows does.
describe("the repin review's paths that newly differ only in letter case", () => {
  it("says a checkout on a case-insensitive file system loses one, not sync", () => {
    const review = { ...reviewOf([]), collisions: [{ path: "pack/alpha", other: "pack/Alpha" }] };
    const line = renderReview(review, BUDGET)
      .split("\n")
      .find((text) => text.startsWith("- Paths that newly differ only in letter case"));
    expect(line).toBe(
      "- Paths that newly differ only in letter case, which a checkout on a case-insensitive file system (macOS, Windows) holds as one, losing the other (`skills-mcp sync` never writes both into one folder): `pack/alpha` and `pack/Alpha`",
    );
  });
});
