/** A paragraph read whole, from its first line to the line that ends it, for its code spans and comments. */
import { commentsOutsideSpans, inlineCode } from "./code-spans.js";
import { MAX_ITEMS_ON_A_LINE } from "./container-groups.js";
import { containerMarkersEnd, listItemMarker } from "./container-markers.js";
import { quotedLine } from "./container-quotes.js";
import { innermostAt, type OpenContainers } from "./container-stack.js";
import {
  fenceMarker,
  htmlBlock,
  interruptsParagraph,
  isAtxHeading,
  isSetextUnderline,
  isThematicBreak,
} from "./markdown-blocks.js";
import { indentation, tabWidthAt } from "./markdown-indentation.js";

/**
 * Whether a line whose content (without its indentation) is `content` leaves a paragraph open: text, not
 * a heading (ATX, or setext when `underParagraph`, the line before being text of the same container), a
 * thematic break or a container holding nothing yet.
 */
export function holdsParagraph(content: string, underParagraph: boolean): boolean {
  const markers = containerMarkersEnd(content);
  const inner = textPast(content, markers);
  if (inner === "" || inner === "\r" || isAtxHeading(inner) || isThematicBreak(inner)) return false;
  return !(underParagraph && markers === 0 && isSetextUnderline(inner));
}

/**
 * The text of `content` from `markers` (where its containers' markers end), past up to three columns of
 * white space: a quote's `>` takes one space after it, and the block in it may be indented three more
 * (`>  # x` holds a heading, as CommonMark reads it). Four columns or more are indented code: kept.
 */
function textPast(content: string, markers: number): string {
  const inner = content.slice(markers);
  const { indent, width } = indentation(inner);
  return indent < 4 ? inner.slice(width) : inner;
}

/** A paragraph read as a whole: where it ends, and the comments outside its code spans, asked line by line. */
export interface ParagraphReading {
  /** Where the line after the paragraph starts, or the text's length. */
  readonly end: number;
  /** The first comment outside code that opens at or after `from` and before `to`, or -1; `from` only grows. */
  readonly commentFrom: (from: number, to: number) => number;
}

/** The paragraph whose first line starts at `from`, read for the comments outside its code spans. */
export function readParagraph(
  text: string,
  from: number,
  lineBreak: string,
  column: number,
  open: OpenContainers,
): ParagraphReading {
  const end = paragraphEnd(text, from, lineBreak, column, open);
  const opens = [...commentsOutsideSpans(text, from, end)];
  let next = 0;
  return {
    end,
    commentFrom: (start, to) => {
      while ((opens[next] ?? Number.POSITIVE_INFINITY) < start) next++;
      const open = opens[next] ?? -1;
      return open < to ? open : -1;
    },
  };
}

/** Where a paragraph ends, and its code spans. */
export interface ParagraphSpans {
  readonly end: number;
  readonly spans: readonly { readonly start: number; readonly end: number }[];
}

/**
 * The code spans of the paragraph whose first line starts at `from` (see {@link paragraphEnd}, and its
 * `column` and `open` containers as the walker knows them), read whole as the html-comment rule reads
 * it, and where the paragraph ends: a span may open on one of its lines and close on another, and the
 * backticks in a comment open none.
 */
export function paragraphCodeSpans(
  text: string,
  from: number,
  lineBreak: string,
  column: number,
  open: OpenContainers,
): ParagraphSpans {
  const end = paragraphEnd(text, from, lineBreak, column, open);
  return { end, spans: codeSpansFrom(text, from, end) };
}

/** The code spans from `from` to `to`, as {@link inlineCode} reads them: the backticks in a comment open none. */
export function codeSpansFrom(text: string, from: number, to: number): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  for (const found of inlineCode(text, from, to, true)) {
    if (!found.comment) spans.push({ start: found.start, end: found.end });
  }
  return spans;
}

/**
 * Where the paragraph whose first line starts at `from` ends, as CommonMark's blocks end it: at a blank
 * line, or a line that starts a heading, a thematic break, a fence, an HTML block that may interrupt a
 * paragraph, a deeper quote or a list item (one numbered other than 1, or empty, only on a line outside
 * the paragraph's list item or quote, where it is the next item). A setext underline ends it too: the
 * heading's text is the lines before. A line indented four columns past the text of the paragraph's
 * container goes on with it, whatever it holds (`column`, the walker's, when the first line has no
 * markers of its own; the walker's `open` containers tell how far a line is indented past those it is
 * surely in), as does one without the `>` of a quote opened on the first line's list item, four columns
 * past that `>`.
 */
