import { codePoint, describeCharacter, excerpt, plural, quoted } from "../shared/index.js";
import { markdownLines } from "./markdown-lines.js";
import type { Hit } from "./rules.js";
import { codePointBefore, width } from "./text.js";

/**
 * Every character some rule below looks at, and a carriage return that ends no line. Most files hold
 * none: one test of this pattern is all they cost.
 */
const CANDIDATE =
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what the audit looks for
  // biome-ignore lint/suspicious/noMisleadingCharacterClass: variation selectors are looked for one by one
  /[\0-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F\xAD\u200B-\u200D\u2028-\u202E\u2060-\u2064\u2066-\u2069\uFE00-\uFE0F\uFEFF\u{E0000}-\u{E007F}\u{E0100}-\u{E01EF}]|\r(?!\n)/u;
const CANDIDATES = new RegExp(CANDIDATE.source, "gu");

const isTag = (value: number) => value >= 0xe0000 && value <= 0xe007f;
const isBidiControl = (value: number) =>
  (value >= 0x202a && value <= 0x202e) || (value >= 0x2066 && value <= 0x2069);
const isVariationSelector = (value: number) =>
  (value >= 0xfe00 && value <= 0xfe0f) || (value >= 0xe0100 && value <= 0xe01ef);
const isInvisible = (value: number) =>
  value === 0xad ||
  (value >= 0x200b && value <= 0x200d) ||
  (value >= 0x2060 && value <= 0x2064) ||
  value === 0xfeff;

const ZWJ = 0x200d;
const ZWNJ = 0x200c;
const BLACK_FLAG = 0x1f3f4;
const CANCEL_TAG = 0xe007f;
/**
 * The tags after the black flag of the only flags Unicode recommends (RGI_Emoji_Tag_Sequence in
 * emoji-sequences.txt): England, Scotland, Wales, each a region code in tag letters and a cancel tag.
 * Every well-formed ISO 3166-2 code would be thousands of "flags" to choose from, enough to spell hidden
 * text flag by flag ("runcur", "lxsh"), and a skill has no use for them (fonts draw only these three).
 */
const FLAG_TAGS: readonly string[] = ["gbeng", "gbsct", "gbwls"].map((code) =>
  String.fromCodePoint(...[...code].map((letter) => 0xe0000 + letter.charCodeAt(0)), CANCEL_TAG),
);
/** How many tags each of {@link FLAG_TAGS} has. */
const FLAG_TAGS_LENGTH = 6;
/** How many characters of hidden text a finding reads out. */
const READING = 120;

/** `text` with the tags of its flags of England, Scotland and Wales taken out, black flags left: what else it hides. */
export function withoutFlagTags(text: string): string {
  const blackFlag = String.fromCodePoint(BLACK_FLAG);
  return FLAG_TAGS.reduce((rest, tags) => rest.replaceAll(blackFlag + tags, blackFlag), text);
}
/** Letters and digits of scripts that have no use for joiners or zero-width spaces between them. */
const PLAIN_WORD = /[\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Nd}]/u;
/**
 * Letters and marks of the scripts that use these characters: ZWJ and ZWNJ shape Arabic, Persian and the
 * Indic scripts, and a zero-width space marks word breaks in Thai, Khmer, Burmese, Chinese and Japanese,
 * also beside their punctuation (`。`, `「`, full-width `（`), where it breaks no word.
 */
export const JOINING_WORD =
  /(?![\p{Script=Latin}\p{Script=Greek}\p{Script=Cyrillic}\p{Script=Common}\p{Script=Inherited}])[\p{L}\p{M}]|[\u3000-\u303F\uFF01-\uFF0F\uFF1A-\uFF20\uFF3B-\uFF40\uFF5B-\uFF65]/u;
const EMOJI = /\p{Extended_Pictographic}/u;
const EMOJI_MODIFIER = /\p{Emoji_Modifier}/u;
const EMOJI_BASE = /\p{Emoji}/u;
const HAN = /\p{Script=Han}/u;
const SOFT_HYPHEN = 0xad;
const LETTER = /\p{L}/u;

