import { LRUCache } from "lru-cache";
import type { Group, Pack, Skill } from "../catalog/index.js";
import { forEachWord, keyOf, type TermKey } from "./words.js";

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

/** The terms of some units, best first, each as the first of those units to hold it wrote it. */
interface Ranking {
  readonly terms: Int32Array;
  readonly spelled: readonly string[];
}

/** What the skills of one pack's group (or of a pack's top, outside every group) hold of each term. */
class UnitTally {
  /** Units are numbered as they are tallied. */
  constructor(readonly number: number) {}
  readonly terms: TermId[] = [];
  /** Each skill holding the term adds 1, or NAME_WEIGHT when its name holds it. */
  readonly weights: number[] = [];
  readonly skills: number[] = [];
  /** How the first skill holding a term wrote it, where that is not how the catalog first wrote it. */
  readonly spellings = new Map<TermId, string>();
}

/** Sums by term while some units are ranked; firstUnit is 0 for a term no unit summed yet, else 1 + its unit. */
interface RankingScratch {
  readonly weights: Float64Array;
  readonly skills: Int32Array;
  readonly firstUnit: Int32Array;
  readonly scores: Float64Array;
}

/** A term's place in the catalog's vocabulary: its key, spelling and spread are looked up by it. */
type TermId = number;
const NO_TERM: TermId = -1;

/**
 * The terms of a catalog's skills, tallied by unit: a group, or the top of a pack outside every group. A
 * scope is a union of whole units (selectors name packs and groups), so what its packs and groups hold is
 * summed from the tallies of their units without reading a skill again. A term held in few units says
 * more of a subject than one spread over them all (`implement`, `data`), however many skills hold it.
 *
 * Terms are numbered as they are met, so that a tally is numbers in arrays rather than an object per term
 * and unit: ten thousand skills hold some 200,000 of those, which took most of the time of a first preview.
 * Ranking is synchronous: its scratch arrays are shared by every ranking.
 */
export class TermFrequencies {
  /** Unit by unit, each unit's skills in the catalog's order. */
  readonly #skills: readonly Skill[];
  /** How many of the skills are tallied, in their order. */
  #tallied = 0;
  readonly #units = new Map<string, UnitTally>();
  /** Each word as spelled, to its term (NO_TERM when it says nothing of a task). */
  readonly #wordTerms = new Map<string, TermId>();
  readonly #termIds = new Map<TermKey, TermId>();
  /** By term: its key, its first spelling in the catalog, its words (a pair's two; NO_TERM for a word). */
  readonly #keys: TermKey[] = [];
  readonly #spelled: string[] = [];
  readonly #firstWords: TermId[] = [];
  readonly #secondWords: TermId[] = [];
  /** By term: in how many units it is, so far. */
  readonly #spread: number[] = [];
  /** By term: the last skill that counted it, so that a skill counts each term once. */
  readonly #countedBy: number[] = [];
  /**
   * By term: the last unit that held it, and where it is in that unit's tally. Skills are tallied unit by
   * unit, so a unit met again is never the last one, and needs no map of its own.
   */
  readonly #lastUnit: number[] = [];
  readonly #lastSlot: number[] = [];
  readonly #rankings = new LRUCache<string, Ranking>({ max: KEPT_RANKINGS });
  #scratch: RankingScratch | undefined;

  /** Tallies nothing yet: the first question tallies every skill left, unless tallySome has. */
  constructor(skills: readonly Skill[]) {
    const byUnit = new Map<string, Skill[]>();
    for (const skill of skills) {
      const key = unitKey(skill.pack, skill.group);
      const unit = byUnit.get(key);
      if (unit === undefined) byUnit.set(key, [skill]);
      else unit.push(skill);
    }
    this.#skills = [...byUnit.values()].flat();
  }

