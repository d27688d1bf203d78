/** Containers one line opens past the few read one by one, counted as one group: a line costs its length. */

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
 * neither as code nor as four columns past, unless it is in one of the `wide` gaps), and the `>` a line
 * needs to be in them all.
 */
export interface Group {
  readonly low: number;
  readonly before: number;
  readonly step: number;
  readonly markers: number;
  /** It holds items and quotes both (past the groups of one kind a line makes). */
  readonly mixed: boolean;
  /**
   * Where the text columns of two containers after one another are more than four apart (`1.    ` after
   * `- `), each such pair's, rising: a line indented between them is in the outer one, four columns or more
   * past its text maybe (code). Kept in a group not evenly spaced that holds quotes (one of items keeps
   * every column), where a line was read as at the text of one: a comment in such code was flagged though
   * shown. Each takes five columns of the line, at least.
   */
  readonly wide: readonly WideGap[];
  /**
   * The text column of each container, rising, in a group of list items not evenly spaced: a line indented
   * between two is in the outer one, as CommonMark reads it, and four columns past its text is code (read
   * as at the text of one, such a line was flagged though shown). Empty in any other group. One entry per
   * marker, each of which takes two columns of the line at least: linear in it.
   */
  readonly columns: readonly number[];
}

/** Two text columns of a group more than four apart, with none between: see {@link Group}. */
export interface WideGap {
  readonly from: number;
  readonly to: number;
}

/**
 * A container a line opens: the column where its text starts, whether it is a quote (a group: holds one),
 * and, when it stands for the group of those past the few read one by one, what the group counts.
 */
export interface OpenedContainer {
  readonly column: number;
  readonly quote: boolean;
  readonly group: Group | undefined;
}

/** Counts containers into a group: see {@link Group}. */
export class GroupBuilder {
  low = 0;
  high = 0;
  #before = 0;
  #step = 0;
  #even = true;
  #count = 0;
  #markers = 0;
  /** The wide gaps known (see {@link Group}); none across the columns `addUneven` counts without them. */
  readonly #wide: WideGap[] = [];
  /** The text columns added one by one (see {@link Group}). */
  readonly #columns: number[] = [];

  add(column: number, quote: boolean): void {
    if (this.#count === 0) this.low = column;
    else {
      if (column - this.high > 4) this.#wide.push({ from: this.high, to: column });
      if (this.#count === 1) this.#step = column - this.high;
      else if (this.high - this.#before !== this.#step) this.#even = false;
      if (quote !== this.#markers > 0) this.#even = false;
      this.#before = this.high;
    }
    this.high = column;
    this.#count++;
    this.#columns.push(column);
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
    // Evenly spaced, the column of each is known: no gap needs keeping.
    const columns = step > 0 || this.#markers > 0 ? [] : this.#columns;
    const wide = step > 0 || columns.length > 0 ? [] : this.#wide;
    return { low: this.low, before: this.#before, step, markers: this.#markers, mixed, wide, columns };
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