/** A lowercase Latin letter (`ſ` and `ß` included). */
const LOWERCASE_LATIN = /(?=\p{Ll})\p{Script=Latin}/u;
/**
 * Pairs of lowercase letters that fonts join into one glyph besides the f ligatures (ff, fi, fl, ft, fb,
 * fh, fk…, also with a long s): st and ct, and Fraktur's ch, ck and tz.
 */
const LIGATURES = new Set(["st", "ct", "ch", "ck", "tz"]);

/**
 * The medium rule for a lone invisible character between the code points `before` and `after` that
 * typesetting puts inside a word, or undefined. The reader sees every letter of the word either way, so
 * it hides nothing; it can still break a keyword that a search or a filter looks for.
 * - `soft-hyphen`: a soft hyphen between two letters, where the word may break across lines. German,
 *   Dutch or Finnish text and pages copied from the web hold one in every long word.
 * - `ligature-break`: a zero-width non-joiner between two lowercase Latin letters that a font would join
 *   (`Auf{U+200C}lage`: German typesetting keeps `fl` apart across the parts of a compound). Between
 *   letters that form no ligature (`pass{U+200C}word`) it does nothing a reader sees, so it stays high.
 */
export function typesetMark(
  before: number | undefined,
  value: number,
  after: number | undefined,
): "soft-hyphen" | "ligature-break" | undefined {
  if (before === undefined || after === undefined || (value !== SOFT_HYPHEN && value !== ZWNJ))
    return undefined;
  const [left, right] = [String.fromCodePoint(before), String.fromCodePoint(after)];
  if (value === SOFT_HYPHEN) return LETTER.test(left) && LETTER.test(right) ? "soft-hyphen" : undefined;
  if (value !== ZWNJ || !LOWERCASE_LATIN.test(left) || !LOWERCASE_LATIN.test(right)) return undefined;
  return left === "f" || left === "ſ" || LIGATURES.has(left + right) ? "ligature-break" : undefined;
}
/** A run of this many invisible characters is a payload, whatever surrounds it. */
const PAYLOAD_RUN = 4;

/** Whether any character rule could apply to `text`: the cheap test that gates {@link characterHits}. */
export function mayHoldCharacterHits(text: string): boolean {
  return CANDIDATE.test(text);
}

/**
 * The hits of the character rules (tag characters, bidi controls, invisible characters, control
 * characters) in a text file's content, in order of offset. In `markdown`, readable colours of terminal
 * output in a code block are no control-character hit (see {@link displayOnly}).
 */
export function* characterHits(text: string, markdown = false): Generator<Hit> {
  const candidates = new RegExp(CANDIDATES);
  const lineEndings = text.includes("\n");
  const inCode = markdown ? codeBlockTest(text) : () => false;
  for (let match = candidates.exec(text); match !== null; match = candidates.exec(text)) {
    const offset = match.index;
    const value = text.codePointAt(offset) ?? 0;
    if (isTag(value)) {
      const run = runOf(text, offset, isTag);
      const hit = tagHit(text, offset, run);
      if (hit) yield hit;
      candidates.lastIndex = run.end;
    } else if (isVariationSelector(value)) {
      const run = runOf(text, offset, isVariationSelector);
      const hit = variationHit(text, offset, run);
      if (hit) yield hit;
      candidates.lastIndex = run.end;
    } else if (isInvisible(value)) {
      const run = runOf(text, offset, isInvisible);
      const hit = invisibleHit(text, offset, run);
      if (hit) yield hit;
      candidates.lastIndex = run.end;
    } else if (isBidiControl(value)) {
      yield { rule: "bidi-control", offset, detail: describeCharacter(value) };
    } else if (!(value === ESC && displayOnly(text, offset) && inCode(offset))) {
      const detail = controlDetail(text, offset, value, lineEndings);
      if (detail) yield { rule: "control-character", offset, detail };
    }
  }
}

const ESC = 0x1b;

/**
 * Whether the offsets asked, which only grow, are on lines of a code block of the Markdown `text`
 * (see {@link markdownLines}): the file's lines are walked once, as far as the last offset asked.
 */
