import { capitalsKey, KeyTable, mix, stemKey } from "./keys.js";
import { wordHashes } from "./scanner.js";
import {
  NO_TERM,
  PLAIN_LETTERS,
  SHORTEST_MISTYPED,
  SHORTEST_READ_AS_CAPITALS,
  SpellingList,
  type SpellingTable,
} from "./spelling.js";
import { keptWord, LONGEST_WORD, spelled, stem } from "./terms.js";

const HYPHEN = 45;
const UNDERSCORE = 95;

function isCapital(code: number): boolean {
  return code >= 65 && code <= 90;
}

function isSmall(code: number): boolean {
  return code >= 97 && code <= 122;
}

/** Whether `text` from `start` to `end` is letters a to z, in either case. */
function plainLetters(text: string, start: number, end: number): boolean {
  for (let at = start; at < end; at++) {
    const code = text.charCodeAt(at);
    if (!isSmall(code) && !isCapital(code)) return false;
  }
  return true;
}

/** The word a span spells as kept (see `keptWord`), without making a string of one too long to keep. */
function keptOfSpan(text: string, start: number, end: number, length: number): string | undefined {
  return length > LONGEST_WORD ? undefined : keptWord(spelled(text, start, end));
}

/**
 * `word` in a string of its own. A word is cut from its folded compound, and V8 keeps a cut of 13
 * characters or more as a view of the whole: kept as a key, it kept the compound, up to a SKILL.md's
 * length, for the rest of the build (a 0.9 MiB compound of distinct parts: 0.7 MiB a skill). Joined to a
 * space and cut again, it is copied whole first.
 */
function copied(word: string): string {
  return ` ${word}`.slice(1);
}

/** A slot's value for a word met only as a part of a camel-case word (see {@link Lexicon.notePartsOf}). */
const ONLY_A_PART = -1;
/** Set in a slot's length once the camel-case word it holds has had its parts noted. */
const PARTS_NOTED = 1 << 30;
/** Set in a slot's length when it holds a word written in capitals (see {@link Lexicon.termOfCapitals}). */
const IN_CAPITALS = 1 << 29;
const LENGTH = IN_CAPITALS - 1;
/** Mixed into a word's hash when it is written in capitals, so that it has a slot of its own. */
const CAPITALS_SALT = 0x5a17c0de;
/**
 * The most words a document may add as parts of camel-case words. The real corpus's most is 181 (a mean
 * of 13); a file of a million distinct camel-case words would otherwise add two million words.
 */
const PARTS_A_DOCUMENT = 1024;

/** What {@link Lexicon.metTermOfSpan} gives for a word not met before. */
const UNMET = -2;

/**
 * Maps words to term ids while a catalog is indexed, without making a string of every word: a word is
 * found by the two hashes the scanner computed on the way (a 64-bit key, with its length), and only
 * a word not met before is made a string, checked against the stop list and stemmed. A catalog of 10,000
 * skills has 12 million words but only about 50,000 distinct ones; two of 200,000 distinct words would
 * share a key with odds of about 1 in 10^9, and would then share their postings. Lives only while
 * the index is built; the index keeps the stems' keys (see `stemKey`) and, for reading
 * mistyped request words, the words' (see {@link spellings}).
 */
export class Lexicon {
  /** Term ids by the key of their stem. */
  readonly terms = new KeyTable();
  /** The terms of words in capitals kept apart from their stems, each with its stem's term (see {@link termOfCapitals}). */
  private readonly capitalTerms = new Map<number, number>();
  /** Term id by a word that took the Unicode path. */
  private readonly unicodeWords = new Map<string, number>();
  /**
   * Open addressing, four numbers a slot, so that a look-up reads one cache line: the word's two hashes,
   * its length (and {@link PARTS_NOTED}), and its term + 2 (0: empty slot, 1: a word not indexed,
   * {@link ONLY_A_PART}: a word met only inside a camel-case word).
   */
  private slots: Int32Array = new Int32Array(4 << 16);
  private entries = 0;
  /** How many more words the current document may add as parts (see {@link PARTS_A_DOCUMENT}). */
  private partsLeft = PARTS_A_DOCUMENT;

