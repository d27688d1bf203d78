import type { Pack, Skill } from "../catalog/index.js";
import type { CutSummary, NameWords, SkillNames, SteeringParts } from "./kept-kinds.js";
import type { Stem, TermKey } from "./words.js";

/** What is worked out once for each of some objects of a catalog, kept while both the object and its owner live. */
export class KeptFor<K extends object, T> {
  readonly #byKey = new WeakMap<K, T>();

  /** What is kept for `key`, made and kept on first use. */
  of(key: K, make: () => T): T {
    let kept = this.#byKey.get(key);
    if (kept === undefined) {
      kept = make();
      this.#byKey.set(key, kept);
    }
    return kept;
  }
}

/**
 * What previews work out once per pack, or per list of a pack's or group's skills, and share between the
 * scopes that hold it whole: owned by the catalog's TermFrequencies, which every preview of the catalog is
 * made with, as its KeptStems are, and dropped with it. A pack of a narrower scope (a new object) is
 * dropped with that scope.
 */
export class KeptParts {
  /** A pack's summary with nothing said (see packSummaryOf). */
  readonly summaries = new KeptFor<Pack, CutSummary>();
  /** A pack's summary as steering lines give it (see heldSummary). */
  readonly heldSummaries = new KeptFor<Pack, CutSummary>();
  readonly steeringParts = new KeptFor<Pack, SteeringParts>();
  /** By list of skills, the words they say only inside longer phrases (see phraseWords). */
  readonly phraseWords = new KeptFor<readonly Skill[], ReadonlySet<Stem>>();
  /** By list of skills, their names and those names' bytes (see spread). */
  readonly skillNames = new KeptFor<readonly Skill[], SkillNames>();
  /** By list of skills, the names holding each word (see namesHolding). */
  readonly namesByKey = new KeptFor<readonly Skill[], ReadonlyMap<TermKey, readonly NameWords[]>>();
}
