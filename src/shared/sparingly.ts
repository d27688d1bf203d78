/**
 * Whether the `count`th time a warning's cause recurs is said: the first 10, then the 100th, the 1,000th…
 * (each with the count so far). Said every time, a client or a load repeating one mistake filled the log.
 */
export function isSaidSparingly(count: number): boolean {
  return count <= 10 || /^10+$/.test(String(count));
}
