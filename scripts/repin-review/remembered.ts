/** A function whose results are kept: the review's bisection renders it at several limits. */

/** `make` of each key, made once. */
export function remembered<K, V>(make: (key: K) => V): (key: K) => V {
  const made = new Map<K, { readonly value: V }>();
  return (key) => {
    const known = made.get(key);
    if (known !== undefined) return known.value;
    const value = make(key);
    made.set(key, { value });
    return value;
  };
}
