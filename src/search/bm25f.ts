import { FIELD_NAMES, type FieldName, type SkillFields } from "./fields.js";
import { stem, words } from "./terms.js";

/** How matches in each field add up; see docs/search.md. */
export interface RankingOptions {
  /** How much one occurrence in each field counts, before saturation. */
  readonly weights: Readonly<Record<FieldName, number>>;
  /** Length normalization per field: 0 ignores length, 1 divides by it relative to the field's average. */
  readonly lengthNormalization: Readonly<Record<FieldName, number>>;
  /** Term-frequency saturation: how fast repeated occurrences stop adding. */
  readonly k1: number;
}

/** The documents holding one term (ascending), with what the term adds to each one's score. */
export interface Postings {
  readonly documents: Int32Array;
  readonly impacts: Float32Array;
}

/** One document's distinct terms in one field, with how often each occurs. */
interface FieldTerms {
  readonly terms: Int32Array;
  readonly counts: Int32Array;
  readonly length: number;
}

/**
 * A BM25F inverted index (Robertson and Zaragoza, "The Probabilistic Relevance Framework: BM25 and
 * Beyond", 2009): a term's occurrences in every field are weighted, length-normalized per field and summed
 * before saturation, so a word in the name and again in the body is not counted as two independent matches.
 * A document's score for a term does not depend on the query, so each posting stores it (its impact) and a
 * query only adds impacts up.
 */
export class Bm25fIndex {
  readonly size: number;
  private readonly termIds: ReadonlyMap<string, number>;
  private readonly postings: readonly Postings[];

  constructor(documents: readonly SkillFields[], options: RankingOptions) {
    this.size = documents.length;
    const vocabulary = new Vocabulary();
    const perDocument = documents.map((document) => vocabulary.add(document));
    this.termIds = vocabulary.stems;
    this.postings = buildPostings(perDocument, vocabulary.documentFrequencies, options);
  }

  /** The postings of the query's distinct terms that some document holds. */
  lookup(query: string): Postings[] {
    const ids = new Set(words(query).flatMap((word) => this.termIds.get(stem(word)) ?? []));
    return [...ids].flatMap((id) => this.postings[id] ?? []);
  }
}

/** Interns terms while counting them. Lives only while the index is built. */
class Vocabulary {
  readonly stems = new Map<string, number>();
  /** Words repeat a lot across a catalog: each is stemmed and looked up once. */
  private readonly wordIds = new Map<string, number>();
  /** Per term: documents holding it so far, the last one counted, its count in the current field. */
  private frequencies = new Int32Array(1024);
  private lastDocument = new Int32Array(1024).fill(-1);
  private counts = new Int32Array(1024);
  private documents = 0;

  /** Documents holding each term. */
  get documentFrequencies(): Int32Array {
    return this.frequencies.subarray(0, this.stems.size);
  }

  /** Counts the terms of one document's fields. */
  add(document: SkillFields): FieldTerms[] {
    const position = this.documents++;
    return FIELD_NAMES.map((field) => {
      const seen: number[] = [];
      const tokens = words(document[field]);
      for (const word of tokens) {
        const id = this.intern(word);
        const count = this.counts[id] as number;
        if (count === 0) seen.push(id);
        this.counts[id] = count + 1;
        if (this.lastDocument[id] !== position) {
          this.lastDocument[id] = position;
          this.frequencies[id] = (this.frequencies[id] as number) + 1;
        }
      }
      const counts = Int32Array.from(seen, (id) => this.counts[id] ?? 0);
      for (const id of seen) this.counts[id] = 0;
      return { terms: Int32Array.from(seen), counts, length: tokens.length };
    });
  }

  private intern(word: string): number {
    const known = this.wordIds.get(word);
    if (known !== undefined) return known;
    const root = stem(word);
    let id = this.stems.get(root);
    if (id === undefined) {
      id = this.stems.size;
      this.stems.set(root, id);
      if (id === this.counts.length) this.grow();
    }
    this.wordIds.set(word, id);
    return id;
  }

  private grow(): void {
    const size = this.counts.length * 2;
    const grown = (from: Int32Array, fill: number) => {
      const to = new Int32Array(size).fill(fill);
      to.set(from);
      return to;
    };
    this.frequencies = grown(this.frequencies, 0);
    this.lastDocument = grown(this.lastDocument, -1);
    this.counts = grown(this.counts, 0);
  }
}

function buildPostings(
  perDocument: readonly (readonly FieldTerms[])[],
  documentFrequencies: Int32Array,
  options: RankingOptions,
): Postings[] {
  const total = perDocument.length;
  const averages = FIELD_NAMES.map(
    (_, field) =>
      perDocument.reduce((sum, fields) => sum + (fields[field]?.length ?? 0), 0) / Math.max(1, total),
  );
  const postings = Array.from(documentFrequencies, (df) => ({
    documents: new Int32Array(df),
    impacts: new Float32Array(df),
  }));
  const filled = new Int32Array(postings.length);
  const frequency = new Float64Array(postings.length);
  perDocument.forEach((fields, document) => {
    const seen: number[] = [];
    fields.forEach(({ terms, counts, length }, field) => {
      const name = FIELD_NAMES[field] as FieldName;
      const b = options.lengthNormalization[name];
      const weight = options.weights[name] / (1 - b + (b * length) / (averages[field] || 1));
      if (weight <= 0) return;
      for (let i = 0; i < terms.length; i++) {
        const id = terms[i] as number;
        if (frequency[id] === 0) seen.push(id);
        frequency[id] = (frequency[id] ?? 0) + (counts[i] ?? 0) * weight;
      }
    });
    for (const id of seen) {
      const list = postings[id];
      const at = filled[id] ?? 0;
      if (list === undefined) continue;
      list.documents[at] = document;
      list.impacts[at] = frequency[id] ?? 0;
      filled[id] = at + 1;
      frequency[id] = 0;
    }
  });
  const k1 = options.k1;
  return postings.map(({ documents, impacts }, id) => {
    const df = filled[id] ?? 0;
    const idf = Math.log(1 + (total - df + 0.5) / (df + 0.5));
    const kept = impacts.subarray(0, df).map((tf) => (idf * tf * (k1 + 1)) / (k1 + tf));
    return { documents: documents.subarray(0, df), impacts: kept };
  });
}
