import type { Skill } from "../catalog/index.js";
import { type TermKey, termsOf } from "./words.js";

/** The terms of one skill: those of its name count for more, since a name is chosen to say the task. */
interface SkillTerms {
  readonly spellings: ReadonlyMap<TermKey, string>;
  readonly inName: ReadonlySet<TermKey>;
}

/**
 * Which terms of a catalog are telling: a term held in few of its packs and groups says more of a
 * subject than one spread over them all (`implement`, `data`), however many skills hold it.
 */
export class TermFrequencies {
  readonly #skills = new Map<Skill, SkillTerms>();
  readonly #units = new Map<TermKey, Set<string>>();
  readonly #unitCount: number;

  constructor(skills: readonly Skill[]) {
    const units = new Set<string>();
    for (const skill of skills) {
      const terms = skillTerms(skill);
      this.#skills.set(skill, terms);
      const unit = skill.group === undefined ? skill.pack : `${skill.pack}/${skill.group}`;
      units.add(unit);
      for (const key of terms.spellings.keys()) {
        const holders = this.#units.get(key) ?? new Set();
        holders.add(unit);
        this.#units.set(key, holders);
      }
    }
    this.#unitCount = units.size;
  }

  termsOf(skill: Skill): SkillTerms {
    return this.#skills.get(skill) ?? skillTerms(skill);
  }

  rarity(key: TermKey): number {
    return Math.log((this.#unitCount + 1) / ((this.#units.get(key)?.size ?? 0) + 0.5));
  }
}

function skillTerms(skill: Skill): SkillTerms {
  const named = termsOf(skill.name.replace(/-/g, " "));
  const spellings = new Map(named.map(({ key, spelled }) => [key, spelled]));
  for (const { key, spelled } of termsOf(skill.description))
    if (!spellings.has(key)) spellings.set(key, spelled);
  return { spellings, inName: new Set(named.map(({ key }) => key)) };
}

/** A term in a name weighs as much as in this many descriptions. */
const NAME_WEIGHT = 2;
/** A pair of words must be held by at least this many skills to say more than its two words. */
const PAIR_SKILLS = 2;

/**
 * The terms that best say what `skills` are for, best first: those most of them hold, weighted by how
 * rare they are in the whole catalog, so that a pack's own subject comes before words every skill uses.
 * A pair of words held by several skills stands for its words; terms in `known` (the pack's and groups'
 * names, already said) are left out.
 */
export function tellingTerms(
  skills: readonly Skill[],
  frequencies: TermFrequencies,
  known: ReadonlySet<TermKey>,
): string[] {
  const held = new Map<TermKey, { weight: number; skills: number; spellings: Map<string, number> }>();
  for (const skill of skills) {
    const { spellings, inName } = frequencies.termsOf(skill);
    for (const [key, spelled] of spellings) {
      if (key.split(" ").every((word) => known.has(word))) continue;
      const entry = held.get(key) ?? { weight: 0, skills: 0, spellings: new Map() };
      entry.weight += inName.has(key) ? NAME_WEIGHT : 1;
      entry.skills += 1;
      entry.spellings.set(spelled, (entry.spellings.get(spelled) ?? 0) + 1);
      held.set(key, entry);
    }
  }
  const ranked = [...held]
    .filter(([key, entry]) => !key.includes(" ") || entry.skills >= PAIR_SKILLS)
    .map(([key, entry]) => ({
      key,
      spelled: mostCommon(entry.spellings),
      score: entry.weight * rarityOf(key, frequencies),
    }))
    .sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  const said = new Set<TermKey>();
  const terms: string[] = [];
  for (const { key, spelled } of ranked) {
    const words = key.split(" ");
    if (words.every((word) => said.has(word))) continue;
    for (const word of words) said.add(word);
    terms.push(spelled);
  }
  return terms;
}

/** A pair is as rare as its words together. */
function rarityOf(key: TermKey, frequencies: TermFrequencies): number {
  return key.includes(" ") ? Math.max(frequencies.rarity(key), 0) * 1.2 : frequencies.rarity(key);
}

function mostCommon(spellings: ReadonlyMap<string, number>): string {
  let best = "";
  let count = 0;
  for (const [spelled, times] of spellings) {
    if (times > count || (times === count && spelled < best)) [best, count] = [spelled, times];
  }
  return best;
}
