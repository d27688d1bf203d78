/**
 * Words for counts and lists.
 *
 * `1 file`, `2 files`: a count and its noun, the noun taking an `s` for any count but 1. For nouns whose
 * plural is so made only: `entry` is written out where it is counted.
 *
 * Imports nothing: the image's skills stage copies this file for the fetcher, without the rest of src/.
 */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** `items` in a sentence: `a`, `a and b`, `a, b and c`. */
export function listedWithAnd(items: readonly string[]): string {
  return items.length < 2 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} and ${items.at(-1)}`;
}
