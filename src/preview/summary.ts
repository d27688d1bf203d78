import { LRUCache } from "lru-cache";
import type { Group, Pack, Skill } from "../catalog/index.js";
import { MalformedPart } from "../saved/index.js";
import { compareText, namedInProse } from "../shared/index.js";
import { type KeptFor, KeptParts } from "./kept.js";
import type { NameWords } from "./kept-kinds.js";
import { NO_TERM, type StemNumbering, type Tally, Tallying, type TermId, unitKey } from "./tally.js";
import { forEachWord, KeptStems, keyOf, namesOf, type Stem, stemOf, type TermKey } from "./words.js";

/** A pair of words must be held by at least this many skills to say more than its two words. */
const PAIR_SKILLS = 2;

/** How many rankings of packs and groups are kept: a few per scope clients use. */
const KEPT_RANKINGS = 1024;

/** The terms of some units, best first, each as the first of those units to hold it wrote it. */
interface Ranking {
  readonly terms: Int32Array;
  /** By rank: what the units' skills weigh of the term (see UnitCells.weights). */
  readonly weights: Float64Array;
  readonly spelled: readonly string[];
  /**
   * By rank: which words of the term only the units' skills' names hold, no description but theirs (see
   * PIECE_OF_NAMES): the term itself when a word, or a pair's first or second word.
   */
  readonly pieces: Uint8Array;
}

/** Bits of Ranking.pieces. */
const WORD_PIECE = 1;
const FIRST_PIECE = 2;
const SECOND_PIECE = 4;
/** A word shown as the names that hold it gives at most this many of them, unless Enough.pieceNames says. */
const NAMES_FOR_A_PIECE = 2;

/**
 * Where tellingTerms may stop: after this many terms, or once they hold over this many bytes; and which
 * terms it gives: only those weighing `least` at least in the units (see below), when set.
 */
interface Enough {
  readonly terms?: number;
  readonly bytes?: number;
  /**
   * With 2, a term must be in a skill's name or in two skills' descriptions: a word of one description
   * (`another` of "loaded into another system", `answer` of "answer fast") names no task of a pack. A term
   * weighing under twice `least` must weigh `least` beyond what the rest of the catalog weighs of it at the
   * units' size: the examples' `system` of two `workflows` descriptions ("into another system", "between
   * systems") is a word of how descriptions are written, the rest holding it as often ("a design system").
   * A heavier term is a subject of the units however often the rest holds it (`pipeline`, of 11 of the
   * bench corpus's 181 `agents` skills and 15 of the other 183).
   */
  readonly least?: number;
  /**
   * How many of the names holding a piece of names are given for it (NAMES_FOR_A_PIECE unless set); when
   * fewer than hold it, the shortest, which say the piece in the fewest bytes.
   */
  readonly pieceNames?: number;
}

/** Sums by term while some units are ranked; firstUnit is 0 for a term no unit summed yet, else 1 + its unit. */
interface RankingScratch {
  readonly weights: Float64Array;
  readonly skills: Int32Array;
  readonly described: Int32Array;
  readonly firstUnit: Int32Array;
  readonly scores: Float64Array;
}

/** See TermFrequencies.#stemNumbers. */
interface StemNumbers extends StemNumbering {
  readonly tally: Tally;
  readonly marks: Uint32Array;
}

/** A saved tally not read yet, and whom to tell if it does not hold together. */
interface SavedTally {
  /** Throws MalformedPart when the saved tally does not hold together or is not of these skills. */
  readonly read: () => Tally;
  readonly onUnfit: (problem: string) => void;
}

/**
 * How telling each term of a catalog's skills is of the packs and groups that hold it. Terms are tallied
 * by unit: a group, or the top of a pack outside every group. A scope is a union of whole units (selectors
 * name packs and groups), so what its packs and groups hold is summed from the tallies of their units
 * without reading a skill again. A term held in few units says more of a subject than one spread over
 * them all (`implement`, `data`), however many skills hold it. Ranking is synchronous: its scratch arrays
 * are shared by every ranking.
 */
