/**
 * Names and text from skills are untrusted: what a reader could not see is written out wherever they are
 * shown (a log line, a manifest, the audit's details). A file or folder name holding any of it, and so a
 * pack's or group's, is never served (catalog/paths.ts); a skill's `name` holding any is a high finding
 * of the audit, served only under UNSAFE_SKILLS=serve, and then named as quotedName writes it.
 */

/** Characters a reader cannot see, or that change how text around them reads. */
const UNSEEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Default_Ignorable_Code_Point}]/gu;

/** `U+E0041`: how a character is named, never written raw. */
export function codePoint(value: number): string {
  return `U+${value.toString(16).toUpperCase().padStart(4, "0")}`;
}

/** The names of the characters the audit and the fetcher most often meet, for their messages. */
const NAMES: Readonly<Record<number, string>> = {
  173: "SOFT HYPHEN",
  1564: "ARABIC LETTER MARK",
  8203: "ZERO WIDTH SPACE",
  8204: "ZERO WIDTH NON-JOINER",
  8205: "ZERO WIDTH JOINER",
  8206: "LEFT-TO-RIGHT MARK",
  8207: "RIGHT-TO-LEFT MARK",
  8232: "LINE SEPARATOR",
  8233: "PARAGRAPH SEPARATOR",
  8234: "LEFT-TO-RIGHT EMBEDDING",
  8235: "RIGHT-TO-LEFT EMBEDDING",
  8236: "POP DIRECTIONAL FORMATTING",
  8237: "LEFT-TO-RIGHT OVERRIDE",
  8238: "RIGHT-TO-LEFT OVERRIDE",
  8288: "WORD JOINER",
  8289: "FUNCTION APPLICATION",
  8290: "INVISIBLE TIMES",
  8291: "INVISIBLE SEPARATOR",
  8292: "INVISIBLE PLUS",
  8294: "LEFT-TO-RIGHT ISOLATE",
  8295: "RIGHT-TO-LEFT ISOLATE",
  8296: "FIRST STRONG ISOLATE",
  8297: "POP DIRECTIONAL ISOLATE",
  65279: "ZERO WIDTH NO-BREAK SPACE (byte order mark)",
  8: "BACKSPACE",
  11: "LINE TABULATION",
  12: "FORM FEED",
  13: "CARRIAGE RETURN",
  27: "ESCAPE",
  127: "DELETE",
};

/** `U+202E RIGHT-TO-LEFT OVERRIDE`, or the bare code point for characters without a name here. */
export function describeCharacter(value: number): string {
  const name = NAMES[value];
  return name === undefined ? codePoint(value) : `${codePoint(value)} ${name}`;
}

/** `text` with every character a reader could not see written as `{U+200B}`, so a snippet hides nothing. */
export function visible(text: string): string {
  if (!hidesAny(text)) return text;
  return text.replace(UNSEEN, (character) => `{${codePoint(character.codePointAt(0) ?? 0)}}`);
}

/**
 * The code point of the first character of `text` that {@link visible} writes as `{U+…}` (a control, a
 * bidi control, a zero-width or other format character, a line or paragraph separator, a tag character),
 * `allowed` aside; undefined when there is none. One pass, each character looked up as `visible` does.
 */
export function firstUnseen(
  text: string,
  allowed: (code: number) => boolean = () => false,
): number | undefined {
  if (!hidesAny(text)) return undefined;
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0;
    if (!allowed(code) && hidesAny(character)) return code;
  }
  return undefined;
}

/** {@link UNSEEN} at one place. */
const UNSEEN_HERE = new RegExp(UNSEEN.source, "uy");

/**
 * Whether `text` holds a character {@link UNSEEN} matches: each one outside a surrogate pair looked up (an
 * ASCII control, or in a table of the others), a pair read with {@link UNSEEN_HERE}. The expression's own
 * search costs about 15 ns a character, for classes of thousands of ranges, and the audit quotes every
 * hit's line: a line of megabytes with a hit every few words spent half its time there.
 */
