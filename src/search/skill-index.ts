import type { Scope, Skill } from "../catalog/index.js";
import { MalformedPart, type PartReader, type PartWriter } from "../saved/index.js";
import { firstPast } from "../sorted.js";
import { allBelow, isAscending } from "./arrays.js";
import { Bm25fIndex, type RankingOptions, type RequestTerms, termWeight } from "./bm25f.js";
import { isCommonWord } from "./common-words.js";
import { NameIndex } from "./names.js";
import { foldedSpelling, STOP_WORDS } from "./terms.js";

/** What a search found: the best matches, and how many skills matched at all, and how well. */
export interface SearchResult {
  /**
   * Best first, at most the limit asked for; none that holds one word of a request of several and little
   * else (see {@link BEYOND_ONE_WORD}), which `matched` still counts.
   */
  readonly skills: readonly Skill[];
  /** Skills in scope that share at least one term with the query, shown or not. */
  readonly matched: number;
  /**
   * Skills in scope that score at least {@link STRONG_MATCH} of the best one's score, and at least the
   * request's floor, shown or not. A long request shares some word with nearly every skill, so `matched`
   * says little; this says how many contenders there are.
   */
  readonly strongMatches: number;
  /**
   * Skills in scope that score at least {@link FAIR_MATCH} of the best one's score, and at least the
   * request's floor (see {@link FLOOR_WORDS}), shown or not: a caller shows no more than these, since past
   * them a match is faint, more likely noise than help. None when even the best match is faint, or when
   * the request is {@link vague}.
   */
  readonly fairMatches: number;
  /**
   * Whether some skill in scope holds some of the request's words but not all (a word no skill holds is
   * one they all lack). A one-word request has none, however many skills hold its word faintly.
   */
  readonly partialMatches: boolean;
  /**
   * Why the request is too vague to rank, if it is (see {@link Vagueness}). None of its matches is then
   * fair: which of them were shown would be happenstance.
   */
  readonly vague: Vagueness | undefined;
  /** Request words no skill holds, read as a word one typing mistake away (see {@link SkillIndex}). */
  readonly corrections: readonly Correction[];
  /**
   * Request words no skill holds, left unread because they are one typing mistake from several words
   * skills in scope hold and nothing else in the request tells which (`contant`: content, constant or
   * contact); and, when no match is fair, words one mistake from words skills in scope hold that the rest
   * of the request's best matches do not hold (`contant spreadsheet`), but for common English words. Each
   * with at most {@link UNDECIDED_SHOWN} of those words, the most held first.
   */
  readonly undecided: readonly Undecided[];
}

/** A request word that may be any of a few words skills hold. */
export interface Undecided {
  /** The word as typed (folded). */
  readonly from: string;
  /** The words it may stand for, as skills spell them, the most held first. */
  readonly to: readonly string[];
}

/**
 * Why a request is too vague to rank: `common words`, each of its words is held by at least half the
 * catalog's skills (see {@link COMMON_SHARE}) and more skills in scope match it strongly than were asked
 * for; or `tied`, more skills in scope than were asked for score within a tenth of the best (see
 * {@link TIED_MATCH}), so that which of them were shown would be happenstance whatever its words; or
 * `no task`, its words only ask for something to be done (see {@link ASKING_WORDS}); or `no words`, it has
 * no word search reads, only stop words and single letters (`how do I do it`).
 */
export type Vagueness = "common words" | "tied" | "no task" | "no words";

