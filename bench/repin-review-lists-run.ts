/** The work of bench/repin-review-lists.ts (see there), loaded once its command line is read. */
import type { FileChange } from "../scripts/repin-review/file-change.js";
import { type ReviewContent, renderReview, ShownFindings } from "../scripts/repin-review/render.js";

/** What the fetcher gives the review of a pull request body (see REVIEW_BUDGET). */
const BUDGET = 52_000;

function changed(file: string, lines: number): FileChange {
  const diff = Array.from({ length: lines }, (_, line) => `+line ${line} of ${file}`);
  return {
    path: file,
    movedFrom: undefined,
    kind: "changed",
    lines: { added: lines, removed: 0, unchanged: 0 },
    endings: undefined,
    whitespaceOnly: false,
    mode: undefined,
    notAudited: undefined,
    content: { kind: "diff", lines: { lines: diff, total: diff.length } },
    sides: { before: undefined, after: undefined },
  };
}

function reviewOf(files: readonly FileChange[]): ReviewContent {
  const hash = (letter: string) => letter.repeat(40);
  return {
    reviews: [
      {
        source: {
          name: "pack",
          repo: "file:///upstream",
          path: "skills",
          extras: [],
          from: hash("a"),
          to: hash("b"),
        },
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
    shared: [],
    skipped: [],
    collisions: [],
  };
}

export function main(): void {
  // Files of ten to a folder (no crowd), each with a short diff: paths of some 40 characters, then of some 160.
  for (const depth of ["references", "references/generated/api/v2/reference-pages/by-module/section"]) {
    for (const count of [150, 250, 400, 700, 1200, 3000]) {
      const files = Array.from({ length: count }, (_, index) =>
        changed(`tool-${Math.floor(index / 10)}/${depth}/page-${String(index).padStart(5, "0")}.md`, 3),
      );
      const markdown = renderReview(reviewOf(files), BUDGET);
      const limit = /^- Lists below show at most ([\d,]+) items? each/m.exec(markdown)?.[1] ?? "all";
      const named = markdown.match(/^- changed `pack\//gm)?.length ?? 0;
      console.log(
        `${String(count).padStart(5)} files, paths of ${files[0]?.path.length} characters: ${String(markdown.length).padStart(6)} characters, limit ${limit.padStart(4)}, ${named} files named`,
      );
    }
  }
}
