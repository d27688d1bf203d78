import type { Scope, Skill } from "../catalog/index.js";
import { MalformedPart, type PartReader, type PartWriter } from "../saved/index.js";
import { Accumulator } from "./accumulator.js";
import { allBelow, isAscending } from "./arrays.js";
import { Bm25fIndex, type RankingOptions } from "./bm25f.js";
import { Corrector, capitalsOfCorrections } from "./corrections.js";
import { beyondStrongest, matchFloor } from "./match-floor.js";
import { NameStarts } from "./name-starts.js";
import { NameIndex } from "./names.js";
import { ScopeMasks } from "./scope-masks.js";
import type { SearchResult } from "./search-result.js";
import { VaguenessCheck } from "./vagueness.js";

/**
 * How many more matches for a name's words are looked at than suggestions are made: some of the best hold
 * the words in their text alone, and are left out (see `SkillIndex.namedByWords`).
 */
const SUGGESTIONS_LEFT_OUT = 7;

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
  private readonly corrector: Corrector;
  private readonly nameStarts: NameStarts;
  private readonly vaguenessCheck: VaguenessCheck;

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
    // Counts the documents holding a term while a mistyped word is read or a name's start looked up: one
    // term at a time, left zeroed, so that both share it.
    const counter = new Accumulator(skills.length);
    this.corrector = new Corrector(terms, skills.length, counter);
    this.nameStarts = new NameStarts(skills, terms, counter);
    this.vaguenessCheck = new VaguenessCheck(skills, terms);
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
    const { terms, skills, accumulator, corrector } = this;
    const allowed = this.scopes.mask(scope);
    const request = terms.termsOf(query);
    accumulator.add(terms, request.terms, allowed, true, request.alternatives);
    const begun = this.nameStarts.namesBegun(query, request, allowed);
    const readings = corrector.correct(request, allowed, accumulator, begun.read);
    const { corrections } = readings;
    accumulator.add(
      terms,
      corrections.map(({ term }) => term),
      allowed,
      true,
      capitalsOfCorrections(corrections),
    );
    // Found besides the request's own words, not in their place: it holds no more words for them.
    accumulator.add(terms, begun.terms, allowed, false);
    // A word left unread is one no match holds: every match then holds only part of the request.
    const unread = request.unheld > corrections.length + begun.read.length;
    const floor = matchFloor(terms, skills.length, this.ranking.k1, request, corrections, begun.read);
    const found = accumulator.finish(limit, floor, beyondStrongest(request, floor));
    const vague = this.vaguenessCheck.whyVague(found, limit, scope, request, corrections);
    const undecided =
      found.fair === 0 && vague === undefined ? corrector.undecidedOf(readings, allowed) : readings.undecided;
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

/** The first letters of a name's words, lowercased (`tdd` of `test-driven-development`); "" for one word. */
function initials(name: string): string {
  const parts = name
    .toLowerCase()
    .split(/[-_\s]+/)
    .filter((part) => part !== "");
  return parts.length < 2 ? "" : parts.map((part) => part[0]).join("");
}