/** A request word read as another. */
export interface Correction {
  /** The word as typed (folded). */
  readonly from: string;
  /** The word as a skill spells it. */
  readonly to: string;
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

/** A correction, with the term it reads the word as. */
interface TermCorrection extends Correction {
  readonly term: number;
}

/** The share of the best score from which a match counts as strong (see {@link SearchResult}). */
const STRONG_MATCH = 0.5;
/**
 * The share of the best score under which a match is faint (see {@link SearchResult}): a tail of faint
 * matches costs the model tokens and misleads it. Over the bench's labeled requests (three sets, spelt
 * right, mistyped and as agents phrased them) no first right skill in the ten best scored under 0.47 of
 * the best, while half the tenth results scored under 0.26 (docs/search.md).
 */
const FAIR_MATCH = 0.4;
/**
 * The floor under which a match is faint whatever the others score, in words of the request: a skill must
 * score at least this share of what one of the request's words gives at full strength, on average (its
 * weight, idf · (k1 + 1), a word no skill holds weighing as a word held by none). A share of the best score
 * cannot tell a request about something no skill covers, whose matches all touch one of its words in
 * passing, from one that many skills answer well: both score evenly. Weights are logarithms of the
 * catalog's own counts, so the floor is no fixed number and scales with the catalog. A request's word in a
 * skill's name alone scores 0.55 of a word or more on the bench corpus, so a one-word request still finds
 * the skills it names, and no right skill the labeled requests find scores under 0.63 (docs/search.md,
 * *Faint matches*).
 */
const FLOOR_WORDS = 0.5;
/**
 * The floor of a request of several words, in words (see {@link FLOOR_WORDS}). A match of one word of
 * several, held in passing, is a small part of what was asked, and requests about things no skill covers
 * (stretches for back pain, a weekly meal plan) kept 7 to 10 such lines under half a word. No right skill
 * the bench's labeled requests find scores under 0.63 of a word (three sets, spelt right, mistyped and as
 * four agents phrased them); a one-word request keeps half a word, since a skill whose long name holds its
 * word scores 0.57 (`nextjs`), and holding it is holding all that was asked (docs/search.md).
 */
const FLOOR_WORDS_OF_SEVERAL = 0.6;
/**
 * What a match of a request of {@link SEVERAL_WORDS} or more must score beyond its strongest word, in
 * floors (see {@link FLOOR_WORDS_OF_SEVERAL}): a skill that holds one word of such a request, however
 * strongly, holds a part of what was asked, not the task (`pain` of PAINS filters for stretches for lower
 * back pain, `budget` of error budgets for a weekly meal plan on a budget). Over the bench's labeled
 * requests (three sets, spelt right, mistyped and as four agents phrased them), no right skill shown scores
 * under 0.53 of a floor beyond its strongest word (`s2-39`), and the next under 0.71; 16 of the 20 lines
 * the off-topic requests kept score under 0.5, 12 under this (docs/search.md, *One word of several*).
 */
const BEYOND_ONE_WORD = 0.4;
/**
 * The fewest words of a request for {@link BEYOND_ONE_WORD}. Of a few words, one may be all the subject
 * there is: `plot a graph in python` found matplotlib and seaborn by `plot`, and lost them under the rule;
 * the off-topic requests that kept lines have 6 to 9 words.
 */
const SEVERAL_WORDS = 6;
/**
 * The share of the catalog's skills from which a word is no evidence for any of them: its Robertson and
 * Spärck Jones weight, ln((N − n + 0.5) / (n + 0.5)), the log-odds that a skill lacks it, is zero or less
 * from there (BM25's idf adds 1 inside the logarithm only to keep such words from weighing below zero). A
 * request made only of such words (`data`, `test`, `check this`) is vague when more skills match it
 * strongly than can be shown: ten of them would be a sample, not an answer. A share of the catalog means
 * the same over a few skills as over many; the rarest word of every right skill the bench's labeled
 * requests show is held by at most 0.19 of the catalog (docs/search.md, *Faint matches*).
 */
const COMMON_SHARE = 0.5;
/**
 * The share of the best score from which a match is tied with the best: a request that more skills match
 * so closely than can be shown is too vague to rank (`design` alone: 19 skills within a tenth of the best,
 * as a word held by 43 % of the skills, in their names or in passing alike). Of the 972 answers to the
 * bench's labeled requests (three sets, spelt right, mistyped and as four agents phrased them), none had
 * more than 5 skills within a tenth of the best, and 859 had the best alone (docs/search.md).
 */
const TIED_MATCH = 0.9;
/**
 * The share of a request's best matches (see {@link CONTEXT_MATCHES}) that must hold a word one mistake
 * from a common English word no skill holds for that word to be read as it (`lager` beside reorder and
 * drawing as layer), and at least two. Such a word is more often a word the catalog lacks than a mistake:
 * `loaf`, `plants` and `meal` of the bench's off-topic requests have close words (load, plans, mean) that
 * some of their best matches hold, fewer than half (a share of a third read `plants` as plans, a fifth
 * `loaf` and `meal` too). A mistake the rest of the request points to is held by most of them.
 */
const COMMON_WORD_SUPPORT = 0.5;
/**
 * Words that ask for something to be done without saying what: a request of these alone (`help`,
 * `improve it`, `fix this`, `make it better`) names no task, and the skills holding them in passing
 * ("Helps with…", "improve performance") are no answer to it. `help` and `improve` are in 15 % and 18 % of
 * the bench corpus's skills, rare enough to rank by, and kept 8 and 10 lines; no labeled request is made
 * of them alone. A skill whose name holds one (`help-desk-replies`) is still an answer.
 */
const ASKING_WORDS = "help assist improve fix need want please better thing stuff something anything";
/**
 * How many more matches for a name's words are looked at than suggestions are made: some of the best hold
 * the words in their text alone, and are left out (see `SkillIndex.namedByWords`).
 */
const SUGGESTIONS_LEFT_OUT = 7;
/** How many of the words an undecided request word may stand for are named (see `SearchResult.undecided`). */
const UNDECIDED_SHOWN = 3;
/** How many of the best matches for the rest of a request decide how a mistyped word is read. */
const CONTEXT_MATCHES = 30;
/**
 * A request with more words than this that no skill holds is taken as written: it is more likely about
 * something the catalog lacks than mistyped, and reading its words would only find noise.
 */
const MOST_WORDS_READ = 3;
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
/** Request words as {@link NAME_START_LETTERS} reads them: runs of letters a to z of the folded request. */
const LETTER_RUNS = /[a-z]+/g;

/**
 * Finds skills for a request, and names close to a mistyped one. Built once at startup; pure.
 *
 * Synchronous, and it must stay so: each query runs to its end before the next one starts. The index
 * reuses scratch buffers across queries so that a query allocates next to nothing (the accumulator's
 * scores, the marks of a request's best matches, the word scanner's parts and its sticky regular
 * expression): an `await` inside a query would let another query write into them, and both would be
 * ranked wrong without an error. test/search/synchronous.test.ts runs interleaved queries to hold this.
 */
export interface SearchIndex {
  /** Skills in `scope` ranked for `query`, best first. */
  search(query: string, scope: Scope, limit: number): SearchResult;
  /** Up to `limit` skills in `scope` whose names are close to `name`, or else that its words find. */
  suggest(name: string, scope: Scope, limit?: number): Skill[];
  /**
   * The skills whose SKILL.md held more distinct words than `TERMS_A_DOCUMENT`: only their first ones are
   * indexed. Saved with the index, so that a server that loads it can say so as one that built it does.
   */
  cutSkills(): Skill[];
}

/**
 * A catalog's search index: its terms' postings and its names' trigrams, over `skills` in this order.
 * Made by `buildIndex`, or loaded from a part of the saved index (saved-index.ts).
 *
 * A request word that no skill holds is read as a word one typing mistake away that some skill in scope
 * holds (`kuberntes` as kubernetes; see `SpellingTable.closeTerms`): of several, the one the 30 best
 * matches for the rest of the request hold most strongly (`fsiling` beside test files is failing, beside
 * tax forms filing). A word the best matches do not hold is left unread: it is more likely a word the
 * catalog lacks than a mistake. Whether a word is held is the whole catalog's business, as are the word
 * weights of the ranking: a caller's scope limits the skills it sees, not the catalog's statistics.
 */
export class SkillIndex implements SearchIndex {
  private readonly scopes: ScopeMasks;
  private readonly accumulator: Accumulator;
  /** The documents of a request's best matches, while a mistyped word is read; zeroed after. */
  private readonly context: Uint8Array;
  /** Counts the documents holding a term among some marked ones, while a mistyped word is read. */
  private readonly counter: Accumulator;
  /** The terms of {@link ASKING_WORDS} the catalog holds. */
  private readonly askingTerms: ReadonlySet<number>;
  /** The words of skills' names longer than {@link NAME_START_LETTERS}, of letters a to z, sorted, once each. */
  private readonly nameWords: readonly string[];

