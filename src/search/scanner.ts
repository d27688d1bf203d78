import { grown } from "./arrays.js";
import { PLANE_SIZE, PlaneTables } from "./planes.js";
import {
  compoundEnd,
  foldedSpelling,
  forEachWordOfCompound,
  isIgnorable,
  keptWord,
  LONGEST_WORD,
  SPACELESS_CHARACTER,
  spelled,
} from "./terms.js";

/**
 * Word scanning: the words that terms.ts defines, found character by character and hashed on the way,
 * for the twelve million words of a large catalog.
 */

const LETTER_OR_NUMBER = /^[\p{L}\p{N}]$/u;
const LETTER = /^\p{L}$/u;
const MARK = /^\p{M}$/u;

/** Receives the words of a text as a scanner finds them. */
export interface WordSink {
  /**
   * A word of letters, digits and apostrophes spelled by `text` from `start` to `end`, less any hyphens
   * and underscores in between (the joined parts of a compound); not yet folded (each character's folded
   * spelling is one character), stop words not yet dropped. `hash` and `check` are two independent
   * hashes of the word as spelled ({@link wordHashes}), `length` its length. Handing over the span instead
   * of a string spares an allocation for every word of a catalog. `humped` says whether the compound
   * holding it is written in camel case (a small letter a to z, then a capital: `PagerDuty`).
   */
  span(
    text: string,
    start: number,
    end: number,
    hash: number,
    check: number,
    length: number,
    humped: boolean,
  ): void;
  /**
   * A word that needed Unicode handling, already folded and kept (see {@link keptWord}); see `TakeWord`
   * in terms.ts for `pairAroundStopWord`.
   */
  word(word: string, pairAroundStopWord: boolean): void;
  /**
   * A word that needed Unicode handling, folded, and longer than LONGEST_WORD (see terms.ts): no term, as
   * a span that long is not; not a join of a compound's parts. For a request, which counts it.
   */
  tooLong?(word: string): void;
}

/** ASCII character classes, for the fast path. */
const OTHER = 0;
const LETTER_CLASS = 1;
const DIGIT_CLASS = 2;
const ASCII_CLASS = Uint8Array.from({ length: 128 }, (_, code) => {
  const character = String.fromCharCode(code);
  return /[A-Za-z]/.test(character) ? LETTER_CLASS : /[0-9]/.test(character) ? DIGIT_CLASS : OTHER;
});
/** Non-ASCII character classes. */
const LETTER_CHARACTER = 1;
const NUMBER_CHARACTER = 2;
const OTHER_CHARACTER = 3;
const MARK_CHARACTER = 4;
/** What {@link WordScanner} finds at a position, when it is not a character of a fast-path word. */
const NOT_IN_WORD = -1;
const UNICODE_PATH = -2;
const CAPITAL_SIGMA = 0x3a3;
const CAPITAL_A = 65;
const CAPITAL_Z = 90;
const SMALL_A = 97;
const SMALL_Z = 122;
const HYPHEN = 45;
const UNDERSCORE = 95;
const APOSTROPHE = 39;
const CURLY_APOSTROPHE = 0x2019;

/** Multipliers of the two polynomial word hashes; odd, so no information is lost. */
const HASH_MULTIPLIER = 0x01000193;
const CHECK_MULTIPLIER = 0x5bd1e995;

/**
 * The two hashes a scanner gives a word spelled from `start` to `end` (polynomials over its characters,
 * folded, `’` read as `'`, hyphens and underscores left out), computed from the text so that a lexicon
 * can find a word without making a string of it. Only for words the scanner's fast path takes, whose
 * characters each fold to one character: of `ß` or `ﬁ` only the first folded character counts.
 */
export function wordHashes(text: string, start: number, end: number): [hash: number, check: number] {
  let hash = 0;
  let check = 0;
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code === HYPHEN || code === UNDERSCORE) continue;
    const folded =
      code === CURLY_APOSTROPHE
        ? APOSTROPHE
        : code < 128
          ? code | 0x20
          : foldedSpelling(String.fromCharCode(code)).charCodeAt(0);
    hash = (Math.imul(hash, HASH_MULTIPLIER) + folded) | 0;
    check = (Math.imul(check, CHECK_MULTIPLIER) + folded) | 0;
  }
  return [hash, check];
}

/**
 * The factors that shift a word's two hashes ({@link wordHashes}) past `length` more characters, for
 * `length` from 0 to `count - 1`: the hash of a word `a` then `b` is `a`'s times the factor of `b`'s length,
 * plus `b`'s (in 32-bit arithmetic, as `Math.imul`). A spelling reading joins hundreds of such pieces.
 */
