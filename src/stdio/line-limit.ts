import { Transform, type TransformCallback } from "node:stream";

/**
 * Passes stdin on to the SDK's stdio transport in whole lines, each line once its newline has come, except
 * a line longer than `maxLineBytes`: that one is dropped as it streams in, and `onTooLong` called once for
 * it. The SDK's own limit closed the whole connection on such a line (and the server exited), after
 * buffering it by copying it anew with every chunk.
 */
export class LineLimit extends Transform {
  /** The start of the current line, from earlier chunks. */
  #pending: Buffer[] = [];
  #pendingBytes = 0;
  /** Whether the rest of the current line, over the limit, is being dropped. */
  #dropping = false;

  constructor(
    private readonly maxLineBytes: number,
    private readonly onTooLong: () => void,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const whole: Buffer[] = [];
    // Lines that begin and end in this chunk are passed on as one slice of it, from `run` to `from`.
    let run = 0;
    let from = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, from)) {
      const started = this.#pendingBytes > 0 || this.#dropping;
      if (started || newline - from > this.maxLineBytes) {
        whole.push(chunk.subarray(run, from));
        run = newline + 1;
        if (this.#dropping) this.#dropping = false;
        else if (this.#pendingBytes + newline - from > this.maxLineBytes) this.onTooLong();
        else whole.push(...this.#pending, chunk.subarray(from, newline + 1));
        this.#pending = [];
        this.#pendingBytes = 0;
      }
      from = newline + 1;
    }
    whole.push(chunk.subarray(run, from));
    if (from < chunk.length && !this.#dropping) {
      this.#pending.push(chunk.subarray(from));
      this.#pendingBytes += chunk.length - from;
      if (this.#pendingBytes > this.maxLineBytes) {
        this.#pending = [];
        this.#pendingBytes = 0;
        this.#dropping = true;
        this.onTooLong();
      }
    }
    const parts = whole.filter((part) => part.length > 0);
    done(null, parts.length > 1 ? Buffer.concat(parts) : parts[0]);
  }
}
