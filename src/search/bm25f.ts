import { MalformedPart, type PartReader, type PartWriter } from "../saved/index.js";
import { grown, isStarts } from "./arrays.js";
import { otherSpellings } from "./english-spellings.js";
import { FIELD_NAMES, type FieldName, HEADINGS } from "./fields.js";
import { KeyTable, stemKey } from "./keys.js";
import { Lexicon } from "./lexicon.js";
import { WordScanner, type WordSink, words } from "./scanner.js";
import { NO_TERM, SpellingTable } from "./spelling.js";
import { keptWord, spelled, stem } from "./terms.js";

/** How matches in each field add up; see docs/search.md. */
export interface RankingOptions {
  /** How much one occurrence in each field counts, before saturation; positive. */
  readonly weights: Readonly<Record<FieldName, number>>;
  /** Length normalization per field: 0 ignores length, 1 divides by it relative to the field's average. */
  readonly lengthNormalization: Readonly<Record<FieldName, number>>;
  /** Term-frequency saturation: how fast repeated occurrences stop adding. */
  readonly k1: number;
}

const FIELDS = FIELD_NAMES.length;

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
   * How many distinct words typed no document holds, capitals included (joins are not typed): part of
   * what the request asks for that no skill offers (see `SkillIndex.search`).
   */
  readonly unheld: number;
}

/**
 * A request's words, as a scanner hands them over, sorted into the terms the index holds and the words
 * it does not. A word the catalog holds as spelled is known by its keys, neither made a string nor
 * stemmed; a span joined from a compound's parts holds the hyphen or underscore it was joined at, which
 * tells it from the words typed.
 */
class RequestWords implements WordSink {
  readonly terms = new Set<number>();
  readonly unknown = new Set<string>();
  /** The unknown words typed, not joined. */
  readonly written = new Set<string>();
  /** The unknown words typed, not joined, less those in capitals: the ones that may be mistyped. */
  readonly typed = new Set<string>();
  /** Whether an unknown word came by the Unicode path, which does not say whether it was joined. */
  unknownUnicode = false;

  constructor(
    private readonly stems: KeyTable,
    private readonly spellings: SpellingTable,
  ) {}

  span(text: string, start: number, end: number, hash: number, check: number): void {
    const spelledTerm = this.spellings.termOf(hash, check);
    if (spelledTerm >= 0) {
      this.terms.add(spelledTerm);
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
      if (!isCapitals(text, start, end)) this.typed.add(word);
    }
  }

  word(word: string): void {
    if (this.known(word)) return;
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
    if (term >= 0) this.terms.add(term);
    return term >= 0;
  }

  private termOf(word: string): number {
    const [hash, check] = stemKey(stem(word));
    return this.stems.get(hash, check);
  }
}

function isJoined(text: string, start: number, end: number): boolean {
  for (let at = start; at < end; at++) {
    const code = text.charCodeAt(at);
    if (code === HYPHEN || code === UNDERSCORE) return true;
  }
  return false;
}

/**
 * Whether a word is written in capitals (`MAPQ`, `HIPAA`): an acronym or a name typed with care, not a
 * mistake, so it is taken as written rather than read as a word one mistake away (`MAPQ` was `maps`).
 */
function isCapitals(text: string, start: number, end: number): boolean {
  for (let at = start; at < end; at++) {
    const code = text.charCodeAt(at);
    if (code >= SMALL_A && code <= SMALL_Z) return false;
  }
  return true;
}

const HYPHEN = 45;
const UNDERSCORE = 95;
const SMALL_A = 97;
const SMALL_Z = 122;

/**
 * Impacts are stored as one byte: the level of the saturated frequency tf / (k1 + tf), which lies in
 * (0, 1), on a logarithmic scale: a level is 1/32 of a power of two, read off the bits of the number as a
 * 32-bit float (exponent and leading mantissa bits), which is far quicker than a logarithm for millions of
 * postings. A stored impact is the middle of its level, within 2.5% of the exact one; levels cover 2^-8 to
 * 1 (lower saturations, from a word met once in a body twenty times longer than average, count as 2^-8).
 * The dev set ranks the same as with exact impacts (docs/search.md).
 */
