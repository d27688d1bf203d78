/**
 * `1 file`, `2 files`: a count and its noun, the noun taking an `s` for any count but 1. For nouns whose
 * plural is so made only: `entry` is written out where it is counted.
 *
 * Imports nothing: the image's skills stage copies this file for the fetcher, without the rest of src/.
 */
export function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}