export function shiftFactors(count: number): { readonly hash: Int32Array; readonly check: Int32Array } {
  const hash = new Int32Array(count);
  const check = new Int32Array(count);
  hash[0] = 1;
  check[0] = 1;
  for (let length = 1; length < count; length++) {
    hash[length] = Math.imul(hash[length - 1] as number, HASH_MULTIPLIER);
    check[length] = Math.imul(check[length - 1] as number, CHECK_MULTIPLIER);
  }
  return { hash, check };
}

/** The polynomial hash of word a followed by word b, of length `bLength`, from theirs. */
function joinedHash(a: number, b: number, bLength: number, multiplier: number): number {
  let shifted = a;
  for (let i = 0; i < bLength; i++) shifted = Math.imul(shifted, multiplier);
  return (shifted + b) | 0;
}

/**
 * Splits text into the words search indexes, the same way for skills and for requests. Spelling is
 * folded ({@link foldedSpelling}); words are runs of letters, digits and their marks; stop words and
 * single letters are dropped, possessives folded. A compound joined by hyphens or underscores yields its
 * parts, each pair of neighbouring parts joined, and the whole joined, so a request for `sub-workflow`,
 * `subworkflows` or `code nodes` reaches `n8n-subworkflows-official` or `n8n-code-nodes`.
 *
 * Chinese and Japanese, written without spaces, are split around each character: `数据可视化` yields its
 * pairs of neighbouring characters (`数据`, `据可`, `可视`, `视化`) and the whole run, so a request and a
 * skill meet on the words they share without a dictionary of words.
 *
 * Catalogs are large (10,000 skills hold about 12 million words), so words are scanned character by
 * character, hashed on the way, and handed over as spans. Only compounds holding a Chinese or Japanese
 * character or a character whose folded spelling is not one character of its kind (`ß`, `Σ`, combining marks,
 * letters outside the Basic Multilingual Plane) or an ignorable character (a soft hyphen, a zero-width joiner
 * or non-joiner) take the Unicode path (found by terms.ts, folded as a string), several times slower a word.
 * A scanner keeps the character classes it has looked up, and is not shared between concurrent scans.
 */
export class WordScanner {
  /** Non-ASCII character classes met so far: 0 for not yet met. */
  private readonly classes = new Uint8Array(0x10000);
  /** For the non-ASCII letters and digits of the fast path, their folded spelling; 0 for the others. */
  private readonly folded = new Uint16Array(0x10000);
  /**
   * The classes of characters outside the Basic Multilingual Plane, and of lone surrogates, met so far:
   * a table for a plane only once one of its characters is met.
   */
  private readonly astralClasses = new PlaneTables();
  private partStarts: Int32Array = new Int32Array(16);
  private partEnds: Int32Array = new Int32Array(16);
  private partHashes: Int32Array = new Int32Array(16);
  private partChecks: Int32Array = new Int32Array(16);

  /** The words of `text` between `start` and `end`, in order. Words must not straddle `start` or `end`. */
  scan(text: string, start: number, end: number, sink: WordSink): void {
    let i = start;
    while (i < end) {
      const code = text.charCodeAt(i);
      if (code < 128) {
        i = ASCII_CLASS[code] === OTHER ? i + 1 : this.compound(text, i, end, sink);
      } else {
        const folded = this.foldedAt(text, i);
        if (folded === NOT_IN_WORD) i++;
        else if (folded === UNICODE_PATH) i = this.unicodeCompound(text, i, end, sink);
        else i = this.compound(text, i, end, sink);
      }
    }
  }

