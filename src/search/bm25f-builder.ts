import { grown } from "./arrays.js";
import { Bm25fIndex, type RankingOptions, termWeight } from "./bm25f.js";
import { ByteChunks, numberBytes } from "./byte-chunks.js";
import { CapitalsApart, isCapitalWord } from "./capitals-apart.js";
import { FIELD_NAMES, HEADINGS } from "./fields.js";
import { levelOf } from "./impact-levels.js";
import { Lexicon } from "./lexicon.js";
import { WordScanner, type WordSink } from "./scanner.js";

const FIELDS = FIELD_NAMES.length;

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
  private readonly capitals = new CapitalsApart();
  /**
   * The current document's terms as a sparse set: `local[position[term]] === term` when the document
   * holds the term, so nothing needs clearing between documents; `localCounts` has its count per field.
   */
  private position: Int32Array = new Int32Array(4096);
  private local: Int32Array = new Int32Array(1024);
  private localCounts: Int32Array = new Int32Array(1024 * FIELDS);
  /** Counts of words in capitals added to their stem's (see {@link mergeCapitals}), beside `localCounts`. */
  private mergedCounts: Int32Array = new Int32Array(1024 * FIELDS);
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
    const { lexicon } = this;
    if (isCapitalWord(text, start, end)) {
      if (this.isFull()) {
        this.countHeld(lexicon.metTermOfSpan(hash, check, length, true));
        return;
      }
      const term = lexicon.termOfCapitals(text, start, end, hash, check, length);
      this.countTerm(term);
      const stemTerm = term < 0 ? -1 : lexicon.stemOfCapitals(term);
      if (stemTerm >= 0) {
        const most = Math.max(term, stemTerm);
        if (most >= this.position.length) this.growTerms(most);
        this.capitals.keep(term, stemTerm);
      }
    } else if (this.isFull()) {
      this.countHeld(lexicon.metTermOfSpan(hash, check, length));
    } else {
      this.countTerm(lexicon.termOfSpan(text, start, end, hash, check, length, humped));
    }
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
        this.mergedCounts = grown(this.mergedCounts, at * 2 * FIELDS);
      }
      this.local[at] = term;
      this.position[term] = at;
      for (let f = 0; f < FIELDS; f++) {
        this.localCounts[at * FIELDS + f] = 0;
        this.mergedCounts[at * FIELDS + f] = 0;
      }
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

  /**
   * Of the current document's words in capitals kept apart from their stems: one whose stem the document
   * also holds is the same word, stressed (`TOOLS` beside tools), and its counts are added to the stem's,
   * so that the stem scores as if no word were kept apart; one whose stem it does not hold (`PAINS`
   * without pain) is counted as holding the word, for the stem's weight (see `finish`).
   */
  private mergeCapitals(): void {
    const { local, localCounts, mergedCounts, position, capitals, documents } = this;
    for (let i = 0; i < this.localTerms; i++) {
      const stemTerm = capitals.stemOf(local[i] as number);
      if (stemTerm < 0) continue;
      const at = position[stemTerm] as number;
      if (at < this.localTerms && local[at] === stemTerm) {
        for (let f = 0; f < FIELDS; f++) {
          mergedCounts[at * FIELDS + f] =
            (mergedCounts[at * FIELDS + f] as number) + (localCounts[i * FIELDS + f] as number);
        }
      } else {
        capitals.heldWithoutStem(stemTerm, documents);
      }
    }
  }

  /** Closes the current document: its terms and their counts per field go to the record stream. */
  endDocument(): void {
    this.lexicon.nextDocument();
    this.mergeCapitals();
    const { localCounts, mergedCounts, local, frequencies, gapBytes, lastDocuments, fieldLengths } = this;
    const { documents } = this;
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
        const own = localCounts[i * FIELDS + field] as number;
        let count = own + (mergedCounts[i * FIELDS + field] as number);
        if (count === 0) continue;
        mask |= 1 << field;
        fieldLengths[documents * FIELDS + field] = (fieldLengths[documents * FIELDS + field] as number) + own;
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
      termWeights[term] = termWeight(this.capitals.holding(term, df), total, options.k1);
    }
    // A word in capitals kept apart weighs as its stem: it is the same word to a request.
    for (let term = 0; term < termCount; term++) {
      const stemTerm = this.capitals.stemOf(term);
      if (stemTerm >= 0) termWeights[term] = termWeights[stemTerm] as number;
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
      this.lexicon.stemsOfCapitals(termCount),
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
