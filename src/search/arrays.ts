/** A copy of a typed array with room for `size` elements. */
export function grown<T extends Int32Array | Uint8Array>(from: T, size: number): T {
  const to = new (from.constructor as new (size: number) => T)(size);
  to.set(from.subarray(0, Math.min(from.length, size)));
  return to;
}
