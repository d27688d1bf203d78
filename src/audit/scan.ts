/**
 * What the audit's hand-written scanners share. The rules read untrusted text, so each scanner moves
 * forward and never searches the same stretch of text twice: its work is linear in the text, which a
 * backtracking regex cannot promise (`[a](http://x` repeated made one regex quadratic).
 */

/**
 * Counts the characters a scanner looks at: the tests pass one in to prove a scanner linear without a
 * clock (doubling the text must about double the count). The rules pass none.
 */
export interface Steps {
  count: number;
}

/** Whether the UTF-16 unit `code` is white space as a regular expression's `\s` means it. */
export function isSpace(code: number): boolean {
  if (code <= 0x20) return code === 0x20 || (code >= 0x09 && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

/** The index just past the white space that starts at `from` (`from` itself when there is none). */
export function skipSpaces(text: string, from: number, steps?: Steps): number {
  let index = from;
  while (index < text.length && isSpace(text.charCodeAt(index))) index++;
  if (steps) steps.count += index - from + 1;
  return index;
}

/** No match: greater than every index, so a search that found nothing is never repeated. */
export const NOWHERE = Number.POSITIVE_INFINITY;

/**
 * `find` (the first index at or after a position where something is, or {@link NOWHERE}) remembered for
 * a scanner that asks from positions that only grow: it searches again only once a position passes what
 * the last search found, so however often it is asked, each stretch of text is searched once.
 */
export function searchForward(find: (from: number) => number): (from: number) => number {
  let asked = Number.NEGATIVE_INFINITY;
  let found = -1;
  return (from) => {
    // Asked from further back than before, the answer found may skip a match: search again.
    if (from < asked || found < from) found = find(from);
    asked = from;
    return found;
  };
}

/** The first index of `needle` at or after `from`, or {@link NOWHERE}. */
export function indexOf(text: string, needle: string, from: number, steps?: Steps): number {
  const found = text.indexOf(needle, from);
  if (steps) steps.count += (found === -1 ? text.length : found) - from + 1;
  return found === -1 ? NOWHERE : found;
}

/**
 * The first match of `pattern` (global, and free of quantifiers: a fixed string such as `/<a\s/gi`, so
 * its search is linear) at or after `from`, or {@link NOWHERE}.
 */
export function matchFrom(text: string, pattern: RegExp, from: number, steps?: Steps): number {
  pattern.lastIndex = from;
  const match = pattern.exec(text);
  const found = match === null ? NOWHERE : match.index;
  if (steps) steps.count += (match === null ? text.length : found) - from + 1;
  return found;
}
