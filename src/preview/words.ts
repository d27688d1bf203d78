import { stopwords } from "@orama/stopwords/english";
import type { Pack } from "../catalog/index.js";
import { stem } from "../search/index.js";

/**
 * Words that say a text is a skill description, or that say nothing of a task on their own: every
 * description says "use this skill when the user asks", and a summary of such words tells a model nothing.
 * So do its words of praise and exhortation: "Master X" opened every one of the 33 descriptions of the
 * bench corpus that said master, and ranked second of a 181-skill pack's terms, before any of its topics.
 * So does the application every software task is for: 27 of that pack's descriptions say "building X
 * applications" (React, Go, LLM…), X being the subject, and `applications` was among its steering terms;
 * and the implementation every task has ("a written implementation plan", "before writing implementation
 * code"), `implementing` as a noun.
 */
const BOILERPLATE = (
  "use uses used using usage skill skills when whenever user users ask asks asked asking want wants wanted " +
  "need needs needed help helps helping guide guides guidance include includes including etc also like via " +
  "within across task tasks work works working official claude trigger triggers triggered mention mentions " +
  "mentioned request requests requested provide provides providing support supports supported based " +
  "comprehensive best practice practices pattern patterns tool tools toolkit library libraries general " +
  "specific various new any every other one two way ways thing things make makes making get gets set sets see " +
  "covering covers cover handle handles handling perform performs performing create creates creating build " +
  "builds building write writes writing implement implements implemented implementing step steps anything " +
  "everything something nothing never always others another " +
  "add adds adding quick quickly require requires required current existing original choice sort whether " +
  "without instead rather already still just well good better must can will may might could would should " +
  "don't doesn't isn't aren't won't can't let lets e.g i.e approach approaches option options key keys " +
  "common important proper properly correct correctly right full fully complete completely simple easy " +
  "effective efficient robust powerful modern advanced production-ready end-to-end master masters " +
  "mastering mastery application applications implementation implementations"
).split(" ");
const STOP_WORDS: ReadonlySet<string> = new Set([...stopwords, ...BOILERPLATE]);

/** A term as a summary counts it: folded, singular; a phrase of two words is their keys with a space. */
export type TermKey = string;

/**
 * Each word of `text` in order, in lower case, and whether a single space (nothing else) parts it from
 * the word before: a pair of words is a term only then.
 */
export function forEachWord(text: string, visit: (spelled: string, afterSpace: boolean) => void): void {
  let previousEnd = -1;
  for (const match of text.matchAll(/[\p{L}\p{N}]+(?:['’][\p{L}]+)?(?:[-.][\p{L}\p{N}]+)*/gu)) {
    const afterSpace = previousEnd >= 0 && match.index === previousEnd + 1 && text[previousEnd] === " ";
    visit(match[0].toLowerCase().replace(/’/g, "'"), afterSpace);
    previousEnd = match.index + match[0].length;
  }
}

/** How a word (as forEachWord spells it) is counted, or undefined when it says nothing about a task. */
export function keyOf(spelled: string): TermKey | undefined {
  // Most words are plain ASCII, which folding would not change: it took most of the time of a summary.
  const folded = /^[\x20-\x7e]*$/.test(spelled) ? spelled : spelled.normalize("NFKD").replace(/\p{M}/gu, "");
  if (folded.length < 3 || STOP_WORDS.has(folded) || /^[\p{N}.-]+$/u.test(folded)) return undefined;
  return singular(folded);
}

/**
 * English plurals onto their singular by suffix: `nodes` and `node` are one term. A Greek noun in -sis
 * takes -ses (`analysis`, `analyses`; `hypothesis`, `hypotheses`), which the stemmer keeps apart: both
 * are keyed as the plural's singular would be (`analyse`), so that a summary says one of them.
 */
function singular(word: string): string {
  if (word.length > 4 && word.endsWith("sis")) return `${word.slice(0, -2)}e`;
  if (word.length > 4 && word.endsWith("ies")) return `${word.slice(0, -3)}y`;
  if (word.length > 4 && /(?:ch|sh|ss|x|z)es$/.test(word)) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith("s") && !/(?:ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

/**
 * A word's key as the search stems it (Porter2): a summary says one form of each, since `implementing`,
 * `implement` and `implementation` tell a model, and find in a search, the same skills.
 */
export type Stem = string;

export function stemOf(key: TermKey): Stem {
  return stem(key);
}

/**
 * Each key's stem, worked out once for as long as its owner lives: a catalog's TermFrequencies, which
 * every preview of the catalog is made with. The first preview of a new scope stems the names of its packs
 * and groups and the texts it has already said, the same words every scope says: Porter2 again for each
 * was about a third of that preview's cost. Its keys are words of the catalog (names, descriptions, an
 * operator's pack descriptions, and texts made of those), so it holds no more than their vocabulary.
 */
export class KeptStems {
  readonly #byKey = new Map<TermKey, Stem>();

  of(key: TermKey): Stem {
    let kept = this.#byKey.get(key);
    if (kept === undefined) {
      kept = stemOf(key);
      this.#byKey.set(key, kept);
    }
    return kept;
  }
}

/**
 * The stems of the words of `text` (hyphenated compounds whole, such as `single-cell`), for telling which
 * terms a summary has already said.
 */
export function stemsOf(text: string, stems: KeptStems): Set<Stem> {
  const said = new Set<Stem>();
  forEachWord(text, (spelled) => {
    const key = keyOf(spelled);
    if (key !== undefined) said.add(stems.of(key));
  });
  return said;
}

/** The words of a pack's name and of its groups' names, which a summary need not say again. */
export function namesOf(pack: Pack, stems: KeptStems): Set<Stem> {
  const names = [pack.name, ...pack.groups.map((group) => group.name)];
  return stemsOf(names.join(" ").replace(/-/g, " "), stems);
}