  constructor(
    private readonly skills: readonly Skill[],
    private readonly terms: Bm25fIndex,
    private readonly names: NameIndex,
    /** What the impacts in `terms` were computed with. */
    readonly ranking: RankingOptions,
    /** The documents of {@link cutSkills}, ascending. */
    private readonly cut: Int32Array,
  ) {
    this.scopes = new ScopeMasks(skills);
    this.accumulator = new Accumulator(skills.length);
    this.context = new Uint8Array(skills.length);
    this.counter = new Accumulator(skills.length);
    this.askingTerms = new Set(terms.termsOf(ASKING_WORDS).terms);
    this.nameWords = nameWordsOf(skills);
  }

  /** Writes the index to a part of the saved index, for {@link SkillIndex.load}: its ranking is the caller's. */
  save(part: PartWriter): void {
    this.terms.save(part);
    this.names.save(part);
    part.array(this.cut);
  }

  /** An index saved by {@link save} from these `skills`, ranked with `ranking`, as views of the saved bytes. */
  static load(part: PartReader, skills: readonly Skill[], ranking: RankingOptions): SkillIndex {
    const terms = Bm25fIndex.load(part);
    const names = NameIndex.load(part, skills);
    const cut = part.array(Int32Array);
    if (!isAscending(cut) || !allBelow(cut, skills.length)) {
      throw new MalformedPart("the skills cut short do not fit the skills");
    }
    return new SkillIndex(skills, terms, names, ranking, cut);
  }

