/** List items, quotes and the extensions' containers: their markers at a line's start, and their text columns. */
import { firstPast } from "../sorted.js";
import { isThematicBreak } from "./markdown-blocks.js";

/**
 * `line` read past its quotes' markers (see {@link quoteMarkers}): its indentation as the containers'
 * columns count it, its white space's characters, and whether it is blank.
 */
export function quotedLine(
  written: string,
  open: OpenContainers,
  fresh: number,
  guesses: readonly number[],
): {
  markers: ReturnType<typeof quoteMarkers>;
  line: string;
  width: number;
  indent: number;
  written: number;
  blank: boolean;
} {
  const markers = quoteMarkers(written, open, fresh, guesses);
  const { line } = markers;
  const { indent: columns, width } = indentation(line);
  const textColumn = markers.partial?.column ?? markers.columns.at(-1);
  const indent = textColumn === undefined ? columns : textColumn + Math.max(0, columns - markers.textAt);
  const blank = width === line.length || (width === line.length - 1 && line.endsWith("\r"));
  return { markers, line, width, indent, written: columns, blank };
}

/**
 * The `>` markers that start `line`, each a quote's (at most three columns past the text of the container
 * it is in): how many are those of the `open` quotes (a group of them takes as many `>` as it counts),
 * each indented into the containers around its quote; the line with them read as white space; the text
 * column of each quote (two columns past its `>`, or that of the open quote it is); and where the text of
 * the last starts as written. Of the quotes past those open, the first `fresh` are read one by one and
 * the rest counted as one group (`group`, the last column), so that a line of many costs its length and
 * adds one entry; with `fresh` 0 none is read (in code or raw HTML a `>` past the quotes open is text).
 */
function quoteMarkers(
  line: string,
  open: OpenContainers,
  fresh: number,
  guesses: readonly number[],
): {
  count: number;
  matched: number;
  line: string;
  columns: number[];
  textAt: number;
  group: Group | undefined;
  partial: { column: number; group: Group | undefined } | undefined;
} {
  const { containers, quotes } = open;
  const columns: number[] = [];
  let matched = 0;
  let column = 0;
  /** The column of the last marker as written. */
  let previous = -1;
  let runEnd = 0;
  /** The text column of the last marker read, as the containers' columns count it. */
  let last: number | undefined;
  /** The `>` of a group of open quotes read so far, short of all it takes, and the first one's text column. */
  let part = 0;
  let partLow = 0;
  /** Where the markers of the quotes matched whole end: a group matched in part is text when none is new. */
  let wholeEnd = 0;
  let wholePrevious = -1;
  let rest: GroupBuilder | undefined;
  for (let at = 0; at < line.length; at++) {
    const code = line.charCodeAt(at);
    if (code === 0x20) column++;
    else if (code === 0x09) column += tabWidthAt(column);
    else if (code !== 0x3e) break;
    else {
      // The marker's column as the containers' columns count it (`>>`: at the outer quote's text).
      const read = last === undefined ? column : last + Math.max(0, column - previous - 2);
      const index = rest === undefined && matched === columns.length ? quotes[matched] : undefined;
      if (index !== undefined && isMarkerOf(open, index, part, read, last ?? 0)) {
        if (part === 0) partLow = read + 2;
        part++;
        last = read + 2;
        if (part === open.markersOf(index)) {
          matched++;
          part = 0;
          last = containers[index] ?? last;
          columns.push(last);
        }
      } else {
        // Too far in for the rest of a group matched in part, and so for a new quote too.
        if (part > 0) break;
        // A first new one is in the containers its line is indented into, short of the quotes it is not in
        // (in a list item of the last quote matched, too: `>1.`, then `>  >`).
        const sure = Math.min(quotes[matched] ?? containers.length, guesses[0] ?? containers.length);
        const around =
          columns.length > matched || rest !== undefined
            ? (last ?? 0)
            : Math.max(last ?? 0, open.innermostAt(read, sure));
        if (read - around > 3 || fresh === 0) break;
        last = read + 2;
        if (rest === undefined && columns.length - matched < fresh) columns.push(last);
        else {
          rest ??= new GroupBuilder();
          rest.add(last, true);
        }
      }
      previous = column;
      column++;
      runEnd = at + 1;
      if (part === 0 && rest === undefined && columns.length === matched) {
        wholeEnd = runEnd;
        wholePrevious = previous;
      }
    }
  }
  /** The quotes of a group whose `>` the line has only some of: those it is in, unless it goes on lazily. */
  let partial: { column: number; group: Group | undefined } | undefined;
  if (part > 0) {
    if (fresh === 0) {
      // The `>` of a group matched in part are text where no quote opens: what they would open is unsure.
      runEnd = wholeEnd;
      previous = wholePrevious;
    } else {
      const some = new GroupBuilder();
      some.add(partLow, true);
      some.addUneven(last ?? partLow, part - 1);
      partial = { column: some.high, group: some.group() };
    }
  }
  const group = rest?.group();
  if (rest !== undefined) columns.push(rest.high);
  if (columns.length === 0 && partial === undefined) {
    return { count: 0, matched, line, columns, textAt: 0, group, partial };
  }
  return {
    count: columns.length,
    matched,
    line: blankMarkers(line, runEnd),
    columns,
    textAt: previous + 2,
    group,
    partial,
  };
}

