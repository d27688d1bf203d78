/** A line read past the `>` of its quotes: those it goes on in, those it opens, and its indentation. */
import { type Group, GroupBuilder } from "./container-groups.js";
import type { OpenContainers } from "./container-stack.js";
import { indentation, tabWidthAt } from "./markdown-indentation.js";

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

/** A line read past its quotes' markers: see {@link quotedLine}. */
export type QuotedLine = ReturnType<typeof quotedLine>;

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
