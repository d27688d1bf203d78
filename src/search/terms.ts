import { stopwords } from "@orama/stopwords/english";
import { stem as porter2 } from "porter2";
import { PLANE_SIZE, PlaneTables } from "./planes.js";

/**
 * What a word is to search, by definition: how text is folded, what a compound and its parts are, which
 * words are dropped, and how a word is stemmed. The scanner (scanner.ts) finds the same words faster.
 */

/**
 * Words that carry no meaning of their own in a request ("how", "my", "should", "don't"): the Snowball
 * English stop list, and numbers spelled out. Weighting by rarity does not take care of them, since
 * request words are often rare in skill text and would score as if meaningful.
 */
export const STOP_WORDS: ReadonlySet<string> = new Set([...stopwords, ...numberWords()]);
/** The stop words that are not numbers: the words of a sentence's grammar (see {@link STOP_WORDS}). */
export const FUNCTION_WORDS: ReadonlySet<string> = new Set(stopwords);

/**
 * Cardinal numbers spelled out ("six test files fail", "two baristas", "one run in five"). A request counts
 * things in passing, and the count says nothing about which skill fits; yet a skill that happens to say
 * "six" somewhere matched it as a rare word. Digits stay words ("404", "Godot 4" name things), and a
 * compound keeps its joined form: `two-factor` is still found as `twofactor`.
 */
function numberWords(): string[] {
  const units = "zero one two three four five six seven eight nine";
  const teens = "ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen";
  const tens = "twenty thirty forty fifty sixty seventy eighty ninety";
  return `${units} ${teens} ${tens} hundred thousand million billion`.split(" ");
}

/**
 * Characters that change how a word is drawn, not what it says: the soft hyphen (`Auf\u00ADlage`, a place
 * to break the line) and the zero-width non-joiner and joiner (Persian and Indic spelling, emoji). Inside
 * a word they are read as absent, so that a word holding one is the word typed without it.
 */
const IGNORABLES = /[\u00AD\u200C\u200D]/g;
/**
 * Kinds of character a compound is made of (see {@link compoundEnd}), as bits: a character is classified
 * once, when first met, and remembered with {@link CLASSIFIED} in its plane's table (see {@link KINDS}).
 * {@link SPACELESS}, {@link UNFOLDED} and {@link FOLDS_ALONE} are remembered with them.
 */
const LETTER = 1;
const NUMBER = 2;
const MARK = 4;
const CLASSIFIED = 8;
/** A Chinese or Japanese character (see {@link SPACELESS_CHARACTER}). */
const SPACELESS = 16;
/** A character that folding leaves as it is, whatever its neighbours (see {@link isUnfolded}). */
const UNFOLDED = 32;
/**
 * A character that is no mark and whose NFKC is made of {@link UNFOLDED} characters: in NFKC whatever its
 * neighbours (`𝒜` is always `A`), as {@link FOLDED_ALONE} remembers it when it differs.
 */
const FOLDS_ALONE = 64;
const FOLDED_ALONE = new Map<number, string>();
/**
 * The kinds of each plane's characters: astral characters (emoji, mathematical letters, rarer Chinese)
 * classified on each meeting took three regular expression tests each, 34 ms for a million astral marks
 * against 4 for marks of the Basic Multilingual Plane.
 *
 * This table and {@link FOLDED_ALONE} are filled as characters are met, yet are no state in the sense
 * that matters: each entry is a function of its code point alone (and of the runtime's Unicode), written
 * once and never changed, so no result can differ by what was read before, and they grow at most to
 * Unicode's size (1.1 MiB; a few thousand folded characters). The alternatives cost clearly, on a loaded
 * 2-core machine (2026-12): classifying the Basic Multilingual Plane when the module loads added 700 ms
 * to its import (194 → 896 ms, 10 runs each in turns) and 10.6 MiB of RSS, all of Unicode 18.8 s and
 * 25 MiB; and an owner passed to each function here (the scanner, the lexicon, each request) would reach
 * some 40 call sites, and classify anew for each owner, at some 11 µs a character: 0.4 ms for a request
 * of three dozen characters not ASCII, half of what a search over the bench corpus takes (0.8 ms).
 */
