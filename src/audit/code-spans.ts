/** Code spans and the comments outside them, read by a forward scanner as CommonMark reads inlines. */
import { indexOf, NOWHERE, type Steps, searchForward } from "./scan.js";

/** Where each comment outside a code span opens from `from` to `to` (see {@link inlineCode}). */
export function* commentsOutsideSpans(
  text: string,
  from: number,
  to: number,
  steps?: Steps,
): Generator<number> {
  for (const found of inlineCode(text, from, to, true, steps)) if (found.comment) yield found.start;
}

/**
 * The code spans from `from` to `to` (a line, or the lines of one paragraph), and with `comments` the
 * HTML comments outside them, in order, as CommonMark reads them left to right: a run of backticks that
 * the next run of exactly as many closes opens a span, whatever lies between (a comment too); a comment
 * that opens first is raw HTML to its `-->`, wherever that is (the end of the text when there is none),
 * and the backticks in it open nothing. A backslash before a run, itself not escaped, makes its first
 * backtick text, outside a span only. Each length of run has its runs in a list that a cursor walks
 * once, and each search goes on from where the last one ended, so the work is linear.
 */
export function* inlineCode(
  text: string,
  from: number,
  to: number,
  comments: boolean,
  steps?: Steps,
): Generator<{ start: number; end: number; comment: boolean }> {
  const part = text.slice(from, to);
  const starts: number[] = [];
  const ends: number[] = [];
  const byLength = new Map<number, { readonly runs: number[]; next: number }>();
  for (const run of backtickRuns(part, steps)) {
    const start = run.start + from;
    const end = run.end + from;
    const runs = byLength.get(end - start)?.runs ?? [];
    if (runs.length === 0) byLength.set(end - start, { runs, next: 0 });
    runs.push(starts.length);
    starts.push(start);
    ends.push(end);
  }
  /** The first run after run `after` of `length` backticks, or -1. */
  const closerOf = (length: number, after: number): number => {
    const same = byLength.get(length);
    if (same === undefined) return -1;
    while ((same.runs[same.next] ?? Number.POSITIVE_INFINITY) <= after) same.next++;
    if (steps) steps.count += 1;
    return same.runs[same.next] ?? -1;
  };
  const commentAfter = searchForward((at) => {
    if (!comments) return NOWHERE;
    const found = indexOf(part, "<!--", at - from, steps);
    return found === NOWHERE ? NOWHERE : found + from;
  });
  let at = from;
  for (let run = 0; ; run++) {
    const comment = commentAfter(at);
    if (comment < to && comment < (starts[run] ?? NOWHERE)) {
      const close = indexOf(text, "-->", comment + 4, steps);
      const end = close === NOWHERE ? text.length : close + 3;
      yield { start: comment, end, comment: true };
      at = end;
      while ((starts[run] ?? NOWHERE) < at) run++;
      run--;
      continue;
    }
    if (run >= starts.length) return;
    const end = ends[run] ?? 0;
    let start = starts[run] ?? 0;
    let backslashes = 0;
    while (start - backslashes > at && text.charCodeAt(start - backslashes - 1) === 0x5c) backslashes++;
    if (steps) steps.count += backslashes;
    if (backslashes % 2 === 1) start++;
    if (start === end) continue;
    const closer = closerOf(end - start, run);
    if (closer === -1) continue;
    const spanEnd = ends[closer] ?? 0;
    yield { start, end: spanEnd, comment: false };
    at = spanEnd;
    run = closer;
  }
}

/** The runs of backticks of `line`, in order. */
function* backtickRuns(line: string, steps?: Steps): Generator<{ start: number; end: number }> {
  let start = line.indexOf("`");
  while (start !== -1) {
    let end = start;
    while (line.charCodeAt(end) === 0x60) end++;
    yield { start, end };
    start = line.indexOf("`", end);
  }
  if (steps) steps.count += line.length + 1;
}
