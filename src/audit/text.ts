/** Characters a reader cannot see, or that change how text around them reads: shown escaped in any detail. */
const UNSEEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Default_Ignorable_Code_Point}]/gu;

/** `U+E0041`: how the audit names a character, never writing it raw. */
export function codePoint(value: number): string {
  return `U+${value.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** `text` with every character a reader could not see written as `{U+200B}`, so a snippet hides nothing. */
export function visible(text: string): string {
  return text.replace(UNSEEN, (character) => `{${codePoint(character.codePointAt(0) ?? 0)}}`);
}

/** At most `length` characters of `text`, with an ellipsis when cut (never inside a surrogate pair). */
export function excerpt(text: string, length: number): string {
  const characters = [...text];
  return characters.length <= length ? text : `${characters.slice(0, length).join("")}…`;
}

/**
 * Turns string offsets into 1-based line numbers. Findings come in order of offset, so it counts on from
 * the last offset asked: a whole file costs one pass however many findings it has.
 */
export class LineCounter {
  #offset = 0;
  #line = 1;

  constructor(private readonly text: string) {}

  lineAt(offset: number): number {
    if (offset < this.#offset) {
      this.#offset = 0;
      this.#line = 1;
    }
    for (let next = this.text.indexOf("\n", this.#offset); next !== -1 && next < offset; ) {
      this.#line++;
      this.#offset = next + 1;
      next = this.text.indexOf("\n", this.#offset);
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