/**
 * `line` with the `>` before `end` read as spaces (only spaces, tabs and `>` stand there): built a run of
 * spaces at a time, as replacing millions of `>` one by one took a second.
 */
function blankMarkers(line: string, end: number): string {
  let read = "";
  let from = 0;
  for (let tab = line.indexOf("\t"); tab !== -1 && tab < end; tab = line.indexOf("\t", tab + 1)) {
    read += `${" ".repeat(tab - from)}\t`;
    from = tab + 1;
  }
  return `${read}${" ".repeat(end - from)}${line.slice(end)}`;
}

/**
 * Whether a `>` read at `read` is one of the open quote at `index`, `part` of its `>` read before it (a
 * group's after its first stands past the last one's text `last`, as a quote's in a quote).
 */
function isMarkerOf(open: OpenContainers, index: number, part: number, read: number, last: number): boolean {
  const outer = part > 0 ? last : index > 0 ? (open.containers[index - 1] ?? 0) : 0;
  return read >= outer && read < (part > 0 ? outer + 4 : open.firstMarkerBefore(index));
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
  const opened = new OpenedList();
  // What a list item needs to end a paragraph: a bullet or the number 1, and text after it.
  const interrupts = /^(?:[-+*]|0*1[.)])[ \t]+\S/.test(content);
  // A thematic break is no list item (`- --`): only from here on may the rest of the line be one.
  const breakFrom = trailingMarksStart(content);
  let column = indent;
  let at = 0;
  /** The column of `content[at]` as written: where a tab after it goes (a quote's `>` may have none after it). */
  let columnWritten = written;
  // A list item may open another on its own line (`- 1. x`), which opens another…: each marker is read
  // once, and past a few they are counted as one group (see OpenedList).
  for (;;) {
    // A quote in the item (`- > x`): its text two columns past its `>`, and a marker may follow it.
    if (opened.some && content.charCodeAt(at) === 0x3e) {
      const { indent: gap, width } = indentation(content.slice(at + 1, at + 6), columnWritten + 1);
      column += 2;
      opened.add(column, true);
      // Five columns of white space read: the marker's own, then four that make indented code.
      at += 1 + width;
      columnWritten += 1 + gap;
      if (gap > 4 && !isBlankFrom(content, at)) {
        return opened.read({ listItem: true, interrupts, text: content.length, code: true, empty: false });
      }
      const next = content.charCodeAt(at);
      BULLET_AT.lastIndex = at;
      if (gap > 4 || (next !== 0x3e && !BULLET_AT.test(content))) break;
      column += Math.max(0, gap - 1);
      continue;
    }
    BULLET_AT.lastIndex = at;
    const bullet = BULLET_AT.exec(content);
    if (bullet === null || (at >= breakFrom && isThematicBreak(content.slice(at)))) break;
    const marker = bullet[0].length;
    const { indent: gap, width } = indentation(
      content.slice(at + marker, at + marker + 5),
      columnWritten + marker,
    );
    // Nothing after the marker, or indented code after it: the item's text is one column past it.
    if (gap === 0 || gap > 4 || isBlankFrom(content, at + marker + width)) {
      opened.add(column + marker + 1, false);
      const empty = isBlankFrom(content, at + marker + width);
      return opened.read({
        listItem: true,
        interrupts,
        text: content.length,
        code: gap > 4 && !empty,
        empty,
      });
    }
    column += marker + gap;
    at += marker + width;
    columnWritten += marker + gap;
    opened.add(column, false);
  }
  if (opened.some) return opened.read({ listItem: true, interrupts, text: at, code: false, empty: false });
  if (!FOUR_COLUMN_CONTAINER.test(content)) return undefined;
  const columns = [{ column: indent + 4, quote: false, group: undefined }];
  return { columns, listItem: false, interrupts: false, text: 0, code: false, empty: false };
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

/**
 * A container a line opens: the column where its text starts, whether it is a quote (a group: holds one),
 * and, when it stands for the group of those past the few read one by one, what the group counts.
 */
