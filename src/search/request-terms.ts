import { otherSpellings } from "./english-spellings.js";
import { capitalsKey, capitalsNumberOfLetters, type KeyTable, stemKey } from "./keys.js";
import { type WordScanner, type WordSink, words } from "./scanner.js";
import { NO_TERM, type SpellingTable } from "./spelling.js";
import { isSeparator, keptWord, LONGEST_WORD, STOP_WORDS, spelled, stem } from "./terms.js";

/** A request's words as an index knows them. */
export interface RequestTerms {
  /** The distinct terms of the request that some document holds. */
  readonly terms: readonly number[];
  /**
   * The request's distinct words that no document holds, folded, as typed: not the words the search joins
   * from a compound's parts (`to-read` as `toread`), which no one typed, so no one mistyped, nor words
   * written in capitals (see {@link isCapitals}).
   */
  readonly unknown: readonly string[];
  /**
   * The request's distinct words that no document holds, typed in capitals (`SMILS`): taken as written,
   * but for a word that skills write in capitals one mistake away (see `Corrector.correct`).
   */
  readonly unknownInCapitals: readonly string[];
  /**
   * How many distinct words typed no document holds, capitals included (joins are not typed): part of
   * what the request asks for that no skill offers (see `SkillIndex.search`).
   */
  readonly unheld: number;
  /**
   * For a term of `terms`, the term of the same word written in capitals in skills, kept apart from its
   * stem (`smiles`: smile, and SMILES of chemistry): each skill scores the better of the two, and the
   * word counts once.
   */
  readonly alternatives: ReadonlyMap<number, number>;
}

/**
 * The distinct terms of `query` that some document holds, and its words that none does: read by `scanner`,
 * and looked up among an index's terms by the keys of their stems (`stems`) and by their spellings;
 * `stemsOfCapitals` marks the terms whose words skills also write in capitals, kept apart.
 */
export function requestTerms(
  query: string,
  scanner: WordScanner,
  stems: KeyTable,
  spellings: SpellingTable,
  stemsOfCapitals: Uint8Array,
): RequestTerms {
  const request = new RequestWords(stems, spellings, stemsOfCapitals);
  scanner.scan(query, 0, query.length, request);
  const terms = [...request.terms];
  const { alternatives } = request;
  const tooLong = request.typedTooLong.size;
  if (request.unknown.size === 0) {
    return { terms, unknown: [], unknownInCapitals: [], unheld: tooLong, alternatives };
  }
  // The Unicode path hands a compound's joins over as words: its compounds are split to tell them apart.
  const split = request.unknownUnicode ? new Set(words(query.replace(/[-_]/g, " "), scanner)) : undefined;
  const unknown = [...request.unknown];
  const written = split ?? request.written;
  const typed = split ?? request.typed;
  return {
    terms,
    unknown: unknown.filter((word) => typed.has(word)),
    unknownInCapitals: unknown.filter((word) => request.typedInCapitals.has(word) && !typed.has(word)),
    unheld: unknown.filter((word) => written.has(word)).length + tooLong,
    alternatives,
  };
}

/**
 * A request's words, as a scanner hands them over, sorted into the terms the index holds and the words
 * it does not. A word the catalog holds as spelled is known by its keys, neither made a string nor
 * stemmed; a span joined from a compound's parts holds the hyphen or underscore it was joined at, which
 * tells it from the words typed.
 */
class RequestWords implements WordSink {
  readonly terms = new Set<number>();
  /** Made for the few requests that have an alternative (see {@link alternatives}): most have none. */
  private alternativesMade: Map<number, number> | undefined;
  readonly unknown = new Set<string>();
  /** The unknown words typed, not joined. */
  readonly written = new Set<string>();
  /** The unknown words typed, not joined, less those in capitals: the ones that may be mistyped. */
  readonly typed = new Set<string>();
  /** The unknown words typed, not joined, in capitals. */
  readonly typedInCapitals = new Set<string>();
  /** Whether an unknown word came by the Unicode path, which does not say whether it was joined. */
  unknownUnicode = false;
  /**
   * The words typed longer than a word may be (see `LONGEST_WORD`): no term, yet no skill holds what they
   * ask for, as no stop word does (a request of one such word matches nothing; it is not too vague).
   */
  readonly typedTooLong = new Set<string>();

  constructor(
    private readonly stems: KeyTable,
    private readonly spellings: SpellingTable,
    private readonly stemsOfCapitals: Uint8Array,
  ) {}

  /** See `RequestTerms.alternatives`. */
  get alternatives(): ReadonlyMap<number, number> {
    return this.alternativesMade ?? NO_ALTERNATIVES;
  }

