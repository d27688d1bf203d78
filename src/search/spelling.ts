import { MalformedPart, type PartReader, type PartWriter } from "../saved/index.js";
import { allBelow, grown, isAscending } from "./arrays.js";
import { mix } from "./keys.js";
import { shiftFactors } from "./scanner.js";
import { FUNCTION_WORDS } from "./terms.js";

const A = 97;
const Z = 122;

/**
 * Words shorter than this are neither read as mistyped nor a reading: one mistake from a short word is
 * often another word.
 */
export const SHORTEST_MISTYPED = 4;
/**
 * A word of this many letters, shorter than {@link SHORTEST_MISTYPED}, is read only as a word skills write
 * in capitals, kept apart from its stem (`aww` as AWS): an acronym, of which a short word is a likelier
 * mistake than of another word.
 */
export const SHORTEST_READ_AS_CAPITALS = 3;
/** Longer words are not read as mistyped: no real word is, and the spellings to try grow with the square. */
const LONGEST_MISTYPED = 32;
/**
 * The term of a word the catalog holds only inside a word written in camel case (`pager` of PagerDuty,
 * `fetcher` of DataFetcher): no skill is found by it, but a request word so spelled is no mistake.
 */
export const NO_TERM = -2;
/** A word of plain letters: the only words read as mistyped, and the only readings. */
export const PLAIN_LETTERS = /^[a-z]+$/;
/**
 * Stop words a mistyped word may be one mistake from (`wich`, `wile`): those spelled with letters only, and
 * not numbers. A request counts in digits or in words but rarely mistypes a number, while common words lie
 * one mistake from one (`sever`, `fire`, `tree`) and may be mistakes for the catalog's words themselves.
 */