const LEVEL_BITS = 18;
const FLOAT = new Float32Array(1);
const FLOAT_BITS = new Uint32Array(FLOAT.buffer);
/** The float bits of 2^-8, less one level: level 1 starts at 2^-8. */
const LEVEL_BASE = ((127 - 8) << 23) - (1 << LEVEL_BITS);
const SATURATION_OF_LEVEL = Float64Array.from({ length: 256 }, (_, level) => {
  if (level === 0) return 0;
  FLOAT_BITS[0] = LEVEL_BASE + level * (1 << LEVEL_BITS) + (1 << (LEVEL_BITS - 1));
  return FLOAT[0] as number;
});

function levelOf(saturation: number): number {
  FLOAT[0] = saturation;
  const level = ((FLOAT_BITS[0] as number) - LEVEL_BASE) >> LEVEL_BITS;
  return level < 1 ? 1 : Math.min(255, level);
}

/**
 * A BM25F inverted index (Robertson and Zaragoza, "The Probabilistic Relevance Framework: BM25 and
 * Beyond", 2009): a term's occurrences in every field are weighted, length-normalized per field and summed
 * before saturation, so a word in the name and again in the body is not counted as two independent matches.
 * A document's score for a term does not depend on the query, so each posting stores it (its impact) and a
 * query only adds impacts up.
 *
 * Postings are compact, since a catalog of 10,000 skills has about 6 million: per term, the documents as
 * gaps in variable-length bytes (ascending), and a byte per impact (see {@link levelOf}) times the term's
 * weight, idf · (k1 + 1).
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
    /** The catalog's words as spelled, for reading mistyped request words. */
    readonly spellings: SpellingTable,
  ) {}

  /** Writes the index to a part of the saved index, for {@link Bm25fIndex.load}. */
  save(part: PartWriter): void {
    this.terms.save(part);
    for (const array of [this.gaps, this.gapStarts, this.levels, this.postingStarts, this.termWeights]) {
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
    const spellings = SpellingTable.load(part, terms.size);
    if (
      !isStarts(gapStarts, terms.size, gaps.length) ||
      !isStarts(postingStarts, terms.size, levels.length) ||
      termWeights.length !== terms.size
    ) {
      throw new MalformedPart("the postings do not fit their terms");
    }
    return new Bm25fIndex(terms, gaps, gapStarts, levels, postingStarts, termWeights, spellings);
  }

  /** The distinct terms of a request that some document holds, and its words that none does. */
  termsOf(query: string): RequestTerms {
    const request = new RequestWords(this.terms, this.spellings);
    this.scanner.scan(query, 0, query.length, request);
    const terms = [...request.terms];
    if (request.unknown.size === 0) return { terms, unknown: [], unheld: 0 };
    // The Unicode path hands a compound's joins over as words: its compounds are split to tell them apart.
    const split = request.unknownUnicode
      ? new Set(words(query.replace(/[-_]/g, " "), this.scanner))
      : undefined;
    const unknown = [...request.unknown];
    const written = split ?? request.written;
    const typed = split ?? request.typed;
    return {
      terms,
      unknown: unknown.filter((word) => typed.has(word)),
      unheld: unknown.filter((word) => written.has(word)).length,
    };
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
      const impact = weight * (SATURATION_OF_LEVEL[levels[posting] as number] as number);
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

/**
 * The most distinct terms one document may hold. Once its headings and body have brought it this many,
 * their further words count only if the document already holds them: a SKILL.md (up to 1 MiB) of distinct
 * words added each as a term, with its postings and its spelling (5 MiB kept for a 0.9 MiB one). Name,
 * description and place come first, so they are always held. The bench corpus's largest is 1,667
 * (anthropics/claude-api; a median of 327).
 */
export const TERMS_A_DOCUMENT = 4096;

/**
 * Builds a {@link Bm25fIndex} one document at a time, so that a catalog's texts need not be in memory at
 * once. Words are interned as they are scanned (see {@link Lexicon}) and each document's counts are
 * appended to a compact record stream; `finish` turns the stream into postings in one pass, once the
 * average field lengths and the document frequencies are known.
 */
export class Bm25fBuilder implements WordSink {
  private readonly scanner = new WordScanner();
  private readonly lexicon = new Lexicon();
  private readonly fieldLengths: Int32Array;
  /** Per document: its terms, each with a bit mask of the fields holding it and its count in each. */
  private readonly records = new ByteChunks();
  /** Per document: the chunk of `records` holding its records, and where they end in it. */
  private readonly recordChunks: Int32Array;
  private readonly recordEnds: Uint32Array;
  private documents = 0;
  private field = 0;
  /** Per term: documents holding it so far, the last of them, and the bytes its document gaps take. */
  private frequencies: Int32Array = new Int32Array(4096);
  private lastDocuments: Int32Array = new Int32Array(4096).fill(-1);
  private gapBytes: Int32Array = new Int32Array(4096);
  /**
   * The current document's terms as a sparse set: `local[position[term]] === term` when the document
   * holds the term, so nothing needs clearing between documents; `localCounts` has its count per field.
   */
  private position: Int32Array = new Int32Array(4096);
  private local: Int32Array = new Int32Array(1024);
  private localCounts: Int32Array = new Int32Array(1024 * FIELDS);
  private localTerms = 0;
  /** The documents whose headings and body had more distinct terms than {@link TERMS_A_DOCUMENT}. */
  readonly full: number[] = [];

  constructor(readonly size: number) {
    this.fieldLengths = new Int32Array(size * FIELDS);
    this.recordChunks = new Int32Array(size);
    this.recordEnds = new Uint32Array(size);
  }

  /** Indexes text from `start` to `end` as part of `field` of the current document. */
  add(field: number, text: string, start = 0, end = text.length): void {
    this.field = field;
    this.scanner.scan(text, start, end, this);
  }

  span(
    text: string,
    start: number,
    end: number,
    hash: number,
    check: number,
    length: number,
    humped: boolean,
  ): void {
    if (this.isFull()) this.countHeld(this.lexicon.metTermOfSpan(hash, check, length));
    else this.countTerm(this.lexicon.termOfSpan(text, start, end, hash, check, length, humped));
  }

  word(word: string): void {
    if (this.isFull()) this.countHeld(this.lexicon.metTermOfWord(word));
    else this.countTerm(this.lexicon.termOfWord(word));
  }

  /** Whether the current field may add no new terms to the document (see {@link TERMS_A_DOCUMENT}). */
  private isFull(): boolean {
    return this.field >= HEADINGS && this.localTerms >= TERMS_A_DOCUMENT;
  }

  /**
   * Counts an occurrence of `term` (see {@link Lexicon.metTermOfSpan}) if the current document holds it
   * already; else, unless it is a word not indexed, the word is left out and the document noted as full.
   */
  private countHeld(term: number): void {
    if (term === -1) return;
    const at = term < 0 || term >= this.position.length ? -1 : (this.position[term] as number);
    if (at >= 0 && at < this.localTerms && this.local[at] === term) this.countTerm(term);
    else if (this.full[this.full.length - 1] !== this.documents) this.full.push(this.documents);
  }

  /** Counts one occurrence of `term`, if it is indexed, in the current field of the current document. */
  private countTerm(term: number): void {
    if (term < 0) return;
    if (term >= this.position.length) this.growTerms(term);
    let at = this.position[term] as number;
    if (at >= this.localTerms || this.local[at] !== term) {
      at = this.localTerms++;
      if (at === this.local.length) {
        this.local = grown(this.local, at * 2);
        this.localCounts = grown(this.localCounts, at * 2 * FIELDS);
      }
      this.local[at] = term;
      this.position[term] = at;
      for (let f = 0; f < FIELDS; f++) this.localCounts[at * FIELDS + f] = 0;
    }
    const slot = at * FIELDS + this.field;
    this.localCounts[slot] = (this.localCounts[slot] as number) + 1;
  }

  private growTerms(term: number): void {
    let size = this.position.length;
    while (size <= term) size *= 2;
    this.frequencies = grown(this.frequencies, size);
    this.lastDocuments = grown(this.lastDocuments, size);
    this.lastDocuments.fill(-1, this.position.length);
    this.gapBytes = grown(this.gapBytes, size);
    this.position = grown(this.position, size);
  }

  /** Closes the current document: its terms and their counts per field go to the record stream. */
  endDocument(): void {
    this.lexicon.nextDocument();
    const { localCounts, local, frequencies, gapBytes, lastDocuments, fieldLengths, documents } = this;
    // A record takes at most 4 bytes for the term, 1 for the field mask and 4 for each count.
    const bytes = this.records.reserve(this.localTerms * (5 + 4 * FIELDS));
    let at = this.records.used;
    for (let i = 0; i < this.localTerms; i++) {
      const term = local[i] as number;
      let rest = term;
      while (rest >= 0x80) {
        bytes[at++] = (rest & 0x7f) | 0x80;
        rest >>>= 7;
      }
      bytes[at++] = rest;
      const maskAt = at++;
      let mask = 0;
      for (let field = 0; field < FIELDS; field++) {
        let count = localCounts[i * FIELDS + field] as number;
        if (count === 0) continue;
        mask |= 1 << field;
        fieldLengths[documents * FIELDS + field] =
          (fieldLengths[documents * FIELDS + field] as number) + count;
        while (count >= 0x80) {
          bytes[at++] = (count & 0x7f) | 0x80;
          count >>>= 7;
        }
        bytes[at++] = count;
      }
      bytes[maskAt] = mask;
      frequencies[term] = (frequencies[term] as number) + 1;
      gapBytes[term] = (gapBytes[term] as number) + numberBytes(documents - (lastDocuments[term] as number));
      lastDocuments[term] = documents;
    }
    this.records.used = at;
    this.localTerms = 0;
    this.recordChunks[this.documents] = this.records.chunkCount - 1;
    this.recordEnds[this.documents++] = at;
  }

  /** The index, with impacts computed for `options`. The builder is spent. */
  finish(options: RankingOptions): Bm25fIndex {
    const total = this.documents;
    const termCount = this.lexicon.terms.size;
    const postingStarts = new Uint32Array(termCount + 1);
    const gapStarts = new Uint32Array(termCount + 1);
    const termWeights = new Float64Array(termCount);
    for (let term = 0; term < termCount; term++) {
      const df = this.frequencies[term] as number;
      postingStarts[term + 1] = (postingStarts[term] as number) + df;
      gapStarts[term + 1] = (gapStarts[term] as number) + (this.gapBytes[term] as number);
      termWeights[term] = termWeight(df, total, options.k1);
    }
    const gaps = new Uint8Array(gapStarts[termCount] as number);
    const levels = new Uint8Array(postingStarts[termCount] as number);
    const gapAt = gapStarts.slice(0, termCount);
    const postingAt = postingStarts.slice(0, termCount);
    const previous = this.lastDocuments.fill(-1);
    const norms = this.fieldNorms(options);
    const k1 = options.k1;
    let chunk = -1;
    let bytes: Uint8Array = new Uint8Array(0);
    let at = 0;
    for (let document = 0; document < total; document++) {
      if (this.recordChunks[document] !== chunk) {
        chunk = this.recordChunks[document] as number;
        bytes = this.records.take(chunk);
        at = 0;
      }
      const end = this.recordEnds[document] as number;
      while (at < end) {
        // Inline reads of the record's numbers (see ByteChunks): this loop runs once per posting.
        let byte = bytes[at++] as number;
        let term = byte & 0x7f;
        for (let shift = 7; byte >= 0x80; shift += 7) {
          byte = bytes[at++] as number;
          term |= (byte & 0x7f) << shift;
        }
        const mask = bytes[at++] as number;
        let frequency = 0;
        for (let field = 0; field < FIELDS; field++) {
          if ((mask & (1 << field)) === 0) continue;
          byte = bytes[at++] as number;
          let count = byte & 0x7f;
          for (let shift = 7; byte >= 0x80; shift += 7) {
            byte = bytes[at++] as number;
            count |= (byte & 0x7f) << shift;
          }
          frequency += count * (norms[document * FIELDS + field] as number);
        }
        let gap = document - (previous[term] as number);
        let gapAtTerm = gapAt[term] as number;
        while (gap >= 0x80) {
          gaps[gapAtTerm++] = (gap & 0x7f) | 0x80;
          gap >>>= 7;
        }
        gaps[gapAtTerm++] = gap;
        gapAt[term] = gapAtTerm;
        previous[term] = document;
        const posting = postingAt[term] as number;
        levels[posting] = levelOf(frequency / (k1 + frequency));
        postingAt[term] = posting + 1;
      }
    }
    return new Bm25fIndex(
      this.lexicon.terms,
      gaps,
      gapStarts,
      levels,
      postingStarts,
      termWeights,
      this.lexicon.spellings(),
    );
  }

  /** Per document and field: the field's weight over its length normalization. */
  private fieldNorms(options: RankingOptions): Float64Array {
    const total = this.documents;
    const norms = new Float64Array(total * FIELDS);
    FIELD_NAMES.forEach((name, field) => {
      let sum = 0;
      for (let document = 0; document < total; document++) {
        sum += this.fieldLengths[document * FIELDS + field] as number;
      }
      const average = sum / Math.max(1, total) || 1;
      const b = options.lengthNormalization[name];
      const weight = options.weights[name];
      for (let document = 0; document < total; document++) {
        const length = this.fieldLengths[document * FIELDS + field] as number;
        norms[document * FIELDS + field] = weight / (1 - b + (b * length) / average);
      }
    });
    return norms;
  }
}

/**
 * Bytes written in chunks of a megabyte, holding numbers seven bits a byte, low bits first. Growing copies
 * nothing and leaves little unused, and each chunk can be let go once read: at 10,000 skills the records
 * take some 20 MiB, which would otherwise be doubled by growth and kept beside the postings made from them.
 */
class ByteChunks {
  private readonly chunks: (Uint8Array | undefined)[] = [];
  private current = new Uint8Array(0);
  /** Bytes written in the current chunk. */
  used = 0;

  get chunkCount(): number {
    return this.chunks.length;
  }

  /** The chunk to write `more` bytes to, from `used` on: the current one, or a new one if it is full. */
  reserve(more: number): Uint8Array {
    if (this.chunks.length === 0 || this.used + more > this.current.length) {
      this.current = new Uint8Array(Math.max(1 << 20, more));
      this.chunks.push(this.current);
      this.used = 0;
    }
    return this.current;
  }

  /** Chunk `index`, which is then forgotten. */
  take(index: number): Uint8Array {
    const chunk = this.chunks[index] ?? new Uint8Array(0);
    this.chunks[index] = undefined;
    if (chunk === this.current) this.current = new Uint8Array(0);
    return chunk;
  }
}

function numberBytes(value: number): number {
  return value < 0x80 ? 1 : value < 0x4000 ? 2 : value < 0x200000 ? 3 : 4;
}
