/** List items, quotes and the extensions' containers: their markers at a line's start, and their text columns. */
import { firstPast } from "../sorted.js";
import { isThematicBreak } from "./markdown-blocks.js";

/**
 * `line` read past its quotes' markers (see {@link quoteMarkers}): its indentation as the containers'
 * columns count it, its white space's characters, and whether it is blank.
 */
export function quotedLine(
  written: string,
  containers: readonly number[],
  quotes: readonly number[],
  most: number,
  guesses: readonly number[],
): {
  markers: ReturnType<typeof quoteMarkers>;
  line: string;
  width: number;
  indent: number;
  written: number;
  blank: boolean;
} {
  const markers = quoteMarkers(written, containers, quotes, most, guesses);
  const { line } = markers;
  const { indent: columns, width } = indentation(line);
  const textColumn = markers.columns.at(-1);
  const indent = textColumn === undefined ? columns : textColumn + Math.max(0, columns - markers.textAt);
  const blank = width === line.length || (width === line.length - 1 && line.endsWith("\r"));
  return { markers, line, width, indent, written: columns, blank };
}

/**
 * The `>` markers that start `line`, each a quote's (at most three columns past the text of the container
 * it is in), at most `most` of them: how many are those of the open `quotes` (indexes of `containers`),
 * each indented into the containers around its quote; the line with them read as white space; the text
 * column of each quote (two columns past its `>`, or that of the open quote it is); and where the text of
 * the last starts as written.
 */
function quoteMarkers(
  line: string,
  containers: readonly number[],
  quotes: readonly number[],
  most: number,
  guesses: readonly number[],
): { count: number; matched: number; line: string; columns: number[]; textAt: number } {
  const columns: number[] = [];
  let matched = 0;
  let column = 0;
  /** The column of the last marker as written. */
  let previous = -1;
  let runEnd = 0;
  for (let at = 0; at < line.length && columns.length < most; at++) {
    const code = line.charCodeAt(at);
    if (code === 0x20) column++;
    else if (code === 0x09) column += tabWidthAt(column);
    else if (code !== 0x3e) break;
    else {
      const last = columns.at(-1);
      // The marker's column as the containers' columns count it (`>>`: at the outer quote's text).
      const read = last === undefined ? column : last + Math.max(0, column - previous - 2);
      const open = matched === columns.length ? quotes[matched] : undefined;
      if (
        open !== undefined &&
        read >= (containers[open - 1] ?? 0) &&
        read < (containers[open - 1] ?? 0) + 4
      ) {
        matched++;
        columns.push(containers[open] ?? read + 2);
      } else {
        // A first new one is in the containers its line is indented into, short of the quotes it is not in
        // (in a list item of the last quote matched, too: `>1.`, then `>  >`).
        const sure = Math.min(quotes[matched] ?? containers.length, guesses[0] ?? containers.length);
        const around =
          columns.length > matched ? (last ?? 0) : Math.max(last ?? 0, innermostAt(containers, read, sure));
        if (read - around > 3) break;
        columns.push(read + 2);
      }
      previous = column;
      column++;
      runEnd = at + 1;
    }
  }
  if (columns.length === 0) return { count: 0, matched, line, columns, textAt: 0 };
  const read = `${line.slice(0, runEnd).replaceAll(">", " ")}${line.slice(runEnd)}`;
  return { count: columns.length, matched, line: read, columns, textAt: previous + 2 };
}

/** The columns a tab at `column` takes: to the next multiple of four, as CommonMark reads it. */
export function tabWidthAt(column: number): number {
  return 4 - (column % 4);
}

/**
 * The columns of white space that start `line` (a tab to the next multiple of four, counted from `column`,
 * where the line's first character stands as written), and its characters.
 */
export function indentation(line: string, column = 0): { indent: number; width: number } {
  let indent = 0;
  let width = 0;
  for (; width < line.length; width++) {
    const code = line.charCodeAt(width);
    if (code === 0x20) indent++;
    else if (code === 0x09) indent += tabWidthAt(column + indent);
    else break;
  }
  return { indent, width };
}

/** A list item's marker, a footnote's label, an admonition or a definition, at the start of a line's content. */
const BULLET = /^(?:[-+*]|\d{1,9}[.)])(?=[ \t]|\r?$)/;

/** The list item marker that starts a line's content (`-`, `1.`, `2)`), if any. */
export function listItemMarker(content: string): string | undefined {
  return BULLET.exec(content)?.[0];
}

