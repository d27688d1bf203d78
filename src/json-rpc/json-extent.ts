const SPACE = 0x20;
const TAB = 0x09;
const CR = 0x0d;
const LF = 0x0a;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** The first byte of `bytes` other than JSON's blanks (and the CR of a CRLF), if any. */
export function firstNotBlank(bytes: Uint8Array): number | undefined {
  // Indexed: a for-of over a line of 10 MiB of blanks held the event loop some 200 ms, this some 25.
  for (let index = 0; index < bytes.length; index++) {
    const byte = bytes[index];
    if (byte !== SPACE && byte !== TAB && byte !== CR && byte !== LF) return byte;
  }
  return undefined;
}

/**
 * Whether `text`, which is no JSON, holds a whole JSON object or array and more than blanks after it: two
 * messages sent as one. Read in linear time, and parsed only up to the first value's end.
 */
export function holdsMoreAfterValue(text: Buffer): boolean {
  const extent = new JsonExtent();
  extent.scan(text, 0, text.length);
  if (extent.end === undefined || firstNotBlank(text.subarray(extent.end)) === undefined) return false;
  try {
    // The first value must be JSON itself, or the more after it is not what is wrong.
    JSON.parse(text.toString("utf8", 0, extent.end));
    return true;
  } catch {
    return false;
  }
}

/**
 * Reads a line of stdio (or a body over HTTP) byte by byte just far enough to tell whether it holds a whole
 * JSON object or array followed only by blanks, and whether a value may begin where it stops: brackets
 * counted outside strings, nothing else checked (JSON.parse does that later).
 */
export class JsonExtent {
  /** The bytes of the line read so far. */
  read = 0;
  /** Where in the line the first object or array ended, once it has. */
  end: number | undefined;
  #state: "before" | "inside" | "after" | "other" = "before";
  #depth = 0;
  #inString = false;
  #escaped = false;
  /** Inside the object or array, the last byte read outside strings that is not a blank. */
  #last: number | undefined;

  /** Whether what was read is a whole object or array, and blanks. */
  whole(): boolean {
    return this.#state === "after";
  }

  /**
   * Whether what was read, a line's start, can be no JSON text's start once blanks and then `next` follow
   * it, `next` an object's or an array's first byte: it is not blanks alone, and no value can begin where
   * it stops. Valid JSON has a value after blanks only at its start or after `[`, `,` or `:` outside
   * strings (an object's `,` is taken as an array's, which keeps the answer no); a string holds no raw
   * control character, as a CR; and a text beginning otherwise than `{` or `[` holds one value only.
   */
  endsBefore(next: number | undefined): boolean {
    if (next !== OPEN_BRACE && next !== OPEN_BRACKET) return false;
    if (this.#state === "other") return true;
    if (this.#state !== "inside") return false;
    return this.#inString || (this.#last !== OPEN_BRACKET && this.#last !== COMMA && this.#last !== COLON);
  }

  /** Reads `bytes` from `start` to `end`, the line's next bytes. */
  scan(bytes: Uint8Array, start: number, end: number): void {
    if (end <= start) return;
    this.read += end - start;
    if (this.#state === "other") return;
    for (let index = start; index < end; index++) {
      const byte = bytes[index];
      if (this.#inString) {
        if (this.#escaped) this.#escaped = false;
        else if (byte === BACKSLASH) this.#escaped = true;
        else if (byte === QUOTE) this.#inString = false;
      } else if (this.#state === "inside") {
        if (byte !== SPACE && byte !== TAB && byte !== CR && byte !== LF) this.#last = byte;
        if (byte === QUOTE) this.#inString = true;
        else if (byte === OPEN_BRACE || byte === OPEN_BRACKET) this.#depth++;
        else if ((byte === CLOSE_BRACE || byte === CLOSE_BRACKET) && --this.#depth === 0) {
          this.#state = "after";
          this.end = this.read - end + index + 1;
        }
      } else if (byte !== SPACE && byte !== TAB && byte !== CR) {
        if (this.#state === "before" && (byte === OPEN_BRACE || byte === OPEN_BRACKET)) {
          this.#state = "inside";
          this.#depth = 1;
          this.#last = byte;
        } else {
          this.#state = "other";
          return;
        }
      }
    }
  }
}
