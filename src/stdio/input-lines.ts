import { Transform, type TransformCallback } from "node:stream";
import { firstNotBlank, holdsMoreAfterValue, JsonExtent, notUtf8At } from "../json-rpc/index.js";

/**
 * Why a line is not JSON, where it is a common mistake: it begins with a UTF-8 byte-order mark (`bom`), or it
 * holds a whole JSON object or array and more after it, two messages on one line (`more`).
 */
export type NotJsonWhy = "bom" | "more" | undefined;

/** What the client sent that is no JSON-RPC message, told as it is read. */
interface InputLinesEvents {
  /** A line longer than the limit, dropped. */
  readonly tooLong: () => void;
  /**
   * A line that is not blank and was not JSON: its reader, the SDK's transport, skipped it without a word.
   * `why` names the client's mistake where it is a common one.
   */
  readonly notJson: (why: NotJsonWhy) => void;
  /**
   * A line that is not UTF-8 from byte `at` (counting from 0), not passed on: the SDK decoded it with each
   * such byte turned to U+FFFD and served it as if it said something else.
   */
  readonly notUtf8: (line: Buffer, at: number) => void;
  /** The `bytes` after the last newline when stdin ended, which the SDK would drop: not passed on. */
  readonly unfinished: (bytes: number) => void;
}