const KINDS = new PlaneTables();
const BMP_KINDS = KINDS.of(0);
const IS_LETTER = /^\p{L}$/u;
const IS_NUMBER = /^\p{N}$/u;
const IS_MARK = /^\p{M}$/u;
const APOSTROPHE = 39;
const CURLY_APOSTROPHE = 0x2019;

/**
 * Where the compound at `start` ends, or `start` when none begins there. A compound is made of parts
 * joined by single hyphens or underscores. A part is a letter or digit, then letters, digits and the
 * combining marks that belong to them (Hindi vowel signs; an accent typed as a mark of its own), with
 * ignorables between them; then any apostrophes each followed by letters and their marks (`don't`,
 * `customer's`), with ignorables between them too. `curly`: whether `’` is an apostrophe, as in text as
 * written, not yet folded (see {@link foldedSpelling}); a compound found in such text is then folded and
 * split again, since folding can change its letters (`ﬁ` → fi). A loop, not the regular expression it was,
 * whose backtracking took a stack growing with the compound (13-30 MiB for 600,000 characters, and a
 * RangeError at 8 million).
 */
export function compoundEnd(text: string, start: number, curly: boolean): number {
  let end = runEnd(text, start, LETTER | NUMBER, LETTER | NUMBER | MARK);
  if (end === start) return start;
  for (;;) {
    end = elisionsEnd(text, end, curly);
    if (end + 1 >= text.length || !isSeparator(text.charCodeAt(end))) return end;
    const next = runEnd(text, end + 1, LETTER | NUMBER, LETTER | NUMBER | MARK);
    if (next === end + 1) return end;
    end = next;
  }
}

/** Where apostrophes each followed by letters and their marks end, from `start` (see {@link compoundEnd}). */
function elisionsEnd(text: string, start: number, curly: boolean): number {
  let end = start;
  for (;;) {
    const code = text.charCodeAt(end);
    if (code !== APOSTROPHE && (!curly || code !== CURLY_APOSTROPHE)) return end;
    const next = runEnd(text, end + 1, LETTER, LETTER | MARK);
    if (next === end + 1) return end;
    end = next;
  }
}

/**
 * Where a run at `start` ends: a character of the kinds `first`, then any of the kinds `rest` (which holds
 * `first`), and so again after each run of ignorables; `start` when no character of `first` is there.
 */
function runEnd(text: string, start: number, first: number, rest: number): number {
  let end = start;
  let at = start;
  while (at < text.length && (kindAt(text, at) & first) !== 0) {
    at += codePointLength(text, at);
    while (at < text.length && (kindAt(text, at) & rest) !== 0) at += codePointLength(text, at);
    end = at;
    while (at < text.length && isIgnorable(text.charCodeAt(at))) at++;
  }
  return end;
}

/** The kind of the character at `at`: LETTER, NUMBER, MARK or none of them, with CLASSIFIED. */
function kindAt(text: string, at: number): number {
  const code = text.codePointAt(at) ?? 0;
  const kinds = code < PLANE_SIZE ? BMP_KINDS : KINDS.of(code);
  const index = code & 0xffff;
  let kind = kinds[index] as number;
  if (kind === 0) {
    kind = kindOf(String.fromCodePoint(code));
    kinds[index] = kind;
  }
  return kind;
}

function kindOf(character: string): number {
  const kind = IS_LETTER.test(character)
    ? LETTER
    : IS_NUMBER.test(character)
      ? NUMBER
      : IS_MARK.test(character)
        ? MARK
        : 0;
  const spaceless = SPACELESS_CHARACTER.test(character) ? SPACELESS : 0;
  if (kind === MARK) return kind | spaceless | CLASSIFIED;
  if (isUnfolded(character)) return kind | spaceless | UNFOLDED | FOLDS_ALONE | CLASSIFIED;
  const normal = character.normalize("NFKC");
  for (const part of normal) if (!isUnfolded(part)) return kind | spaceless | CLASSIFIED;
  FOLDED_ALONE.set(character.codePointAt(0) ?? 0, normal);
  return kind | spaceless | FOLDS_ALONE | CLASSIFIED;
}

