import { type Bm25fIndex, termWeight } from "./bm25f.js";
import type { TermCorrection } from "./corrections.js";
import type { NameReading } from "./name-words.js";
import type { RequestTerms } from "./request-terms.js";

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
export const FLOOR_WORDS = 0.5;
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
 * The score under which a match is faint for `request`, its words no skill holds read as `corrections`
 * or as beginnings of name words (`named`), over an index of `documents` ranked with `k1`: see
 * {@link FLOOR_WORDS}.
 */
export function matchFloor(
  terms: Bm25fIndex,
  documents: number,
  k1: number,
  request: RequestTerms,
  corrections: readonly TermCorrection[],
  named: readonly NameReading[],
): number {
  const unheld = request.unheld - corrections.length - named.length;
  let weight = unheld * termWeight(0, documents, k1);
  for (const term of request.terms) weight += terms.weight(term);
  for (const { term } of corrections) weight += terms.weight(term);
  for (const reading of named) weight += reading.weight;
  const words = request.terms.length + corrections.length + named.length + unheld;
  if (words === 0) return 0;
  return ((words === 1 ? FLOOR_WORDS : FLOOR_WORDS_OF_SEVERAL) * weight) / words;
}

/**
 * What a match of `request` must score beyond its strongest word, its floor `floor`: see
 * {@link BEYOND_ONE_WORD}; 0 for a request of fewer than {@link SEVERAL_WORDS} words.
 */
export function beyondStrongest(request: RequestTerms, floor: number): number {
  const words = request.terms.length + request.unheld;
  return words >= SEVERAL_WORDS ? BEYOND_ONE_WORD * floor : 0;
}