const NEAR_STOP_WORDS = [...FUNCTION_WORDS].filter((word) => PLAIN_LETTERS.test(word));
/** Enough factors for any spelling one letter longer than the longest word read as mistyped. */
const SHIFTS = shiftFactors(LONGEST_MISTYPED + 2);

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
    if (
      !allBelow(
        terms.filter((term) => term !== NO_TERM),
        termCount,
      )
    ) {
      throw new MalformedPart("a spelling names a term the index lacks");
    }
    return new SpellingTable(hashes, checks, terms);
  }

  /**
   * The terms of the catalog's words one typing mistake from `word` (a letter left out, added, changed, or
   * two neighbours swapped: most misspellings are one of these), each with the word as the catalog spells it.
   * The first letter is taken as typed: people rarely mistype it (Pollock and Zamora, 1983). A word one
   * mistake from a stop word is more likely that stop word mistyped (`wich`), and has none; so has a word
   * that is not {@link SHORTEST_MISTYPED} to 32 letters a to z. (A common English word has its close words
   * too: whether it is read as one is the request's to say, see `Corrector.correct`.) Each of the 50-odd
   * spellings a letter of the word gives is never made: its hashes are summed from those of its pieces (see
   * `shiftFactors`), and only a spelling that is a word is spelled out.
   */
  closeTerms(word: string): Map<number, string> {
    const close = new Map<number, string>();
    const { length } = word;
    if (length < SHORTEST_READ_AS_CAPITALS || length > LONGEST_MISTYPED || !PLAIN_LETTERS.test(word)) {
      return close;
    }
    if (NEAR_STOP_WORDS.some((stopWord) => oneMistakeApart(word, stopWord))) return close;
    const pieces = new WordPieces(word);
    const found = (hash: number, check: number) => {
      const term = this.termOf(hash | 0, check | 0);
      return term >= 0 && !close.has(term) ? term : -1;
    };
    for (let at = 1; at < length; at++) {
      const left = pieces.around(at, at + 1, 0);
      let term = found(left.hash, left.check);
      if (term >= 0) close.set(term, word.slice(0, at) + word.slice(at + 1));
      const letter = word.charCodeAt(at);
      const next = word.charCodeAt(at + 1);
      if (at + 1 < length && next !== letter) {
        const swapped = pieces.around(at, at + 2, 2);
        const [second, first] = [pieces.shift(length - at - 2), pieces.shift(length - at - 1)];
        term = found(
          swapped.hash + Math.imul(next, first.hash) + Math.imul(letter, second.hash),
          swapped.check + Math.imul(next, first.check) + Math.imul(letter, second.check),
        );
        if (term >= 0) close.set(term, word.slice(0, at) + word[at + 1] + word[at] + word.slice(at + 2));
      }
      const changed = pieces.around(at, at + 1, 1);
      const shift = pieces.shift(length - at - 1);
      for (let code = A; code <= Z; code++) {
        if (code === letter) continue;
        term = found(
          changed.hash + Math.imul(code, shift.hash),
          changed.check + Math.imul(code, shift.check),
        );
        if (term >= 0) close.set(term, word.slice(0, at) + String.fromCharCode(code) + word.slice(at + 1));
      }
    }
    for (let at = 1; at <= length; at++) {
      const added = pieces.around(at, at, 1);
      const shift = pieces.shift(length - at);
      for (let code = A; code <= Z; code++) {
        const term = found(
          added.hash + Math.imul(code, shift.hash),
          added.check + Math.imul(code, shift.check),
        );
        if (term >= 0) close.set(term, word.slice(0, at) + String.fromCharCode(code) + word.slice(at));
      }
    }
    return close;
  }

  /**
   * The term of the catalog's word whose keys (see `wordHashes`) these are, {@link NO_TERM} for a word held
   * only inside a camel-case word, or -1 if the catalog does not hold it.
   */
  termOf(hash: number, check: number): number {
    const bit = mix(hash) & this.seenMask;
    if (((this.seen[bit >>> 5] as number) & (1 << (bit & 31))) === 0) return -1;
    const { hashes } = this;
    // Halved here rather than by firstPast (sorted.ts): a call of its predicate at each probe of this typed
    // array made a search some 5% slower (bench/request-parts.ts).
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

/**
 * Words given by their keys and terms, in any order, for a {@link SpellingTable}; of a key given more than
 * once, the first with a term is kept, else the first: a word met inside a camel-case word and also in
 * capitals (`MolFromSmiles`, `SMILES`) is the word in capitals' spelling. Typed arrays throughout: a
 * catalog may hold millions of distinct words.
 */
export class SpellingList {
  private hashes: Int32Array;
  private checks: Int32Array;
  private terms: Int32Array;
  private size = 0;

  constructor(capacity: number) {
    this.hashes = new Int32Array(Math.max(capacity, 16));
    this.checks = new Int32Array(this.hashes.length);
    this.terms = new Int32Array(this.hashes.length);
  }

  add(hash: number, check: number, term: number): void {
    if (this.size === this.hashes.length) {
      this.hashes = grown(this.hashes, this.size * 2);
      this.checks = grown(this.checks, this.size * 2);
      this.terms = grown(this.terms, this.size * 2);
    }
    this.hashes[this.size] = hash;
    this.checks[this.size] = check;
    this.terms[this.size++] = term;
  }

  table(): SpellingTable {
    const { hashes, checks, terms, size } = this;
    const order = new Uint32Array(size);
    for (let at = 0; at < size; at++) order[at] = at;
    order.sort(
      (a, b) =>
        (hashes[a] as number) - (hashes[b] as number) ||
        (checks[a] as number) - (checks[b] as number) ||
        Number(terms[a] === NO_TERM) - Number(terms[b] === NO_TERM) ||
        a - b,
    );
    let kept = 0;
    for (let i = 0; i < size; i++) {
      const at = order[i] as number;
      const before = order[kept - 1] ?? 0;
      if (kept > 0 && hashes[at] === hashes[before] && checks[at] === checks[before]) continue;
      order[kept++] = at;
    }
    const pick = (values: Int32Array) =>
      Int32Array.from(order.subarray(0, kept), (at) => values[at] as number);
    return new SpellingTable(pick(hashes), pick(checks), pick(terms));
  }
}

/** A word's two hashes (see `wordHashes`). */
interface Hashes {
  readonly hash: number;
  readonly check: number;
}

/**
 * A word's beginnings and ends, hashed, to hash the spellings one mistake from it from them: a spelling
 * is a beginning, a letter or two, and an end.
 */
class WordPieces {
  private readonly headHashes: Int32Array;
  private readonly headChecks: Int32Array;
  private readonly tailHashes: Int32Array;
  private readonly tailChecks: Int32Array;

  /** `word` is of letters a to z, which hash as they are: its pieces are hashed in one pass each way. */
  constructor(private readonly word: string) {
    const size = word.length + 1;
    [this.headHashes, this.headChecks] = [new Int32Array(size), new Int32Array(size)];
    [this.tailHashes, this.tailChecks] = [new Int32Array(size), new Int32Array(size)];
    const next = this.shift(1);
    for (let at = 0; at < word.length; at++) {
      const code = word.charCodeAt(at);
      this.headHashes[at + 1] = Math.imul(this.headHashes[at] as number, next.hash) + code;
      this.headChecks[at + 1] = Math.imul(this.headChecks[at] as number, next.check) + code;
    }
    for (let at = word.length - 1; at >= 0; at--) {
      const code = word.charCodeAt(at);
      const shift = this.shift(word.length - at - 1);
      this.tailHashes[at] = Math.imul(code, shift.hash) + (this.tailHashes[at + 1] as number);
      this.tailChecks[at] = Math.imul(code, shift.check) + (this.tailChecks[at + 1] as number);
    }
  }

  /**
   * The hashes of the word's letters before `headEnd`, then `gap` letters of code 0, then its letters
   * from `tailStart` on. Adding a letter's code times {@link shift} of the letters after it puts it in.
   */
  around(headEnd: number, tailStart: number, gap: number): Hashes {
    const shift = this.shift(gap + this.word.length - tailStart);
    return {
      hash:
        Math.imul(this.headHashes[headEnd] as number, shift.hash) + (this.tailHashes[tailStart] as number),
      check:
        Math.imul(this.headChecks[headEnd] as number, shift.check) + (this.tailChecks[tailStart] as number),
    };
  }

  /** The factors that shift hashes past `length` more letters (see `shiftFactors`). */
  shift(length: number): Hashes {
    return { hash: SHIFTS.hash[length] as number, check: SHIFTS.check[length] as number };
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