/**
 * The characters that NFC composes with the one before them and that are no marks, as of Unicode 17.0:
 * Hangul vowel and final jamo, and a Kirat Rai vowel sign (Unicode 16.0). The test that folds each
 * character's decompositions finds any other.
 */
const COMPOSED_AFTER = /^[\u1161-\u1175\u11a8-\u11c2\u{16d67}]$/u;
/**
 * Whether {@link COMPOSED_AFTER} holds all such characters of this runtime's Unicode (a later one may add
 * some): else no text skips the normalizations.
 */
const KNOWN_UNICODE = Number.parseFloat(process.versions.unicode ?? "") <= 17;
/** Marks of the lowest and highest combining classes: between them, a character of class 0 stays put. */
const LOWEST_CLASS_MARK = "\u0334";
const HIGHEST_CLASS_MARK = "\u0345";

/**
 * Whether {@link foldedSpelling} leaves a character that is no mark as it is in any text of such
 * characters: NFKD leaves it whole and NFKC too (no compatibility form), normalization never reorders it
 * (its combining class is 0, as between marks of the lowest and highest classes it stays put), nothing
 * composes with the character before it (see {@link COMPOSED_AFTER}), and it is no Latin letter
 * written plainly otherwise (see {@link PLAIN_LATIN}). Such a text is then its own NFKC and NFD, holds no
 * accent to drop, and is folded by lowercasing alone.
 */
function isUnfolded(character: string): boolean {
  const between = `${HIGHEST_CLASS_MARK}${character}${LOWEST_CLASS_MARK}`;
  return (
    KNOWN_UNICODE &&
    !IS_MARK.test(character) &&
    character.normalize("NFKD") === character &&
    character.normalize("NFKC") === character &&
    between.normalize("NFD") === between &&
    !COMPOSED_AFTER.test(character) &&
    PLAIN_LATIN[character] === undefined
  );
}

/** `text` in NFKC, if each of its characters {@link FOLDS_ALONE}; else undefined. */
function foldedAlone(text: string): string | undefined {
  let folded = "";
  let copied = 0;
  for (let at = 0; at < text.length; ) {
    const kind = kindAt(text, at);
    const length = codePointLength(text, at);
    if ((kind & FOLDS_ALONE) === 0) return undefined;
    if ((kind & UNFOLDED) === 0) {
      folded += `${text.slice(copied, at)}${FOLDED_ALONE.get(text.codePointAt(at) ?? 0)}`;
      copied = at + length;
    }
    at += length;
  }
  return copied === 0 ? text : folded + text.slice(copied);
}

/** Whether each character of `text` is {@link UNFOLDED}. */
function isUnfoldedText(text: string): boolean {
  for (let at = 0; at < text.length; at += codePointLength(text, at)) {
    if ((kindAt(text, at) & UNFOLDED) === 0) return false;
  }
  return true;
}

/** Whether `code` is one of {@link IGNORABLES}: a word holding one is read without it. */
export function isIgnorable(code: number): boolean {
  return code === 0xad || code === 0x200c || code === 0x200d;
}

/**
 * Hands the start and end of each compound of `text` to `take`, in order (see {@link compoundEnd}).
 * `curly` as there.
 */
export function forEachCompound(
  text: string,
  curly: boolean,
  take: (start: number, end: number) => void,
): void {
  for (let at = 0; at < text.length; ) {
    const end = compoundEnd(text, at, curly);
    if (end > at) {
      take(at, end);
      at = end;
    } else {
      at += codePointLength(text, at);
    }
  }
}

/**
 * Chinese and Japanese characters, written without spaces between words: a run of them is split around
 * each character, so that its pairs of neighbouring characters (bigrams) are words, as well as the run.
 */
