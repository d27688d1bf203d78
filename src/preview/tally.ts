import type { Skill } from "../catalog/index.js";
import { forEachWord, keyOf, type TermKey } from "./words.js";

/**
 * How much of a description a tally reads: what a description says of its skill, it says first; past
 * this, the words cost time at every start and add nothing a summary could show.
 */
export const READ_CHARACTERS = 600;
/** A term in a name weighs as much as in this many descriptions. */
const NAME_WEIGHT = 2;

/** A term's place in a tally's vocabulary: its key, spelling and spread are looked up by it. */
export type TermId = number;
export const NO_TERM: TermId = -1;

/** What the skills of one unit (a pack's group, or a pack's top outside every group) hold of each term. */
export interface UnitCells {
  readonly terms: ArrayLike<TermId>;
  /** Each skill holding the term adds 1, or NAME_WEIGHT when its name holds it. */
  readonly weights: ArrayLike<number>;
  readonly skills: ArrayLike<number>;
  /**
   * How many skills' descriptions hold the term, their names aside: a word no description holds is a
   * piece of the names that do (`driven` of `test-driven-development`), which says nothing alone.
   */
  readonly described: ArrayLike<number>;
  /** How the unit's first skill holding a term wrote it, where that is not how the catalog first did. */
  readonly spellings: ReadonlyMap<TermId, string>;
}

/**
 * The terms of a catalog's skills, tallied whole: what the previews rank, and what the saved index holds.
 * By term: its key, its first spelling in the catalog, its words (a pair's two; NO_TERM for a word), and
 * in how many units it is. Terms are numbered, so that a tally is numbers in arrays rather than an object
 * per term and unit: ten thousand skills hold some 200,000 of those.
 */
export interface Tally {
  readonly skills: number;
  readonly keys: readonly TermKey[];
  readonly spelled: readonly string[];
  readonly firstWords: ArrayLike<TermId>;
  readonly secondWords: ArrayLike<TermId>;
  readonly spread: ArrayLike<number>;
  /** By unit key, in the order of unitKeysOf(skills). */
  readonly units: ReadonlyMap<string, UnitCells>;
  /** Its words' stems numbered, when a saved index held them (see StemNumbering); else worked out once. */
  readonly stemNumbering?: StemNumbering;
}

/**
 * By word of a tally, a number for its stem, words of one stem sharing it (pairs: 0, unused), and by
 * hyphenated word, the number of the stem of its letters joined if a word has it, else -1. Stemming
 * every word of 10k skills took 100-250 ms of the first preview, so a saved index holds them.
 */
export interface StemNumbering {
  readonly numbers: Int32Array;
  readonly joinedNumbers: Int32Array;
  /** How many stems are numbered. */
  readonly stems: number;
}

export function unitKey(pack: string, group: string | undefined): string {
  return group === undefined ? pack : `${pack}/${group}`;
}

/** The units of `skills`, in the order a tally meets them. */
export function unitKeysOf(skills: readonly Skill[]): string[] {
  return [...byUnit(skills).keys()];
}

/** The skills of each unit, units in the order first met: by pack and group, not by a key made per skill. */
function byUnit(skills: readonly Skill[]): Map<string, Skill[]> {
  const packs = new Map<string, Map<string | undefined, Skill[]>>();
  const units = new Map<string, Skill[]>();
  for (const skill of skills) {
    let groups = packs.get(skill.pack);
    if (groups === undefined) {
      groups = new Map();
      packs.set(skill.pack, groups);
    }
    let unit = groups.get(skill.group);
    if (unit === undefined) {
      unit = [];
      groups.set(skill.group, unit);
      units.set(unitKey(skill.pack, skill.group), unit);
    }
    unit.push(skill);
  }
  return units;
}

/** The cells of the unit whose skills are being tallied. */
class UnitTally implements UnitCells {
  readonly terms: TermId[] = [];
  readonly weights: number[] = [];
  readonly skills: number[] = [];
  readonly described: number[] = [];
  readonly spellings = new Map<TermId, string>();

  /** Units are numbered as they are tallied. */
  constructor(readonly number: number) {}
}

/**
 * A tally made a slice of skills at a time, unit by unit (each unit's skills in their order), so that a
 * term's place in the unit being tallied is kept by term rather than in a map per unit.
 */
