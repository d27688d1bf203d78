import type { Skill } from "../catalog/index.js";
import type { Correction, Undecided } from "./corrections.js";
import type { Vagueness } from "./vagueness.js";

/** What a search found: the best matches, and how many skills matched at all, and how well. */
export interface SearchResult {
  /**
   * Best first, at most the limit asked for; none that holds one word of a request of several and little
   * else (see `BEYOND_ONE_WORD`, match-floor.ts), which `matched` still counts.
   */
  readonly skills: readonly Skill[];
  /** Skills in scope that share at least one term with the query, shown or not. */
  readonly matched: number;
  /**
   * Skills in scope that score at least `STRONG_MATCH` (accumulator.ts) of the best one's score, and at
   * least the request's floor, shown or not. A long request shares some word with nearly every skill, so
   * `matched` says little; this says how many contenders there are.
   */
  readonly strongMatches: number;
  /**
   * Skills in scope that score at least `FAIR_MATCH` (accumulator.ts) of the best one's score, and at
   * least the request's floor (see `FLOOR_WORDS`, match-floor.ts), shown or not: a caller shows no more
   * than these, since past them a match is faint, more likely noise than help. None when even the best
   * match is faint, or when the request is {@link vague}.
   */
  readonly fairMatches: number;
  /**
   * Whether some skill in scope holds some of the request's words but not all (a word no skill holds is
   * one they all lack). A one-word request has none, however many skills hold its word faintly.
   */
  readonly partialMatches: boolean;
  /**
   * Why the request is too vague to rank, if it is (see {@link Vagueness}). None of its matches is then
   * fair: which of them were shown would be happenstance.
   */
  readonly vague: Vagueness | undefined;
  /** Request words no skill holds, read as a word one typing mistake away (see `SkillIndex`). */
  readonly corrections: readonly Correction[];
  /**
   * Request words no skill holds, left unread because they are one typing mistake from several words
   * skills in scope hold and nothing else in the request tells which (`contant`: content, constant or
   * contact); and, when no match is fair, words one mistake from words skills in scope hold that the rest
   * of the request's best matches do not hold (`contant spreadsheet`), but for common English words. Each
   * with at most `UNDECIDED_SHOWN` (corrections.ts) of those words, the most held first.
   */
  readonly undecided: readonly Undecided[];
}
