import type { Accumulator, Tally } from "./accumulator.js";
import type { Bm25fIndex } from "./bm25f.js";
import { isCommonWord } from "./common-words.js";
import type { NameReading } from "./name-words.js";
import type { RequestTerms } from "./request-terms.js";
import { SHORTEST_MISTYPED } from "./spelling.js";

/** A request word read as another. */
export interface Correction {
  /** The word as typed (folded). */
  readonly from: string;
  /** The word as a skill spells it. */
  readonly to: string;
}

/** A request word that may be any of a few words skills hold. */
export interface Undecided {
  /** The word as typed (folded). */
  readonly from: string;
  /** The words it may stand for, as skills spell them, the most held first. */
  readonly to: readonly string[];
}

/** How a request's words no skill holds were read, and which were left undecided or unread. */
interface Readings {
  readonly corrections: readonly TermCorrection[];
  readonly undecided: readonly Undecided[];
  /**
   * Words close to words skills in scope hold that the rest of the request's best matches did not read as
   * any of them, and the terms known by then: named as {@link Undecided} only when nothing is shown.
   */
  readonly unread: readonly Unread[];
  readonly known: ReadonlySet<number>;
}

/** A request word close to some words skills hold, which the rest of the request did not read as one. */
interface Unread {
  readonly from: string;
  readonly close: ReadonlyMap<number, string>;
}

/**
 * A correction, with the term it reads the word as, and the term of that word as skills write it in
 * capitals, kept apart from its stem (`smils` as smile and SMILES), or -1.
 */
export interface TermCorrection extends Correction {
  readonly term: number;
  readonly capitals: number;
}

/** The capitals forms of `corrections`' terms, as `Accumulator.add` takes them, or undefined for none. */
export function capitalsOfCorrections(
  corrections: readonly TermCorrection[],
): ReadonlyMap<number, number> | undefined {
  const withCapitals = corrections.filter(({ capitals }) => capitals >= 0);
  if (withCapitals.length === 0) return undefined;
  return new Map(withCapitals.map(({ term, capitals }) => [term, capitals]));
}

/**
 * The share of a request's best matches (see {@link CONTEXT_MATCHES}) that must hold a word one mistake
 * from a common English word no skill holds for that word to be read as it (`lager` beside reorder and
 * drawing as layer), and at least two. Such a word is more often a word the catalog lacks than a mistake:
 * `loaf`, `plants` and `meal` of the bench's off-topic requests have close words (load, plans, mean) that
 * some of their best matches hold, fewer than half (a share of a third read `plants` as plans, a fifth
 * `loaf` and `meal` too). A mistake the rest of the request points to is held by most of them.
 */
const COMMON_WORD_SUPPORT = 0.5;
/** How many of the words an undecided request word may stand for are named (see `SearchResult.undecided`). */
const UNDECIDED_SHOWN = 3;
/** How many of the best matches for the rest of a request decide how a mistyped word is read. */
const CONTEXT_MATCHES = 30;
/**
 * A request with more words than this that no skill holds is taken as written: it is more likely about
 * something the catalog lacks than mistyped, and reading its words would only find noise.
 */
const MOST_WORDS_READ = 3;

const NO_TERMS: ReadonlySet<number> = new Set();

/** What the best matches must hold of a close word for a request word to be read as it. */
interface Support {
  /** How many of the best matches must hold a close word that more than one skill in scope holds. */
  readonly shared: number;
  /** How many of the best matches must hold a close word, at least. */
  readonly least: number;
  /**
   * Whether the word is read only as a word skills write in capitals: one typed in capitals, or of 3
   * letters (see `SHORTEST_READ_AS_CAPITALS`).
   */
  readonly onlyAsCapitals: boolean;
}

/**
 * Reads a request's words no skill holds as words one typing mistake away that skills in scope hold (see
 * `SkillIndex`), judged by the best matches for the rest of the request, or leaves them undecided or
 * unread. Its buffer is reused by every query, as the accumulators' are, and left zeroed.
 */
