/** The containers open as the walk over a file's lines reaches a line, and the text column a line is in. */
import { firstPast } from "../shared/index.js";
import type { Group, WideGap } from "./container-groups.js";
import type { OpenedContainers } from "./container-opening.js";

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
        readonly wide: readonly WideGap[];
        readonly columns: readonly number[];
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
    return group.step > 0 ? textIn(group, indent) : textInUneven(group, indent);
  }

  /** Closes the containers from the `kept`-th on. */
  closeFrom(kept: number): void {
    if (kept >= this.containers.length) return;
    // Popped, not cut by setting `length`: V8 sets it in a call to its runtime, 4% of a walk whose every
    // other line closes the containers the one before opened.
    while (this.containers.length > kept) this.containers.pop();
    while ((this.quotes.at(-1) ?? -1) >= kept) this.quotes.pop();
    while ((this.guesses.at(-1) ?? -1) >= kept) this.guesses.pop();
    while (this.#groups.length > kept) this.#groups.pop();
  }

  /**
   * Closes the containers whose text starts past `column`; of a group a line indented into, those past
   * it when they are evenly spaced or items, else none (see {@link Group}).
   */
  closePast(column: number): void {
    const kept = firstPast(this.containers, (text) => text > column);
    const group = this.#groupAt(kept);
    if (group === undefined || group.low > column) {
      this.closeFrom(kept);
      return;
    }
    this.closeFrom(kept + 1);
    if (group.step === 0) {
      // Of items, those past the one the line is in end, at the column it is read at (see textInUneven):
      // that of the one it is in, or past it, never short of it. Of quotes, how many `>` those left take
      // is not known: none ends.
      if (group.markers === 0) this.containers[kept] = textInUneven(group, column);
      return;
    }
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

/**
 * The text column of the container of an evenly spaced `group` that a line indented `indent` columns
 * (past its outermost's text, short of its innermost's) is in.
 */
function textIn(group: Group, indent: number): number {
  return Math.min(group.low + group.step * Math.floor((indent - group.low) / group.step), group.before);
}

/**
 * The text column of the container of a `group` not evenly spaced that a line indented `indent` columns
 * (past its outermost's text, short of its innermost's) is in: of items, the last whose text starts at
 * or before it; of quotes, that of the outer side of the wide gap it is in, else `indent` itself (see
 * {@link Group}). Found by halving, as a line may open many.
 */
function textInUneven(group: Group, indent: number): number {
  const { wide, columns } = group;
  if (columns.length > 0) return columns[firstPast(columns, (column) => column > indent) - 1] ?? indent;
  const gap = wide[firstPast(wide, (item) => item.from > indent) - 1];
  return gap !== undefined && indent < gap.to ? gap.from : indent;
}

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