export class TermFrequencies {
  /** What is left to tally: nothing once the tally is whole (its maps of words are let go then). */
  #tallying: Tallying;
  #whole: Tally | undefined;
  #saved: SavedTally | undefined;
  readonly #rankings = new LRUCache<string, Ranking>({ max: KEPT_RANKINGS });
  #scratch: RankingScratch | undefined;
  /** By word of the whole tally (which, once made, stays): its stem, for the words rankings gave. */
  readonly #stems = new Map<TermId, Stem>();
  /** The stems of the words its previews read, kept as long as the catalog these counts are of. */
  readonly stems = new KeptStems();
  /** What its previews work out once per pack or list of skills, kept as long as the catalog these counts are of. */
  readonly kept = new KeptParts();
  #totals: { readonly tally: Tally; readonly weights: Float64Array } | undefined;
  #stemNumbering: StemNumbers | undefined;
  /** The mark of the ranking under way in StemNumbers.marks. */
  #mark = 0;

  /** Tallies nothing yet: the first question tallies every skill left, unless tallySome has. */
  constructor(skills: readonly Skill[]) {
    this.#tallying = new Tallying(skills);
  }

  /**
   * The tally of `skills` that the saved index holds, read not now but by the first slice or question,
   * which is after listening: at 10k skills it takes tens of milliseconds that a start need not wait for.
   * When it does not hold together or is not of these skills, `onUnfit` is told why and they are tallied.
   */
  static fromSaved(
    skills: readonly Skill[],
    read: () => Tally,
    onUnfit: (problem: string) => void,
  ): TermFrequencies {
    const terms = new TermFrequencies(skills);
    terms.#saved = { read, onUnfit };
    return terms;
  }