  /**
   * Tallies up to `count` more skills, and says whether any are left: a catalog of tens of thousands of
   * skills takes seconds to tally, which a server does a slice at a time between requests rather than
   * all at once in the first request that needs it.
   */
  tallySome(count: number): boolean {
    const end = Math.min(this.#skills.length, this.#tallied + count);
    for (let index = this.#tallied; index < end; index += 1) {
      const skill = this.#skills[index];
      if (skill !== undefined) this.#tallySkill(skill, index);
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
    const said = new Set<TermId>();
    const isSaid = (word: TermId) => said.has(word) || known.has(this.#keys[word] ?? "");
    const { terms, spelled } = this.#ranked(this.#unitsOf(pack, group));
    const telling: string[] = [];
    terms.forEach((term, rank) => {
      const first = this.#firstWords[term] ?? NO_TERM;
      const second = this.#secondWords[term] ?? NO_TERM;
      if (first === NO_TERM) {
        if (isSaid(term)) return;
        said.add(term);
      } else {
        if (isSaid(first) && isSaid(second)) return;
        said.add(first).add(second);
      }
      telling.push(spelled[rank] ?? "");
    });
    return telling;
  }

  /**
   * Adds the terms of a skill to its unit's tallies: the words of its name and description, and the pairs
   * of words of its name. A name is a task in a few words (`code-review`, `data-tables`), where pairs say
   * more than their words; pairs of a description's words would be mostly one-offs, and many times the
   * terms. A term in the name counts NAME_WEIGHT, and once, whatever the description says.
   */
  #tallySkill(skill: Skill, index: number): void {
    const key = unitKey(skill.pack, skill.group);
    let unit = this.#units.get(key);
    if (unit === undefined) {
      unit = new UnitTally(this.#units.size);
      this.#units.set(key, unit);
    }
    const tally = unit;
    let previous = NO_TERM;
    let previousSpelled = "";
    forEachWord(skill.name.replace(/-/g, " "), (spelled, afterSpace) => {
      const term = this.#termOfWord(spelled);
      if (term === NO_TERM) {
        previous = NO_TERM;
        return;
      }
      this.#count(tally, term, spelled, NAME_WEIGHT, index);
      if (previous !== NO_TERM && afterSpace) {
        const pair = `${previousSpelled} ${spelled}`;
        this.#count(tally, this.#pairOf(previous, term, pair), pair, NAME_WEIGHT, index);
      }
      previous = term;
      previousSpelled = spelled;
    });
    forEachWord(skill.description.slice(0, READ_CHARACTERS), (spelled) => {
      const term = this.#termOfWord(spelled);
      if (term !== NO_TERM) this.#count(tally, term, spelled, 1, index);
    });
  }

  #count(unit: UnitTally, term: TermId, spelled: string, weight: number, skill: number): void {
    if (this.#countedBy[term] === skill) return;
    this.#countedBy[term] = skill;
    const slot = this.#lastUnit[term] === unit.number ? this.#lastSlot[term] : undefined;
    if (slot === undefined) {
      this.#lastUnit[term] = unit.number;
      this.#lastSlot[term] = unit.terms.length;
      unit.terms.push(term);
      unit.weights.push(weight);
      unit.skills.push(1);
      this.#spread[term] = (this.#spread[term] ?? 0) + 1;
      if (spelled !== this.#spelled[term]) unit.spellings.set(term, spelled);
    } else {
      unit.weights[slot] = (unit.weights[slot] ?? 0) + weight;
      unit.skills[slot] = (unit.skills[slot] ?? 0) + 1;
    }
  }

  #termOfWord(spelled: string): TermId {
    const known = this.#wordTerms.get(spelled);
    if (known !== undefined) return known;
    const key = keyOf(spelled);
    const term = key === undefined ? NO_TERM : this.#termOf(key, spelled, NO_TERM, NO_TERM);
    this.#wordTerms.set(spelled, term);
    return term;
  }

  #pairOf(first: TermId, second: TermId, spelled: string): TermId {
    return this.#termOf(`${this.#keys[first] ?? ""} ${this.#keys[second] ?? ""}`, spelled, first, second);
  }

  #termOf(key: TermKey, spelled: string, first: TermId, second: TermId): TermId {
    const known = this.#termIds.get(key);
    if (known !== undefined) return known;
    const term = this.#keys.length;
    this.#termIds.set(key, term);
    this.#keys.push(key);
    this.#spelled.push(spelled);
    this.#firstWords.push(first);
    this.#secondWords.push(second);
    this.#spread.push(0);
    this.#countedBy.push(-1);
    this.#lastUnit.push(-1);
    this.#lastSlot.push(0);
    return term;
  }

  /**
   * The terms of some units, best first; kept, since scopes share their packs and groups, and a catalog of
   * ten thousand skills takes tens of milliseconds to rank a large pack.
   */
  #ranked(units: readonly string[]): Ranking {
    const signature = units.join("\n");
    const kept = this.#rankings.get(signature);
    if (kept !== undefined) return kept;
    const { weights, skills, firstUnit, scores } = this.#scratchArrays();
    const held: TermId[] = [];
    const tallies = units.flatMap((unit) => this.#units.get(unit) ?? []);
    tallies.forEach((tally, index) => {
      tally.terms.forEach((term, slot) => {
        const weight = tally.weights[slot] ?? 0;
        const holding = tally.skills[slot] ?? 0;
        if (firstUnit[term] === 0) {
          held.push(term);
          firstUnit[term] = index + 1;
          weights[term] = weight;
          skills[term] = holding;
        } else {
          weights[term] = (weights[term] ?? 0) + weight;
          skills[term] = (skills[term] ?? 0) + holding;
        }
      });
    });
    const ranked = held.filter(
      (term) => this.#firstWords[term] === NO_TERM || (skills[term] ?? 0) >= PAIR_SKILLS,
    );
    for (const term of ranked) scores[term] = (weights[term] ?? 0) * this.#rarity(term);
    ranked.sort(
      (a, b) => (scores[b] ?? 0) - (scores[a] ?? 0) || compareKeys(this.#keys[a] ?? "", this.#keys[b] ?? ""),
    );
    const spelled = ranked.map((term) => {
      const first = tallies[(firstUnit[term] ?? 1) - 1];
      return first?.spellings.get(term) ?? this.#spelled[term] ?? "";
    });
    for (const term of held) firstUnit[term] = 0;
    const ranking = { terms: Int32Array.from(ranked), spelled };
    this.#rankings.set(signature, ranking);
    return ranking;
  }

  /** Arrays by term for #ranked, made once every skill is tallied (the vocabulary no longer grows). */
  #scratchArrays(): RankingScratch {
    const terms = this.#keys.length;
    if (this.#scratch === undefined || this.#scratch.firstUnit.length < terms) {
      this.#scratch = {
        weights: new Float64Array(terms),
        skills: new Int32Array(terms),
        firstUnit: new Int32Array(terms),
        scores: new Float64Array(terms),
      };
    }
    return this.#scratch;
  }

  #unitsOf(pack: Pack, group: Group | undefined): string[] {
    if (group !== undefined) return [unitKey(pack.name, group.name)];
    const units = pack.groups.map((each) => unitKey(pack.name, each.name));
    return pack.skills.some((skill) => skill.group === undefined)
      ? [unitKey(pack.name, undefined), ...units]
      : units;
  }

  #rarity(term: TermId): number {
    return Math.log((this.#units.size + 1) / ((this.#spread[term] ?? 0) + 0.5));
  }
}

function unitKey(pack: string, group: string | undefined): string {
  return group === undefined ? pack : `${pack}/${group}`;
}

function compareKeys(a: TermKey, b: TermKey): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