  /** A compound starting with a letter or digit of the fast path at `start`; returns where it ends. */
  private compound(text: string, start: number, end: number, sink: WordSink): number {
    let parts = 0;
    let i = start;
    let humped = false;
    for (;;) {
      const partStart = i;
      let hash = 0;
      let check = 0;
      let code = -1;
      let small = false;
      for (; i < end; i++) {
        code = text.charCodeAt(i);
        let folded = code | 0x20;
        if (code >= 128) {
          folded = this.foldedAt(text, i);
          // A soft hyphen or zero-width (non-)joiner: the Unicode path reads the word without it.
          if (folded === UNICODE_PATH || (folded === NOT_IN_WORD && isIgnorable(code)))
            return this.unicodeCompound(text, start, end, sink);
          if (folded === NOT_IN_WORD) break;
        } else if (ASCII_CLASS[code] === OTHER) {
          break;
        }
        if (small && code <= CAPITAL_Z && code >= CAPITAL_A) humped = true;
        small = code >= SMALL_A && code <= SMALL_Z;
        hash = (Math.imul(hash, HASH_MULTIPLIER) + folded) | 0;
        check = (Math.imul(check, CHECK_MULTIPLIER) + folded) | 0;
      }
      // Apostrophes followed by letters stay in the word (`don't`, `customer's`).
      while (i + 1 < end && (code === APOSTROPHE || code === CURLY_APOSTROPHE)) {
        let folded = this.letterFoldedAt(text, i + 1);
        if (folded === UNICODE_PATH) return this.unicodeCompound(text, start, end, sink);
        if (folded === NOT_IN_WORD) break;
        hash = (Math.imul(hash, HASH_MULTIPLIER) + APOSTROPHE) | 0;
        check = (Math.imul(check, CHECK_MULTIPLIER) + APOSTROPHE) | 0;
        for (i++; i < end; i++) {
          code = text.charCodeAt(i);
          folded = this.letterFoldedAt(text, i);
          if (folded === UNICODE_PATH || (folded === NOT_IN_WORD && isIgnorable(code)))
            return this.unicodeCompound(text, start, end, sink);
          if (folded === NOT_IN_WORD) break;
          hash = (Math.imul(hash, HASH_MULTIPLIER) + folded) | 0;
          check = (Math.imul(check, CHECK_MULTIPLIER) + folded) | 0;
        }
      }
      const joined = i + 1 < end && (code === HYPHEN || code === UNDERSCORE);
      const next = joined ? this.foldedAt(text, i + 1) : NOT_IN_WORD;
      if (next === UNICODE_PATH) return this.unicodeCompound(text, start, end, sink);
      const continues = next !== NOT_IN_WORD;
      if (parts === 0 && !continues) {
        // A plain word, by far the most common case.
        if (i - start > 1) sink.span(text, start, i, hash, check, i - start, humped);
        return i;
      }
      this.addPart(parts++, partStart, i, hash, check);
      if (!continues) break;
      i++;
    }
    this.emitParts(text, parts, humped, sink);
    return i;
  }

  /**
   * Each part, each pair of neighbouring parts joined, and the whole joined when there are three or more
   * and it is not longer than LONGEST_WORD (see terms.ts).
   */
  private emitParts(text: string, parts: number, humped: boolean, sink: WordSink): void {
    const { partStarts, partEnds, partHashes, partChecks } = this;
    for (let p = 0; p < parts; p++) {
      const start = partStarts[p] as number;
      const length = (partEnds[p] as number) - start;
      if (length > 1)
        sink.span(
          text,
          start,
          start + length,
          partHashes[p] as number,
          partChecks[p] as number,
          length,
          humped,
        );
    }
    for (let p = 1; p < parts; p++) {
      const start = partStarts[p - 1] as number;
      const end = partEnds[p] as number;
      const second = end - (partStarts[p] as number);
      const hash = joinedHash(partHashes[p - 1] as number, partHashes[p] as number, second, HASH_MULTIPLIER);
      const check = joinedHash(
        partChecks[p - 1] as number,
        partChecks[p] as number,
        second,
        CHECK_MULTIPLIER,
      );
      sink.span(text, start, end, hash, check, (partEnds[p - 1] as number) - start + second, humped);
    }
    // Less its hyphens and underscores, one between each two parts.
    const joined = (partEnds[parts - 1] as number) - (partStarts[0] as number) - (parts - 1);
    if (parts > 2 && joined <= LONGEST_WORD) {
      let hash = partHashes[0] as number;
      let check = partChecks[0] as number;
      let length = (partEnds[0] as number) - (partStarts[0] as number);
      for (let p = 1; p < parts; p++) {
        const size = (partEnds[p] as number) - (partStarts[p] as number);
        hash = joinedHash(hash, partHashes[p] as number, size, HASH_MULTIPLIER);
        check = joinedHash(check, partChecks[p] as number, size, CHECK_MULTIPLIER);
        length += size;
      }
      sink.span(text, partStarts[0] as number, partEnds[parts - 1] as number, hash, check, length, humped);
    }
  }