  /**
   * Tallies up to `count` more skills, and says whether any are left: a catalog of tens of thousands of
   * skills takes a second or more to tally, which a server does a slice at a time between requests rather
   * than all at once in the first request that needs it.
   */
  tallySome(count: number): boolean {
    if (this.#saved !== undefined) this.#readSaved(this.#saved);
    if (this.#whole !== undefined) return false;
    if (this.#tallying.tallySome(count)) return true;
    this.#finish();
    return false;
  }

  /** The whole tally, tallying what is left first. */
  whole(): Tally {
    this.tallySome(Number.POSITIVE_INFINITY);
    return this.#whole ?? this.#finish();
  }

  #finish(): Tally {
    this.#whole = this.#tallying.tally();
    this.#tallying = new Tallying([]);
    return this.#whole;
  }

  /**
   * The terms that best say what a pack in a scope, or one of its groups, is for, best first: those most
   * of its skills hold, weighted by how rare they are among the catalog's units. One form of each stem is
   * given (`implementing` or `implement`, not both), and none whose stem is in `known` (the names of the
   * pack and its groups, words already said). A pair of words held by several skills stands for its words;
   * when only one of them is new, that word is given alone (`audit` for `penpot audit` in pack penpot).
   * Only the first `enough.terms` are given, and no more once those given, joined by ", ", hold over
   * `enough.bytes`: a text cut to that room reads the same, and a large pack ranks thousands of terms,
   * which every preview of a new scope would otherwise walk again.
   */
  tellingTerms(
    pack: Pack,
    group: Group | undefined,
    known: ReadonlySet<Stem>,
    enough: Enough = {},
  ): string[] {
    const tally = this.whole();
    const said = new Set<Stem>();
    const isNew = (stem: Stem) => !said.has(stem) && !known.has(stem);
    const { terms, weights, spelled, pieces } = this.#ranked(tally, unitsOf(pack, group));
    const most = enough.terms ?? Number.POSITIVE_INFINITY;
    const room = enough.bytes ?? Number.POSITIVE_INFINITY;
    const least = enough.least ?? 0;
    // The units' skills, whose weights are set against the rest of the catalog's.
    const held = (group ?? pack).skills.length;
    const telling: string[] = [];
    const named = new Set<string>();
    let packWords: ReadonlySet<Stem> | undefined;
    // The bytes of the terms given, joined by ", ".
    let joined = -2;
    for (let rank = 0; rank < terms.length && telling.length < most; rank += 1) {
      const term = terms[rank] ?? NO_TERM;
      if (least > 0) {
        const weight = weights[rank] ?? 0;
        if (weight < least) continue;
        if (weight < 2 * least) {
          const rest = (this.#totalWeights(tally)[term] ?? 0) - weight;
          if (weight - (rest * held) / Math.max(1, tally.skills - held) < least) continue;
        }
      }
      const first = tally.firstWords[term] ?? NO_TERM;
      const spelling = spelled[rank] ?? "";
      const piece = pieces[rank] ?? 0;
      let given = spelling;
      // The word given alone, when one is, and whether only names hold it.
      let alone: { readonly word: TermId; readonly piece: boolean } | undefined;
      if (first === NO_TERM) {
        const stem = this.#stemOf(tally, term);
        if (!isNew(stem)) continue;
        said.add(stem);
        alone = { word: term, piece: (piece & WORD_PIECE) !== 0 };
      } else {
        const second = tally.secondWords[term] ?? NO_TERM;
        const firstStem = this.#stemOf(tally, first);
        const secondStem = this.#stemOf(tally, second);
        const firstNew = isNew(firstStem);
        const secondNew = isNew(secondStem) && secondStem !== firstStem;
        if (!firstNew && !secondNew) continue;
        said.add(firstStem).add(secondStem);
        // A pair is spelled as its two words were, a space apart.
        const [firstSpelled = "", secondSpelled = ""] = spelling.split(" ");
        if (!firstNew) {
          given = secondSpelled;
          alone = { word: second, piece: (piece & SECOND_PIECE) !== 0 };
        } else if (!secondNew) {
          given = firstSpelled;
          alone = { word: first, piece: (piece & FIRST_PIECE) !== 0 };
        }
      }
      if (alone?.piece === true) {
        // A word only names hold, beside other words of theirs, is a piece of them (`driven` of
        // `test-driven-development`) that means nothing alone: the names are given. Alone in a name but
        // for the words of the pack's and groups' names that the context says, it is the name's whole
        // sense (`subworkflows` of `n8n-subworkflows-official`) and is given as it is. Other words `known`
        // do not count: `learning`, said in list_skills, made `scikit` of `scikit-learn` a whole sense in
        // the instructions.
        const key = tally.keys[alone.word] ?? "";
        const holders = namesHolding(pack, group, key, this.stems, this.kept.namesByKey);
        const wordStem = this.#stemOf(tally, alone.word);
        packWords ??= namesOf(pack, this.stems);
        const names = packWords;
        const whole = holders.some((holder) =>
          holder.stems.every((stem) => stem === wordStem || (known.has(stem) && names.has(stem))),
        );
        if (!whole) {
          const unnamed = holders.filter((holder) => !named.has(holder.name));
          // The names that say the piece in the fewest bytes, given in the pack's order.
          const shortest = new Set(
            [...unnamed]
              .sort((a, b) => Buffer.byteLength(a.name, "utf8") - Buffer.byteLength(b.name, "utf8"))
              .slice(0, enough.pieceNames ?? NAMES_FOR_A_PIECE),
          );
          const fresh = unnamed.filter((holder) => shortest.has(holder));
          if (fresh.length === 0) continue;
          for (const holder of fresh) {
            named.add(holder.name);
            for (const stem of holder.stems) said.add(stem);
          }
          given = fresh.map((holder) => namedInProse(holder.name)).join(", ");
        }
      }
      telling.push(given);
      joined += Buffer.byteLength(given, "utf8") + 2;
      if (joined > room) break;
    }
    return telling;
  }

  /** By term: what all the catalog's skills weigh of it (see UnitCells.weights), summed once. */
  #totalWeights(tally: Tally): Float64Array {
    if (this.#totals?.tally !== tally) {
      const weights = new Float64Array(tally.keys.length);
      for (const unit of tally.units.values()) {
        for (let slot = 0; slot < unit.terms.length; slot += 1) {
          const term = unit.terms[slot] ?? 0;
          weights[term] = (weights[term] ?? 0) + (unit.weights[slot] ?? 0);
        }
      }
      this.#totals = { tally, weights };
    }
    return this.#totals.weights;
  }

  /** The stem of a word of the whole tally, stemmed once: previews of new scopes walk the same terms. */
  #stemOf(tally: Tally, word: TermId): Stem {
    let stem = this.#stems.get(word);
    if (stem === undefined) {
      stem = this.stems.of(tally.keys[word] ?? "");
      this.#stems.set(word, stem);
    }
    return stem;
  }

  #readSaved({ read, onUnfit }: SavedTally): void {
    this.#saved = undefined;
    try {
      this.#whole = read();
      this.#tallying = new Tallying([]);
    } catch (error) {
      if (!(error instanceof MalformedPart)) throw error;
      onUnfit(`malformed: ${error.message}`);
    }
  }