const SPACELESS_SCRIPT = "[\\p{scx=Han}\\p{scx=Hiragana}\\p{scx=Katakana}]";
export const SPACELESS_CHARACTER = new RegExp(SPACELESS_SCRIPT, "u");

/**
 * The most characters of a word kept, folded (joined parts and runs of Chinese included). The longest
 * term of the bench corpus has 217 (a protein sequence, scientific/glycoengineering), the longest made of
 * words 57 (`createorderasyncwithinvalidquantityreturnsvalidationerror`). A longer one is no word anyone
 * asks for, yet a SKILL.md of one (1 MiB of `a`) was folded, stemmed (Porter2 holds a number a character:
 * some 20 MiB at a peak for each such skill) and keyed whole.
 */
export const LONGEST_WORD = 256;

/**
 * The word as search keeps it, or undefined for a stop word, a single letter or a word longer than
 * {@link LONGEST_WORD}: possessives and inner apostrophes removed (`customer's` → customer). `word` is
 * folded ({@link foldedSpelling}).
 */
export function keptWord(word: string): string | undefined {
  if (word.length > LONGEST_WORD || STOP_WORDS.has(word)) return undefined;
  const bare = word.includes("'") ? word.replace(/'s$/, "").replace(/'/g, "") : word;
  return bare.length > 1 && !STOP_WORDS.has(bare) ? bare : undefined;
}

/** Latin letters that do not decompose into a letter and an accent, spelled as people type them plainly. */
const PLAIN_LATIN: Readonly<Record<string, string>> = {
  ß: "ss",
  æ: "ae",
  œ: "oe",
  ø: "o",
  ł: "l",
  đ: "d",
  ı: "i",
};
const NOT_ASCII = /[\u0080-\uffff]/;
/** A Latin letter and the accents after it, in decomposed text (NFD). */
const ACCENTED_LATIN = /(\p{Script=Latin})\p{M}+/gu;
const UNDECOMPOSED_LATIN = /[ßæœøłđı]/g;
/**
 * The most combining marks kept in a row, as Unicode's stream-safe text format (UAX #15) bounds them:
 * real text stacks a few (Vietnamese two, Tibetan a handful). Normalizing a longer run of marks of mixed
 * classes takes time quadratic in its length (a 1 MiB SKILL.md of them stalled a start for minutes).
 * Halfwidth ﾞ and ﾟ are letters that normalize to such marks, so they count as marks here.
 */
const MAX_MARKS_IN_A_ROW = 30;
const HALFWIDTH_VOICED_MARK = 0xff9e;
const HALFWIDTH_SEMI_VOICED_MARK = 0xff9f;

/**
 * Text spelled as search compares it, since requests are often typed plainly: compatibility forms read as
 * the letters they stand for (NFKC: `ﬁ` → fi, fullwidth `ＡＰＩ` → API), lowercase, and Latin letters
 * without their accents (`Résumé` → resume, `İ` → i, `straße` → strasse), as Lucene's ASCII folding does.
 * The marks of other scripts stay: a Hindi vowel sign is part of its word. Marks past
 * {@link MAX_MARKS_IN_A_ROW} in a row are dropped.
 */
export function foldedSpelling(text: string): string {
  if (!NOT_ASCII.test(text)) return text.toLowerCase();
  // Normalizing took most of the time of words of astral letters (`𝒜𝒞` is `ac` once in NFKC) and of
  // Chinese, whose characters it leaves as they are: it is skipped for such text.
  const lower = inNfkc(text).toLowerCase();
  return isUnfoldedText(lower) ? lower : inPieces(lower, plainLatin);
}

/**
 * The most characters (UTF-16 code units) of a text put in NFKC a character at a time (see
 * {@link foldedAlone}): a word of 32 astral letters. Joined a character at a time, 1 MiB of `ｶ` took 130 ms
 * and allocated 38 MiB, against 30 ms and 8 MiB normalized whole.
 */
const FOLDED_ALONE_LENGTH = 64;

