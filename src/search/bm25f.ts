import { MalformedPart, type PartReader, type PartWriter } from "../saved/index.js";
import { isStarts } from "./arrays.js";
import type { FieldName } from "./fields.js";
import { SATURATION_OF_LEVEL } from "./impact-levels.js";
import { capitalsKey, KeyTable } from "./keys.js";
import { type RequestTerms, requestTerms } from "./request-terms.js";
import { WordScanner } from "./scanner.js";
import { SpellingTable } from "./spelling.js";

/** How matches in each field add up; see docs/search.md. */
export interface RankingOptions {
  /** How much one occurrence in each field counts, before saturation; positive. */
  readonly weights: Readonly<Record<FieldName, number>>;
  /** Length normalization per field: 0 ignores length, 1 divides by it relative to the field's average. */
  readonly lengthNormalization: Readonly<Record<FieldName, number>>;
  /** Term-frequency saturation: how fast repeated occurrences stop adding. */
  readonly k1: number;
}

/**
 * A BM25F inverted index (Robertson and Zaragoza, "The Probabilistic Relevance Framework: BM25 and
 * Beyond", 2009): a term's occurrences in every field are weighted, length-normalized per field and summed
 * before saturation, so a word in the name and again in the body is not counted as two independent matches.
 * A document's score for a term does not depend on the query, so each posting stores it (its impact) and a
 * query only adds impacts up.
 *
 * Postings are compact, since a catalog of 10,000 skills has about 6 million: per term, the documents as
 * gaps in variable-length bytes (ascending), and a byte per impact (see `levelOf`, impact-levels.ts)
 * times the term's weight, idf · (k1 + 1).
 */
export class Bm25fIndex {
  private readonly scanner = new WordScanner();

  /** Read-only once made: an index saved and loaded again is these arrays. */
  constructor(
    /** Term ids by the key of their stem. */
    private readonly terms: KeyTable,
    /** Per term t, its document gaps are `gaps[gapStarts[t]]` to `gaps[gapStarts[t + 1]]`. */
    private readonly gaps: Uint8Array,
    private readonly gapStarts: Uint32Array,
    /** Per term t, its impact levels are `levels[postingStarts[t]]` to `levels[postingStarts[t + 1]]`. */
    private readonly levels: Uint8Array,
    private readonly postingStarts: Uint32Array,
    private readonly termWeights: Float64Array,
    /**
     * Per term, 1 when it is the stem of a word in capitals kept apart (`pain` of PAINS, see
     * `Lexicon.termOfCapitals`): only a request word of such a term looks for its capitals form.
     */
    private readonly stemsOfCapitals: Uint8Array,
    /** The catalog's words as spelled, for reading mistyped request words. */
    readonly spellings: SpellingTable,
  ) {}

  /** Writes the index to a part of the saved index, for {@link Bm25fIndex.load}. */
  save(part: PartWriter): void {
    this.terms.save(part);
    const { gaps, gapStarts, levels, postingStarts, termWeights, stemsOfCapitals } = this;
    for (const array of [gaps, gapStarts, levels, postingStarts, termWeights, stemsOfCapitals]) {
      part.array(array);
    }
    this.spellings.save(part);
  }

  /** An index saved by {@link save}, as views of the saved bytes, once its lists are seen to hold together. */
  static load(part: PartReader): Bm25fIndex {
    const terms = KeyTable.load(part);
    const gaps = part.array(Uint8Array);
    const gapStarts = part.array(Uint32Array);
    const levels = part.array(Uint8Array);
    const postingStarts = part.array(Uint32Array);
    const termWeights = part.array(Float64Array);
    const stemsOfCapitals = part.array(Uint8Array);
    const spellings = SpellingTable.load(part, terms.size);
    if (
      !isStarts(gapStarts, terms.size, gaps.length) ||
      !isStarts(postingStarts, terms.size, levels.length) ||
      termWeights.length !== terms.size ||
      stemsOfCapitals.length !== terms.size
    ) {
      throw new MalformedPart("the postings do not fit their terms");
    }
    return new Bm25fIndex(
      terms,
      gaps,
      gapStarts,
      levels,
      postingStarts,
      termWeights,
      stemsOfCapitals,
      spellings,
    );
  }

  /** The distinct terms of a request that some document holds, and its words that none does. */
  termsOf(query: string): RequestTerms {
    return requestTerms(query, this.scanner, this.terms, this.spellings, this.stemsOfCapitals);
  }

  /**
   * The term of `word` as skills write it in capitals, kept apart from its stem's `term` (`smiles`:
   * SMILES, beside smile), or -1 when they do not.
   */
  capitalsOf(word: string, term: number): number {
    return this.stemsOfCapitals[term] === 1 ? this.terms.get(...capitalsKey(word)) : -1;
  }

  /** What `term` adds to a score at full strength (idf · (k1 + 1)): rare terms weigh more. */
  weight(term: number): number {
    return this.termWeights[term] as number;
  }

  /** How many documents hold `term`. */
  documentFrequency(term: number): number {
    return (this.postingStarts[term + 1] as number) - (this.postingStarts[term] as number);
  }

  /**
   * Adds a term's impacts into `scores`, for the documents `allowed` lets through (all when undefined). A
   * document scored for the first time is appended to `touched` at `matched`; returns the new count, and
   * sets `held[0]` to how many documents let through hold the term.
   */
  accumulate(
    term: number,
    allowed: Uint8Array | undefined,
    scores: Float64Array,
    touched: Int32Array,
    matched: number,
    held: Int32Array,
    /** Each document's largest impact of one term so far, raised where this term's is larger. */
    strongest: Float64Array,
    /**
     * Per document, the impact of another term of the same word, or 0: the larger of the two is added,
     * and it is set to 0 (see `Accumulator.addBetterOf`).
     */
    other?: Float64Array,
  ): number {
    const { gaps, levels } = this;
    const weight = this.termWeights[term] as number;
    const last = this.postingStarts[term + 1] as number;
    let at = this.gapStarts[term] as number;
    let document = -1;
    let count = matched;
    let holding = 0;
    for (let posting = this.postingStarts[term] as number; posting < last; posting++) {
      let byte = gaps[at++] as number;
      let gap = byte & 0x7f;
      for (let shift = 7; byte >= 0x80; shift += 7) {
        byte = gaps[at++] as number;
        gap |= (byte & 0x7f) << shift;
      }
      document += gap;
      if (allowed !== undefined && allowed[document] === 0) continue;
      const before = scores[document] as number;
      if (before === 0) touched[count++] = document;
      let impact = weight * (SATURATION_OF_LEVEL[levels[posting] as number] as number);
      if (other !== undefined) {
        const its = other[document] as number;
        if (its !== 0) {
          other[document] = 0;
          if (its > impact) impact = its;
        }
      }
      scores[document] = before + impact;
      if (impact > (strongest[document] as number)) strongest[document] = impact;
      holding++;
    }
    held[0] = holding;
    return count;
  }
}

/**
 * What a term held by `documentFrequency` of `documents` adds to a score at full strength: its idf times
 * k1 + 1, the most its saturated frequency can be multiplied by.
 */
export function termWeight(documentFrequency: number, documents: number, k1: number): number {
  return Math.log(1 + (documents - documentFrequency + 0.5) / (documentFrequency + 0.5)) * (k1 + 1);
}