  /**
   * The terms of some units, best first; kept, since scopes share their packs and groups, and a catalog of
   * ten thousand skills takes tens of milliseconds to rank a large pack.
   */
  #ranked(tally: Tally, units: readonly string[]): Ranking {
    const signature = units.join("\n");
    const kept = this.#rankings.get(signature);
    if (kept !== undefined) return kept;
    const { weights, skills, described, firstUnit, scores } = this.#scratchArrays(tally.keys.length);
    const held: TermId[] = [];
    const tallies = units.flatMap((unit) => tally.units.get(unit) ?? []);
    tallies.forEach((tally, index) => {
      for (let slot = 0; slot < tally.terms.length; slot += 1) {
        const term = tally.terms[slot] ?? 0;
        const weight = tally.weights[slot] ?? 0;
        const holding = tally.skills[slot] ?? 0;
        const describing = tally.described[slot] ?? 0;
        if (firstUnit[term] === 0) {
          held.push(term);
          firstUnit[term] = index + 1;
          weights[term] = weight;
          skills[term] = holding;
          described[term] = describing;
        } else {
          weights[term] = (weights[term] ?? 0) + weight;
          skills[term] = (skills[term] ?? 0) + holding;
          described[term] = (described[term] ?? 0) + describing;
        }
      }
    });
    const ranked = held.filter(
      (term) => tally.firstWords[term] === NO_TERM || (skills[term] ?? 0) >= PAIR_SKILLS,
    );
    for (const term of ranked) scores[term] = (weights[term] ?? 0) * rarity(tally, term);
    ranked.sort(
      (a, b) => (scores[b] ?? 0) - (scores[a] ?? 0) || compareText(tally.keys[a] ?? "", tally.keys[b] ?? ""),
    );
    const spelled = ranked.map((term) => {
      const first = tallies[(firstUnit[term] ?? 1) - 1];
      return first?.spellings.get(term) ?? tally.spelled[term] ?? "";
    });
    for (const term of held) firstUnit[term] = 0;
    // A word is a piece of names when no description of the units says it in any form: `completion` of
    // `verification-before-completion` is not, its descriptions saying "complete" and "completing".
    const { numbers, joinedNumbers, marks } = this.#stemNumbers(tally);
    this.#mark += 1;
    const mark = this.#mark;
    for (const term of held) {
      if ((described[term] ?? 0) === 0 || tally.firstWords[term] !== NO_TERM) continue;
      marks[numbers[term] ?? 0] = mark;
      const joined = joinedNumbers[term] ?? -1;
      if (joined >= 0) marks[joined] = mark;
    }
    // A pair is of a name's words, each held (and summed) wherever the pair is.
    const onlyNamed = (term: TermId) => described[term] === 0 && marks[numbers[term] ?? 0] !== mark;
    const pieces = Uint8Array.from(ranked, (term) => {
      const first = tally.firstWords[term] ?? NO_TERM;
      if (first === NO_TERM) return onlyNamed(term) ? WORD_PIECE : 0;
      const second = tally.secondWords[term] ?? NO_TERM;
      return (onlyNamed(first) ? FIRST_PIECE : 0) | (onlyNamed(second) ? SECOND_PIECE : 0);
    });
    const ranking = {
      terms: Int32Array.from(ranked),
      weights: Float64Array.from(ranked, (term) => weights[term] ?? 0),
      spelled,
      pieces,
    };
    this.#rankings.set(signature, ranking);
    return ranking;
  }

  /**
   * By word of the whole tally, a number for its stem (see StemNumbering), the saved index's if it held
   * them, and a mark by stem number: #ranked marks the stems its units' descriptions hold. Made once per tally.
   */
  #stemNumbers(tally: Tally): StemNumbers {
    if (this.#stemNumbering?.tally !== tally) {
      const numbering = tally.stemNumbering ?? stemNumbering(tally, (term) => this.#stemOf(tally, term));
      this.#stemNumbering = { ...numbering, tally, marks: new Uint32Array(Math.max(1, numbering.stems)) };
    }
    return this.#stemNumbering;
  }

  /** Arrays by term for #ranked, made once every skill is tallied (the vocabulary no longer grows). */
  #scratchArrays(terms: number): RankingScratch {
    if (this.#scratch === undefined || this.#scratch.firstUnit.length < terms) {
      this.#scratch = {
        weights: new Float64Array(terms),
        skills: new Int32Array(terms),
        described: new Int32Array(terms),
        firstUnit: new Int32Array(terms),
        scores: new Float64Array(terms),
      };
    }
    return this.#scratch;
  }
}

