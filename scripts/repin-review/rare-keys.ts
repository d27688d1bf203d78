/**
 * How many of an added thing's keys each removed one holds, counting only the keys few removed things hold
 * (by index in `removed`, in the order first met); `common` is called with each key held by more.
 */
type SharedRareKeys<K> = (keys: Iterable<K>, common?: (key: K) => void) => Map<number, number>;

/**
 * The review pairs removed things (skills, files) with added ones by the keys they share (lines, hashed
 * pieces), comparing an added one only with the removed ones sharing the most uncommon keys with it, so
 * that the work grows with the keys, not with the product of the numbers of things. A key held by more
 * than `limit` removed things is boilerplate and names none of them. `keysOf` gives each key of a thing
 * once, as must the keys given to the counter.
 */
export function rareKeyIndex<T, K>(
  removed: readonly T[],
  keysOf: (thing: T) => Iterable<K>,
  limit: number,
): SharedRareKeys<K> {
  // A key held by one thing is kept as its index alone, as most are: the index holds little more than
  // the keys.
  const holders = new Map<K, number | number[]>();
  removed.forEach((thing, index) => {
    for (const key of keysOf(thing)) {
      const held = holders.get(key);
      if (held === undefined) holders.set(key, index);
      else if (typeof held === "number") holders.set(key, [held, index]);
      // One past the limit is enough to know the key is common.
      else if (held.length <= limit) held.push(index);
    }
  });
  return (keys, common) => {
    const shared = new Map<number, number>();
    for (const key of keys) {
      const held = holders.get(key);
      if (typeof held === "number") shared.set(held, (shared.get(held) ?? 0) + 1);
      else if (held === undefined) continue;
      else if (held.length > limit) common?.(key);
      else for (const index of held) shared.set(index, (shared.get(index) ?? 0) + 1);
    }
    return shared;
  };
}
