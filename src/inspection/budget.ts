/**
 * A budget of bytes shared by work running at once: each piece takes what it needs before it reads, and
 * gives it back when done; a piece that does not fit waits, in turn. A piece larger than the whole budget
 * runs once nothing else holds any, so it is never refused, only run alone.
 */
export class ByteBudget {
  readonly #limit: number;
  #held = 0;
  #peak = 0;
  readonly #waiting: { readonly bytes: number; readonly grant: () => void }[] = [];

  constructor(limit: number) {
    this.#limit = limit;
  }

  /** The most bytes held at once so far. */
  get peak(): number {
    return this.#peak;
  }

  /** Resolves once `bytes` may be held, with the function that gives them back (once). */
  async take(bytes: number): Promise<() => void> {
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
    return this.#held === 0 || this.#held + bytes <= this.#limit;
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
