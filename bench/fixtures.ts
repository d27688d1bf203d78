/** A request of the throughput benchmark and the answer the real server gave it, replayed by the ceiling. */
export interface Fixture {
  readonly id: string;
  readonly status: number;
  readonly contentType: string;
  /** The answer's bytes, base64. */
  readonly body: string;
}

/** Where the ceiling serves a fixture. */
export function ceilingPath(id: string): string {
  return `/ceiling/${id}`;
}
