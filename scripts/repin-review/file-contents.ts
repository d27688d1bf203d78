/** The contents the review shows of added and changed files, within one budget of characters. */
import { unifiedDiff, withLineFeeds } from "./diff.js";
import { excerptOf } from "./excerpt.js";
import { CONTENT_BYTES, type FileChange, type FileContent, showsContent } from "./file-change.js";
import { type ServedFile, textOf } from "./served.js";

/**
 * The most characters of supporting and pack files' contents the review keeps, over all its packs: what
 * its widest room shows of them (see CONTENT_CHARS in file-lists.ts). Past it, files are read no more.
 */
export const KEPT_CONTENT_CHARS = 20_000;
/** A file's content is not begun with less room than this left: a few lines tell nothing. */
const MIN_CONTENT_CHARS = 200;

/** How many characters of file contents the review may still keep, over every pack. */
interface ContentBudget {
  left: number;
}

/**
 * `files` (every pack's, in the order the review lists them) with the content of each added or changed
 * text file, read again one at a time, while `budget` has room: past it, `not kept`. Each keeps at most
 * its fair share of what is left (see {@link contentShare}), so that one large file does not leave the
 * files after it, in its pack or the next, unshown. Each costs linear work in its size (a diff within
 * UNIFIED_LIMITS).
 */
export async function keepContents(
  files: readonly FileChange[],
  budget: ContentBudget,
  between: () => Promise<void>,
): Promise<FileChange[]> {
  const kept: FileChange[] = [];
  let toKeep = files.filter(showsContent).length;
  for (const file of files) {
    if (!showsContent(file)) {
      kept.push(file);
      continue;
    }
    const share = contentShare(budget.left, toKeep);
    toKeep -= 1;
    if (share === 0) {
      kept.push({ ...file, content: { kind: "not kept" } });
      continue;
    }
    await between();
    const content = contentOf(file.sides.before, file.sides.after);
    if (!("lines" in content)) {
      kept.push({ ...file, content });
      continue;
    }
    const lines = firstLines(content.lines.lines, share);
    budget.left -= sum(lines.map((line) => line.length + 1));
    kept.push({ ...file, content: { ...content, lines: { lines, total: content.lines.total } } });
  }
  return kept;
}

/**
 * The characters of contents one file may take of `left`, with `files` (it included) still to show: an
 * even share, but at least MIN_CONTENT_CHARS (a few lines tell nothing), and none once less than that
 * is left. What a file does not use of its share goes to the files after it.
 */
export function contentShare(left: number, files: number): number {
  if (left < MIN_CONTENT_CHARS) return 0;
  return Math.min(left, Math.max(MIN_CONTENT_CHARS, Math.floor(left / Math.max(1, files))));
}

/**
 * The first `lines` that fit in `chars`, a newline after each; a first line longer than that is cut to
 * fit and ends in `…`, so that a one-line (minified) file shows its start, and shows it cut.
 */
function firstLines(lines: readonly string[], chars: number): string[] {
  const shown: string[] = [];
  let size = 0;
  for (const line of lines) {
    if (size + line.length + 1 > chars) {
      if (shown.length === 0) shown.push(`${[...line].slice(0, chars - 2).join("")}…`);
      break;
    }
    shown.push(line);
    size += line.length + 1;
  }
  return shown;
}

function contentOf(before: ServedFile | undefined, after: ServedFile | undefined): FileContent {
  const size = Math.max(before?.digest?.size ?? 0, after?.digest?.size ?? 0);
  if (size > CONTENT_BYTES) return { kind: "too large" };
  const now = withLineFeeds(textOf(after) ?? "");
  if (before === undefined)
    return { kind: "text", lines: excerptOf(now === "" ? [] : now.replace(/\n$/, "").split("\n")) };
  const hunks = unifiedDiff(withLineFeeds(textOf(before) ?? ""), now);
  return hunks === undefined ? { kind: "too different" } : { kind: "diff", lines: excerptOf(hunks) };
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}
