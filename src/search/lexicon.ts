import { KeyTable, mix, stemKey } from "./keys.js";
import { wordHashes } from "./scanner.js";
import { NO_TERM, PLAIN_LETTERS, SHORTEST_MISTYPED, SpellingTable } from "./spelling.js";
import { keptWord, spelled, stem } from "./terms.js";

const HYPHEN = 45;
const UNDERSCORE = 95;

function isCapital(code: number): boolean {
  return code >= 65 && code <= 90;
}

function isSmall(code: number): boolean {
  return code >= 97 && code <= 122;
}

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
  /** Term id by a word that took the Unicode path. */
  private readonly unicodeWords = new Map<string, number>();
  /**
   * Open addressing, four numbers a slot, so that a look-up reads one cache line: the word's two hashes,
   * its length, and its term + 2 (0: empty slot, 1: a word not indexed).
   */
  private slots: Int32Array = new Int32Array(4 << 16);
  private entries = 0;
  /** Camel-case compounds met, lowercased, whose parts are noted. */
  private readonly humped = new Set<string>();
  /** The parts of camel-case words that may be request words (see {@link notePartsOf}). */
  private readonly partsOfHumped = new Set<string>();

  /** The term of the word a span spells (see `WordSink.span`), or -1 if it is not indexed. */
  termOfSpan(text: string, start: number, end: number, hash: number, check: number, length: number): number {
    const slots = this.slots;
    const mask = (slots.length >> 2) - 1;
    let slot = mix(hash) & mask;
    for (;;) {
      const at = slot << 2;
      const value = slots[at + 2] as number;
      if (value === 0) break;
      if (slots[at] === hash && slots[at + 1] === check && slots[at + 3] === length) return value - 2;
      slot = (slot + 1) & mask;
    }
    const kept = keptWord(spelled(text, start, end));
    const term = kept === undefined ? -1 : this.termOfStem(stem(kept));
    const at = slot << 2;
    slots[at] = hash;
    slots[at + 1] = check;
    slots[at + 2] = term + 2;
    slots[at + 3] = length;
    if (++this.entries * 2 > slots.length >> 2) this.rehash();
    return term;
  }

  /**
   * Notes the parts of a camel-case compound spelled from `start` to `end` (`PagerDuty`: pager, duty), so
   * that a request word spelled as one is not taken for a mistake (see `NO_TERM`). Each compound is split
   * once; its parts are not indexed as words, which would change the whole catalog's ranking. What is kept
   * is cut from the compound lowercased, a string of its own: a cut of `text` could keep the whole
   * SKILL.md in memory.
   */
  notePartsOf(text: string, start: number, end: number): void {
    const written = text.slice(start, end);
    const folded = written.toLowerCase();
    if (this.humped.has(folded)) return;
    this.humped.add(folded);
    let partStart = 0;
    for (let at = 1; at <= written.length; at++) {
      const code = written.charCodeAt(at);
      const joined = code === HYPHEN || code === UNDERSCORE;
      const hump = isCapital(code) && isSmall(written.charCodeAt(at - 1));
      if (at < written.length && !joined && !hump) continue;
      const word = folded.slice(partStart, at);
      if (word.length >= SHORTEST_MISTYPED && PLAIN_LETTERS.test(word)) this.partsOfHumped.add(word);
      partStart = joined ? at + 1 : at;
    }
  }

  /** The term of a kept word (see {@link keptWord}), or -1 for none. */
  termOfWord(word: string | undefined): number {
    if (word === undefined) return -1;
    let term = this.unicodeWords.get(word);
    if (term === undefined) {
      term = this.termOfStem(stem(word));
      this.unicodeWords.set(word, term);
    }
    return term;
  }

  /** The indexed words met, as spelled, that a mistyped request word may be read as (see `SpellingTable`). */
  spellings(): SpellingTable {
    const { slots } = this;
    const hashes: number[] = [];
    const checks: number[] = [];
    const terms: number[] = [];
    for (let at = 0; at < slots.length; at += 4) {
      const term = (slots[at + 2] as number) - 2;
      if (term < 0 || (slots[at + 3] as number) < SHORTEST_MISTYPED) continue;
      hashes.push(slots[at] as number);
      checks.push(slots[at + 1] as number);
      terms.push(term);
    }
    // Words that took the Unicode path but are spelled in plain letters once folded (`Straße`).
    for (const [word, term] of this.unicodeWords) {
      if (term < 0 || word.length < SHORTEST_MISTYPED || !PLAIN_LETTERS.test(word)) continue;
      const [hash, check] = wordHashes(word, 0, word.length);
      hashes.push(hash);
      checks.push(check);
      terms.push(term);
    }
    for (const part of this.partsOfHumped) {
      const [hash, check] = wordHashes(part, 0, part.length);
      if (this.slotValue(hash, check, part.length) !== 0 || this.terms.get(...stemKey(stem(part))) >= 0)
        continue;
      hashes.push(hash);
      checks.push(check);
      terms.push(NO_TERM);
    }
    return SpellingTable.of(hashes, checks, terms);
  }

  /** A word's slot value (term + 2, or 1 for a word not indexed), or 0 for a word not met. */
  private slotValue(hash: number, check: number, length: number): number {
    const { slots } = this;
    const mask = (slots.length >> 2) - 1;
    for (let slot = mix(hash) & mask; ; slot = (slot + 1) & mask) {
      const at = slot << 2;
      const value = slots[at + 2] as number;
      if (value === 0 || (slots[at] === hash && slots[at + 1] === check && slots[at + 3] === length)) {
        return value;
      }
    }
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