  span(text: string, start: number, end: number, hash: number, check: number, length: number): void {
    if (length > LONGEST_WORD) {
      if (!isJoined(text, start, end)) this.typedTooLong.add(spelled(text, start, end));
      return;
    }
    if (isPairAroundStopWord(text, start, end)) return;
    const spelledTerm = this.spellings.termOf(hash, check);
    if (spelledTerm >= 0) {
      this.terms.add(spelledTerm);
      // A word's capitals form is a term only if its stem's is marked: most words need no look-up.
      if (this.stemsOfCapitals[spelledTerm] !== 1) return;
      const capitals = capitalsNumberOfLetters(this.stems, text, start, end);
      if (capitals !== undefined) this.withCapitals(capitals, spelledTerm);
      else this.inCapitals(keptWord(spelled(text, start, end)), spelledTerm);
      return;
    }
    const word = keptWord(spelled(text, start, end));
    // A word held inside a camel-case word is no mistake, but its stem may still be a term (`pagers`).
    if (spelledTerm === NO_TERM) {
      if (word !== undefined) this.known(word);
      return;
    }
    if (word !== undefined && !this.known(word)) {
      this.unknown.add(word);
      if (isJoined(text, start, end)) return;
      this.written.add(word);
      if (isCapitals(text, start, end)) this.typedInCapitals.add(word);
      else this.typed.add(word);
    }
  }

  tooLong(word: string): void {
    this.typedTooLong.add(word);
  }

  word(word: string, pairAroundStopWord: boolean): void {
    // As the fast path leaves such a pair out (see isPairAroundStopWord), so that the paths agree.
    if (pairAroundStopWord || this.known(word)) return;
    this.unknown.add(word);
    this.unknownUnicode = true;
  }

  /**
   * Adds the term of `word`'s stem, if the index holds it, or else of the stem of its spelling in another
   * variety of English that the index holds (`colour` where skills say color): the same word, not a mistake.
   */
  private known(word: string): boolean {
    let term = this.termOf(word);
    for (const other of term < 0 ? otherSpellings(word) : []) {
      term = this.termOf(other);
      if (term >= 0) break;
    }
    if (term < 0) return false;
    this.terms.add(term);
    this.inCapitals(word, term);
    return true;
  }

  /**
   * Notes the term of `word` as skills write it in capitals, kept apart from its stem, if they do, as the
   * alternative of `term`, the term of its stem (`aws`: aw, which no skill holds, and AWS).
   */
  private inCapitals(word: string | undefined, term: number): void {
    // A word kept apart in capitals made its stem a term, marked (see `Lexicon.termOfCapitals`): a word
    // of an unmarked term has no capitals form. `term` may be another spelling's (`colour` as color) only
    // when the word has no term of its own, and then no capitals form either: the look-up finds none.
    if (word === undefined || this.stemsOfCapitals[term] !== 1) return;
    this.withCapitals(this.stems.get(...capitalsKey(word)), term);
  }

  /** Notes `capitals`, a term or -1, as the alternative of `term`, as {@link inCapitals} does. */
  private withCapitals(capitals: number, term: number): void {
    if (capitals < 0) return;
    this.alternativesMade ??= new Map();
    this.alternativesMade.set(term, capitals);
  }

  private termOf(word: string): number {
    const [hash, check] = stemKey(stem(word));
    return this.stems.get(hash, check);
  }
}

/**
 * Whether a span is a pair of neighbouring parts of a longer compound, one of them a stop word
 * (`stepby` and `bystep` of `step-by-step`, `outof` and `ofmemory` of `out-of-memory`). Such a pair is no
 * word anyone writes: the skills holding it are those that write the whole compound, which the request
 * finds by the whole already (`stepbystep`), so each such pair gave them the compound's weight once more
 * (three times in all for `step-by-step`), ahead of skills holding the rest of the request. The pair of a
 * compound of two parts is the whole, and is kept (`built-in`, `follow-up`). Constant work but for the
 * span's own length.
 */
function isPairAroundStopWord(text: string, start: number, end: number): boolean {
  // A hyphen before or after a compound is no part of it (`-built-in` is the compound built-in).
  const inLongerCompound =
    (isSeparator(text.charCodeAt(start - 1)) && LETTER_OR_DIGIT.test(text.charAt(start - 2))) ||
    (isSeparator(text.charCodeAt(end)) && LETTER_OR_DIGIT.test(text.charAt(end + 1)));
  if (!inLongerCompound) return false;
  let separator = start;
  while (separator < end && !isSeparator(text.charCodeAt(separator))) separator++;
  if (separator === end) return false;
  return STOP_WORDS.has(spelled(text, start, separator)) || STOP_WORDS.has(spelled(text, separator + 1, end));
}

/** One character, or none (`charAt` out of the text): no quantifier, so constant work. */
const LETTER_OR_DIGIT = /^[\p{L}\p{N}]$/u;

function isJoined(text: string, start: number, end: number): boolean {
  for (let at = start; at < end; at++) if (isSeparator(text.charCodeAt(at))) return true;
  return false;
}

/**
 * Whether a word is written in capitals (`MAPQ`, `HIPAA`): an acronym or a name typed with care, not a
 * mistake, so it is taken as written rather than read as a word one mistake away (`MAPQ` was `maps`),
 * unless that word is one skills write in capitals too (`SMILS` as SMILES).
 */
function isCapitals(text: string, start: number, end: number): boolean {
  for (let at = start; at < end; at++) {
    const code = text.charCodeAt(at);
    if (code >= SMALL_A && code <= SMALL_Z) return false;
  }
  return true;
}

const NO_ALTERNATIVES: ReadonlyMap<number, number> = new Map();

const SMALL_A = 97;
const SMALL_Z = 122;