/** `text` in NFKC, less the marks past {@link MAX_MARKS_IN_A_ROW} in a row. */
function inNfkc(text: string): string {
  if (text.length <= FOLDED_ALONE_LENGTH) {
    const folded = foldedAlone(text);
    if (folded !== undefined) return folded;
  } else if (isUnfoldedText(text)) {
    return text;
  }
  return withinMarksLimit(text).normalize("NFKC");
}

/**
 * `text` less the marks past {@link MAX_MARKS_IN_A_ROW} in a row. A loop, not a regular expression: one
 * (30 marks, then more) backtracked through a stack growing with the run (35 MiB for a million marks, a
 * RangeError for 8 million), and took 30 steps a mark over runs of 30 (0.2 s a MiB).
 */
export function withinMarksLimit(text: string): string {
  const pieces: string[] = [];
  let copied = 0;
  let marks = 0;
  for (let at = 0; at < text.length; ) {
    const length = codePointLength(text, at);
    if (!isMarkAt(text, at)) {
      marks = 0;
    } else if (++marks > MAX_MARKS_IN_A_ROW) {
      if (copied < at) pieces.push(text.slice(copied, at));
      copied = at + length;
    }
    at += length;
  }
  if (copied === 0) return text;
  pieces.push(text.slice(copied));
  return pieces.join("");
}

function isMarkAt(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  return (
    code === HALFWIDTH_VOICED_MARK || code === HALFWIDTH_SEMI_VOICED_MARK || (kindAt(text, at) & MARK) !== 0
  );
}

/** Latin letters without their accents, in plain letters: the rest of {@link foldedSpelling}. */
function plainLatin(text: string): string {
  return text
    .normalize("NFD")
    .replace(ACCENTED_LATIN, "$1")
    .normalize("NFC")
    .replace(UNDECOMPOSED_LATIN, (letter) => PLAIN_LATIN[letter] ?? letter);
}

/** The longest piece of text {@link inPieces} folds at once, give or take a run of marks. */
const PIECE = 4096;
const MARK_AT = /\p{M}/uy;

/**
 * `fold` applied to a text in NFKC a piece at a time, the pieces joined. A word of 1 MiB was decomposed
 * (twice its length for `é`), stripped of its accents and composed again whole, each of its hundreds of
 * thousands of matches held until the whole was done: 23 MiB at a peak for 1 MiB of `é`, past what dies
 * young. A piece ends before a character that is no mark: marks are what normalization reorders and
 * composes with what comes before them, and what loses its accents (or else Hangul jamo, which NFKC has
 * already composed into syllables); nor inside a surrogate pair, which may be a Latin letter (`𝼀`).
 */
function inPieces(text: string, fold: (text: string) => string): string {
  if (text.length <= PIECE) return fold(text);
  const pieces: string[] = [];
  for (let start = 0; start < text.length; ) {
    let end = Math.min(start + PIECE, text.length);
    while (end < text.length && !startsPiece(text, end)) end++;
    pieces.push(fold(text.slice(start, end)));
    start = end;
  }
  return pieces.join("");
}

function startsPiece(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  if (code >= 0xdc00 && code <= 0xdfff) return false;
  MARK_AT.lastIndex = at;
  return !MARK_AT.test(text);
}

/**
 * Beginnings of words that Porter2 cuts down to another word, and the stem their words take: it takes
 * -ence and -ent off `excellence` and `excellent`, leaving `excel`, the spreadsheet's name (`excel` found
 * code-review-excellence, and only it), -er off `customer`, leaving `custom` (`customer` found skills for
 * custom protocols and custom logic), and -ion, -ed and -es off `expression`, `expressed` and
 * `expresses`, leaving `express`, the name of Express and of an express checkout (`express` listed n8n
 * expressions and gene expression first). Their words meet one another apart.
 */
const STEMMED_APART: readonly (readonly [begins: string, stem: string])[] = [
  ["excellen", "excellen"],
  ["customer", "customer"],
  ["expressi", "expression"],
  ["expresse", "expression"],
];