  cutSkills(): Skill[] {
    return Array.from(this.cut, (document) => this.skills[document] as Skill);
  }

  search(query: string, scope: Scope, limit: number): SearchResult {
    const { terms, skills, accumulator } = this;
    const allowed = this.scopes.mask(scope);
    const request = terms.termsOf(query);
    accumulator.add(terms, request.terms, allowed);
    const readings = this.correct(request, allowed);
    const { corrections } = readings;
    accumulator.add(
      terms,
      corrections.map(({ term }) => term),
      allowed,
    );
    // Found besides the request's own words, not in their place: it holds no more words for them.
    accumulator.add(terms, this.namesBegun(query, request), allowed, false);
    // A word left unread is one no match holds: every match then holds only part of the request.
    const unread = request.unheld > corrections.length;
    const floor = this.floor(request, corrections);
    const words = request.terms.length + request.unheld;
    const found = accumulator.finish(limit, floor, words >= SEVERAL_WORDS ? BEYOND_ONE_WORD * floor : 0);
    const vague = this.vagueness(found, limit, scope, request, corrections);
    const undecided =
      found.fair === 0 && vague === undefined ? this.undecidedOf(readings, allowed) : readings.undecided;
    return {
      skills: found.best.flatMap((document) => skills[document] ?? []),
      matched: found.matched,
      strongMatches: found.strong,
      fairMatches: vague === undefined ? found.fair : 0,
      partialMatches: unread || found.partial,
      vague,
      corrections: corrections.map(({ from, to }) => ({ from, to })),
      undecided,
    };
  }

  /**
   * The terms of the longer name words that the request's words begin (see {@link NAME_START_LETTERS}),
   * but the request's own terms. Linear in the request, and a binary search over the name words a word.
   */
  private namesBegun(query: string, request: RequestTerms): number[] {
    const { nameWords, terms } = this;
    const begun: number[] = [];
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
      const low = firstPast(nameWords, (nameWord) => nameWord > word);
      let past = low;
      while (
        past < nameWords.length &&
        past - low <= NAME_STARTS &&
        (nameWords[past] as string).startsWith(word)
      ) {
        past++;
      }
      // The dearer tests last: most request words begin no name's word.
      if (past === low || past - low > NAME_STARTS) continue;
      if (STOP_WORDS.has(word) || isCommonWord(word) || this.namesItself(word)) continue;
      for (const nameWord of nameWords.slice(low, past)) {
        for (const term of terms.termsOf(nameWord).terms) {
          if (!request.terms.includes(term) && !begun.includes(term)) begun.push(term);
        }
      }
    }
    return begun;
  }

  /**
   * Whether some skill of the catalog is found by `word` alone, scoring {@link FLOOR_WORDS} of its weight:
   * a word some skill holds in its name or description is a word of its own (`fasta`, the file format,
   * is no short form of fastapi), while `postgres`, in a few bodies only, found no skill.
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

  /** The score under which a match is faint for this request: see {@link FLOOR_WORDS}. */
  private floor(request: RequestTerms, corrections: readonly TermCorrection[]): number {
    const { terms } = this;
    const unheld = request.unheld - corrections.length;
    let weight = unheld * termWeight(0, this.skills.length, this.ranking.k1);
    for (const term of request.terms) weight += terms.weight(term);
    for (const { term } of corrections) weight += terms.weight(term);
    const words = request.terms.length + corrections.length + unheld;
    if (words === 0) return 0;
    return ((words === 1 ? FLOOR_WORDS : FLOOR_WORDS_OF_SEVERAL) * weight) / words;
  }

