import type { Scope, Skill } from "../catalog/index.js";
import { Bm25fBuilder, type Bm25fIndex, type RankingOptions } from "./bm25f.js";
import { DESCRIPTION, forEachSection, NAME, PLACE } from "./fields.js";
import { NameIndex } from "./names.js";

export type { RankingOptions } from "./bm25f.js";

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
 * Tuned on the dev set of shared/bench and checked by split halves (docs/search.md): the name counts most,
 * the body least; descriptions and bodies are normalized fully by their length, since a long text mentions
 * many things in passing.
 */
export const DEFAULT_RANKING: RankingOptions = {
  weights: { name: 4, description: 3, place: 0.25, headings: 1, body: 0.15 },
  lengthNormalization: { name: 0.5, description: 1, place: 0.5, headings: 1, body: 1 },
  k1: 2,
};

/**
 * Indexes `skills` once, reading each SKILL.md through `documentOf` (the catalog's reader: search itself
 * does no I/O); every later search and suggestion reads the index only. `ranking` is for tuning.
 */
export function buildIndex(
  skills: readonly Skill[],
  documentOf: (skill: Skill) => string,
  ranking: RankingOptions = DEFAULT_RANKING,
): SearchIndex {
  const terms = indexTerms(skills, documentOf, ranking);
  const names = new NameIndex(skills);
  const scopes = new ScopeMasks(skills);
  const accumulator = new Accumulator(skills.length);

  const search = (query: string, scope: Scope, limit: number): SearchResult => {
    const found = accumulator.rank(terms, terms.termsOf(query), scopes.mask(scope), limit);
    return {
      skills: found.best.flatMap((document) => skills[document] ?? []),
      matched: found.matched,
      strongMatches: found.strong,
    };
  };

  return {
    search,
    suggest(name, scope, limit = 3) {
      const allowed = scopes.mask(scope);
      const close = names
        .closeTo(name.slice(name.indexOf("/") + 1))
        .filter((document) => allowed === undefined || allowed[document] === 1)
        .flatMap((document) => skills[document] ?? []);
      const byMeaning = search(name, scope, limit).skills;
      return [...new Set([...close, ...byMeaning])].slice(0, limit);
    },
  };
}

/** Reads each skill's SKILL.md once, in turn, so that the catalog's documents are never all in memory. */
function indexTerms(
  skills: readonly Skill[],
  documentOf: (skill: Skill) => string,
  ranking: RankingOptions,
): Bm25fIndex {
  const builder = new Bm25fBuilder(skills.length);
  const addSection = (field: number, text: string, start: number, end: number) =>
    builder.add(field, text, start, end);
  for (const skill of skills) {
    builder.add(NAME, skill.name);
    builder.add(DESCRIPTION, skill.description);
    builder.add(PLACE, skill.pack);
    if (skill.group !== undefined) builder.add(PLACE, skill.group);
    forEachSection(documentOf(skill), addSection);
    builder.endDocument();
  }
  return builder.finish(ranking);
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
