/** A copy of a typed array with room for `size` elements. */
export function grown<T extends Int32Array | Uint8Array>(from: T, size: number): T {
  const to = new (from.constructor as new (size: number) => T)(size);
  to.set(from.subarray(0, Math.min(from.length, size)));
  return to;
}

/** Whether the items never decrease: a binary search needs it. */
export function isAscending(items: Int32Array): boolean {
  for (let i = 1; i < items.length; i++) if ((items[i - 1] as number) > (items[i] as number)) return false;
  return true;
}

/** Whether every item is a valid position in a list of `length`. */
export function allBelow(items: Int32Array, length: number): boolean {
  for (const item of items) if (item < 0 || item >= length) return false;
  return true;
}

/** Offsets of `count` lists into an array of `total` items: from 0 to `total`, never decreasing. */
export function isStarts(starts: Uint32Array | Int32Array, count: number, total: number): boolean {
  if (starts.length !== count + 1 || starts[0] !== 0 || starts[count] !== total) return false;
  for (let i = 0; i < count; i++) if ((starts[i] as number) > (starts[i + 1] as number)) return false;
  return true;
}