  /**
   * The term of the word a span spells (see `WordSink.span`), or -1 if it is not indexed. When `humped`,
   * the span's parts are noted too (see {@link notePartsOf}), once for all the times it is met.
   */
  termOfSpan(
    text: string,
    start: number,
    end: number,
    hash: number,
    check: number,
    length: number,
    humped: boolean,
  ): number {
    const { slots } = this;
    const at = this.slotOf(hash, check, length);
    const value = slots[at + 2] as number;
    if (value !== 0 && value !== ONLY_A_PART) {
      if (humped && ((slots[at + 3] as number) & PARTS_NOTED) === 0) {
        slots[at + 3] = length | PARTS_NOTED;
        this.notePartsOf(text, start, end);
      }
      return value - 2;
    }
    const kept = keptOfSpan(text, start, end, length);
    const term = kept === undefined ? -1 : this.termOfStem(stem(kept));
    slots[at] = hash;
    slots[at + 1] = check;
    slots[at + 2] = term + 2;
    slots[at + 3] = humped ? length | PARTS_NOTED : length;
    if (value === 0 && ++this.entries * 2 > slots.length >> 2) this.rehash();
    if (humped) this.notePartsOf(text, start, end);
    return term;
  }

  /**
   * The term of a word written in capitals (letters A to Z, see `isCapitalWord`): its stem's, when the
   * stem is the word itself (`API`, `NEVER`), else a term of its own, the word as written (see
   * `capitalsKey`): `PAINS`, the filters of medicinal chemistry, is not the plural of pain, nor `SMILES`
   * of smile, nor `AWS` a form of aw. A request word finds it beside its stem, and each skill scores the
   * better of the two (see `RequestTerms.alternatives`).
   */
  termOfCapitals(
    text: string,
    start: number,
    end: number,
    hash: number,
    check: number,
    length: number,
  ): number {
    const { slots } = this;
    const salted = hash ^ CAPITALS_SALT;
    const at = this.slotOf(salted, check, length | IN_CAPITALS);
    const value = slots[at + 2] as number;
    if (value !== 0) return value - 2;
    const kept = keptOfSpan(text, start, end, length);
    let term = -1;
    if (kept !== undefined) {
      const root = stem(kept);
      const stemTerm = this.termOfStem(root);
      if (root === kept) {
        term = stemTerm;
      } else {
        term = this.terms.add(...capitalsKey(kept));
        this.capitalTerms.set(term, stemTerm);
      }
    }
    slots[at] = salted;
    slots[at + 1] = check;
    slots[at + 2] = term + 2;
    slots[at + 3] = length | IN_CAPITALS;
    if (++this.entries * 2 > slots.length >> 2) this.rehash();
    return term;
  }

  /** Per term of `termCount`, 1 when it is the stem of a word in capitals kept apart; else 0. */
  stemsOfCapitals(termCount: number): Uint8Array {
    const stems = new Uint8Array(termCount);
    for (const stemTerm of this.capitalTerms.values()) stems[stemTerm] = 1;
    return stems;
  }

  /** The term of the stem of the word in capitals whose term is `term`, if it was kept apart; else -1. */
  stemOfCapitals(term: number): number {
    return this.capitalTerms.get(term) ?? -1;
  }

  /**
   * The term of a word already met (see {@link termOfSpan}, {@link termOfCapitals} when `capitals`), -1 if
   * it is not indexed, or {@link UNMET}: a look-up that adds nothing, for a document that has reached its
   * limit of distinct terms (see `TERMS_A_DOCUMENT`).
   */
  metTermOfSpan(hash: number, check: number, length: number, capitals = false): number {
    const at = capitals
      ? this.slotOf(hash ^ CAPITALS_SALT, check, length | IN_CAPITALS)
      : this.slotOf(hash, check, length);
    const value = this.slots[at + 2] as number;
    return value === 0 || value === ONLY_A_PART ? UNMET : value - 2;
  }

  /** Like {@link metTermOfSpan}, for a word that took the Unicode path. */
  metTermOfWord(word: string): number {
    return this.unicodeWords.get(word) ?? UNMET;
  }

  /**
   * Notes the parts of a camel-case compound spelled from `start` to `end` (`PagerDuty`: pager, duty) as
   * words met, so that a request word spelled as one is not taken for a mistake (see `NO_TERM`). They are
   * not indexed as words, which would change the whole catalog's ranking. A part costs a slot of the
   * table, as a word does, and no string: a file of distinct camel-case words costs what plain ones do.
   */
  private notePartsOf(text: string, start: number, end: number): void {
    if (this.partsLeft === 0) return;
    let partStart = start;
    for (let at = start + 1; at <= end; at++) {
      const code = at < end ? text.charCodeAt(at) : -1;
      const joined = code === HYPHEN || code === UNDERSCORE;
      const hump = isCapital(code) && isSmall(text.charCodeAt(at - 1));
      if (at < end && !joined && !hump) continue;
      if (at - partStart >= SHORTEST_MISTYPED && plainLetters(text, partStart, at)) {
        this.notePart(...wordHashes(text, partStart, at), at - partStart);
      }
      partStart = joined ? at + 1 : at;
    }
  }