function hidesAny(text: string): boolean {
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code < 0x80) {
      if (code < 0x20 || code === 0x7f) return true;
      continue;
    }
    if (code < HIGH || code >= LOW + 0x400) {
      if (unseenTable()[code] === 1) return true;
      continue;
    }
    UNSEEN_HERE.lastIndex = at;
    if (UNSEEN_HERE.test(text)) return true;
    if (isSurrogate(code, HIGH) && isSurrogate(text.charCodeAt(at + 1), LOW)) at++;
  }
  return false;
}

/**
 * 1 at each UTF-16 unit but the surrogates that {@link UNSEEN} matches alone; made whole once, when first
 * asked. Not state in the sense that matters: it is the same table whenever it is made, so no result
 * differs by history. Made as the module loads it added 113 ms (68 → 181 ms) and 6.3 MiB of RSS to the
 * import on a loaded 2-core machine (10 runs each in turns), to every command, most of which never quote
 * text holding a character not ASCII; an owner passed in would reach every module that quotes (some 70),
 * and each owner would make the table anew.
 */
let unseenUnits: Uint8Array | undefined;
function unseenTable(): Uint8Array {
  if (unseenUnits !== undefined) return unseenUnits;
  const table = new Uint8Array(0x10000);
  for (let code = 0; code < 0x10000; code++) {
    if (!isSurrogate(code, HIGH) && !isSurrogate(code, LOW)) {
      UNSEEN_HERE.lastIndex = 0;
      if (UNSEEN_HERE.test(String.fromCharCode(code))) table[code] = 1;
    }
  }
  unseenUnits = table;
  return table;
}

/**
 * Text a user, a client or a skill gave, quoted for a message or a log line: its first `max` characters, with
 * an ellipsis when cut (never inside a character), each character no reader sees written `{U+202E}`, inside
 * JSON's quotes (a quote or backslash in it escaped). One form wherever input is quoted back: a long one
 * costs more than it tells, and a raw newline or bidi control would rewrite the line it is quoted in.
 */
export function quoted(text: string, max = 100): string {
  return JSON.stringify(visible(excerpt(text, max)));
}

/**
 * A name from the catalog (a pack, group, skill or file, all a stranger's) as the string argument of a call an
 * answer suggests, `read_skill(skill="…")`: in JSON's quotes, a quote or backslash escaped, and each character
 * no reader sees written `\u202e`, as JSON writes a character, not `{U+202E}` as `quoted` does, so that the
 * name copied into the call's JSON arguments is the name. Never cut: the load serves no name over 255
 * characters, and a cut one would name another skill. Quoted so, no name ends its quote early.
 */
export function quotedName(name: string): string {
  const json = JSON.stringify(name);
  return hidesAny(name) ? json.replace(UNSEEN, jsonEscape) : json;
}

/** `character` as JSON's `\uXXXX` escape, one per UTF-16 unit (two for a character past U+FFFF). */
function jsonEscape(character: string): string {
  let escaped = "";
  for (let at = 0; at < character.length; at++) {
    escaped += `\\u${character.charCodeAt(at).toString(16).padStart(4, "0")}`;
  }
  return escaped;
}

/**
 * A name from the catalog where an answer's prose names it (`belongs to skill pdf`, a listing's `pdf: …`
 * line): bare when it is only letters, digits, marks and `._/:@+-` (every name the Agent Skills rule allows,
 * and the `pack/name` of a skill), so an ordinary answer reads as it always has; else quoted as
 * {@link quotedName} quotes it, so that a name holding a space, a quote, a newline or a bidi control cannot
 * read as more prose, a sentence of its own or another listing's line.
 */
export function namedInProse(name: string): string {
  return PLAIN_NAME.test(name) && !hidesAny(name) ? name : quotedName(name);
}

/** A name prose can hold bare: one class, so the test reads it once. */
const PLAIN_NAME = /^[\p{L}\p{N}\p{M}._/:@+-]+$/u;

/**
 * Two texts told apart, each quoted as `quoted` quotes one. When both are cut at `max` characters before
 * their first difference, each is shown from a few characters before it instead, opening with an ellipsis,
 * and `differsAt` says at which character (from 1) they part: two methods of 120 characters that differ in
 * their last were both quoted as the same 100 characters.
 */