/**
 * Where the list item markers and quote markers that start a line's content end, each with the white space
 * after it: what `^(?:(?:[-+*]|\d{1,9}[.)])(?:[ \t]+|(?=\r?$))|>[ \t]?)*` matches, read forward (that
 * expression overflowed the stack on a line of millions of markers). With `texts`, where the text of each
 * container they open starts is added to it, in order (one character past an item's marker when indented
 * code follows it), for the first few: more than MAX_ITEMS_ON_A_LINE there means more are left out.
 */
export function containerMarkersEnd(content: string, texts?: number[]): number {
  // A thematic break is no list item (`- --`, `> * * *`): where the run of one mark and white space that
  // ends the line starts, found once, so that only the last few markers are read as a possible break.
  const breakFrom = trailingMarksStart(content);
  let at = 0;
  for (;;) {
    const code = content.charCodeAt(at);
    if (code === 0x3e) {
      at += content[at + 1] === " " || content[at + 1] === "\t" ? 2 : 1;
      if (texts !== undefined && texts.length <= MAX_ITEMS_ON_A_LINE) texts.push(at);
      // Up to three more spaces may stand before the marker of a container in the quote (`>  > a`).
      let next = at;
      while (next - at < 3 && content[next] === " ") next++;
      if (next > at && next < content.length && MARKER_START.includes(content.charAt(next))) at = next;
      continue;
    }
    if (at >= breakFrom && isThematicBreak(content.slice(at))) return at;
    let marker = code === 0x2d || code === 0x2b || code === 0x2a ? at + 1 : at;
    if (marker === at) {
      while (marker - at < 9 && isDigit(content.charCodeAt(marker))) marker++;
      const delimiter = content.charCodeAt(marker);
      marker = marker > at && (delimiter === 0x2e || delimiter === 0x29) ? marker + 1 : at;
    }
    if (marker === at) return at;
    let after = marker;
    while (content[after] === " " || content[after] === "\t") after++;
    if (after > marker) {
      at = after;
      if (texts !== undefined && texts.length <= MAX_ITEMS_ON_A_LINE) {
        texts.push(after - marker > 4 ? marker + 1 : after);
      }
    } else
      return marker === content.length || (content[marker] === "\r" && marker + 1 === content.length)
        ? marker
        : at;
  }
}

/**
 * Where the white space and copies of one mark (`-`, `*`, `_`) that end `content` start: a thematic break
 * can start there or later, nowhere before.
 */
function trailingMarksStart(content: string): number {
  let mark = -1;
  let at = content.length;
  while (at > 0) {
    const code = content.charCodeAt(at - 1);
    if (code === 0x20 || code === 0x09 || code === 0x0d) at--;
    else if (mark === -1 && (code === 0x2d || code === 0x2a || code === 0x5f)) mark = code;
    else if (code === mark) at--;
    else break;
  }
  return at;
}

/** The characters a quote's or list item's marker may start with. */
const MARKER_START = ">-+*0123456789";

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

const FOUR_COLUMN_CONTAINER = /^(?:\[\^[^\]\s]{1,100}\]:|(?:!!!|\?\?\?\+?|===|:)[ \t])/;

/**
 * The container that `content` (a line without its `indent` columns of white space) opens, if any, and
 * the column where its text starts: a list item's after its marker and the one to four spaces after
 * that; a footnote's, an admonition's or a definition's (Markdown extensions) four columns in. `code`
 * when the text after the last item's or quote's marker is indented code (`-     x`, `- >     x`).
 * `written` is the column `content` starts at as written, past quotes' markers too: a tab after a marker
 * goes to the next multiple of four from there (`-→x`: the text three columns past the `-`).
 */