function codeBlockTest(text: string): (offset: number) => boolean {
  const lines = markdownLines(text);
  let line = lines.next();
  return (offset) => {
    while (!line.done && line.value.end < offset) line = lines.next();
    return !line.done && line.value.start <= offset && line.value.code;
  };
}

/** `ESC [ params m`: Select Graphic Rendition, with up to {@link SGR_PARAMS} characters of parameters. */
const SGR_PARAMS = 32;
/**
 * The SGR parameters that only style text or give it a colour readable on a dark and a light terminal
 * alike: reset (0), bold, dim, italic, underline, blink, inverse and strike and their resets, the
 * foreground colours red to cyan (31–36), bright black to bright cyan (90–96), default (39), default
 * background (49), overline (53, 55) and underline colour's default (59). Not among them: conceal (8),
 * black and white (30, 37, 97), which one theme or the other draws as its background, 256 and true
 * colours (38), which may be either, and every background colour (40–48, 100–107), which the text's
 * colour may match.
 */
const READABLE_SGR = new Set([
  "",
  ..."0 1 2 3 4 5 6 7 9 21 22 23 24 25 27 28 29 31 32 33 34 35 36 39 49 53 55 59 90 91 92 93 94 95 96".split(
    " ",
  ),
]);

/**
 * Whether the ESC at `offset` starts an SGR sequence that only styles or colours text readably (see
 * {@link READABLE_SGR}), as test runners and compilers print: shown in a code block of terminal output,
 * it hides nothing. An underline's style (`4:3`) and colour (`58;5;n`, `58;2;r;g;b`, `58:…`) pass too.
 * Any other escape moves the cursor, erases, sets a title or a clipboard (OSC), or may hide text.
 */
function displayOnly(text: string, offset: number): boolean {
  if (text[offset + 1] !== "[") return false;
  let end = offset + 2;
  while (end < text.length && end - offset - 2 <= SGR_PARAMS && /[\d;:]/.test(text[end] ?? "")) end++;
  if (text[end] !== "m" || end - offset - 2 > SGR_PARAMS) return false;
  const params = text.slice(offset + 2, end).split(";");
  for (let index = 0; index < params.length; index++) {
    const param = params[index] ?? "";
    if (param.includes(":")) {
      if (!/^(?:4:[0-5]|58(?::[\d]*)*)$/.test(param)) return false;
    } else if (param === "58") {
      // 58;5;n or 58;2;r;g;b: the underline's colour, with its arguments.
      const kind = params[index + 1];
      if (kind === "5") index += 2;
      else if (kind === "2") index += 4;
      else return false;
    } else if (!READABLE_SGR.has(param)) {
      return false;
    }
  }
  return true;
}

/**
 * A run of characters of one kind. Only its first few are kept: a run may be millions of characters long,
 * and whatever else a finding tells of it is read from the text again.
 */
interface Run {
  /** The first {@link RUN_HEAD} code points. */
  readonly head: readonly number[];
  /** How many code points. */
  readonly length: number;
  /** Offset just past the run. */
  readonly end: number;
}

/** Enough to list a run's first six, and to tell a flag's tags (six). */
const RUN_HEAD = 8;

function runOf(text: string, start: number, belongs: (value: number) => boolean): Run {
  const head: number[] = [];
  let length = 0;
  let end = start;
  for (let value = text.codePointAt(end); value !== undefined && belongs(value); ) {
    if (head.length < RUN_HEAD) head.push(value);
    length++;
    end += width(value);
    value = text.codePointAt(end);
  }
  return { head, length, end };
}

/** The code points of `text` from `start` to `end`. */
function* codePoints(text: string, start: number, end: number): Generator<number> {
  for (let index = start; index < end; ) {
    const value = text.codePointAt(index) ?? 0;
    yield value;
    index += width(value);
  }
}

function listed(run: Run, shown = 6): string {
  const names = run.head.slice(0, shown).map(codePoint).join(" ");
  return run.length > shown ? `${names} …` : names;
}