  /**
   * The undecided words, and, when no match is fair, the words the rest of the request's best matches
   * left unread with the words they may be (`contant` beside `spreadsheet`, which a few skills hold in
   * passing): the answer is then no match, and the model had better know the word was maybe mistyped.
   */
  private undecidedOf(readings: Readings, allowed: Uint8Array | undefined): readonly Undecided[] {
    const { undecided, unread, known } = readings;
    if (unread.length === 0) return undecided;
    const named = [...undecided];
    for (const { from, close } of unread) {
      const to = this.closeWordsHeld(close, known, allowed);
      if (to.length > 0) named.push({ from, to: to.slice(0, UNDECIDED_SHOWN) });
    }
    return named;
  }

  /** Why the request is too vague to rank, if it is (see {@link Vagueness}). */
  private vagueness(
    found: Ranked,
    limit: number,
    scope: Scope,
    request: RequestTerms,
    corrections: readonly TermCorrection[],
  ): Vagueness | undefined {
    if (request.terms.length + request.unheld === 0) return "no words";
    if (this.namesNoTask(found, request, corrections)) return "no task";
    if (found.strong > limit && this.isCommon(request, corrections)) return "common words";
    return found.tied.length > limit && this.moreSkillsThan(limit, found.tied, scope) ? "tied" : undefined;
  }

  /**
   * Whether `documents` are more than `limit` skills, a skill copied into several packs of `scope` counted
   * once (see `Scope.copiesOf`): copies tie, and one skill copied widely is no vague request. Counting
   * stops past `limit`, so that it costs the documents and the copies of at most `limit` + 1 skills.
   */
  private moreSkillsThan(limit: number, documents: readonly number[], scope: Scope): boolean {
    const counted = new Set<Skill>();
    let skills = 0;
    for (const document of documents) {
      const skill = this.skills[document];
      if (skill === undefined || counted.has(skill)) continue;
      if (++skills > limit) return true;
      for (const copy of scope.copiesOf(skill)) counted.add(copy);
    }
    return false;
  }

  /**
   * Whether the request's words, all held, are all {@link ASKING_WORDS}, and none of its best matches holds
   * one in its name.
   */
  private namesNoTask(found: Ranked, request: RequestTerms, corrections: readonly TermCorrection[]): boolean {
    const { askingTerms, terms } = this;
    const held = [...request.terms, ...corrections.map(({ term }) => term)];
    if (found.best.length === 0 || request.unheld > corrections.length) return false;
    if (!held.every((term) => askingTerms.has(term))) return false;
    return !found.best.some((document) => {
      const name = this.skills[document]?.name ?? "";
      return terms.termsOf(name).terms.some((term) => held.includes(term));
    });
  }

  /** Whether every word of the request is held by skills, each by {@link COMMON_SHARE} of them or more. */
  private isCommon(request: RequestTerms, corrections: readonly TermCorrection[]): boolean {
    const { terms } = this;
    const common = COMMON_SHARE * this.skills.length;
    const held = [...request.terms, ...corrections.map(({ term }) => term)];
    return (
      request.unheld === corrections.length &&
      held.length > 0 &&
      held.every((term) => terms.documentFrequency(term) >= common)
    );
  }

