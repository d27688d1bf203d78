import type { Pack, Skill } from "../catalog/index.js";
import type { TermFrequencies } from "./summary.js";
import { READ_CHARACTERS } from "./tally.js";
import { forEachWord, keyOf, type Stem, stemOf } from "./words.js";

/** Twice what a steering line asks of a word (HELD): fewer descriptions than this are few (see Enough.least). */
const FEW_DESCRIPTIONS = 4;

/**
 * The words a pack's texts hold only inside longer phrases, in few of its descriptions (see
 * FEW_DESCRIPTIONS) and none of its skills' names: `third-party` of the bench corpus's `n8n` pack ("any node
 * configuration that mentions a third-party service", "a workflow that calls a third-party API"),
 * `persistent` ("persistent state"). A skill's name is its task in a few words, and a description says a
 * task on its own in its lists of triggers (`"loop", "dedup"`) or beside words of no subject ("when
 * debugging"); a word said only with a word of a subject joined to it by a space is part of a phrase,
 * and alone names no task. It needs no other pack to compare with, so it holds in a scope or catalog of
 * one pack. A word of more descriptions is not judged so: the bench corpus's `scientific` says `data`,
 * `analysis` and `learning` mostly inside phrases ("single-cell data", "machine learning"), and requests
 * for its skills say them too. Worked out once per list of skills of the catalog, which scopes share.
 */
export function phraseWords(pack: Pack, catalog: TermFrequencies): ReadonlySet<Stem> {
  return catalog.kept.phraseWords.of(pack.skills, () => phraseWordsIn(pack.skills));
}

function phraseWordsIn(skills: readonly Skill[]): ReadonlySet<Stem> {
  const described = new Map<Stem, number>();
  const said = new Set<Stem>();
  for (const skill of skills) {
    forEachWord(skill.name.replace(/-/g, " "), (spelled) => {
      const key = keyOf(spelled);
      if (key !== undefined) said.add(stemOf(key));
    });
    const { held, alone } = wordsOf(skill.description.slice(0, READ_CHARACTERS));
    for (const stem of held) described.set(stem, (described.get(stem) ?? 0) + 1);
    for (const stem of alone) said.add(stem);
  }
  const phrased = new Set<Stem>();
  for (const [stem, descriptions] of described) {
    if (descriptions < FEW_DESCRIPTIONS && !said.has(stem)) phrased.add(stem);
  }
  return phrased;
}

/** The stems a description holds, and those it says at least once with no word of a subject joined to it. */
function wordsOf(text: string): { readonly held: Set<Stem>; readonly alone: Set<Stem> } {
  const words: { readonly stem: Stem | undefined; readonly afterSpace: boolean }[] = [];
  forEachWord(text, (spelled, afterSpace) => {
    const key = keyOf(spelled);
    words.push({ stem: key === undefined ? undefined : stemOf(key), afterSpace });
  });
  const held = new Set<Stem>();
  const alone = new Set<Stem>();
  words.forEach(({ stem, afterSpace }, index) => {
    if (stem === undefined) return;
    held.add(stem);
    const before = afterSpace && words[index - 1]?.stem !== undefined;
    const next = words[index + 1];
    const after = next?.afterSpace === true && next.stem !== undefined;
    if (!before && !after) alone.add(stem);
  });
  return { held, alone };
}