/**
 * Tag characters spell ASCII invisibly; the one legitimate use is the flag of England, Scotland or Wales
 * (see {@link FLAG_TAGS}).
 */
function tagHit(text: string, offset: number, run: Run): Hit | undefined {
  const afterBlackFlag = codePointBefore(text, offset) === BLACK_FLAG;
  const isFlag =
    afterBlackFlag &&
    run.length === FLAG_TAGS_LENGTH &&
    FLAG_TAGS.includes(String.fromCodePoint(...run.head));
  if (isFlag) return undefined;
  let spelled = "";
  for (const value of codePoints(text, offset, run.end)) {
    if (value >= 0xe0020 && value <= 0xe007e) spelled += String.fromCharCode(value - 0xe0000);
    if (spelled.length > READING) break;
  }
  const reading = spelled === "" ? "" : `, invisible text reading ${quoted(spelled, READING)}`;
  const flag = afterBlackFlag ? " after a black flag (not England, Scotland or Wales)" : "";
  return {
    rule: "tag-characters",
    offset,
    detail: `${plural(run.length, "tag character")} (${listed(run)})${flag}${reading}`,
  };
}

/**
 * Whether the character at `offset` is a variation selector that picks a glyph for the character before
 * it: VS15/VS16 after an emoji-capable character, VS17 and up after a Han ideograph, the others after a
 * non-ASCII symbol, and alone. Any other, or more than one in a row, carries data nobody sees (one byte
 * each, as "emoji smuggling" does).
 */
export function selectsGlyph(text: string, offset: number): boolean {
  const selector = text.codePointAt(offset);
  const base = codePointBefore(text, offset);
  if (selector === undefined || base === undefined || !isVariationSelector(selector)) return false;
  const next = text.codePointAt(offset + width(selector));
  if (isDoubledEmojiSelector(text, offset, base, next)) return true;
  if (isVariationSelector(base) || (next !== undefined && isVariationSelector(next))) return false;
  const character = String.fromCodePoint(base);
  if (selector === 0xfe0e || selector === 0xfe0f) return EMOJI_BASE.test(character);
  if (selector >= 0xe0100) return HAN.test(character);
  return base > 0x7f;
}

/**
 * Whether the VS16 at `offset` is one of exactly two after an emoji (`❤️️`): editors and converters that
 * add a VS16 to text already holding one write this. Two copies of one selector carry no byte; three or
 * more, or any other selector beside them, still select no glyph.
 */
function isDoubledEmojiSelector(
  text: string,
  offset: number,
  base: number,
  next: number | undefined,
): boolean {
  if (text.codePointAt(offset) !== VS16) return false;
  // The emoji before the pair, and what follows the pair; a VS16 is one UTF-16 unit.
  let emoji: number | undefined;
  let after: number | undefined;
  if (base === VS16 && next !== VS16) {
    emoji = codePointBefore(text, offset - 1);
    after = next;
  } else if (base !== VS16 && next === VS16) {
    emoji = base;
    after = text.codePointAt(offset + 2);
  } else {
    return false;
  }
  return (
    emoji !== undefined &&
    !isVariationSelector(emoji) &&
    EMOJI_BASE.test(String.fromCodePoint(emoji)) &&
    (after === undefined || !isVariationSelector(after))
  );
}

const VS16 = 0xfe0f;

/** A run of variation selectors that select no glyph (see {@link selectsGlyph}). */
function variationHit(text: string, offset: number, run: Run): Hit | undefined {
  if (selectsGlyph(text, offset)) return undefined;
  const base = codePointBefore(text, offset);
  const carried = carriedText(text, offset, run);
  const reading = carried === undefined ? "" : `, carrying text that reads ${JSON.stringify(carried)}`;
  const after = base === undefined ? "at the start" : `after ${codePoint(base)}`;
  const count = run.length === 1 ? "a variation selector" : `${run.length} variation selectors`;
  return {
    rule: "invisible-character",
    offset,
    detail: `${count} ${after} that select no glyph (${listed(run)})${reading}`,
  };
}