  /**
   * The request's words no skill holds, read as words one mistake away, judged by the best matches for
   * the rest of the request, which the accumulator holds, or by the skills in scope when the rest matches
   * nothing.
   */
  private correct(request: RequestTerms, allowed: Uint8Array | undefined): Readings {
    const { unknown } = request;
    const undecided: Undecided[] = [];
    const unread: Unread[] = [];
    const none = { corrections: [], undecided, unread, known: NO_TERMS };
    if (unknown.length > MOST_WORDS_READ) return none;
    const mistyped = unknown
      .map((from) => ({ from, close: this.terms.spellings.closeTerms(from) }))
      .filter(({ close }) => close.size > 0);
    if (mistyped.length === 0) return none;
    const { context } = this;
    const best = this.accumulator.best(CONTEXT_MATCHES);
    for (const document of best) context[document] = 1;
    const known = new Set(request.terms);
    const corrections: TermCorrection[] = [];
    const judges = best.length > 0 ? context : undefined;
    const commonSupport = Math.max(2, Math.ceil(COMMON_WORD_SUPPORT * best.length));
    // Two of the best matches, or the only one: a rest that one skill matches can give no second.
    const sharedSupport = Math.min(2, best.length);
    for (const { from, close } of mistyped) {
      const common = isCommonWord(from);
      // A common word is read only as a word the rest of the request points to: never alone.
      if (common && judges === undefined) continue;
      const least = common ? commonSupport : 0;
      const correction = this.likeliest(from, close, known, judges, allowed, sharedSupport, least);
      if (correction !== undefined) {
        corrections.push(correction);
        known.add(correction.term);
      } else if (judges === undefined) {
        const to = this.closeWordsHeld(close, known, allowed);
        if (to.length > 1) undecided.push({ from, to: to.slice(0, UNDECIDED_SHOWN) });
      } else if (!common) {
        // A common word the rest does not point to is a word the catalog lacks (`loaf`), not a mistake.
        unread.push({ from, close });
      }
    }
    for (const document of best) context[document] = 0;
    return { corrections, undecided, unread, known };
  }

  /** The words of `close` (not already `known`) that skills in scope hold, the most held first. */
  private closeWordsHeld(
    close: ReadonlyMap<number, string>,
    known: ReadonlySet<number>,
    allowed: Uint8Array | undefined,
  ): string[] {
    const held: { word: string; skills: number }[] = [];
    for (const [term, word] of close) {
      const skills = known.has(term) ? 0 : this.held(term, allowed);
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
   * content, constant or contact).
   */
  private likeliest(
    from: string,
    close: ReadonlyMap<number, string>,
    known: ReadonlySet<number>,
    context: Uint8Array | undefined,
    allowed: Uint8Array | undefined,
    /** How many of the best matches must hold a close word that more than one skill in scope holds. */
    shared: number,
    /** How many of the best matches must hold a close word, at least. */
    least: number,
  ): TermCorrection | undefined {
    let likeliest: TermCorrection | undefined;
    let likeliestWeight = 0;
    let heldInScope = 0;
    for (const [term, to] of close) {
      if (known.has(term)) continue;
      const judged = this.tally(term, context ?? allowed);
      if (judged.documents === 0) continue;
      heldInScope++;
      if (context !== undefined && judged.documents < shared && this.held(term, allowed) > 1) continue;
      if (judged.documents < least) continue;
      if (judged.score > likeliestWeight) {
        likeliest = { from, to, term };
        likeliestWeight = judged.score;
      }
    }
    return context === undefined && heldInScope > 1 ? undefined : likeliest;
  }

  /** How many of the documents marked in `marks` hold `term` (all documents when undefined). */
  private held(term: number, marks: Uint8Array | undefined): number {
    return marks === undefined ? this.terms.documentFrequency(term) : this.tally(term, marks).documents;
  }

  /** How many of the documents marked in `marks` hold `term`, and the sum of their scores for it. */
  private tally(term: number, marks: Uint8Array | undefined): Tally {
    this.counter.add(this.terms, [term], marks);
    return this.counter.clear();
  }

  suggest(name: string, scope: Scope, limit = 3): Skill[] {
    const allowed = this.scopes.mask(scope);
    const wanted = name.slice(name.indexOf("/") + 1);
    const close = this.names
      .closeTo(wanted)
      .filter((document) => allowed === undefined || allowed[document] === 1)
      .flatMap((document) => this.skills[document] ?? []);
    // Skills found by the name's words only when no name is close: beside a close name they are other
    // skills sharing a word (`icon-sets` beside `color-palettes` for `color_palets`), not what was meant.
    if (close.length > 0) return [...new Set(close)].slice(0, limit);
    return this.namedByWords(name, wanted, scope, limit);
  }

  /**
   * Skills the words of `name` find that a model could take for the one it named: fair matches (see
   * {@link SearchResult.fairMatches}) whose own names hold one of the words of `wanted` (`invoice-reader`
   * for `parse-invoices`), or are spelled by its letters (`test-driven-development` for `tdd`). A skill
   * holding the words only in its text is no name the model misremembered: `guide` found `hammer`, whose
   * SKILL.md cites a guide.
   */
  private namedByWords(name: string, wanted: string, scope: Scope, limit: number): Skill[] {
    const found = this.search(name, scope, limit + SUGGESTIONS_LEFT_OUT);
    const { terms } = this;
    const words = new Set(terms.termsOf(wanted).terms);
    for (const { to } of found.corrections) for (const term of terms.termsOf(to).terms) words.add(term);
    const letters = wanted.toLowerCase();
    return found.skills
      .slice(0, found.fairMatches)
      .filter(
        (skill) =>
          initials(skill.name) === letters || terms.termsOf(skill.name).terms.some((term) => words.has(term)),
      )
      .slice(0, limit);
  }
}

const NO_TERMS: ReadonlySet<number> = new Set();

/** Whether `code` is a letter a to z. */
function isLowerLatin(code: number): boolean {
  return code >= 0x61 && code <= 0x7a;
}

/** The words of `skills`' names that {@link NAME_START_LETTERS} may find: see `SkillIndex.nameWords`. */
function nameWordsOf(skills: readonly Skill[]): string[] {
  const words = new Set<string>();
  for (const { name } of skills) {
    for (const [word] of name.toLowerCase().matchAll(LETTER_RUNS)) {
      if (word.length > NAME_START_LETTERS) words.add(word);
    }
  }
  return [...words].sort();
}

/** The first letters of a name's words, lowercased (`tdd` of `test-driven-development`); "" for one word. */
function initials(name: string): string {
  const parts = name
    .toLowerCase()
    .split(/[-_\s]+/)
    .filter((part) => part !== "");
  return parts.length < 2 ? "" : parts.map((part) => part[0]).join("");
}

/**
 * Adds up the impacts of a query's postings per document and picks the best. Its buffers are reused by
 * every query (searches are synchronous, and each leaves them zeroed), so a query allocates next to
 * nothing and costs what its postings cost, however large the catalog.
 */
class Accumulator {
  private readonly scores: Float64Array;
  /** Each document's largest impact of one term: what it scores beyond it, it owes the request's other words. */
  private readonly strongest: Float64Array;
  private readonly touched: Int32Array;
  /** How many documents hold the term added last. */
  private readonly held = new Int32Array(1);
  /**
   * How many documents hold the term held by fewest of those added. Every term is held by every match
   * exactly when it equals the matches: a match holds each term, the fewest held included, and each
   * term's documents are all matches.
   */
  private heldByFewest = Number.POSITIVE_INFINITY;
  /** Documents scored so far, in `touched`. */
  private matched = 0;

