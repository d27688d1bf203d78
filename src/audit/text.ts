/**
 * What ends the lines of `text`: a line feed (after a carriage return or not), or in a text without line
 * feeds a carriage return, as old Mac OS files have and as CommonMark and the character rules read them.
 */
export function lineBreakOf(text: string): string {
  return text.includes("\n") ? "\n" : "\r";
}

/**
 * Turns string offsets into 1-based line numbers (see {@link lineBreakOf}). Findings come in order of offset, so it counts on from
 * the last offset asked, and remembers where the next line starts: a whole file costs one pass however
 * many findings it has, also when they are all on its last line.
 */
export class LineCounter {
  #line = 1;
  /** Where the line numbered `#line` starts. */
  #start = 0;
  /** The line break that ends it, or -1 when it is the last line. */
  #end: number;
  readonly #break: string;

  constructor(private readonly text: string) {
    this.#break = lineBreakOf(text);
    this.#end = text.indexOf(this.#break);
  }

  lineAt(offset: number): number {
    if (offset < this.#start) {
      this.#line = 1;
      this.#start = 0;
      this.#end = this.text.indexOf(this.#break);
    }
    while (this.#end !== -1 && this.#end < offset) {
      this.#line++;
      this.#start = this.#end + 1;
      this.#end = this.text.indexOf(this.#break, this.#start);
    }
    return this.#line;
  }
}

/** The code point ending just before `index`, or undefined at the start. */
export function codePointBefore(text: string, index: number): number | undefined {
  if (index <= 0) return undefined;
  const low = text.charCodeAt(index - 1);
  if (low >= 0xdc00 && low <= 0xdfff && index >= 2) {
    const high = text.charCodeAt(index - 2);
    if (high >= 0xd800 && high <= 0xdbff) return text.codePointAt(index - 2);
  }
  return low;
}

/** How many UTF-16 units the code point takes. */
export function width(value: number): number {
  return value > 0xffff ? 2 : 1;
}