/**
 * Passes stdin on to the SDK's stdio transport in whole lines, each line once its newline has come (or a lone
 * CR where it can end no JSON but a line: see `#endsLine`), except a line longer than `maxLineBytes`: that
 * one is dropped as it streams in. The SDK's own limit closed the whole connection on such a line (and the
 * server exited), after buffering it by copying it anew with every chunk; and the SDK skips a line that is no
 * JSON without a word.
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
  /** How far the current line is a JSON object or array, as far as it was read for a lone CR. */
  #extent = new JsonExtent();
  /** The bytes of the current line dropped so far, while it is being dropped. */
  #dropped = 0;
  /** Whether the last chunk ended with a CR that ended a line: an LF that begins the next completes it. */
  #crEnded = false;
  /**
   * Whether the last chunk ended with a lone CR that did not end the line, which the next chunk's first
   * byte may make its end (see `#endsLine`).
   */
  #crOpen = false;

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
    if (this.#crEnded && chunk.length > 0) {
      this.#crEnded = false;
      // The LF of a CRLF whose CR, the last byte of the chunk before, was taken for the line's end.
      if (chunk[0] === LF) from = 1;
    } else if (this.#crOpen && chunk.length > 0) {
      this.#crOpen = false;
      // The line so far ends with that CR: ended there, with nothing of this chunk.
      if (this.#extent.endsBefore(chunk[0])) this.#endLine(chunk, 0, -1, true);
    }
    // Each searched for once past the last found, so that a chunk of many lines is read in linear time.
    let newline = chunk.indexOf(LF, from);
    let cr = chunk.indexOf(CR, from);
    for (;;) {
      const end = newline === -1 ? chunk.length : newline;
      while (cr !== -1 && cr < end && !this.#endsLine(chunk, from, cr)) cr = chunk.indexOf(CR, cr + 1);
      if (cr !== -1 && cr < end) {
        this.#endLine(chunk, from, cr, true);
        from = cr + 1;
        if (from === chunk.length) this.#crEnded = true;
        cr = chunk.indexOf(CR, from);
        continue;
      }
      if (newline === -1) break;
      this.#endLine(chunk, from, newline, false);
      from = newline + 1;
      newline = chunk.indexOf(LF, from);
      if (cr !== -1 && cr < from) cr = chunk.indexOf(CR, from);
    }
    if (from < chunk.length) {
      if (!this.#dropping && this.#pendingBytes + chunk.length - from > this.maxLineBytes) {
        // Read as it goes (its bytes are not kept), so that a lone CR after it ends it as it would have.
        this.#scanTo(chunk, from, chunk.length);
        this.#dropped = this.#pendingBytes;
        this.#pending = Buffer.alloc(0);
        this.#pendingBytes = 0;
        this.#dropping = true;
        this.events.tooLong();
      }
      if (this.#dropping) {
        this.#scanTo(chunk, from, chunk.length);
        this.#dropped += chunk.length - from;
      } else {
        this.#keep(chunk.subarray(from));
      }
    }
    done();
  }

  /**
   * Ends the current line, its start and then `chunk` up to `at` (its LF, or a lone CR that ends it; -1
   * when that CR ends its start): passed on with its end, as a line ended by CRLF, unless over the limit.
   */
  #endLine(chunk: Buffer, from: number, at: number, cr: boolean): void {
    if (this.#dropping) this.#dropping = false;
    else if (this.#pendingBytes + at - from > this.maxLineBytes) this.events.tooLong();
    else if (cr) {
      this.#pass(
        Buffer.concat([this.#pending.subarray(0, this.#pendingBytes), chunk.subarray(from, at + 1), LF_BYTE]),
      );
    } else if (this.#pendingBytes === 0) this.#pass(chunk.subarray(from, at + 1));
    else this.#pass(this.#finish(chunk.subarray(from, at + 1)));
    if (this.#pendingBytes > 0) {
      // Let go of the buffer a long line grew.
      this.#pending = Buffer.alloc(0);
      this.#pendingBytes = 0;
    }
    this.#extent = new JsonExtent();
    this.#dropped = 0;
  }

  /** Passes `line` on, unless it is not UTF-8 (told of instead). */
  #pass(line: Buffer): void {
    const notUtf8 = notUtf8At(line);
    if (notUtf8 === undefined) this.push(line);
    else this.events.notUtf8(line, notUtf8);
  }

  /**
   * Whether the CR at `cr` in `chunk` (the current line from `from`) ends the line: one not followed by LF,
   * after a whole JSON object or array, or followed by `{` or `[` where no JSON value can begin. MCP ends
   * a message with LF alone; but a client that ends its lines with CR (old Mac OS style, some bridges
   * from Windows) waited for an answer that never came, its messages held until stdin closed and then
   * dropped, and one that sent a broken message (`{"id":1,"method":"ping"` and CR) had every message
   * after it held with it. Taking either CR for the line's end misreads no LF-ended line that is JSON:
   * after a whole object or array a line holds nothing more that JSON reads, and a JSON text with an
   * object or array after that CR, where none can begin, is no JSON at all (see JsonExtent.endsBefore).
   * No rule ends a broken message followed by nothing yet: its answer waits for the next message.
   * A CR that ends the chunk is decided by the next chunk's first byte (`#crOpen`).
   */
  #endsLine(chunk: Buffer, from: number, cr: number): boolean {
    if (chunk[cr + 1] === LF) return false;
    this.#scanTo(chunk, from, cr);
    if (this.#extent.whole()) return true;
    if (cr + 1 < chunk.length && this.#extent.endsBefore(chunk[cr + 1])) return true;
    this.#scanTo(chunk, from, cr + 1);
    if (cr + 1 === chunk.length) this.#crOpen = true;
    return false;
  }

  /**
   * Reads the current line into `#extent` up to `to` in `chunk`, where it goes on from `from`, from where it
   * was last read: each byte of a line is read at most once.
   */
  #scanTo(chunk: Buffer, from: number, to: number): void {
    const before = this.#dropping ? this.#dropped : this.#pendingBytes;
    if (this.#extent.read < before) this.#extent.scan(this.#pending, this.#extent.read, before);
    this.#extent.scan(chunk, from + this.#extent.read - before, to);
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
        this.events.notJson(whyNotJson(line));
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

/**
 * Why `line`, which its reader did not read as JSON, is none, where it is a common mistake (see
 * `NotJsonWhy`). Only such a line is read here, once more, in linear time.
 */
function whyNotJson(line: Buffer): NotJsonWhy {
  if (line[0] === 0xef && line[1] === 0xbb && line[2] === 0xbf) return "bom";
  return holdsMoreAfterValue(line) ? "more" : undefined;
}

const LF = 0x0a;
const CR = 0x0d;
const LF_BYTE = Buffer.from([LF]);
