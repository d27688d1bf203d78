import { MalformedPart, type PartReader, type PartWriter } from "../saved/index.js";
import { allBelow, isAscending } from "./arrays.js";
import { mix } from "./keys.js";
import { joinedHashes, wordHashes } from "./scanner.js";
import { STOP_WORDS } from "./terms.js";

const LETTERS = "abcdefghijklmnopqrstuvwxyz";
type Hashes = readonly [hash: number, check: number];
const LETTER_HASHES: readonly Hashes[] = [...LETTERS].map((letter) => wordHashes(letter, 0, 1));

/**
 * Words shorter than this are neither read as mistyped nor a reading: one mistake from a short word is
 * often another word.
 */
export const SHORTEST_MISTYPED = 4;
/** Longer words are not read as mistyped: no real word is, and the spellings to try grow with the square. */
const LONGEST_MISTYPED = 32;
/** A word of plain letters: the only words read as mistyped, and the only readings. */
export const PLAIN_LETTERS = /^[a-z]+$/;
/** Stop words a mistyped word may be one mistake from (`wich`, `wile`): those spelled with letters only. */
const NEAR_STOP_WORDS = [...STOP_WORDS].filter((word) => PLAIN_LETTERS.test(word));

/**
 * The catalog's words as spelled, each with its term, so that a request word no skill holds can be read
 * as a word one typing mistake away. Words are known by their key (the scanner's two hashes, see
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

  /** Writes the table to a part of the saved index, for {@link SpellingTable.load}. */
  save(part: PartWriter): void {
    part.array(this.hashes);
    part.array(this.checks);
    part.array(this.terms);
  }

  /**
   * A table saved by {@link save}: its words' hashes ascending, which the binary search of a look-up needs,
   * and each word's term one of the `termCount` an index has.
   */
  static load(part: PartReader, termCount: number): SpellingTable {
    const hashes = part.array(Int32Array);
    const checks = part.array(Int32Array);
    const terms = part.array(Int32Array);
    if (checks.length !== hashes.length || terms.length !== hashes.length) {
      throw new MalformedPart("the spellings' lists differ in length");
    }
    if (!isAscending(hashes)) throw new MalformedPart("the spellings are out of order");
    if (!allBelow(terms, termCount)) throw new MalformedPart("a spelling names a term the index lacks");
    return new SpellingTable(hashes, checks, terms);
  }

  /** A table of the words given by their keys and terms, in any order, each key once. */
  static of(hashes: readonly number[], checks: readonly number[], terms: readonly number[]): SpellingTable {
    const order = Array.from(hashes.keys()).sort(
      (a, b) =>
        (hashes[a] as number) - (hashes[b] as number) || (checks[a] as number) - (checks[b] as number),
    );
    const once = order.filter(
      (at, i) =>
        i === 0 || hashes[at] !== hashes[order[i - 1] ?? 0] || checks[at] !== checks[order[i - 1] ?? 0],
    );
    const pick = (values: readonly number[]) => Int32Array.from(once, (at) => values[at] as number);
    return new SpellingTable(pick(hashes), pick(checks), pick(terms));
  }

  /**
   * The terms of the catalog's words one typing mistake from `word` (a letter left out, added, changed,
   * or two neighbours swapped: most misspellings are one of these), each with the word as the catalog
   * spells it. The first letter is taken as typed: people rarely mistype it (Pollock and Zamora, 1983). A
   * word one mistake from a stop word is more likely that stop word mistyped (`wich`), and has none; so has
   * a word that is not {@link SHORTEST_MISTYPED} to 32 letters a to z. Each of the 50-odd spellings a
   * letter of the word gives is hashed from the hashes of its two ends, not made.
   */
  closeTerms(word: string): Map<number, string> {
    const close = new Map<number, string>();
    const { length } = word;
    if (length < SHORTEST_MISTYPED || length > LONGEST_MISTYPED || !PLAIN_LETTERS.test(word)) return close;
    if (NEAR_STOP_WORDS.some((stopWord) => oneMistakeApart(word, stopWord))) return close;
    const heads = Array.from({ length: length + 1 }, (_, end) => wordHashes(word, 0, end));
    const tails = Array.from({ length: length + 1 }, (_, start) => wordHashes(word, start, length));
    const consider = (head: Hashes, tailAt: number, spell: () => string) => {
      const [hash, check] = joinedHashes(head, tails[tailAt] as Hashes, length - tailAt);
      const term = this.termOf(hash, check);
      if (term >= 0 && !close.has(term)) close.set(term, spell());
    };
    const withLetter = (head: Hashes, code: number) => joinedHashes(head, LETTER_HASHES[code] as Hashes, 1);
    for (let at = 1; at < length; at++) {
      const head = heads[at] as Hashes;
      const letter = word.charCodeAt(at) - 97;
      consider(head, at + 1, () => word.slice(0, at) + word.slice(at + 1));
      const next = word.charCodeAt(at + 1) - 97;
      if (at + 1 < length && next !== letter) {
        const swapped = withLetter(withLetter(head, next), letter);
        consider(swapped, at + 2, () => word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2));
      }
      for (let code = 0; code < LETTERS.length; code++) {
        if (code === letter) continue;
        const spelling = () => word.slice(0, at) + LETTERS[code] + word.slice(at + 1);
        consider(withLetter(head, code), at + 1, spelling);
      }
    }
    for (let at = 1; at <= length; at++) {
      const head = heads[at] as Hashes;
      for (let code = 0; code < LETTERS.length; code++) {
        consider(withLetter(head, code), at, () => word.slice(0, at) + LETTERS[code] + word.slice(at));
      }
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

/** Whether `a` is one deletion, insertion, substitution or swap of neighbours from `b`, or is `b`. */
export function oneMistakeApart(a: string, b: string): boolean {
  if (a.length === b.length) {
    let first = -1;
    for (let at = 0; at < a.length; at++) {
      if (a[at] === b[at]) continue;
      if (first >= 0) {
        const swapped = at === first + 1 && a[first] === b[at] && a[at] === b[first];
        return swapped && a.slice(at + 1) === b.slice(at + 1);
      }
      first = at;
    }
    return true;
  }
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  if (long.length !== short.length + 1) return false;
  let at = 0;
  while (at < short.length && short[at] === long[at]) at++;
  return short.slice(at) === long.slice(at + 1);
}
