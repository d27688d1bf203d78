import type { Bm25fIndex } from "./bm25f.js";

/** The share of the best score from which a match counts as strong (see `SearchResult.strongMatches`). */
const STRONG_MATCH = 0.5;
/**
 * The share of the best score under which a match is faint (see `SearchResult.fairMatches`): a tail of faint
 * matches costs the model tokens and misleads it. Over the bench's labeled requests (three sets, spelt
 * right, mistyped and as agents phrased them) no first right skill in the ten best scored under 0.47 of
 * the best, while half the tenth results scored under 0.26 (docs/search.md).
 */
const FAIR_MATCH = 0.4;
/**
 * The share of the best score from which a match is tied with the best: a request that more skills match
 * so closely than can be shown is too vague to rank (`design` alone: 19 skills within a tenth of the best,
 * as a word held by 43 % of the skills, in their names or in passing alike). Of the 972 answers to the
 * bench's labeled requests (three sets, spelt right, mistyped and as four agents phrased them), none had
 * more than 5 skills within a tenth of the best, and 859 had the best alone (docs/search.md).
 */
const TIED_MATCH = 0.9;

const NO_ALTERNATIVES: ReadonlyMap<number, number> = new Map();

/**
 * Adds up the impacts of a query's postings per document and picks the best. Its buffers are reused by
 * every query (searches are synchronous, and each leaves them zeroed), so a query allocates next to
 * nothing and costs what its postings cost, however large the catalog.
 */
export class Accumulator {
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
  /** Scratch buffers for the better of a word's two terms (see {@link addBetterOf}), zero between uses. */
  private readonly better: Float64Array;
  private readonly betterTouched: Int32Array;

  constructor(size: number) {
    this.scores = new Float64Array(size);
    this.strongest = new Float64Array(size);
    this.touched = new Int32Array(size);
    this.better = new Float64Array(size);
    this.betterTouched = new Int32Array(size);
  }

  /**
   * Adds the impacts of `terms` for the documents `allowed` lets through; unless `words`, they are found
   * besides the request's words, and a match need not hold them to hold every word. A term with one of
   * `alternatives` adds the better of its impact and the alternative's (see `RequestTerms.alternatives`).
   */
  add(
    index: Bm25fIndex,
    terms: readonly number[],
    allowed: Uint8Array | undefined,
    words = true,
    alternatives: ReadonlyMap<number, number> = NO_ALTERNATIVES,
  ): void {
    const { scores, touched, held, strongest } = this;
    for (const term of terms) {
      const alternative = alternatives.get(term);
      if (alternative === undefined) {
        this.matched = index.accumulate(term, allowed, scores, touched, this.matched, held, strongest);
      } else {
        this.addBetterOf(index, term, alternative, allowed);
      }
      if (words) this.heldByFewest = Math.min(this.heldByFewest, held[0] as number);
    }
  }

  /**
   * Adds, for each document, the better of the impacts of `term` and `alternative`, and sets `held` to how
   * many documents hold either. The alternative, a word in capitals held by few, is found first in the
   * scratch buffers; the term's own postings then take the better of the two as they are added, so that
   * the term, often held by many, is read once and added straight into the scores.
   */
  private addBetterOf(
    index: Bm25fIndex,
    term: number,
    alternative: number,
    allowed: Uint8Array | undefined,
  ): void {
    const { scores, touched, strongest, held, better, betterTouched } = this;
    // Its strongest impacts are raised in `strongest` itself: a document's is then the larger of both.
    const count = index.accumulate(alternative, allowed, better, betterTouched, 0, held, strongest);
    let matched = index.accumulate(term, allowed, scores, touched, this.matched, held, strongest, better);
    let holding = held[0] as number;
    // The documents holding the alternative alone, which the term's postings left in the scratch.
    for (let i = 0; i < count; i++) {
      const document = betterTouched[i] as number;
      const impact = better[document] as number;
      if (impact === 0) continue;
      better[document] = 0;
      holding++;
      const before = scores[document] as number;
      if (before === 0) touched[matched++] = document;
      scores[document] = before + impact;
    }
    this.matched = matched;
    held[0] = holding;
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
   * out of the best and of every count but the matches (see `BEYOND_ONE_WORD`, match-floor.ts).
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

export interface Tally {
  readonly documents: number;
  readonly score: number;
}

export interface Ranked {
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
