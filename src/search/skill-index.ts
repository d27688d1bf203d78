import type { Scope, Skill } from "../catalog/index.js";
import type { Bm25fIndex, RankingOptions } from "./bm25f.js";
import type { NameIndex } from "./names.js";

/** What a search found: the best matches, and how many skills matched at all, and how well. */
export interface SearchResult {
  /** Best first, at most the limit asked for. */
  readonly skills: readonly Skill[];
  /** Skills in scope that share at least one term with the query, shown or not. */
  readonly matched: number;
  /**
   * Skills in scope that score at least {@link STRONG_MATCH} of the best one's score, shown or not. A long
   * request shares some word with nearly every skill, so `matched` says little; this says how many
   * contenders there are.
   */
  readonly strongMatches: number;
}

/** The share of the best score from which a match counts as strong (see {@link SearchResult}). */
const STRONG_MATCH = 0.5;

/** Finds skills for a request, and names close to a mistyped one. Built once at startup; pure. */
export interface SearchIndex {
  /** Skills in `scope` ranked for `query`, best first. */
  search(query: string, scope: Scope, limit: number): SearchResult;
  /** Up to `limit` skills in `scope` whose names are close to `name`, or else that its words find. */
  suggest(name: string, scope: Scope, limit?: number): Skill[];
}

/**
 * A catalog's search index: its terms' postings and its names' trigrams, over `skills` in this order.
 * Made by `buildIndex`, or loaded from bytes that `indexToBytes` gave (saved-index.ts).
 */
export class SkillIndex implements SearchIndex {
  private readonly scopes: ScopeMasks;
  private readonly accumulator: Accumulator;

  constructor(
    readonly skills: readonly Skill[],
    readonly terms: Bm25fIndex,
    readonly names: NameIndex,
    /** What the impacts in `terms` were computed with. */
    readonly ranking: RankingOptions,
  ) {
    this.scopes = new ScopeMasks(skills);
    this.accumulator = new Accumulator(skills.length);
  }

  search(query: string, scope: Scope, limit: number): SearchResult {
    const { terms, skills } = this;
    const found = this.accumulator.rank(terms, terms.termsOf(query), this.scopes.mask(scope), limit);
    return {
      skills: found.best.flatMap((document) => skills[document] ?? []),
      matched: found.matched,
      strongMatches: found.strong,
    };
  }

  suggest(name: string, scope: Scope, limit = 3): Skill[] {
    const allowed = this.scopes.mask(scope);
    const close = this.names
      .closeTo(name.slice(name.indexOf("/") + 1))
      .filter((document) => allowed === undefined || allowed[document] === 1)
      .flatMap((document) => this.skills[document] ?? []);
    const byMeaning = this.search(name, scope, limit).skills;
    return [...new Set([...close, ...byMeaning])].slice(0, limit);
  }
}

/**
 * Adds up the impacts of a query's postings per document and picks the best. Its buffers are reused by
 * every query (searches are synchronous, and each leaves them zeroed), so a query allocates next to
 * nothing and costs what its postings cost, however large the catalog.
 */
class Accumulator {
  private readonly scores: Float64Array;
  private readonly touched: Int32Array;

  constructor(size: number) {
    this.scores = new Float64Array(size);
    this.touched = new Int32Array(size);
  }

  rank(index: Bm25fIndex, terms: readonly number[], allowed: Uint8Array | undefined, limit: number): Ranked {
    const { scores, touched } = this;
    let matched = 0;
    for (const term of terms) matched = index.accumulate(term, allowed, scores, touched, matched);
    const best = topDocuments(touched.subarray(0, matched), scores, limit);
    const strongScore = STRONG_MATCH * (scores[best[0] ?? 0] as number);
    let strong = 0;
    for (let i = 0; i < matched; i++) {
      const document = touched[i] as number;
      if ((scores[document] as number) >= strongScore) strong++;
      scores[document] = 0;
    }
    return { best, matched, strong };
  }
}

interface Ranked {
  /** Document positions, best first. */
  readonly best: number[];
  /** Documents with any score. */
  readonly matched: number;
  /** Documents scoring at least STRONG_MATCH of the best score. */
  readonly strong: number;
}

/**
 * The `limit` best documents, best first; equal scores keep catalog order (by name, then pack).
 * One pass keeping a small sorted buffer: most candidates fall below its last score and cost a comparison.
 */
function topDocuments(candidates: Int32Array, scores: Float64Array, limit: number): number[] {
  const best: number[] = [];
  let floor = Number.NEGATIVE_INFINITY;
  for (const document of candidates) {
    const score = scores[document] as number;
    if (score < floor) continue;
    let position = best.length;
    while (position > 0) {
      const above = best[position - 1] as number;
      const aboveScore = scores[above] as number;
      if (aboveScore > score || (aboveScore === score && above < document)) break;
      position--;
    }
    if (position >= limit) continue;
    best.splice(position, 0, document);
    if (best.length > limit) best.pop();
    if (best.length === limit) floor = scores[best[limit - 1] as number] as number;
  }
  return best;
}

/**
 * Which documents a scope allows, as a byte per document (undefined: all of them). Scopes are immutable
 * and ceilings are reused across requests, so each scope's mask is built once and kept while it lives.
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