export function containerOpened(
  content: string,
  indent: number,
  written = indent,
): OpenedContainers | undefined {
  const columns: OpenedContainer[] = [];
  // What a list item needs to end a paragraph: a bullet or the number 1, and text after it.
  const interrupts = /^(?:[-+*]|0*1[.)])[ \t]+\S/.test(content);
  let column = indent;
  let at = 0;
  /** The column of `content[at]` as written: where a tab after it goes (a quote's `>` may have none after it). */
  let columnWritten = written;
  // A list item may open another on its own line (`- 1. x`), which opens another…: a few are read.
  while (columns.length < MAX_ITEMS_ON_A_LINE) {
    // A quote in the item (`- > x`): its text two columns past its `>`, and a marker may follow it.
    if (columns.length > 0 && content.charCodeAt(at) === 0x3e) {
      const { indent: gap, width } = indentation(content.slice(at + 1, at + 6), columnWritten + 1);
      column += 2;
      columns.push({ column, quote: true });
      // Five columns of white space read: the marker's own, then four that make indented code.
      at += 1 + width;
      columnWritten += 1 + gap;
      if (gap > 4 && !isBlankFrom(content, at)) {
        return { columns, listItem: true, interrupts, text: content.length, code: true, empty: false };
      }
      const next = content.charCodeAt(at);
      BULLET_AT.lastIndex = at;
      if (gap > 4 || (next !== 0x3e && !BULLET_AT.test(content))) break;
      column += Math.max(0, gap - 1);
      continue;
    }
    BULLET_AT.lastIndex = at;
    const bullet = BULLET_AT.exec(content);
    if (bullet === null || isThematicBreak(at === 0 ? content : content.slice(at))) break;
    const marker = bullet[0].length;
    const { indent: gap, width } = indentation(
      content.slice(at + marker, at + marker + 5),
      columnWritten + marker,
    );
    // Nothing after the marker, or indented code after it: the item's text is one column past it.
    if (gap === 0 || gap > 4 || isBlankFrom(content, at + marker + width)) {
      columns.push({ column: column + marker + 1, quote: false });
      const empty = isBlankFrom(content, at + marker + width);
      return { columns, listItem: true, interrupts, text: content.length, code: gap > 4 && !empty, empty };
    }
    column += marker + gap;
    at += marker + width;
    columnWritten += marker + gap;
    columns.push({ column, quote: false });
  }
  // Past the few read one by one, the rest of the line's markers open one container whose text starts
  // where the line's does: no line in it is read as its indented code, which it may not be (`- ` ten times,
  // `x`, a blank line, then a comment twenty columns in is the tenth item's text, and hidden).
  const rest = columns.length === MAX_ITEMS_ON_A_LINE ? containerMarkersEnd(content.slice(at)) : 0;
  if (rest > 0) {
    for (const end = at + rest; at < end; at++) {
      const width = content.charCodeAt(at) === 0x09 ? tabWidthAt(columnWritten) : 1;
      column += width;
      columnWritten += width;
    }
    columns.push({ column, quote: false });
  }
  if (columns.length > 0) return { columns, listItem: true, interrupts, text: at, code: false, empty: false };
  if (!FOUR_COLUMN_CONTAINER.test(content)) return undefined;
  const opened = [{ column: indent + 4, quote: false }];
  return { columns: opened, listItem: false, interrupts: false, text: 0, code: false, empty: false };
}

/** Whether `content` holds nothing but spaces and tabs from `from` on (and the `\r` of its line break). */
function isBlankFrom(content: string, from: number): boolean {
  for (let at = from; at < content.length; at++) {
    const code = content.charCodeAt(at);
    if (code !== 0x20 && code !== 0x09 && code !== 0x0d) return false;
  }
  return true;
}

/** The containers a line opens (see {@link containerOpened}). */
export interface OpenedContainers {
  readonly columns: readonly OpenedContainer[];
  /** They are list items, and quotes in them; not an extension's container. */
  readonly listItem: boolean;
  /** The first is a list item that may end a paragraph. */
  readonly interrupts: boolean;
  /** Where the text of the last starts in the line's content: its end when there is none, or it is code. */
  readonly text: number;
  /** The text of the last is indented code. */
  readonly code: boolean;
  /** The last is a list item with nothing after its marker (`- `). */
  readonly empty: boolean;
}

/** A container a line opens: the column where its text starts, and whether it is a quote. */
interface OpenedContainer {
  readonly column: number;
  readonly quote: boolean;
}

/**
 * List items, and quotes past those open, read on one line: more are text, so a line's cost stays fixed
 * (see containerOpened) and a line of `>` opens no more than a few.
 */
export const MAX_ITEMS_ON_A_LINE = 8;

const BULLET_AT = /(?:[-+*]|\d{1,9}[.)])(?=[ \t]|\r?$)/y;

/**
 * The text column of the innermost of `containers` (content columns, rising, innermost last) that a line
 * indented `indent` columns is in, or 0: found by halving, as a deep list may leave many open.
 */
export function innermostAt(
  containers: readonly number[],
  indent: number,
  count = containers.length,
): number {
  return containers[firstPast(containers, (column) => column > indent, count) - 1] ?? 0;
}

