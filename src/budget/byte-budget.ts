/**
 * A budget of bytes shared by work running at once (the inspection's reads of files, the answers that
 * carry a file): each piece takes what it needs before it reads, and gives it back when done; a piece that
 * does not fit waits, in the order it came, so that a large piece is never starved by small ones. A piece
 * larger than the whole budget runs once nothing else holds any, so it is never refused, only run alone.
 */
export class ByteBudget {
  #held = 0;
  #peak = 0;
  readonly #waiting: { readonly bytes: number; readonly grant: () => void }[] = [];

  constructor(readonly limit: number) {}

  /** The most bytes held at once so far. */
  get peak(): number {
    return this.#peak;
  }

  /**
   * Resolves once `bytes` may be held, with the function that gives them back (once); at once for 0,
   * which never waits.
   */
  async take(bytes: number): Promise<() => void> {
    if (bytes === 0) return () => {};
    if (this.#waiting.length > 0 || !this.#fits(bytes)) {
      await new Promise<void>((grant) => this.#waiting.push({ bytes, grant }));
    } else {
      this.#hold(bytes);
    }
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.#held -= bytes;
      this.#grantWaiting();
    };
  }

  #fits(bytes: number): boolean {
    return this.#held === 0 || this.#held + bytes <= this.limit;
  }

  #hold(bytes: number): void {
    this.#held += bytes;
    this.#peak = Math.max(this.#peak, this.#held);
  }

  #grantWaiting(): void {
    for (let next = this.#waiting[0]; next !== undefined && this.#fits(next.bytes); next = this.#waiting[0]) {
      this.#waiting.shift();
      this.#hold(next.bytes);
      next.grant();
    }
  }
}