export class Tallying {
  /** The skills as given, then (once tallying starts, after listening) unit by unit. */
  #skills: readonly Skill[];
  #grouped = false;
  /** How many of the skills are tallied, in their order. */
  #tallied = 0;
  readonly #units = new Map<string, UnitCells>();
  #current: { readonly key: string; readonly unit: UnitTally } | undefined;
  /** Each word as spelled, to its term (NO_TERM when it says nothing of a task). */
  readonly #wordTerms = new Map<string, TermId>();
  readonly #termIds = new Map<TermKey, TermId>();
  readonly #keys: TermKey[] = [];
  readonly #spelled: string[] = [];
  readonly #firstWords: TermId[] = [];
  readonly #secondWords: TermId[] = [];
  readonly #spread: number[] = [];
  /** By term: the last skill that counted it, so that a skill counts each term once. */
  readonly #countedBy: number[] = [];
  /** By term: the last skill whose description counted it. */
  readonly #describedBy: number[] = [];
  /** By term: the last unit that held it, and where it is in that unit's cells. */
  readonly #lastUnit: number[] = [];
  readonly #lastSlot: number[] = [];

  constructor(skills: readonly Skill[]) {
    this.#skills = skills;
  }

  /** Tallies up to `count` more skills, and says whether any are left. */
  tallySome(count: number): boolean {
    if (!this.#grouped) {
      this.#skills = [...byUnit(this.#skills).values()].flat();
      this.#grouped = true;
    }
    const end = Math.min(this.#skills.length, this.#tallied + count);
    for (let index = this.#tallied; index < end; index += 1) {
      const skill = this.#skills[index];
      if (skill !== undefined) this.#tallySkill(skill, index);
    }
    this.#tallied = end;
    return end < this.#skills.length;
  }

  /** What is tallied so far: the whole tally once tallySome says nothing is left. */
  tally(): Tally {
    return {
      skills: this.#tallied,
      keys: this.#keys,
      spelled: this.#spelled,
      firstWords: this.#firstWords,
      secondWords: this.#secondWords,
      spread: this.#spread,
      units: this.#units,
    };
  }

  /**
   * Adds the terms of a skill to its unit's cells: the words of its name and description, and the pairs
   * of words of its name. A name is a task in a few words (`code-review`, `data-tables`), where pairs say
   * more than their words; pairs of a description's words would be mostly one-offs, and many times the
   * terms. A term in the name counts NAME_WEIGHT, and once, whatever the description says.
   */
  #tallySkill(skill: Skill, index: number): void {
    const key = unitKey(skill.pack, skill.group);
    let current = this.#current;
    if (current?.key !== key) {
      current = { key, unit: new UnitTally(this.#units.size) };
      this.#units.set(key, current.unit);
      this.#current = current;
    }
    const { unit } = current;
    let previous = NO_TERM;
    let previousSpelled = "";
    forEachWord(skill.name.replace(/-/g, " "), (spelled, afterSpace) => {
      const term = this.#termOfWord(spelled);
      if (term === NO_TERM) {
        previous = NO_TERM;
        return;
      }
      this.#count(unit, term, spelled, NAME_WEIGHT, index);
      if (previous !== NO_TERM && afterSpace) {
        const pair = `${previousSpelled} ${spelled}`;
        this.#count(unit, this.#pairOf(previous, term, pair), pair, NAME_WEIGHT, index);
      }
      previous = term;
      previousSpelled = spelled;
    });
    forEachWord(skill.description.slice(0, READ_CHARACTERS), (spelled) => {
      const term = this.#termOfWord(spelled);
      if (term === NO_TERM) return;
      this.#count(unit, term, spelled, 1, index);
      if (this.#describedBy[term] === index) return;
      this.#describedBy[term] = index;
      // Counted just now or by the name: the term's cell in this unit is its last.
      const slot = this.#lastSlot[term] ?? 0;
      unit.described[slot] = (unit.described[slot] ?? 0) + 1;
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
      unit.described.push(0);
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
    this.#describedBy.push(-1);
    this.#lastUnit.push(-1);
    this.#lastSlot.push(0);
    return term;
  }
}