/**
 * The text a run of variation selectors spells, one byte each (see {@link byteOf}), cut to
 * {@link READING} characters, when it decodes as UTF-8 to four or more printable ASCII characters, tabs
 * and line feeds. Those bytes decode to themselves and any other to something else, so the bytes are
 * looked at one by one rather than decoded whole; a leading UTF-8 byte order mark decodes to nothing.
 */
function carriedText(text: string, offset: number, run: Run): string | undefined {
  const bom = UTF8_BOM.every((byte, index) => byteOf(run.head[index] ?? 0) === byte);
  let carried = "";
  let length = 0;
  // The three selectors of a byte order mark are VS17 and up, two UTF-16 units each.
  for (const value of codePoints(text, bom ? offset + 6 : offset, run.end)) {
    const byte = byteOf(value);
    if ((byte < 0x20 || byte > 0x7e) && byte !== 0x0a && byte !== 0x09) return undefined;
    if (carried.length <= READING) carried += String.fromCharCode(byte);
    length++;
  }
  return length < 4 ? undefined : excerpt(carried, READING);
}

const UTF8_BOM = [0xef, 0xbb, 0xbf];

/** The byte a variation selector stands for: VS1–VS16 are 0–15, VS17–VS256 16–255. */
function byteOf(selector: number): number {
  return selector >= 0xe0100 ? selector - 0xe0100 + 16 : selector - 0xfe00;
}

/**
 * Invisible characters inside a word of a script that has no use for them: a keyword broken up so that
 * filters and reviewers miss it, or bits hidden between letters. Emoji ZWJ sequences, joiners in
 * Arabic or Indic words, and word breaks in Thai or Japanese are how those texts are written.
 */
function invisibleHit(text: string, offset: number, run: Run): Hit | undefined {
  if (offset === 0 && run.head[0] === 0xfeff) {
    if (run.length === 1) return undefined;
    return invisibleHit(text, 1, runOf(text, 1, isInvisible));
  }
  const before = codePointBefore(text, offset);
  const after = text.codePointAt(run.end);
  const plainBefore = isPlainWord(before);
  const plainAfter = isPlainWord(after);
  if (run.length < PAYLOAD_RUN) {
    if (run.head.every((value) => value === ZWJ) && joinsEmoji(text, offset, after)) return undefined;
    if (!plainBefore && !plainAfter) return undefined;
    if (isJoiningWord(before) || isJoiningWord(after)) return undefined;
  }
  const inside = plainBefore && plainAfter;
  const [first = 0] = run.head;
  const mark = run.length === 1 ? typesetMark(before, first, after) : undefined;
  if (mark === "soft-hyphen") {
    return { rule: mark, offset, detail: `${describeCharacter(SOFT_HYPHEN)} inside a word` };
  }
  if (mark === "ligature-break") {
    // Both sides are lowercase Latin letters: shown as they are.
    const pair = `"${String.fromCodePoint(before ?? 0)}" and "${String.fromCodePoint(after ?? 0)}"`;
    return { rule: mark, offset, detail: `${describeCharacter(ZWNJ)} keeping ${pair} from a ligature` };
  }
  if (run.length === 1) return { rule: "invisible-character", offset, detail: loneDetail(first, inside) };
  const names = [...new Set(codePoints(text, offset, run.end))].map(describeCharacter).join(", ");
  const where = run.length >= PAYLOAD_RUN ? "in a row" : inside ? "inside a word" : "at the edge of a word";
  return { rule: "invisible-character", offset, detail: `${run.length} × ${names} ${where}` };
}

/**
 * The detail of one invisible character `value` inside a word or at its edge, made once for each: a file
 * may hold one in every word, and a string made anew for each hit was most of the rule's time (and the
 * findings' map hashed each anew).
 */
function loneDetail(value: number, inside: boolean): string {
  return LONE_DETAILS.get(loneKey(value, inside)) ?? describeLone(value, inside);
}

function describeLone(value: number, inside: boolean): string {
  return `${describeCharacter(value)} ${inside ? "inside a word" : "at the edge of a word"}`;
}