function paragraphEnd(
  text: string,
  from: number,
  lineBreak: string,
  column: number,
  open: OpenContainers,
): number {
  const firstEnd = lineEndOf(text, from, lineBreak);
  const first = quoted(text.slice(from, firstEnd));
  // A line the walker reads as text may open a block in a quote or list item (`> <!--`): no paragraph.
  if (opensBlock(textPast(first.content, containerMarkersEnd(first.content)))) return firstEnd;
  const firstLine = text.slice(from, firstEnd);
  /** Where the text of each container the first line's markers open starts, in the trimmed line. */
  const texts: number[] = [];
  const markers = containerMarkersEnd(firstLine.trimStart(), texts);
  const indent = indentation(firstLine);
  // Text indented under no marker of its own (`  text`) is no deeper in its container.
  const textColumn = markers === 0 ? column : textColumnAt(firstLine, indent.width + markers);
  // Past a few, the containers are not read apart (see MAX_ITEMS_ON_A_LINE): the innermost's text is.
  const columns =
    texts.length > MAX_ITEMS_ON_A_LINE
      ? []
      : texts.map((text) => textColumnAt(firstLine, indent.width + text));
  /** The quotes the paragraph is in: those that start its first line, and those its items open (`- > a`). */
  let depth = first.depth;
  /** The column of the first quote its items open: a line four columns past it opens no block. */
  let quoteColumn = Number.POSITIVE_INFINITY;
  // The first line's own `>` markers are counted in `first.depth` already.
  for (let at = firstLine.length - first.content.length; at < indent.width + markers; at++) {
    if (firstLine.charCodeAt(at) !== 0x3e) continue;
    if (depth === first.depth) quoteColumn = textColumnAt(firstLine, at);
    depth++;
  }
  for (let start = firstEnd + 1; start < text.length; ) {
    const end = lineEndOf(text, start, lineBreak);
    const line = text.slice(start, end);
    const { depth: lineDepth, content } = quoted(line);
    const lineIndent = indentation(line).indent;
    // Four columns past the text of the innermost container the line is indented into, it opens no block:
    // read so from the first line's containers, or the line's own indentation (the first line is in a
    // container whose text starts there or before).
    const base =
      lineIndent >= textColumn || lineIndent < indent.indent || columns.length === 0
        ? textColumn
        : Math.max(indent.indent, innermostAt(columns, lineIndent));
    const read = readAgainst(line, open);
    const past = read.past;
    // A `>` past the quotes open opens a quote, which ends the paragraph, also one whose `>` is no deeper
    // than the paragraph's but short of the list item its quote is in (`- > a`, then `> b`).
    if (past === OPENS_QUOTE) return start;
    // A `>` four columns in is text, which is no blank line (`    >`): the walker's containers tell.
    const blank = read.blank;
    const continued =
      (lineIndent >= base + 4 || (lineDepth <= first.depth && lineIndent >= quoteColumn + 4) || past >= 4) &&
      !blank;
    // Without the `>` of a quote the paragraph is in, or short of the text of the list item it is in, any
    // list item marker opens an item.
    // In a quote, that is told by the line's indentation past its `>` in the walker's containers' columns.
    const outside = lineDepth < depth || (depth === 0 ? lineIndent < textColumn : read.indent < column);
    // A quote deeper than those the paragraph is in (its first line's items' too: `1. > a`) ends it.
    if (!continued && (lineDepth > depth || endsParagraph(content, outside))) {
      return start;
    }
    start = end + 1;
  }
  return text.length;
}

/** What {@link readAgainst} says of a line whose `>` opens a quote past those open. */
const OPENS_QUOTE = -1;

/**
 * How many columns past the text of the innermost of the `open` containers it is surely in `line` is
 * indented: those whose `>` it has, and the list items it is indented into. Four or more, it opens no
 * block, whatever its text starts with (a lazy line of a paragraph: `> a`, then five spaces and `- b`).
 * OPENS_QUOTE when a `>` on it opens a quote past those open. With it, the column its text starts at,
 * as the containers' columns count it, and whether it holds nothing past its quotes' markers.
 */
function readAgainst(line: string, open: OpenContainers): { past: number; indent: number; blank: boolean } {
  const { containers, quotes, guesses } = open;
  const read = quotedLine(line, open, 1, guesses);
  if (read.markers.count > read.markers.matched)
    return { past: OPENS_QUOTE, indent: read.indent, blank: read.blank };
  const bound = Math.min(quotes[read.markers.matched] ?? containers.length, guesses[0] ?? containers.length);
  const past = read.indent - (read.markers.partial?.column ?? open.innermostAt(read.indent, bound));
  return { past, indent: read.indent, blank: read.blank };
}

/** The column of `offset` in `line` as written: a tab goes to the next multiple of four (`-→x`: x is at 4). */
function textColumnAt(line: string, offset: number): number {
  let column = 0;
  for (let at = 0; at < offset; at++) column += line.charCodeAt(at) === 0x09 ? tabWidthAt(column) : 1;
  return column;
}

function lineEndOf(text: string, from: number, lineBreak: string): number {
  const end = text.indexOf(lineBreak, from);
  return end === -1 ? text.length : end;
}

/** The `>` markers that start `line`, counted, and the content after them and the white space around them. */
function quoted(line: string): { depth: number; content: string } {
  let at = 0;
  let depth = 0;
  for (;;) {
    while (line[at] === " " || line[at] === "\t") at++;
    if (line[at] !== ">") break;
    depth++;
    at++;
  }
  return { depth, content: line.slice(at) };
}

/**
 * Whether a line whose content (past its quote markers) is `content` ends the paragraph before it; any
 * list item marker does on a line `outside` the paragraph's container (a quote without its `>`, or short
 * of the text of the list item), where it opens no text of the paragraph but an item after its container.
 */
export function endsParagraph(content: string, outside: boolean): boolean {
  if (content === "" || content === "\r" || opensBlock(content)) return true;
  const bullet = listItemMarker(content);
  // A setext underline goes on with a paragraph lazily, as its text (`> a`, then `===`): it underlines
  // only a paragraph of its own container. A `-` alone there is an empty list item, which ends it.
  if (isSetextUnderline(content) && (!outside || bullet !== undefined)) return true;
  if (bullet === undefined) return false;
  if (outside) return true;
  // An empty list item interrupts no paragraph.
  if (/^[ \t]*\r?$/.test(content.slice(bullet.length))) return false;
  return !/^\d/.test(bullet) || /^0*1[.)]$/.test(bullet);
}

/** Whether `content` (a line's, past its containers' markers) opens a block that may interrupt a paragraph, other than a list item. */
function opensBlock(content: string): boolean {
  if (interruptsParagraph(content) || fenceMarker(content) !== undefined) return true;
  return content.startsWith("<!--") || htmlBlock(content)?.interrupts === true;
}
