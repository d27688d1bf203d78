/** How the catalog orders text, and finds its place in what it ordered. */

/**
 * Orders strings by UTF-16 code units, the same on every machine (no locale): how the catalog sorts
 * paths and names, and how the audit and the scripts that print it sort theirs.
 */
export function compareText(a: string, b: string): number {
  if (a === b) return 0;
  return a < b ? -1 : 1;
}

/**
 * The index of the first of `sorted` (up to `end`) that `isPast` holds for, when it holds for every one
 * after it too (a partition point), found by halving; `end` when it holds for none.
 */
export function firstPast<Item>(
  sorted: ArrayLike<Item>,
  isPast: (item: Item) => boolean,
  end = sorted.length,
): number {
  let low = 0;
  let high = end;
  while (low < high) {
    const middle = (low + high) >>> 1;
    const item = sorted[middle];
    if (item === undefined || isPast(item)) high = middle;
    else low = middle + 1;
  }
  return low;
}
