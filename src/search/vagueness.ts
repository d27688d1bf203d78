import type { Scope, Skill } from "../catalog/index.js";
import type { Ranked } from "./accumulator.js";
import type { Bm25fIndex } from "./bm25f.js";
import type { TermCorrection } from "./corrections.js";
import type { RequestTerms } from "./request-terms.js";

/**
 * Why a request is too vague to rank: `common words`, each of its words is held by at least half the
 * catalog's skills (see {@link COMMON_SHARE}) and more skills in scope match it strongly than were asked
 * for; or `tied`, more skills in scope than were asked for score within a tenth of the best (see
 * `TIED_MATCH`, accumulator.ts), so that which of them were shown would be happenstance whatever its
 * words; or `no task`, its words only ask for something to be done (see {@link ASKING_WORDS}); or
 * `no words`, it has no word search reads, only stop words and single letters (`how do I do it`).
 */
export type Vagueness = "common words" | "tied" | "no task" | "no words";

/**
 * The share of the catalog's skills from which a word is no evidence for any of them: its Robertson and
 * Spärck Jones weight, ln((N − n + 0.5) / (n + 0.5)), the log-odds that a skill lacks it, is zero or less
 * from there (BM25's idf adds 1 inside the logarithm only to keep such words from weighing below zero). A
 * request made only of such words (`data`, `test`, `check this`) is vague when more skills match it
 * strongly than can be shown: ten of them would be a sample, not an answer. A share of the catalog means
 * the same over a few skills as over many; the rarest word of every right skill the bench's labeled
 * requests show is held by at most 0.19 of the catalog (docs/search.md, *A request too vague to rank*).
 */
const COMMON_SHARE = 0.5;
/**
 * Words that ask for something to be done without saying what: a request of these alone (`help`,
 * `improve it`, `fix this`, `make it better`) names no task, and the skills holding them in passing
 * ("Helps with…", "improve performance") are no answer to it. `help` and `improve` are in 15 % and 18 % of
 * the bench corpus's skills, rare enough to rank by, and kept 8 and 10 lines; no labeled request is made
 * of them alone. A skill whose name holds one (`help-desk-replies`) is still an answer.
 */
const ASKING_WORDS = "help assist improve fix need want please better thing stuff something anything";

/** Tells why a request is too vague to rank, if it is: see {@link Vagueness}. */
export class VaguenessCheck {
  /** The terms of {@link ASKING_WORDS} the catalog holds. */
  private readonly askingTerms: ReadonlySet<number>;

  constructor(
    private readonly skills: readonly Skill[],
    private readonly terms: Bm25fIndex,
  ) {
    this.askingTerms = new Set(terms.termsOf(ASKING_WORDS).terms);
  }

  /** Why the request is too vague to rank, if it is (see {@link Vagueness}). */
  whyVague(
    found: Ranked,
    limit: number,
    scope: Scope,
    request: RequestTerms,
    corrections: readonly TermCorrection[],
  ): Vagueness | undefined {
    if (request.terms.length + request.unheld === 0) return "no words";
    if (this.namesNoTask(found, request, corrections)) return "no task";
    if (found.strong > limit && this.isCommon(request, corrections)) return "common words";
    return found.tied.length > limit && this.moreSkillsThan(limit, found.tied, scope) ? "tied" : undefined;
  }

  /**
   * Whether `documents` are more than `limit` skills, a skill copied into several packs of `scope` counted
   * once (see `Scope.copiesOf`): copies tie, and one skill copied widely is no vague request. Counting
   * stops past `limit`, so that it costs the documents and the copies of at most `limit` + 1 skills.
   */
  private moreSkillsThan(limit: number, documents: readonly number[], scope: Scope): boolean {
    const counted = new Set<Skill>();
    let skills = 0;
    for (const document of documents) {
      const skill = this.skills[document];
      if (skill === undefined || counted.has(skill)) continue;
      if (++skills > limit) return true;
      for (const copy of scope.copiesOf(skill)) counted.add(copy);
    }
    return false;
  }

  /**
   * Whether the request's words, all held, are all {@link ASKING_WORDS}, and none of its best matches holds
   * one in its name.
   */
  private namesNoTask(found: Ranked, request: RequestTerms, corrections: readonly TermCorrection[]): boolean {
    const { askingTerms, terms } = this;
    const held = [...request.terms, ...corrections.map(({ term }) => term)];
    if (found.best.length === 0 || request.unheld > corrections.length) return false;
    if (!held.every((term) => askingTerms.has(term))) return false;
    return !found.best.some((document) => {
      const name = this.skills[document]?.name ?? "";
      return terms.termsOf(name).terms.some((term) => held.includes(term));
    });
  }

  /** Whether every word of the request is held by skills, each by {@link COMMON_SHARE} of them or more. */
  private isCommon(request: RequestTerms, corrections: readonly TermCorrection[]): boolean {
    const { terms } = this;
    const common = COMMON_SHARE * this.skills.length;
    const held = [...request.terms, ...corrections.map(({ term }) => term)];
    return (
      request.unheld === corrections.length &&
      held.length > 0 &&
      held.every((term) => terms.documentFrequency(term) >= common)
    );
  }
}