  private addPart(part: number, start: number, end: number, hash: number, check: number): void {
    if (part === this.partStarts.length) {
      this.partStarts = grown(this.partStarts, part * 2);
      this.partEnds = grown(this.partEnds, part * 2);
      this.partHashes = grown(this.partHashes, part * 2);
      this.partChecks = grown(this.partChecks, part * 2);
    }
    this.partStarts[part] = start;
    this.partEnds[part] = end;
    this.partHashes[part] = hash;
    this.partChecks[part] = check;
  }

  /** A compound holding non-ASCII letters or digits, at `start`: the Unicode path. */
  private unicodeCompound(text: string, start: number, end: number, sink: WordSink): number {
    // Callers scan whole lines or fields, so a compound never runs past `end`; the cut is a safeguard.
    const found = Math.min(compoundEnd(text, start, true), end);
    if (found === start) return start + 1;
    forEachWordOfCompound(
      text.slice(start, found),
      (word, pairAroundStopWord) => sink.word(word, pairAroundStopWord),
      (word) => sink.tooLong?.(word),
    );
    return found;
  }

  /**
   * The character at `i` folded, if it is a letter or digit the fast path handles (ASCII, or any other
   * whose folded spelling is one letter or digit of the same kind, outside the Greek capital sigma, whose
   * lowercase depends on its place in the word); else NOT_IN_WORD, or UNICODE_PATH for the other letters,
   * digits and combining marks.
   */
  private foldedAt(text: string, i: number): number {
    const code = text.charCodeAt(i);
    if (code < 128) return ASCII_CLASS[code] === OTHER ? NOT_IN_WORD : code | 0x20;
    const type = this.classOf(text, i);
    if (type === OTHER_CHARACTER) return NOT_IN_WORD;
    return (this.folded[code] as number) || UNICODE_PATH;
  }

  /** Like {@link foldedAt}, for letters only: what may follow an apostrophe. */
  private letterFoldedAt(text: string, i: number): number {
    const code = text.charCodeAt(i);
    if (code < 128) return ASCII_CLASS[code] === LETTER_CLASS ? code | 0x20 : NOT_IN_WORD;
    const type = this.classOf(text, i);
    if (type === MARK_CHARACTER) return UNICODE_PATH;
    return type === LETTER_CHARACTER ? this.foldedAt(text, i) : NOT_IN_WORD;
  }

  /** The class of the non-ASCII character at `i`: LETTER_, NUMBER_, MARK_ or OTHER_CHARACTER. */
  private classOf(text: string, i: number): number {
    const code = text.charCodeAt(i);
    if (code >= 0xd800 && code <= 0xdfff) {
      // Outside the Basic Multilingual Plane (or a lone surrogate): never on the fast path, but classified
      // once too, as each classification took up to three regular expression tests.
      const point = text.codePointAt(i) ?? code;
      const classes = this.astralClasses.of(point);
      const index = point & (PLANE_SIZE - 1);
      let type = classes[index] as number;
      if (type === 0) {
        type = unicodeClass(String.fromCodePoint(point));
        classes[index] = type;
      }
      return type;
    }
    let type = this.classes[code] as number;
    if (type === 0) {
      const character = String.fromCharCode(code);
      type = unicodeClass(character);
      this.classes[code] = type;
      const plain = foldedSpelling(character);
      const simple =
        (type === LETTER_CHARACTER || type === NUMBER_CHARACTER) &&
        code !== CAPITAL_SIGMA &&
        plain.length === 1 &&
        !SPACELESS_CHARACTER.test(character);
      if (simple && unicodeClass(plain) === type) this.folded[code] = plain.charCodeAt(0);
    }
    return type;
  }
}

function unicodeClass(character: string): number {
  if (LETTER.test(character)) return LETTER_CHARACTER;
  if (LETTER_OR_NUMBER.test(character)) return NUMBER_CHARACTER;
  return MARK.test(character) ? MARK_CHARACTER : OTHER_CHARACTER;
}

/** Collects a text's words as strings: for requests, which are short. */
class WordList implements WordSink {
  readonly words: string[] = [];

  span(text: string, start: number, end: number, _hash: number, _check: number, length: number): void {
    if (length > LONGEST_WORD) return;
    const kept = keptWord(spelled(text, start, end));
    if (kept !== undefined) this.words.push(kept);
  }

  word(word: string): void {
    this.words.push(word);
  }
}

/** The words of a text as search sees them, before stemming (see {@link WordScanner}). */
export function words(text: string, scanner = new WordScanner()): string[] {
  const list = new WordList();
  scanner.scan(text, 0, text.length, list);
  return list.words;
}
