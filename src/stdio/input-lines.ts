import { Transform, type TransformCallback } from "node:stream";

/** What the client sent that is no JSON-RPC message, told as it is read. */
export interface InputLinesEvents {
  /** A line longer than the limit, dropped. */
  readonly tooLong: () => void;
  /** A line that is not blank and was not JSON: its reader, the SDK's transport, skipped it without a word. */
  readonly notJson: () => void;
  /** The `bytes` after the last newline when stdin ended, which the SDK would drop: not passed on. */
  readonly unfinished: (bytes: number) => void;
}

/**
 * Passes stdin on to the SDK's stdio transport in whole lines, each line once its newline has come, except
 * a line longer than `maxLineBytes`: that one is dropped as it streams in. The SDK's own limit closed the
 * whole connection on such a line (and the server exited), after buffering it by copying it anew with every
 * chunk; and the SDK skips a line that is no JSON without a word.
 */
export class InputLines extends Transform {
  /**
   * The start of the current line, from earlier chunks, in `#pendingBytes` of a buffer that doubles as it
   * fills: a line that comes a byte at a time costs its bytes, not a piece of a chunk each.
   */
  #pending = Buffer.alloc(0);
  #pendingBytes = 0;
  /** Whether the rest of the current line, over the limit, is being dropped. */
  #dropping = false;
  #current: Buffer | undefined;
  /** Whether the line being read was JSON, as its reader said. */
  #parsed = false;

  constructor(
    private readonly maxLineBytes: number,
    private readonly events: InputLinesEvents,
  ) {
    // One line a chunk on the way out, so that each `data` event is one message; while the server has
    // stopped reading, at most one line read ahead (by default 16, of up to 10 MiB each).
    super({ readableObjectMode: true, readableHighWaterMark: 1 });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    let from = 0;
    for (let newline = chunk.indexOf(10); newline !== -1; newline = chunk.indexOf(10, from)) {
      if (this.#dropping) this.#dropping = false;
      else if (this.#pendingBytes + newline - from > this.maxLineBytes) this.events.tooLong();
      else if (this.#pendingBytes === 0) this.push(chunk.subarray(from, newline + 1));
      else this.push(this.#finish(chunk.subarray(from, newline + 1)));
      if (this.#pendingBytes > 0) {
        // Let go of the buffer a long line grew.
        this.#pending = Buffer.alloc(0);
        this.#pendingBytes = 0;
      }
      from = newline + 1;
    }
    if (from < chunk.length && !this.#dropping) {
      if (this.#pendingBytes + chunk.length - from > this.maxLineBytes) {
        this.#pending = Buffer.alloc(0);
        this.#pendingBytes = 0;
        this.#dropping = true;
        this.events.tooLong();
      } else {
        this.#keep(chunk.subarray(from));
      }
    }
    done();
  }

  override _flush(done: TransformCallback): void {
    if (firstNotBlank(this.#pending.subarray(0, this.#pendingBytes)) !== undefined) {
      this.events.unfinished(this.#pendingBytes);
    }
    done();
  }

  /**
   * The current line, its start and then `end`: in the buffer its start grew where `end` fits (the buffer
   * is let go of next), else a copy. Copied whole every time, a line of 10 MiB took 10 MiB more.
   */
  #finish(end: Buffer): Buffer {
    if (this.#pending.length - this.#pendingBytes < end.length) {
      return Buffer.concat([this.#pending.subarray(0, this.#pendingBytes), end]);
    }
    end.copy(this.#pending, this.#pendingBytes);
    return this.#pending.subarray(0, this.#pendingBytes + end.length);
  }

  /** Adds `part` to the start of the current line (at most `maxLineBytes` in all). */
  #keep(part: Buffer): void {
    const bytes = this.#pendingBytes + part.length;
    if (bytes > this.#pending.length) {
      const grown = Buffer.allocUnsafe(
        Math.min(Math.max(bytes, 2 * this.#pending.length, 64 * 1024), this.maxLineBytes),
      );
      this.#pending.copy(grown, 0, 0, this.#pendingBytes);
      this.#pending = grown;
    }
    part.copy(this.#pending, this.#pendingBytes);
    this.#pendingBytes = bytes;
  }

  /**
   * Hands each line to the `data` listeners (the SDK's transport, which reads it at once), noting which
   * line it is while they run: the SDK tells of a message it refuses without the message. A line they read
   * without saying it was JSON (`parsed`) is told of as no JSON: the SDK skips one without a word, and
   * finding that out here costs no second parse.
   */
  override emit(event: string | symbol, ...args: unknown[]): boolean {
    if (event !== "data") return super.emit(event, ...args);
    const line = args[0] instanceof Buffer ? args[0] : undefined;
    this.#current = line;
    this.#parsed = false;
    try {
      const read = super.emit(event, ...args);
      if (read && !this.#parsed && line !== undefined && firstNotBlank(line) !== undefined) {
        this.events.notJson();
      }
      return read;
    } finally {
      this.#current = undefined;
    }
  }

  /** Says that the line being read was JSON (a message, or JSON that is none), while it is read. */
  parsed(): void {
    this.#parsed = true;
  }

  /** The line the SDK's transport is reading, while it reads it. */
  get current(): Buffer | undefined {
    return this.#current;
  }
}

/** The first byte of `bytes` other than JSON's blanks (and the CR of a CRLF), if any. */
function firstNotBlank(bytes: Buffer): number | undefined {
  // Indexed: a for-of over a line of 10 MiB of blanks held the event loop some 200 ms, this some 25.
  for (let index = 0; index < bytes.length; index++) {
    const byte = bytes[index];
    if (byte !== 0x20 && byte !== 0x09 && byte !== 0x0d && byte !== 0x0a) return byte;
  }
  return undefined;
}
