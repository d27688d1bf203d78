/**
 * Levenshtein distance between `a` and `b` (the fewest one-character insertions, deletions and
 * substitutions), or `limit + 1` as soon as it must exceed `limit` (two rows, and a stop once a whole row
 * is past the limit): selectors and skill names a slip away are found with it.
 */
export function editDistance(a: string, b: string, limit = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let current = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowBest = i;
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      const distance = Math.min(substitution, (previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1);
      current[j] = distance;
      rowBest = Math.min(rowBest, distance);
    }
    if (rowBest > limit) return limit + 1;
    [previous, current] = [current, previous];
  }
  return previous[b.length] ?? limit + 1;
}

/**
 * The names of `candidates` fewest edits from `given` (case aside), in their order, if a slip away: a
 * letter in a name of up to five, two in a longer one. None when farther: more would be a guess.
 */
export function closestBySlip(given: string, candidates: Iterable<string>): string[] {
  const wanted = given.toLowerCase();
  let best = wanted.length <= 5 ? 1 : 2;
  let closest: string[] = [];
  for (const name of candidates) {
    const distance = editDistance(wanted, name.toLowerCase(), best);
    if (distance < best) [best, closest] = [distance, []];
    if (distance === best) closest.push(name);
  }
  return closest;
}
