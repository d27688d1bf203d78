import { grown } from "./arrays.js";

const CAPITAL_A = 65;
const CAPITAL_Z = 90;

/**
 * Whether a word of a skill is written in capitals, letters A to Z only, two or more (`PAINS`, `AWS`): an
 * acronym, or a word stressed, kept apart from its stem (see `Lexicon.termOfCapitals`). The first letter
 * is tested first: most words begin with a small one.
 */
export function isCapitalWord(text: string, start: number, end: number): boolean {
  if (end - start < 2) return false;
  for (let at = start; at < end; at++) {
    const code = text.charCodeAt(at);
    if (code < CAPITAL_A || code > CAPITAL_Z) return false;
  }
  return true;
}

/**
 * What a `Bm25fBuilder` notes of the words in capitals kept apart from their stems (`PAINS` from pain):
 * each one's stem, and per stem the documents that hold such a word without the stem, which the stem's
 * weight counts as holding the word.
 */
export class CapitalsApart {
  /** Per term of a word in capitals kept apart from its stem, the stem's term + 1; 0 for other terms. */
  private stems: Int32Array = new Int32Array(4096);
  /** Per stem term: how many documents hold a word in capitals of it but not the stem, and the last. */
  private only: Int32Array = new Int32Array(4096);
  private lastOnly: Int32Array = new Int32Array(4096).fill(-1);

  /** Notes that `term`, a word in capitals, is kept apart from its stem's term `stemTerm`. */
  keep(term: number, stemTerm: number): void {
    const most = Math.max(term, stemTerm);
    if (most >= this.stems.length) {
      const before = this.stems.length;
      let size = before;
      while (size <= most) size *= 2;
      this.stems = grown(this.stems, size);
      this.only = grown(this.only, size);
      this.lastOnly = grown(this.lastOnly, size);
      this.lastOnly.fill(-1, before);
    }
    this.stems[term] = stemTerm + 1;
  }

  /** The stem's term of `term`, if it is a word in capitals kept apart; else -1. */
  stemOf(term: number): number {
    return (this.stems[term] ?? 0) - 1;
  }

  /** Notes that `document` holds a word in capitals of the stem `stemTerm` but not the stem itself. */
  heldWithoutStem(stemTerm: number, document: number): void {
    if (this.lastOnly[stemTerm] === document) return;
    this.lastOnly[stemTerm] = document;
    this.only[stemTerm] = (this.only[stemTerm] as number) + 1;
  }

  /**
   * How many documents the weight of `term`, held by `documents`, counts: a stem weighs as the word held
   * in any form, capitals kept apart included, as before they were.
   */
  holding(term: number, documents: number): number {
    return documents + (this.only[term] ?? 0);
  }
}