export class Corrector {
  /** The documents of a request's best matches, while a mistyped word is read; zeroed after. */
  private readonly context: Uint8Array;

  constructor(
    private readonly terms: Bm25fIndex,
    documents: number,
    /** Counts the documents holding a term among some marked ones, while a mistyped word is read. */
    private readonly counter: Accumulator,
  ) {
    this.context = new Uint8Array(documents);
  }

  /**
   * The request's words no skill holds, read as words one mistake away, judged by the best matches for
   * the rest of the request, which `matches` holds, or by the skills in scope when the rest matches
   * nothing. Those read as beginnings of name words (`named`) are not mistakes.
   */
  correct(
    request: RequestTerms,
    allowed: Uint8Array | undefined,
    matches: Accumulator,
    named: readonly NameReading[],
  ): Readings {
    const unknown =
      named.length === 0
        ? request.unknown
        : request.unknown.filter((word) => !named.some((reading) => reading.word === word));
    const undecided: Undecided[] = [];
    const unread: Unread[] = [];
    const none = { corrections: [], undecided, unread, known: NO_TERMS };
    if (unknown.length > MOST_WORDS_READ) return none;
    const closeTo = (from: string, onlyAsCapitals: boolean) => ({
      from,
      close: this.terms.spellings.closeTerms(from),
      onlyAsCapitals,
    });
    // A word typed in capitals is an acronym or a name typed with care (`MAPQ` is no mistake for maps), so
    // it is read only as a word skills write in capitals too (`SMILS` as SMILES), and counts against the
    // words read only then; so is a word of 3 letters (`aww` as AWS), one mistake from many other words.
    const typedInCapitals =
      unknown.length + request.unknownInCapitals.length > MOST_WORDS_READ ? [] : request.unknownInCapitals;
    const mistyped = [
      ...unknown.map((from) => closeTo(from, from.length < SHORTEST_MISTYPED)),
      ...typedInCapitals.map((from) => closeTo(from, true)),
    ].filter(({ close }) => close.size > 0);
    if (mistyped.length === 0) return none;
    const { context } = this;
    const best = matches.best(CONTEXT_MATCHES);
    for (const document of best) context[document] = 1;
    const known = new Set(request.terms);
    const corrections: TermCorrection[] = [];
    const judges = best.length > 0 ? context : undefined;
    const commonSupport = Math.max(2, Math.ceil(COMMON_WORD_SUPPORT * best.length));
    // Two of the best matches, or the only one: a rest that one skill matches can give no second.
    const sharedSupport = Math.min(2, best.length);
    for (const { from, close, onlyAsCapitals } of mistyped) {
      const common = isCommonWord(from);
      // A common word is read only as a word the rest of the request points to: never alone.
      if (common && judges === undefined) continue;
      const least = common ? commonSupport : 0;
      const support = { shared: sharedSupport, least, onlyAsCapitals };
      const correction = this.likeliest(from, close, known, judges, allowed, support);
      if (correction !== undefined) {
        corrections.push(correction);
        known.add(correction.term);
      } else if (judges === undefined && !onlyAsCapitals) {
        const to = this.closeWordsHeld(close, known, allowed);
        if (to.length > 1) undecided.push({ from, to: to.slice(0, UNDECIDED_SHOWN) });
      } else if (!common && !onlyAsCapitals) {
        // A common word the rest does not point to is a word the catalog lacks (`loaf`), not a mistake; a
        // word read only as an acronym and not read is taken as written, its close words no acronyms.
        unread.push({ from, close });
      }
    }
    for (const document of best) context[document] = 0;
    return { corrections, undecided, unread, known };
  }