interface OpenedContainer {
  readonly column: number;
  readonly quote: boolean;
  readonly group: Group | undefined;
}

/**
 * List items and quotes read one by one on a line, past those open: the rest of its markers are counted
 * as one group, so that a line of millions adds one entry to the containers open, not millions.
 */
export const MAX_ITEMS_ON_A_LINE = 8;

/**
 * Containers one line opened past the few read one by one, kept as one entry whose column is the text
 * column of the innermost: the text column of the outermost (`low`) and of the one before the innermost
 * (`before`: the innermost's text may stand further past its marker, `-   x`), the columns between each
 * and the next up to that one when all are alike (items, or quotes) and evenly spaced (0 when not: the
 * text of those between is unknown, and a line indented between is read as at the text of one, so
 * neither as code nor as four columns past), and the `>` a line needs to be in them all.
 */
export interface Group {
  readonly low: number;
  readonly before: number;
  readonly step: number;
  readonly markers: number;
  /** It holds items and quotes both (past the groups of one kind a line makes). */
  readonly mixed: boolean;
}

/** Counts containers into a group: see {@link Group}. */
class GroupBuilder {
  low = 0;
  high = 0;
  #before = 0;
  #step = 0;
  #even = true;
  #count = 0;
  #markers = 0;

  add(column: number, quote: boolean): void {
    if (this.#count === 0) this.low = column;
    else {
      if (this.#count === 1) this.#step = column - this.high;
      else if (this.high - this.#before !== this.#step) this.#even = false;
      if (quote !== this.#markers > 0) this.#even = false;
      this.#before = this.high;
    }
    this.high = column;
    this.#count++;
    if (quote) this.#markers++;
  }

  /** Adds `count` quotes, the last with its text at `high`, whose columns between are not known. */
  addUneven(high: number, count: number): void {
    if (count === 0) return;
    this.#before = this.high;
    this.high = high;
    this.#count += count;
    this.#markers += count;
    this.#even = false;
  }

  /** The group, or undefined when it holds one container only (no group). */
  group(): Group | undefined {
    if (this.#count < 2) return undefined;
    const step = this.#even ? this.#step : 0;
    const mixed = this.#markers > 0 && this.#markers < this.#count;
    return { low: this.low, before: this.#before, step, markers: this.#markers, mixed };
  }

  /** Whether it holds a quote (the first it holds is one, unless past the groups of one kind). */
  get quote(): boolean {
    return this.#markers > 0;
  }

  /** It as the container a line opens: one, or a group. */
  opened(): OpenedContainer {
    return { column: this.high, quote: this.quote, group: this.group() };
  }
}

/**
 * The containers a line opens, the first few one by one and the rest in groups of one kind (items, or
 * quotes: a quote's `>` on the lines after stands past the text of the item before it, which a group of
 * both would not keep), a few of them; past those, the rest as one group of both, not evenly spaced.
 */
class OpenedList {
  readonly #columns: OpenedContainer[] = [];
  #rest: GroupBuilder | undefined;
  #groups = 0;

  /** Whether it holds any. */
  get some(): boolean {
    return this.#columns.length > 0;
  }

  add(column: number, quote: boolean): void {
    if (this.#rest === undefined && this.#columns.length < MAX_ITEMS_ON_A_LINE) {
      this.#columns.push({ column, quote, group: undefined });
      return;
    }
    if (this.#rest !== undefined && this.#rest.quote !== quote && this.#groups < MAX_GROUPS_ON_A_LINE) {
      this.#columns.push(this.#rest.opened());
      this.#rest = undefined;
    }
    if (this.#rest === undefined) {
      this.#rest = new GroupBuilder();
      this.#groups++;
    }
    this.#rest.add(column, quote);
  }

  read(what: Omit<OpenedContainers, "columns">): OpenedContainers {
    const rest = this.#rest;
    if (rest === undefined) return { columns: this.#columns, ...what };
    return { columns: [...this.#columns, rest.opened()], ...what };
  }
}

/** Groups of one kind made on one line past the containers read one by one (see OpenedList). */
const MAX_GROUPS_ON_A_LINE = 4;

/**
 * The containers open, as the walker keeps them (see ContainerStack): their text columns, innermost last,
 * which are quotes and which a guess, the `>` each takes, and the text column a line is in.
 */
export interface OpenContainers {
  readonly containers: readonly number[];
  readonly quotes: readonly number[];
  readonly guesses: readonly number[];
  markersOf(index: number): number;
  firstMarkerBefore(index: number): number;
  innermostAt(indent: number, count?: number): number;
}

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

/**
 * The text column of the container of an evenly spaced `group` that a line indented `indent` columns
 * (past its outermost's text, short of its innermost's) is in.
 */
function textIn(group: Group, indent: number): number {
  return Math.min(group.low + group.step * Math.floor((indent - group.low) / group.step), group.before);
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
export class ContainerStack implements OpenContainers {
  /** Their text columns, innermost last. */
  readonly containers: number[] = [];
  /** Which of `containers` are quotes, by index: a quote goes on only on a line with its `>` (or lazily). */
  readonly quotes: number[] = [];
  /** Which of `containers` a line opened that goes on with a paragraph: no block, so text ends none. */
  readonly guesses: number[] = [];
  /** Which of `containers` are groups (see {@link Group}), by index, rising. */
  /**
   * The group each of `containers` is, by index, or undefined (one container): kept beside them, so that
   * a line's markers ask it in constant time each.
   */
  readonly #groups: (
    | {
        readonly low: number;
        before: number;
        readonly step: number;
        markers: number;
        readonly mixed: boolean;
      }
    | undefined
  )[] = [];

  /** The text column of the innermost container open, or 0. */
  get innermost(): number {
    return this.containers.at(-1) ?? 0;
  }

  /** The `>` a line needs to be in the quote at `index`: one, or as many as its group counts. */
  markersOf(index: number): number {
    return this.#groupAt(index)?.markers ?? 1;
  }

  /**
   * The column before which the first `>` of the quote at `index` stands: three columns past the text of
   * the container around it; in a group of items and quotes both, items may stand before it, so anywhere
   * up to three columns past where the group's last `>` stood.
   */
  firstMarkerBefore(index: number): number {
    const outer = (index > 0 ? (this.containers[index - 1] ?? 0) : 0) + 4;
    const group = this.#groupAt(index);
    return group?.mixed === true ? Math.max(outer, (this.containers[index] ?? 0) + 2) : outer;
  }

  /**
   * Closes the empty list item at `index` (`- `) at the blank line after it, and those in it: of a group
   * whose last it is, only that one when they are evenly spaced, else none (see {@link Group}).
   */
  closeEmptyItem(index: number): void {
    const group = this.#groupAt(index);
    const text = this.containers[index];
    if (group === undefined || text === undefined) this.closeFrom(index);
    else this.closePast(text - 1);
  }

  #groupAt(index: number) {
    return this.#groups[index];
  }

  /**
   * The text column of the innermost of the first `count` containers that a line indented `indent`
   * columns is in, or 0: found by halving, as a deep list may leave many open. In a group, that of the
   * one it is in when they are evenly spaced, else `indent` itself (see {@link Group}).
   */
  innermostAt(indent: number, count = this.containers.length): number {
    const next = firstPast(this.containers, (column) => column > indent, count);
    const group = next < count ? this.#groupAt(next) : undefined;
    if (group === undefined || group.low > indent) return this.containers[next - 1] ?? 0;
    return group.step > 0 ? textIn(group, indent) : indent;
  }

  /** Closes the containers from the `kept`-th on. */
  closeFrom(kept: number): void {
    if (kept >= this.containers.length) return;
    this.containers.length = kept;
    while ((this.quotes.at(-1) ?? -1) >= kept) this.quotes.pop();
    while ((this.guesses.at(-1) ?? -1) >= kept) this.guesses.pop();
    this.#groups.length = kept;
  }

  /**
   * Closes the containers whose text starts past `column`; of a group a line indented into, those past
   * it when they are evenly spaced, else none (see {@link Group}).
   */
  closePast(column: number): void {
    const kept = firstPast(this.containers, (text) => text > column);
    const group = this.#groupAt(kept);
    if (group === undefined || group.low > column) {
      this.closeFrom(kept);
      return;
    }
    this.closeFrom(kept + 1);
    if (group.step === 0) return;
    const text = textIn(group, column);
    this.containers[kept] = text;
    if (group.markers > 0) group.markers = (text - group.low) / group.step + 1;
    group.before = Math.max(group.low, text - group.step);
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
      indent - this.innermostAt(indent) < 4 &&
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
    for (const { column, quote, group } of container.columns) {
      if (!quote || (opensItem && !raw)) this.open(column, quote, container.listItem && !opensItem, group);
    }
    const last = container.columns.at(-1)?.column;
    return opensItem && container.empty && this.containers.at(-1) === last ? this.containers.length - 1 : -1;
  }

  /**
   * Opens a container whose text starts at `column` (the innermost of a `group`), unless that is not past
   * the innermost one's.
   */
  open(column: number, quote: boolean, guess = false, group?: Group): void {
    if (column <= this.innermost) return;
    if (quote) this.quotes.push(this.containers.length);
    if (guess) this.guesses.push(this.containers.length);
    this.#groups.push(group === undefined ? undefined : { ...group });
    this.containers.push(column);
  }
}