/** The stems of `tally`'s words numbered (see StemNumbering), each word stemmed by `stemOfWord`. */
export function stemNumbering(
  tally: Tally,
  stemOfWord: (term: TermId) => Stem = (term) => stemOf(tally.keys[term] ?? ""),
): StemNumbering {
  const byStem = new Map<Stem, number>();
  const numbers = Int32Array.from(tally.keys, (_, term) => {
    if (tally.firstWords[term] !== NO_TERM) return 0;
    const stem = stemOfWord(term);
    let number = byStem.get(stem);
    if (number === undefined) {
      number = byStem.size;
      byStem.set(stem, number);
    }
    return number;
  });
  // A name's words are split at hyphens: `coauthoring` of doc-coauthoring is a description's `co-authoring`.
  const joinedNumbers = Int32Array.from(tally.keys, (key, term) =>
    tally.firstWords[term] === NO_TERM && key.includes("-")
      ? (byStem.get(stemOf(key.replace(/-/g, ""))) ?? -1)
      : -1,
  );
  return { numbers, joinedNumbers, stems: byStem.size };
}

function unitsOf(pack: Pack, group: Group | undefined): string[] {
  if (group !== undefined) return [unitKey(pack.name, group.name)];
  const units = pack.groups.map((each) => unitKey(pack.name, each.name));
  return pack.skills.some((skill) => skill.group === undefined)
    ? [unitKey(pack.name, undefined), ...units]
    : units;
}

/**
 * The skills of a pack, or of one of its groups, whose names hold a word keyed `key`: worked out once per
 * list of skills, which scopes holding the pack or group whole share.
 */
function namesHolding(
  pack: Pack,
  group: Group | undefined,
  key: TermKey,
  stems: KeptStems,
  kept: KeptFor<readonly Skill[], ReadonlyMap<TermKey, readonly NameWords[]>>,
): readonly NameWords[] {
  const skills = group === undefined ? pack.skills : group.skills;
  const byKey = kept.of(skills, () => {
    const made = new Map<TermKey, NameWords[]>();
    for (const skill of skills) {
      const keys = new Set<TermKey>();
      forEachWord(skill.name.replace(/-/g, " "), (spelled) => {
        const wordKey = keyOf(spelled);
        if (wordKey !== undefined) keys.add(wordKey);
      });
      const words = { name: skill.name, stems: [...keys].map((wordKey) => stems.of(wordKey)) };
      for (const wordKey of keys) {
        const holders = made.get(wordKey);
        if (holders === undefined) made.set(wordKey, [words]);
        else holders.push(words);
      }
    }
    return made;
  });
  return byKey.get(key) ?? [];
}

function rarity(tally: Tally, term: TermId): number {
  return Math.log((tally.units.size + 1) / ((tally.spread[term] ?? 0) + 0.5));
}
