/**
 * How many bytes of files the answers being made or sent may hold at once, over every request: one read
 * of the largest file a read carries. An answer spells its file again several times before it is sent (as text or
 * base64, as JSON, as bytes), some five times its size in all, so that parallel reads of large files would
 * otherwise take memory without bound (32 reads of a 15 MB file took a server past 1 GB).
 */
export const ANSWER_FILE_BYTES = 8 * 1024 * 1024;

/**
 * The bytes of files that answers being made and sent hold, within a budget: a request waits, in the order
 * it came, until its answer's share fits in what the others leave. Requests whose answers hold no file
 * never wait.
 */
export class FileBytesBudget {
  #free: number;
  readonly #waiting: { readonly bytes: number; readonly start: () => void }[] = [];

  constructor(readonly bytes: number = ANSWER_FILE_BYTES) {
    this.#free = bytes;
  }

  /**
   * Resolves once `bytes` fit in the budget, with the function that frees them (which does nothing once
   * called); at once for 0. `bytes` must not exceed the whole budget.
   */
  async take(bytes: number): Promise<() => void> {
    if (bytes === 0) return () => {};
    if (bytes > this.bytes) throw new RangeError(`${bytes} bytes exceed the whole budget of ${this.bytes}`);
    if (this.#waiting.length === 0 && bytes <= this.#free) this.#free -= bytes;
    else await new Promise<void>((start) => this.#waiting.push({ bytes, start }));
    let taken = true;
    return () => {
      if (!taken) return;
      taken = false;
      this.#free += bytes;
      this.#startWaiting();
    };
  }

  /** Starts the requests at the head of the line whose shares fit now; the first that does not waits. */
  #startWaiting(): void {
    for (
      let next = this.#waiting[0];
      next !== undefined && next.bytes <= this.#free;
      next = this.#waiting[0]
    ) {
      this.#waiting.shift();
      this.#free -= next.bytes;
      next.start();
    }
  }
}