  private notePart(hash: number, check: number, length: number): void {
    if (this.partsLeft === 0) return;
    const { slots } = this;
    const at = this.slotOf(hash, check, length);
    if (slots[at + 2] !== 0) return;
    slots[at] = hash;
    slots[at + 1] = check;
    slots[at + 2] = ONLY_A_PART;
    slots[at + 3] = length;
    this.partsLeft--;
    if (++this.entries * 2 > slots.length >> 2) this.rehash();
  }

  /** Where in `slots` the word with these keys is, or else the empty slot it would take. */
  private slotOf(hash: number, check: number, length: number): number {
    const { slots } = this;
    const mask = (slots.length >> 2) - 1;
    for (let slot = mix(hash) & mask; ; slot = (slot + 1) & mask) {
      const at = slot << 2;
      if (slots[at + 2] === 0) return at;
      if (
        slots[at] === hash &&
        slots[at + 1] === check &&
        ((slots[at + 3] as number) & (LENGTH | IN_CAPITALS)) === length
      ) {
        return at;
      }
    }
  }

  /** Starts the next document: it may add {@link PARTS_A_DOCUMENT} words as parts of camel-case words. */
  nextDocument(): void {
    this.partsLeft = PARTS_A_DOCUMENT;
  }

  /** The term of a kept word (see {@link keptWord}), or -1 for none. */
  termOfWord(word: string | undefined): number {
    if (word === undefined) return -1;
    let term = this.unicodeWords.get(word);
    if (term === undefined) {
      term = this.termOfStem(stem(word));
      this.unicodeWords.set(copied(word), term);
    }
    return term;
  }

  /**
   * The indexed words met, as spelled, that a mistyped request word may be read as, and the words met only
   * inside camel-case words (see `SpellingTable`).
   */
  spellings(): SpellingTable {
    const { slots } = this;
    const words = new SpellingList(this.entries + this.unicodeWords.size);
    for (let at = 0; at < slots.length; at += 4) {
      const value = slots[at + 2] as number;
      if (value === 0 || value === 1) continue;
      let hash = slots[at] as number;
      let term = value === ONLY_A_PART ? NO_TERM : value - 2;
      const length = (slots[at + 3] as number) & LENGTH;
      const inCapitals = ((slots[at + 3] as number) & IN_CAPITALS) !== 0;
      // A shorter word is a reading only when kept apart in capitals (`AWS`, see SHORTEST_READ_AS_CAPITALS).
      if (
        length < SHORTEST_MISTYPED &&
        !(length >= SHORTEST_READ_AS_CAPITALS && inCapitals && this.capitalTerms.has(term))
      ) {
        continue;
      }
      if (inCapitals) {
        hash ^= CAPITALS_SALT;
        // A word in capitals kept apart is spelled as its stem's word: a request word so spelled, or one
        // mistake from it (`smils`), finds the stem and beside it the word in capitals (see
        // `RequestTerms.alternatives`), as a word some skill writes in small letters does.
        term = this.capitalTerms.get(term) ?? term;
      }
      words.add(hash, slots[at + 1] as number, term);
    }
    // Words that took the Unicode path but are spelled in plain letters once folded (`Straße`).
    for (const [word, term] of this.unicodeWords) {
      if (term < 0 || word.length < SHORTEST_MISTYPED || !PLAIN_LETTERS.test(word)) continue;
      const [hash, check] = wordHashes(word, 0, word.length);
      words.add(hash, check, term);
    }
    return words.table();
  }

  private termOfStem(root: string): number {
    const [hash, check] = stemKey(root);
    return this.terms.add(hash, check);
  }

  /** Doubles the table when it is half full. */
  private rehash(): void {
    const old = this.slots;
    const slots = new Int32Array(old.length * 2);
    const mask = (slots.length >> 2) - 1;
    for (let from = 0; from < old.length; from += 4) {
      if (old[from + 2] === 0) continue;
      let slot = mix(old[from] as number) & mask;
      while (slots[(slot << 2) + 2] !== 0) slot = (slot + 1) & mask;
      slots.set(old.subarray(from, from + 4), slot << 2);
    }
    this.slots = slots;
  }
}