function loneKey(value: number, inside: boolean): number {
  return value * 2 + (inside ? 1 : 0);
}

/** The characters {@link isInvisible} matches. */
const INVISIBLE_CHARACTERS = [0xad, 0x200b, 0x200c, 0x200d, 0x2060, 0x2061, 0x2062, 0x2063, 0x2064, 0xfeff];

/** See {@link loneDetail}: each invisible character, in both places, made when the module loads. */
const LONE_DETAILS: ReadonlyMap<number, string> = new Map(
  INVISIBLE_CHARACTERS.flatMap((value) =>
    [true, false].map((inside) => [loneKey(value, inside), describeLone(value, inside)] as const),
  ),
);

/**
 * Whether the code point `value` is a letter or digit of {@link PLAIN_WORD}; ASCII told without the
 * regular expression (and a string made for it), as most text beside such a character is.
 */
function isPlainWord(value: number | undefined): boolean {
  if (value === undefined) return false;
  if (value < 0x80)
    return (value >= 0x30 && value <= 0x39) || ((value | 0x20) >= 0x61 && (value | 0x20) <= 0x7a);
  return PLAIN_WORD.test(String.fromCodePoint(value));
}

/** Whether the code point `value` is of {@link JOINING_WORD}: never an ASCII one (Latin or Common). */
function isJoiningWord(value: number | undefined): boolean {
  return value !== undefined && value >= 0x80 && JOINING_WORD.test(String.fromCodePoint(value));
}

/**
 * Whether the ZWJ at `offset`, followed by the code point `after`, sits between two emoji (the first
 * possibly with a skin tone or VS16), as part of one emoji.
 */
export function joinsEmoji(text: string, offset: number, after: number | undefined): boolean {
  let index = offset;
  let before = codePointBefore(text, index);
  while (before !== undefined && (before === 0xfe0f || EMOJI_MODIFIER.test(String.fromCodePoint(before)))) {
    index -= width(before);
    before = codePointBefore(text, index);
  }
  const isEmoji = (value: number | undefined) =>
    value !== undefined && EMOJI.test(String.fromCodePoint(value));
  return isEmoji(before) && isEmoji(after);
}

const LINE_SEPARATOR = 0x2028;
const PARAGRAPH_SEPARATOR = 0x2029;

/**
 * Control characters move a terminal's cursor, recolour or hide text, or erase what came before, so the
 * text on screen is not what an agent reads. A form feed alone on its line is a page break, as old
 * source files have; a carriage return is a line ending unless the file ends its lines with LF. The line
 * and paragraph separators U+2028 and U+2029 are line endings, as NEL (U+0085), VT and FF are, that no tool
 * a reviewer reads a file with takes for one: a renderer that breaks the line there shows text on a line
 * of its own that grep, a diff and the audit's line numbers place on the line before, and one that draws
 * nothing joins the words around it (`ign{U+2028}ore` shows as `ignore`). Every one is flagged, as NEL is:
 * Markdown and scripts end lines with LF, and no format a skill holds needs them.
 */
function controlDetail(
  text: string,
  offset: number,
  value: number,
  lineEndings: boolean,
): string | undefined {
  if (value === 0x0c) {
    const before = offset === 0 ? "\n" : text[offset - 1];
    const after = text[offset + 1] ?? "\n";
    if ((before === "\n" || before === "\r") && (after === "\n" || after === "\r")) return undefined;
  }
  if (value === 0x0d) {
    if (!lineEndings) return undefined;
    return `${describeCharacter(value)} inside a line (a terminal shows only what follows it)`;
  }
  if (value === LINE_SEPARATOR || value === PARAGRAPH_SEPARATOR) {
    return `${describeCharacter(value)} (a line break to some renderers, nothing to others, and no line's end to grep, diff or this audit: a line feed is one to all)`;
  }
  // Colours pasted from a terminal into a shell example are the usual source: say how to keep them.
  if (value === 0x1b) {
    return `${describeCharacter(value)} (a terminal escape sequence; an example writes it as text: \\033 or \\x1b)`;
  }
  return describeCharacter(value);
}