  /**
   * The undecided words, and, when no match is fair, the words the rest of the request's best matches
   * left unread with the words they may be (`contant` beside `spreadsheet`, which a few skills hold in
   * passing): the answer is then no match, and the model had better know the word was maybe mistyped.
   */
  undecidedOf(readings: Readings, allowed: Uint8Array | undefined): readonly Undecided[] {
    const { undecided, unread, known } = readings;
    if (unread.length === 0) return undecided;
    const named = [...undecided];
    for (const { from, close } of unread) {
      const to = this.closeWordsHeld(close, known, allowed);
      if (to.length > 0) named.push({ from, to: to.slice(0, UNDECIDED_SHOWN) });
    }
    return named;
  }

  /** The words of `close` (not already `known`) that skills in scope hold, the most held first. */
  private closeWordsHeld(
    close: ReadonlyMap<number, string>,
    known: ReadonlySet<number>,
    allowed: Uint8Array | undefined,
  ): string[] {
    const held: { word: string; skills: number }[] = [];
    for (const [term, word] of close) {
      const skills = known.has(term) ? 0 : this.held(term, allowed, this.terms.capitalsOf(word, term));
      if (skills > 0) held.push({ word, skills });
    }
    held.sort((a, b) => b.skills - a.skills || (a.word < b.word ? -1 : 1));
    return held.map(({ word }) => word);
  }

  /**
   * Of the terms `from` may stand for (`close`, each with its spelling), the one the best matches marked
   * in `context` hold most strongly (the sum of its scores there). A term held by more than one skill in
   * scope must be held by two of the best matches (`shared`): a word the catalog lacks (`gear`) is often one
   * mistake from a common word (`year`) that one of many matches holds by chance. When the rest of the
   * request matches a single skill, that one must hold it: no second match can, and `webhok` beside
   * `signature`, which one skill holds, was left unread though `webhok` alone is read. Without best
   * matches to judge by, a word is read only when a single close word is held in scope (`contant` could be
   * content, constant or contact). A word typed in capitals is judged by the skills that write the close
   * word in capitals alone.
   */
  private likeliest(
    from: string,
    close: ReadonlyMap<number, string>,
    known: ReadonlySet<number>,
    context: Uint8Array | undefined,
    allowed: Uint8Array | undefined,
    { shared, least, onlyAsCapitals }: Support,
  ): TermCorrection | undefined {
    let likeliest: TermCorrection | undefined;
    let likeliestWeight = 0;
    let heldInScope = 0;
    for (const [term, to] of close) {
      if (known.has(term)) continue;
      const capitals = this.terms.capitalsOf(to, term);
      if (onlyAsCapitals && capitals < 0) continue;
      // Judged by the term and its capitals form, or by the capitals form alone.
      const [judgedTerm, judgedCapitals] = onlyAsCapitals ? [capitals, -1] : [term, capitals];
      const judged = this.tally(judgedTerm, context ?? allowed, judgedCapitals);
      if (judged.documents === 0) continue;
      heldInScope++;
      if (
        context !== undefined &&
        judged.documents < shared &&
        this.held(judgedTerm, allowed, judgedCapitals) > 1
      ) {
        continue;
      }
      if (judged.documents < least) continue;
      if (judged.score > likeliestWeight) {
        likeliest = { from, to, term, capitals };
        likeliestWeight = judged.score;
      }
    }
    return context === undefined && heldInScope > 1 ? undefined : likeliest;
  }

  /**
   * How many of the documents marked in `marks` hold `term` or its form in `capitals` (see
   * {@link TermCorrection}), all documents when undefined.
   */
  private held(term: number, marks: Uint8Array | undefined, capitals: number): number {
    return marks === undefined && capitals < 0
      ? this.terms.documentFrequency(term)
      : this.tally(term, marks, capitals).documents;
  }

  /** How many of the documents marked in `marks` hold `term` or `capitals`, and their scores' sum for it. */
  private tally(term: number, marks: Uint8Array | undefined, capitals: number): Tally {
    const alternatives = capitals < 0 ? undefined : new Map([[term, capitals]]);
    this.counter.add(this.terms, [term], marks, true, alternatives);
    return this.counter.clear();
  }
}