/**
 * Porter2 (Snowball English) stemming: `nodes`/`node`, `debugging`/`debug`, `deploy`/`deployment`. A Greek
 * noun in -sis takes -ses in the plural (`analysis`, `analyses`; `hypothesis`, `hypotheses`), which Porter2
 * keeps apart: it is stemmed as its plural, which meets the verb too (`analyse`, `hypothesize`). Not under
 * six letters: `basis` would meet `base`, whose plural `bases` is also basis's. `excellence` is not
 * `excel`, `customer` `custom`, nor `expression` `express` (see {@link STEMMED_APART}).
 */
export function stem(word: string): string {
  for (const [begins, stemmed] of STEMMED_APART) if (word.startsWith(begins)) return stemmed;
  return porter2(word.length > 5 && word.endsWith("sis") ? `${word.slice(0, -2)}es` : word);
}

const HYPHEN = 45;
const UNDERSCORE = 95;

/**
 * The words of a compound as written (see {@link compoundEnd}), folded, split and kept, handed to
 * `take` one at a time: a run of Chinese as long as a SKILL.md has as many words as characters, and
 * collecting them first held hundreds of thousands of strings at once (30 MiB more at peak per such file).
 * `tooLong` is handed each part longer than {@link LONGEST_WORD}, folded: no word, yet a request counts it
 * as one no skill holds (a join of parts, which no one typed, is not handed over).
 */
export function forEachWordOfCompound(
  compound: string,
  take: TakeWord,
  tooLong: (word: string) => void = ignore,
): void {
  const text = withStraightApostrophes(foldedSpelling(withoutIgnorables(compound)));
  forEachCompound(text, false, (start, end) => forEachWordOfParts(text.slice(start, end), take, tooLong));
}

/** {@link IGNORABLES} without its `g`, for a test that keeps no `lastIndex`. */
const HAS_IGNORABLE = new RegExp(IGNORABLES.source);
/** The most code units {@link withoutIgnorables} makes a string of at once. */
const CODES_AT_ONCE = 4096;

/**
 * `text` without its {@link IGNORABLES}. Past {@link PIECE} characters, a loop: replacing 500,000 soft
 * hyphens (1 MiB of `a` and soft hyphens) with the regular expression made more temporaries than V8's
 * young generation holds, and took 31 ms against 5 for half as many (a step of 6, the scavenges copying
 * them), then twice as long at each doubling.
 */
function withoutIgnorables(text: string): string {
  if (!HAS_IGNORABLE.test(text)) return text;
  if (text.length <= PIECE) return text.replace(IGNORABLES, "");
  const codes = new Uint16Array(text.length);
  let length = 0;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (!isIgnorable(code)) codes[length++] = code;
  }
  return textOf(codes, length);
}

/**
 * `text` with each `’` read as `'`. Past {@link PIECE} characters, a loop: the regular expression took
 * some 360 ns a match, 189 ms for a compound of 1 MiB of `a’` on the Unicode path (ending in a mark),
 * against 35 for the loop.
 */
function withStraightApostrophes(text: string): string {
  if (text.length <= PIECE) return text.replace(/’/g, "'");
  if (!text.includes("’")) return text;
  const codes = new Uint16Array(text.length);
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    codes[at] = code === CURLY_APOSTROPHE ? APOSTROPHE : code;
  }
  return textOf(codes, codes.length);
}

/** The first `length` of `codes` as a string, made {@link CODES_AT_ONCE} code units at a time. */
function textOf(codes: Uint16Array, length: number): string {
  const pieces: string[] = [];
  for (let start = 0; start < length; start += CODES_AT_ONCE) {
    pieces.push(String.fromCharCode(...codes.subarray(start, Math.min(length, start + CODES_AT_ONCE))));
  }
  return pieces.join("");
}

/** For callers that have no use for words too long (see {@link forEachWordOfCompound}). */
function ignore(): void {}

/**
 * Takes a word of a compound; `pairAroundStopWord` says whether it is a pair of neighbouring parts joined
 * at a hyphen or underscore in a compound of three parts or more, one of them a stop word (`fileby` of
 * `file-by-file`; parts of Chinese or Japanese meet without one, and hold no stop word), which a request
 * leaves out as it does on the fast path (see `isPairAroundStopWord` in request-terms.ts), while a skill's
 * index keeps it.
 */
