/** The containers a line's content opens: list items, quotes in them, and the extensions' containers. */
import { GroupBuilder, MAX_ITEMS_ON_A_LINE, type OpenedContainer } from "./container-groups.js";
import { trailingMarksStart } from "./container-markers.js";
import { isThematicBreak } from "./markdown-blocks.js";
import { indentation } from "./markdown-indentation.js";

/** A footnote's label, an admonition or a definition opening a line's content: text four columns in. */
const FOUR_COLUMN_CONTAINER = /^(?:\[\^[^\]\s]{1,100}\]:|(?:!!!|\?\?\?\+?|===|:)[ \t])/;

/** A list item's marker where `lastIndex` stands. */
const BULLET_AT = /(?:[-+*]|\d{1,9}[.)])(?=[ \t]|\r?$)/y;

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
