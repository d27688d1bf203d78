/** PowerShell's block comments, `<# … #>`: a download inside one runs nothing. */
import { markdownLines } from "../markdown-lines.js";
import {
  DOUBLE_QUOTE_CODE,
  HASH_CODE,
  type HashComments,
  POWERSHELL_LANGUAGES,
  SINGLE_QUOTE_CODE,
} from "./comments.js";

/**
 * Where the PowerShell block comment holding an offset of `text` ends, undefined when none holds it; asked
 * in order of offset. The comments are found once, when first asked, and only in a text holding a `<#`.
 */
export function blockCommentReading(
  text: string,
  comments: HashComments,
): (offset: number) => number | undefined {
  if ((comments !== "powershell" && comments !== "fenced") || !text.includes("<#")) return () => undefined;
  let regions: readonly number[] | undefined;
  let next = 0;
  return (offset) => {
    regions ??= blockComments(text, comments === "fenced");
    while (next < regions.length && (regions[next + 1] ?? 0) <= offset) next += 2;
    const start = regions[next];
    return start !== undefined && start <= offset ? regions[next + 1] : undefined;
  };
}

/**
 * The PowerShell block comments of `text` that reach into each stretch asked, from `from` to `to` (asked in
 * order, stretches not overlapping), each as its start and end, clipped to the stretch: the comments on a
 * command line, found as {@link blockCommentReading} finds them, strings across lines read.
 */
export function blockCommentsWithin(
  text: string,
  comments: HashComments,
): (from: number, to: number) => readonly (readonly [number, number])[] {
  if ((comments !== "powershell" && comments !== "fenced") || !text.includes("<#")) return () => [];
  let regions: readonly number[] | undefined;
  let next = 0;
  return (from, to) => {
    regions ??= blockComments(text, comments === "fenced");
    while (next < regions.length && (regions[next + 1] ?? 0) <= from) next += 2;
    const within: [number, number][] = [];
    for (let index = next; index < regions.length; index += 2) {
      const start = regions[index] ?? to;
      if (start >= to) break;
      within.push([Math.max(start, from), Math.min(regions[index + 1] ?? to, to)]);
    }
    return within;
  };
}

/**
 * PowerShell's block comments in `text`, each as its start and its end after `#>`, in order: in the whole
 * text, or with `fenced`, in the lines of Markdown's fenced PowerShell blocks, a comment going on across
 * the lines of its block. *Decision*: one never closed (in the file, or in its block) is no comment, so
 * that a `<#` cannot hide what follows it; PowerShell refuses such a script, but a reader copies its lines.
 */
function blockComments(text: string, fenced: boolean): number[] {
  const regions: number[] = [];
  const scan: BlockScan = { open: -1, quote: 0, here: 0 };
  if (!fenced) {
    scanBlockComments(text, 0, text.length, scan, regions);
    return regions;
  }
  for (const line of markdownLines(text)) {
    if (POWERSHELL_LANGUAGES.has(line.language ?? "")) {
      scanBlockComments(text, line.start, line.end, scan, regions);
    } else {
      scan.open = -1;
      scan.quote = 0;
      scan.here = 0;
    }
  }
  return regions;
}

/**
 * Where a scan for block comments is: where the comment open starts (-1 when none is), the quote of the
 * string it is in and that of the here-string it is in (0 when none is).
 */
interface BlockScan {
  open: number;
  quote: number;
  here: number;
}

/**
 * Reads `text` from `from` (a line's start) to `to` a character at a time for block comments, adding each
 * closed one to `regions`: `<#` opens one outside strings and `#` comments, `#>` closes it. A string goes
 * on across lines, as PowerShell's do, and a here-string (`@'`, `@"`) to its `'@` or `"@` at a line's
 * start (past blanks and a quote's `>`): a `<#` inside one is text, and read as a comment a later `#>`
 * closed, it hid the commands between. A quote never closed makes no comment after it: a miss of a
 * comment costs a finding, not a hidden download. A `#` beginning a word starts a comment to the line's end.
 */
function scanBlockComments(text: string, from: number, to: number, scan: BlockScan, regions: number[]): void {
  let lineStart = true;
  for (let index = from; index < to; index++) {
    const code = text.charCodeAt(index);
    const after = index + 1 < to ? text.charCodeAt(index + 1) : -1;
    const atLineStart: boolean = lineStart;
    lineStart = code === NEWLINE_CODE || (atLineStart && LINE_PREFIX_CODES.has(code));
    if (scan.open !== -1) {
      if (code === HASH_CODE && after === GREATER_CODE) {
        regions.push(scan.open, index + 2);
        scan.open = -1;
        index++;
      }
    } else if (scan.here !== 0) {
      if (atLineStart && code === scan.here && after === AT_CODE) {
        scan.here = 0;
        index++;
      }
    } else if (scan.quote !== 0) {
      if (code === scan.quote) scan.quote = 0;
      else if (code === BACKTICK_CODE && scan.quote === DOUBLE_QUOTE_CODE) index++;
    } else if (code === AT_CODE && (after === SINGLE_QUOTE_CODE || after === DOUBLE_QUOTE_CODE)) {
      scan.here = after;
      index++;
    } else if (code === SINGLE_QUOTE_CODE || code === DOUBLE_QUOTE_CODE) {
      scan.quote = code;
    } else if (code === LESS_CODE && after === HASH_CODE) {
      scan.open = index;
      index++;
    } else if (code === HASH_CODE && (index === from || WORD_BEFORE_COMMENT.has(text.charAt(index - 1)))) {
      const newline = text.indexOf("\n", index);
      index = newline === -1 || newline > to ? to : newline - 1;
    }
  }
}

/** What may stand before a here-string's end on its line: blanks, and a Markdown quote's `>`. */
const LINE_PREFIX_CODES: ReadonlySet<number> = new Set([0x20, 0x09, 0x3e]);
const AT_CODE = 0x40;

/** What a `#` starting a PowerShell line comment may follow: a line break, or what {@link commentStart} allows. */
const WORD_BEFORE_COMMENT: ReadonlySet<string> = new Set([
  "\n",
  " ",
  "\t",
  ";",
  "&",
  "|",
  "(",
  ")",
  "{",
  "}",
]);
const NEWLINE_CODE = 0x0a;
const LESS_CODE = 0x3c;
const GREATER_CODE = 0x3e;
const BACKTICK_CODE = 0x60;