export type TakeWord = (word: string, pairAroundStopWord: boolean) => void;

/**
 * The words of a folded compound: its parts (split at hyphens and underscores, and around each Chinese or
 * Japanese character), each pair of neighbouring parts joined, and the whole joined when there are three
 * or more parts (not made when longer than {@link LONGEST_WORD}, a SKILL.md of one run of Chinese being
 * 300,000 parts); the compound itself when it is one part. Parts too long go to `tooLong` (see
 * {@link forEachWordOfCompound}).
 */
function forEachWordOfParts(compound: string, take: TakeWord, tooLong: (word: string) => void): void {
  let parts = 0;
  let separators = 0;
  for (let start = 0; start < compound.length; parts++) {
    const end = partEnd(compound, start);
    // A part of one character is never kept (see keptWord): no string is made for it.
    if (end - start > LONGEST_WORD) tooLong(compound.slice(start, end));
    else if (end - start > 1) keep(compound.slice(start, end), take);
    start = end;
    if (start < compound.length && isSeparator(compound.charCodeAt(start))) {
      start++;
      separators++;
    }
  }
  if (parts === 1) return;
  let start = 0;
  let end = partEnd(compound, start);
  while (end < compound.length) {
    const next = isSeparator(compound.charCodeAt(end)) ? end + 1 : end;
    const nextEnd = partEnd(compound, next);
    if (next === end) keep(compound.slice(start, nextEnd), take);
    else {
      const first = compound.slice(start, end);
      const second = compound.slice(next, nextEnd);
      keep(first + second, take, parts > 2 && (STOP_WORDS.has(first) || STOP_WORDS.has(second)));
    }
    start = next;
    end = nextEnd;
  }
  if (parts > 2 && compound.length - separators <= LONGEST_WORD) {
    keep(separators === 0 ? compound : compound.replace(/[-_]/g, ""), take);
  }
}

/**
 * Where the part of a folded compound starting at `start` ends: after a Chinese or Japanese character, or
 * else before the next hyphen, underscore or such character.
 */
function partEnd(compound: string, start: number): number {
  if (isSpacelessAt(compound, start)) return start + codePointLength(compound, start);
  let end = start;
  while (end < compound.length && !isSeparator(compound.charCodeAt(end)) && !isSpacelessAt(compound, end)) {
    end += codePointLength(compound, end);
  }
  return end;
}

/**
 * Whether a Chinese or Japanese character is at `at`, as its plane's table remembers: a sticky regular
 * expression tested at each character of a compound took longer.
 */
function isSpacelessAt(text: string, at: number): boolean {
  return (kindAt(text, at) & SPACELESS) !== 0;
}

/** A hyphen or an underscore: what joins the parts of a compound (`built-in`, `snake_case`). */
export function isSeparator(code: number): boolean {
  return code === HYPHEN || code === UNDERSCORE;
}

/** 2 for a character outside the Basic Multilingual Plane (a surrogate pair), else 1. */
function codePointLength(text: string, at: number): number {
  return (text.codePointAt(at) ?? 0) > 0xffff ? 2 : 1;
}

function keep(word: string, take: TakeWord, pairAroundStopWord = false): void {
  const kept = keptWord(word);
  if (kept !== undefined) take(kept, pairAroundStopWord);
}

/** The folded word a span spells, hyphens and underscores left out, `’` read as `'`. */
export function spelled(text: string, start: number, end: number): string {
  return foldedSpelling(text.slice(start, end)).replace(/[-_]/g, "").replace(/’/g, "'");
}

/**
 * What the words of a text are, by definition: compounds found one after the other, each folded and
 * split. The scanner must find the same words faster; a property test holds it to this.
 */
export function referenceWords(text: string): string[] {
  const found: string[] = [];
  forEachCompound(text, true, (start, end) => {
    forEachWordOfCompound(text.slice(start, end), (word) => found.push(word));
  });
  return found;
}