  constructor(size: number) {
    this.scores = new Float64Array(size);
    this.strongest = new Float64Array(size);
    this.touched = new Int32Array(size);
  }

  /**
   * Adds the impacts of `terms` for the documents `allowed` lets through; unless `words`, they are found
   * besides the request's words, and a match need not hold them to hold every word.
   */
  add(index: Bm25fIndex, terms: readonly number[], allowed: Uint8Array | undefined, words = true): void {
    const { scores, touched, held, strongest } = this;
    let matched = this.matched;
    for (const term of terms) {
      matched = index.accumulate(term, allowed, scores, touched, matched, held, strongest);
      if (words) this.heldByFewest = Math.min(this.heldByFewest, held[0] as number);
    }
    this.matched = matched;
  }

  /** The `limit` best documents so far. */
  best(limit: number): number[] {
    return topDocuments(this.touched, this.matched, this.scores, limit);
  }

  /** The best score so far, 0 when none. */
  bestScore(): number {
    const { scores, touched, matched } = this;
    let best = 0;
    for (let i = 0; i < matched; i++) best = Math.max(best, scores[touched[i] as number] as number);
    return best;
  }

  /** How many documents were scored and their scores' sum; the buffers are zeroed. */
  clear(): Tally {
    const { scores, strongest, touched, matched } = this;
    let score = 0;
    for (let i = 0; i < matched; i++) {
      const document = touched[i] as number;
      score += scores[document] as number;
      scores[document] = 0;
      strongest[document] = 0;
    }
    this.matched = 0;
    this.heldByFewest = Number.POSITIVE_INFINITY;
    return { documents: matched, score };
  }

