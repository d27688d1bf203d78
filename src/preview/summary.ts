import { LRUCache } from "lru-cache";
import type { Group, Pack, Skill } from "../catalog/index.js";
import { type TermKey, termsOf } from "./words.js";

/**
 * How much of a description a summary reads: what a description says of its skill, it says first; past
 * this, the words cost time at every start and new scope and add nothing a summary could show.
 */
const READ_CHARACTERS = 600;
/** A term in a name weighs as much as in this many descriptions. */
const NAME_WEIGHT = 2;
/** A pair of words must be held by at least this many skills to say more than its two words. */
const PAIR_SKILLS = 2;

/** How many rankings of packs and groups are kept: a few per scope clients use. */
const KEPT_RANKINGS = 1024;

interface RankedTerm {
  readonly key: TermKey;
  readonly words: readonly TermKey[];
  readonly spelled: string;
  readonly score: number;
}

/** What the skills of one pack's group (or of a pack's top, outside every group) hold of a term. */
interface Tally {
  /** Each skill holding it adds 1, or NAME_WEIGHT when its name holds it. */
  weight: number;
  skills: number;
  /** As the first skill holding it wrote it. */
  readonly spelled: string;
}

/**
 * The terms of a catalog's skills, tallied by unit: a group, or the top of a pack outside every group. A
 * scope is a union of whole units (selectors name packs and groups), so what its packs and groups hold is
 * summed from the tallies of their units without reading a skill again. A term held in few units says
 * more of a subject than one spread over them all (`implement`, `data`), however many skills hold it.
 */
export class TermFrequencies {
  readonly #skills: readonly Skill[];
  /** How many of the skills are tallied, in their order. */
  #tallied = 0;
  readonly #units = new Map<string, Map<TermKey, Tally>>();
  /** In how many units each term is, so far. */
  readonly #spread = new Map<TermKey, number>();
  readonly #rankings = new LRUCache<string, readonly RankedTerm[]>({ max: KEPT_RANKINGS });

  /** Tallies nothing yet: the first question tallies every skill left, unless tallySome has. */
  constructor(skills: readonly Skill[]) {
    this.#skills = skills;
  }

  /**
   * Tallies up to `count` more skills, and says whether any are left: a catalog of tens of thousands of
   * skills takes seconds to tally, which a server does a slice at a time between requests rather than
   * all at once in the first request that needs it.
   */
  tallySome(count: number): boolean {
    const end = Math.min(this.#skills.length, this.#tallied + count);
    for (const skill of this.#skills.slice(this.#tallied, end)) {
      const unit = unitKey(skill.pack, skill.group);
      let tallies = this.#units.get(unit);
      if (tallies === undefined) {
        tallies = new Map();
        this.#units.set(unit, tallies);
      }
      tallySkill(skill, tallies, this.#spread);
    }
    this.#tallied = end;
    return end < this.#skills.length;
  }

  /**
   * The terms that best say what a pack in a scope, or one of its groups, is for, best first: those most
   * of its skills hold, weighted by how rare they are among the catalog's units. A pair of words held by
   * several skills stands for its words; terms whose words are all in `known` (names already said) are
   * left out.
   */
  tellingTerms(pack: Pack, group: Group | undefined, known: ReadonlySet<TermKey>): string[] {
    this.tallySome(Number.POSITIVE_INFINITY);
    const said = new Set<TermKey>();
    const terms: string[] = [];
    for (const { words, spelled } of this.#ranked(this.#unitsOf(pack, group))) {
      if (words.every((word) => said.has(word) || known.has(word))) continue;
      for (const word of words) said.add(word);
      terms.push(spelled);
    }
    return terms;
  }

  /**
   * The terms of some units, best first; kept, since scopes share their packs and groups, and a catalog of
   * ten thousand skills takes tens of milliseconds to rank a large pack.
   */
  #ranked(units: readonly string[]): readonly RankedTerm[] {
    const signature = units.join("\n");
    const kept = this.#rankings.get(signature);
    if (kept !== undefined) return kept;
    const held = new Map<TermKey, Tally>();
    for (const unit of units) {
      for (const [key, tally] of this.#units.get(unit) ?? []) {
        const sum = held.get(key);
        if (sum === undefined) held.set(key, { ...tally });
        else {
          sum.weight += tally.weight;
          sum.skills += tally.skills;
        }
      }
    }
    const ranked = [...held]
      .filter(([key, sum]) => !key.includes(" ") || sum.skills >= PAIR_SKILLS)
      .map(([key, sum]) => ({
        key,
        words: key.split(" "),
        spelled: sum.spelled,
        score: sum.weight * this.#rarity(key),
      }))
      .sort((a, b) => b.score - a.score || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
    this.#rankings.set(signature, ranked);
    return ranked;
  }

  #unitsOf(pack: Pack, group: Group | undefined): string[] {
    if (group !== undefined) return [unitKey(pack.name, group.name)];
    const units = pack.groups.map((each) => unitKey(pack.name, each.name));
    return pack.skills.some((skill) => skill.group === undefined)
      ? [unitKey(pack.name, undefined), ...units]
      : units;
  }

  #rarity(key: TermKey): number {
    return Math.log((this.#units.size + 1) / ((this.#spread.get(key) ?? 0) + 0.5));
  }
}

function unitKey(pack: string, group: string | undefined): string {
  return group === undefined ? pack : `${pack}/${group}`;
}

/**
 * Adds the terms of a skill to its unit's tallies: the words of its name and description, and the pairs of
 * words of its name. A name is a task in a few words (`code-review`, `data-tables`), where pairs say more
 * than their words; pairs of a description's words would be mostly one-offs, and many times the terms.
 */
function tallySkill(skill: Skill, tallies: Map<TermKey, Tally>, spread: Map<TermKey, number>): void {
  const named = termsOf(skill.name.replace(/-/g, " "), true);
  const inName = new Set(named.map(({ key }) => key));
  const seen = new Set<TermKey>();
  for (const { key, spelled } of [...named, ...termsOf(skill.description.slice(0, READ_CHARACTERS))]) {
    if (seen.has(key)) continue;
    seen.add(key);
    const weight = inName.has(key) ? NAME_WEIGHT : 1;
    const tally = tallies.get(key);
    if (tally === undefined) {
      tallies.set(key, { weight, skills: 1, spelled });
      spread.set(key, (spread.get(key) ?? 0) + 1);
    } else {
      tally.weight += weight;
      tally.skills += 1;
    }
  }
}