/** How many of `sorted` (rising) are below `value`: found by halving, as many quotes may be open. */
export function countBelow(sorted: readonly number[], value: number): number {
  return firstPast(sorted, (item) => item >= value);
}

/** A line read past its quotes' markers: see {@link quotedLine}. */
export type QuotedLine = ReturnType<typeof quotedLine>;

/**
 * The containers open as a walk over a file's lines reaches a line (see markdownLines): list items, quotes,
 * footnotes and the like, as the paragraph readers take them too.
 */
export class ContainerStack {
  /** Their text columns, innermost last. */
  readonly containers: number[] = [];
  /** Which of `containers` are quotes, by index: a quote goes on only on a line with its `>` (or lazily). */
  readonly quotes: number[] = [];
  /** Which of `containers` a line opened that goes on with a paragraph: no block, so text ends none. */
  readonly guesses: number[] = [];

  /** The text column of the innermost container open, or 0. */
  get innermost(): number {
    return this.containers.at(-1) ?? 0;
  }

  /** How many of the containers open, outermost first, have their text start at `column` or before it. */
  holding(column: number): number {
    let kept = this.containers.length;
    while (kept > 0 && (this.containers[kept - 1] ?? 0) > column) kept--;
    return kept;
  }

  /** Closes the containers from the `kept`-th on. */
  closeFrom(kept: number): void {
    if (kept >= this.containers.length) return;
    this.containers.length = kept;
    while ((this.quotes.at(-1) ?? -1) >= kept) this.quotes.pop();
    while ((this.guesses.at(-1) ?? -1) >= kept) this.guesses.pop();
  }

  /** Closes the containers whose text starts past `column`. */
  closePast(column: number): void {
    this.closeFrom(this.holding(column));
  }

  /** Closes the containers a line going on with a paragraph seemed to open (see `guesses`). */
  closeGuesses(): void {
    this.closeFrom(this.guesses[0] ?? this.containers.length);
  }

  /**
   * How many of the containers open a line is surely in, `matched` quotes' `>` read on it: not those a
   * line going on with a paragraph seemed to open, nor the quotes from the first whose `>` it lacks.
   */
  surelyIn(matched: number): number {
    const containers = this.containers.length;
    return Math.min(this.guesses[0] ?? containers, this.quotes[matched] ?? containers);
  }

  /**
   * Whether a line indented `indent` columns, whose content opens `container`, opens a list item for
   * sure: not in text that goes on (a paragraph goes on with a line indented four columns past its
   * container, `pastSure`, or one an empty item or a number but 1 cannot end, unless the line is not
   * indented into the innermost container surely open: then the paragraph is not the line's container,
   * and an item opens after that one, whatever its marker).
   */
  opensItem(
    container: OpenedContainers | undefined,
    indent: number,
    pastSure: boolean,
    underParagraph: boolean,
  ): boolean {
    const surelyIn = this.containers[(this.guesses[0] ?? this.containers.length) - 1] ?? 0;
    return (
      container?.listItem === true &&
      indent - innermostAt(this.containers, indent) < 4 &&
      !pastSure &&
      (!underParagraph || container.interrupts || indent < surelyIn)
    );
  }

  /**
   * Opens the containers a line indented `indent` columns opens, `opensItem` telling whether its list item
   * is sure (see {@link opensItem}), `raw` whether it is raw HTML. The index of the empty list item it
   * opens (`- `), or -1.
   */
  openAll(container: OpenedContainers, indent: number, opensItem: boolean, raw: boolean): number {
    // A list item the line opens ends the items it is not indented into (a line going on with a paragraph
    // ends none, whatever it looks like). The extensions' containers are text to CommonMark, which ends
    // nothing: they only ask more of indented code.
    if (container.listItem && opensItem) this.closePast(indent);
    // A quote opens only with an item the line opens for sure: one that a line without its `>` ends is
    // no safe guess (in raw HTML, or in text that goes on, a `>` is text).
    for (const { column, quote } of container.columns) {
      if (!quote || (opensItem && !raw)) this.open(column, quote, container.listItem && !opensItem);
    }
    const last = container.columns.at(-1)?.column;
    return opensItem && container.empty && this.containers.at(-1) === last ? this.containers.length - 1 : -1;
  }

  /** Opens a container whose text starts at `column`, unless that is not past the innermost one's. */
  open(column: number, quote: boolean, guess = false): void {
    if (column <= this.innermost) return;
    if (quote) this.quotes.push(this.containers.length);
    if (guess) this.guesses.push(this.containers.length);
    this.containers.push(column);
  }
}