  /**
   * The `limit` best documents and the counts of matches, none of those scoring under `floor` counted
   * tied, strong or fair, and whether some match holds some of the terms added but not all, after which
   * the buffers are zeroed. A document scoring under `beyondStrongest` beyond its strongest term is left
   * out of the best and of every count but the matches (see {@link BEYOND_ONE_WORD}).
   */
  finish(limit: number, floor: number, beyondStrongest: number): Ranked {
    const { scores, strongest, touched, matched } = this;
    // Those left out are moved past the rest, which alone are ranked and counted.
    let ranked = matched;
    if (beyondStrongest > 0) {
      for (let i = 0; i < ranked; ) {
        const document = touched[i] as number;
        if ((scores[document] as number) - (strongest[document] as number) >= beyondStrongest) {
          i++;
          continue;
        }
        ranked--;
        touched[i] = touched[ranked] as number;
        touched[ranked] = document;
      }
    }
    const best = topDocuments(touched, ranked, scores, limit);
    const bestScore = scores[best[0] ?? 0] as number;
    const tiedScore = Math.max(TIED_MATCH * bestScore, floor);
    const strongScore = Math.max(STRONG_MATCH * bestScore, floor);
    const fairScore = Math.max(FAIR_MATCH * bestScore, floor);
    const tied: number[] = [];
    let strong = 0;
    let fair = 0;
    for (let i = 0; i < matched; i++) {
      const document = touched[i] as number;
      const score = scores[document] as number;
      scores[document] = 0;
      strongest[document] = 0;
      if (i >= ranked) continue;
      if (score >= tiedScore) tied.push(document);
      if (score >= strongScore) strong++;
      if (score >= fairScore) fair++;
    }
    const partial = this.heldByFewest < matched;
    this.matched = 0;
    this.heldByFewest = Number.POSITIVE_INFINITY;
    return { best, matched, tied, strong, fair, partial };
  }
}

interface Tally {
  readonly documents: number;
  readonly score: number;
}

interface Ranked {
  /** Document positions, best first. */
  readonly best: number[];
  /** Documents with any score. */
  readonly matched: number;
  /** Documents scoring at least TIED_MATCH of the best score, and the floor, in no order. */
  readonly tied: readonly number[];
  /** Documents scoring at least STRONG_MATCH of the best score, and the floor. */
  readonly strong: number;
  /** Documents scoring at least FAIR_MATCH of the best score, and the floor. */
  readonly fair: number;
  /** Whether some document holds some of the terms added but not all. */
  readonly partial: boolean;
}

/**
 * The `limit` best of the first `count` documents of `candidates`, best first; equal scores keep catalog
 * order (by name, then pack). One pass keeping a small sorted buffer: once it is full, most candidates
 * fall below its last and cost a comparison.
 */
function topDocuments(candidates: Int32Array, count: number, scores: Float64Array, limit: number): number[] {
  const best: number[] = [];
  if (limit <= 0) return best;
  let size = 0;
  for (let i = 0; i < count; i++) {
    const document = candidates[i] as number;
    const score = scores[document] as number;
    if (size === limit) {
      const last = best[size - 1] as number;
      const lastScore = scores[last] as number;
      if (score < lastScore || (score === lastScore && document > last)) continue;
    } else {
      size++;
    }
    let position = size - 1;
    while (position > 0) {
      const above = best[position - 1] as number;
      const aboveScore = scores[above] as number;
      if (aboveScore > score || (aboveScore === score && above < document)) break;
      best[position] = above;
      position--;
    }
    best[position] = document;
  }
  return best;
}

/**
 * Which documents a scope allows, as a byte per document (undefined: all of them). Scopes are immutable
 * and callers' scopes are reused across requests, so each scope's mask is built once and kept while it lives.
 */
class ScopeMasks {
  private readonly positions: ReadonlyMap<Skill, number>;
  private readonly masks = new WeakMap<Scope, Uint8Array | undefined>();

  constructor(private readonly skills: readonly Skill[]) {
    this.positions = new Map(skills.map((skill, position) => [skill, position]));
  }

  mask(scope: Scope): Uint8Array | undefined {
    if (this.masks.has(scope)) return this.masks.get(scope);
    let mask: Uint8Array | undefined;
    if (
      scope.skills.length < this.skills.length ||
      scope.skills.some((skill) => !this.positions.has(skill))
    ) {
      mask = new Uint8Array(this.skills.length);
      for (const skill of scope.skills) {
        const position = this.positions.get(skill);
        if (position !== undefined) mask[position] = 1;
      }
    }
    this.masks.set(scope, mask);
    return mask;
  }
}