export function quotedApart(
  first: string,
  second: string,
  max = 100,
): { readonly first: string; readonly second: string; readonly differsAt?: number } {
  const at = firstDifference(first, second);
  let before = 0;
  for (let unit = 0; unit < at; unit++) if (!isPairEnd(first, unit)) before++;
  if (before < max || first === second) return { first: quoted(first, max), second: quoted(second, max) };
  let from = at;
  for (let kept = 0; kept < LEAD && from > 0; kept++) from -= isPairEnd(first, from - 1) ? 2 : 1;
  const shown = (text: string) =>
    JSON.stringify(`${from > 0 ? "…" : ""}${visible(excerpt(text.slice(from), max))}`);
  return { first: shown(first), second: shown(second), differsAt: before + 1 };
}

/** How many characters before two texts part `quotedApart` shows. */
const LEAD = 20;

/** The UTF-16 offset where `first` and `second` first differ, never inside a surrogate pair. */
function firstDifference(first: string, second: string): number {
  const end = Math.min(first.length, second.length);
  let at = 0;
  while (at < end && first.charCodeAt(at) === second.charCodeAt(at)) at++;
  return at > 0 && isSurrogate(first.charCodeAt(at - 1), HIGH) ? at - 1 : at;
}

const HIGH = 0xd800;
const LOW = 0xdc00;

/** Whether the unit at `at` of `text` ends a surrogate pair, so that it and the one before are one character. */
function isPairEnd(text: string, at: number): boolean {
  return at > 0 && isSurrogate(text.charCodeAt(at), LOW) && isSurrogate(text.charCodeAt(at - 1), HIGH);
}

/** Whether a UTF-16 unit is a surrogate of the `half` (HIGH or LOW) beginning at that unit. */
function isSurrogate(unit: number, half: number): boolean {
  return unit >= half && unit < half + 0x400;
}

/**
 * At most `length` characters of `text`, with an ellipsis when cut (never inside a surrogate pair). Reads
 * only as far as it keeps: the text may be a whole line of megabytes.
 */
export function excerpt(text: string, length: number): string {
  if (text.length <= length) return text;
  let count = 0;
  for (let end = 0; end < text.length; count++) {
    if (count === length) return `${text.slice(0, end)}…`;
    end += isSurrogate(text.charCodeAt(end), HIGH) && isSurrogate(text.charCodeAt(end + 1), LOW) ? 2 : 1;
  }
  return text;
}

/**
 * The length of the longest run of backticks in `text`, which a code span's fence must outgrow. Counted in
 * one pass: `Math.max(...runs)` passed each run as an argument, and 200,000 runs (a remote's message, a
 * frontmatter key) overflowed the stack.
 */
export function longestBacktickRun(text: string): number {
  let longest = 0;
  let run = 0;
  for (let at = 0; at < text.length; at++) {
    run = text.charCodeAt(at) === BACKTICK ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}

const BACKTICK = 0x60;

/**
 * The shells that read a word shellWord writes in `$'…'`: dash (Debian's and Ubuntu's sh) and other shells
 * before POSIX.1-2024 read it as a `$` and a quoted word, another path, so that a command holding one says
 * where it runs.
 */
export const DOLLAR_QUOTE_SHELLS = "bash, zsh or a POSIX.1-2024 sh";

/** Whether a word shellWord wrote is in `$'…'` (see DOLLAR_QUOTE_SHELLS). */
export function dollarQuoted(word: string): boolean {
  return word.startsWith("$'");
}

/**
 * `word` as one word of a POSIX shell command: as it is when it holds nothing a shell reads, in single
 * quotes otherwise; and when it holds a character `visible` writes `{U+…}` (a control, a bidi override),
 * in `$'…'` (bash, zsh, and POSIX.1-2024 shells) with each such byte as `\xHH`, so that what is copied from
 * a message is the word, not the way it is shown.
 */
export function shellWord(word: string): string {
  if (/^[\w@%+=:,./-]+$/.test(word)) return word;
  if (visible(word) === word) return `'${word.replaceAll("'", "'\\''")}'`;
  const escaped = [...word]
    .map((character) =>
      character === "'" || character === "\\" || visible(character) !== character
        ? [...Buffer.from(character)].map((byte) => `\\x${byte.toString(16).padStart(2, "0")}`).join("")
        : character,
    )
    .join("");
  return `$'${escaped}'`;
}
