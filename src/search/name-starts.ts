import type { Skill } from "../catalog/index.js";
import type { Accumulator } from "./accumulator.js";
import type { Bm25fIndex } from "./bm25f.js";
import { isCommonWord } from "./common-words.js";
import { FLOOR_WORDS } from "./match-floor.js";
import { type NameReading, NameWords } from "./name-words.js";
import type { RequestTerms } from "./request-terms.js";
import { foldedSpelling, STOP_WORDS } from "./terms.js";

/**
 * The fewest letters of a request word that also finds the longer words of skills' names it begins
 * (`postgres` finds postgresql-table-design): a short form of a name is typed as often as the name, and
 * Porter2 meets it only when the name adds an ending it knows. Shorter beginnings begin too many words
 * (`java` of javascript); a common English word is a word of its own, not a short form (`excel` of
 * excellence, `custom` of customer, `stream` of streamlit, `types` of typescript), and finds only itself.
 */
const NAME_START_LETTERS = 5;
/** The most name words one request word finds so: a beginning of more is no short form of one of them. */
const NAME_STARTS = 3;

/** Finds the longer words of skills' names that a request's words begin: see {@link NAME_START_LETTERS}. */
export class NameStarts {
  /** The words of skills' names longer than {@link NAME_START_LETTERS}, of letters a to z. */
  private readonly nameWords: NameWords;

  constructor(
    skills: readonly Skill[],
    private readonly terms: Bm25fIndex,
    /** Counts the documents holding a term, while a word is looked up. */
    private readonly counter: Accumulator,
  ) {
    this.nameWords = new NameWords(skills, NAME_START_LETTERS);
  }

  /**
   * The terms of the longer name words that the request's words begin (see {@link NAME_START_LETTERS}),
   * but the request's own terms, and the request's words no skill holds that were read so. Linear in the
   * request, and a binary search over the name words a word.
   */
  namesBegun(query: string, request: RequestTerms, allowed: Uint8Array | undefined): NamesBegun {
    const { nameWords, terms } = this;
    const begun: number[] = [];
    let read: NameReading[] = NO_NAME_READINGS;
    const folded = foldedSpelling(query);
    // Read by character codes, not a regular expression's matches: this runs on every search, and each
    // match was an array and a string to collect under load.
    for (let start = 0; start < folded.length; ) {
      let end = start;
      while (end < folded.length && isLowerLatin(folded.charCodeAt(end))) end++;
      const length = end - start;
      start = end === start ? start + 1 : end;
      if (length < NAME_START_LETTERS) continue;
      const word = folded.slice(end - length, end);
      const begunBy = nameWords.begunBy(word, allowed, NAME_STARTS);
      // The dearer tests last: most request words begin no name's word.
      if (begunBy.length === 0 || begunBy.length > NAME_STARTS) continue;
      if (STOP_WORDS.has(word) || isCommonWord(word) || this.namesItself(word)) continue;
      // A word no skill holds weighs in the floor as the name word most held that it begins, not as a
      // word held by none (`matplot` of matplotlib): a skill naming it must reach the floor.
      const unheld = request.unknown.includes(word);
      let weight = Number.POSITIVE_INFINITY;
      for (const nameWord of begunBy) {
        for (const term of terms.termsOf(nameWord).terms) {
          weight = Math.min(weight, terms.weight(term));
          if (!request.terms.includes(term) && !begun.includes(term)) begun.push(term);
        }
      }
      if (unheld && weight < Number.POSITIVE_INFINITY && !read.some((reading) => reading.word === word)) {
        if (read === NO_NAME_READINGS) read = [];
        read.push({ word, weight });
      }
    }
    return { terms: begun, read };
  }

  /**
   * Whether some skill of the catalog is found by `word` alone, scoring {@link FLOOR_WORDS} of its weight:
   * a word some skill holds in its name or description is a word of its own (`fasta`, the file format,
   * is no short form of fastapi), while `postgres`, in a few bodies only, found no skill. The catalog's,
   * not the scope's: whether a word is one of its own does not depend on who asks, as its weight does not.
   */
  private namesItself(word: string): boolean {
    const { counter, terms } = this;
    return terms.termsOf(word).terms.some((term) => {
      counter.add(terms, [term], undefined);
      const strongest = counter.bestScore();
      counter.clear();
      return strongest >= FLOOR_WORDS * terms.weight(term);
    });
  }
}

const NO_NAME_READINGS: NameReading[] = [];

/** What the request's words find by beginning longer words of names (see {@link NAME_START_LETTERS}). */
interface NamesBegun {
  /** The terms of those name words, but the request's own. */
  readonly terms: readonly number[];
  /** The request's words no skill holds that were read so, in place of a mistake or a word held by none. */
  readonly read: readonly NameReading[];
}

/** Whether `code` is a letter a to z. */
function isLowerLatin(code: number): boolean {
  return code >= 0x61 && code <= 0x7a;
}
