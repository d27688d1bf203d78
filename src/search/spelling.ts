import { mix } from "./fingerprints.js";
import { joinedHashes, wordHashes } from "./terms.js";

const LETTERS = "abcdefghijklmnopqrstuvwxyz";
type Hashes = readonly [hash: number, check: number];
const LETTER_HASHES: readonly Hashes[] = [...LETTERS].map((letter) => wordHashes(letter, 0, 1));

/** Request words shorter than this are not read as mistyped: one mistake from a short word is another. */
export const SHORTEST_MISTYPED = 4;
const MISTYPABLE = /^[a-z]+$/;

/**
 * The catalog's words as spelled, each with its term, so that a request word no skill holds can be read
 * as a word one typing mistake away. Words are known by their fingerprint (the scanner's two hashes, see
 * `wordHashes`), sorted, in three arrays of a number a word: a catalog of 10,000 skills has about 90,000.
 */
export class SpellingTable {
  /**
   * A bit for each word's hash (a Bloom filter with one hash function, 16 bits a word): most of the
   * spellings one mistake from a word are no word at all, and are ruled out without a search.
   */
  private readonly seen: Uint32Array;
  private readonly seenMask: number;

  constructor(
    /** Ascending (as signed integers). */
    readonly hashes: Int32Array,
    readonly checks: Int32Array,
    readonly terms: Int32Array,
  ) {
    let bits = 1024;
    while (bits < hashes.length * 16) bits *= 2;
    this.seen = new Uint32Array(bits / 32);
    this.seenMask = bits - 1;
    for (const hash of hashes) {
      const bit = mix(hash) & this.seenMask;
      this.seen[bit >>> 5] = (this.seen[bit >>> 5] as number) | (1 << (bit & 31));
    }
  }

  /** A table of the words given by their fingerprints and terms, in any order. */
  static of(hashes: Int32Array, checks: Int32Array, terms: Int32Array): SpellingTable {
    const order = Array.from(hashes.keys()).sort((a, b) => (hashes[a] as number) - (hashes[b] as number));
    const pick = (values: Int32Array) => Int32Array.from(order, (at) => values[at] as number);
    return new SpellingTable(pick(hashes), pick(checks), pick(terms));
  }

  /**
   * The terms of the catalog's words one typing mistake from `word` (a letter left out, added, changed,
   * or two neighbours swapped: most misspellings are one of these), each with the word as the catalog
   * spells it. Only a word of at least {@link SHORTEST_MISTYPED} letters a to z is looked at. Each of the
   * 50-odd spellings a letter of the word gives is hashed from the hashes of its two ends, not made.
   */
  closeTerms(word: string): Map<number, string> {
    const close = new Map<number, string>();
    if (word.length < SHORTEST_MISTYPED || !MISTYPABLE.test(word)) return close;
    const length = word.length;
    const heads = Array.from({ length: length + 1 }, (_, end) => wordHashes(word, 0, end));
    const tails = Array.from({ length: length + 1 }, (_, start) => wordHashes(word, start, length));
    const consider = (head: Hashes, tailAt: number, spell: () => string) => {
      const [hash, check] = joinedHashes(head, tails[tailAt] as Hashes, length - tailAt);
      const term = this.termOf(hash, check);
      if (term >= 0 && !close.has(term)) close.set(term, spell());
    };
    for (let at = 0; at < length; at++) {
      const head = heads[at] as Hashes;
      consider(head, at + 1, () => word.slice(0, at) + word.slice(at + 1));
      const [letter, next] = [word.charCodeAt(at) - 97, word.charCodeAt(at + 1) - 97];
      if (at + 1 < length && next !== letter) {
        const swapped = joinedHashes(
          joinedHashes(head, LETTER_HASHES[next] as Hashes, 1),
          LETTER_HASHES[letter] as Hashes,
          1,
        );
        consider(swapped, at + 2, () => word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2));
      }
      LETTER_HASHES.forEach((other, code) => {
        if (code === letter) return;
        consider(
          joinedHashes(head, other, 1),
          at + 1,
          () => word.slice(0, at) + LETTERS[code] + word.slice(at + 1),
        );
      });
    }
    for (let at = 0; at <= length; at++) {
      const head = heads[at] as Hashes;
      LETTER_HASHES.forEach((other, code) => {
        consider(joinedHashes(head, other, 1), at, () => word.slice(0, at) + LETTERS[code] + word.slice(at));
      });
    }
    return close;
  }

  private termOf(hash: number, check: number): number {
    const bit = mix(hash) & this.seenMask;
    if (((this.seen[bit >>> 5] as number) & (1 << (bit & 31))) === 0) return -1;
    const { hashes } = this;
    let low = 0;
    let high = hashes.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if ((hashes[middle] as number) < hash) low = middle + 1;
      else high = middle;
    }
    for (let at = low; at < hashes.length && hashes[at] === hash; at++) {
      if (this.checks[at] === check) return this.terms[at] as number;
    }
    return -1;
  }
}
