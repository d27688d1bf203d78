/**
 * Cue coverage: a proxy, measured without a model, for whether what a model sees before its first call
 * would make it look for our skills. A request is covered when the up-front text holds a content word of
 * the request that its target skill's name, description, pack or group also holds: the model then has a
 * reason to connect that request to these skills.
 */
import { stopwords } from "@orama/stopwords/english";

const STOP_WORDS: ReadonlySet<string> = new Set(stopwords);

/**
 * The content words of `text`: case and accents folded, stop words and words under three letters
 * dropped, plural forms merged with their singular (`workflows`, `workflow`; `queries`, `query`).
 */
function contentWords(text: string): Set<string> {
  const folded = text.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase();
  const words = new Set<string>();
  for (const [word] of folded.matchAll(/[\p{L}\p{N}]+/gu)) {
    if (word.length < 3 || STOP_WORDS.has(word)) continue;
    words.add(singular(word));
  }
  return words;
}

/** English plural forms onto their singular, by suffix; enough to merge `nodes` with `node`. */
function singular(word: string): string {
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && /(?:ch|sh|ss|x|z)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith("s") && !/(?:ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

/** A labelled request: what a user asked, and what its target skill says of itself. */
export interface CueCase {
  readonly query: string;
  /** The target's name, description, pack and group, as one text. */
  readonly target: string;
}

/** The share of `cases` whose request shares a content word with both its target and `upfront`. */
export function cueCoverage(upfront: string, cases: readonly CueCase[]): number {
  if (cases.length === 0) return Number.NaN;
  const shown = contentWords(upfront);
  const covered = cases.filter(({ query, target }) => {
    const targetWords = contentWords(target);
    return [...contentWords(query)].some((word) => shown.has(word) && targetWords.has(word));
  });
  return covered.length / cases.length;
}
