import type { Hit } from "./rules.js";

/**
 * One rule of a text read in one search for where any of several may start (see exfiltrationHits), read
 * from each place that search finds.
 */
export interface Reader {
  /** The rule's expression, sticky: where it matches is where the rule's own search would have stopped. */
  readonly pattern: RegExp;
  /** Where that search would go on from: a place before it was read with an earlier match. */
  next: number;
  /** The hit of one match, if any; sets `next`. */
  read(match: RegExpExecArray): Hit | undefined;
  /** A hit held back until the text's end, if any. */
  finish?(): Hit | undefined;
}
