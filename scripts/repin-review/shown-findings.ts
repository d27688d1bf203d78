/**
 * The findings the review shows of a pack, held once per list however many paths show it: the fetcher
 * copies each symlink's target as a file of its own, and a bump adding 4,000 links to a file of 252
 * findings shows a million, 252 per path, which held one by one (and as JSON) took 2.8 GiB.
 */
import { createHash } from "node:crypto";
import { type Finding, SEVERITIES, type Severity } from "../../src/audit/index.js";

/**
 * The review's own rule, high: a served file the bump adds or changes that the audit did not read (over
 * 16 MiB, or unreadable). The server serves it unaudited; the review makes someone read it.
 */
export const NOT_AUDITED = "not-audited";

/** A finding of the new commit (the audit's, or the review's own), and whether the old one had it too. */
export type ReviewedFinding = Omit<Finding, "rule"> & {
  readonly rule: Finding["rule"] | typeof NOT_AUDITED;
  readonly new: boolean;
  /**
   * Of a finding the old commit had in a file moved out of one skill into another: the id of the skill it
   * moved into, to which the finding is new (see skillMovedInto in index.ts); undefined for the pack files.
   */
  readonly newTo?: { readonly skill: string | undefined };
};

/** A path's findings, in order: a list shared with every other path that shows the same (see add). */
interface PathFindings {
  readonly path: string;
  /** Named for the first path that showed them: each is named for `path` only as it is gone through. */
  readonly findings: readonly ReviewedFinding[];
}

/** One list of findings the review shows, once, with every path that shows it. */
export interface ListedFindings {
  /** In the order they were added. */
  readonly paths: readonly string[];
  /** Named for the first of `paths`. */
  readonly findings: readonly ReviewedFinding[];
}

/**
 * The findings the review shows, in the order they were added, each path's made only as they are gone
 * through; counted and ranked without being made.
 */
export class ShownFindings implements Iterable<ReviewedFinding> {
  readonly #paths: PathFindings[] = [];
  /**
   * Each list held, by the SHA-256 of its findings' JSON with the path left out: what the review prints
   * of a finding is its JSON and what it reads of it, so two lists of one digest show alike.
   */
  readonly #lists = new Map<string, readonly ReviewedFinding[]>();
  /** The lists held, as given: one given again for another path is held already, without a digest. */
  readonly #held = new Set<readonly ReviewedFinding[]>();
  #length = 0;

  /** How many findings, of every path. */
  get length(): number {
    return this.#length;
  }

  /** Adds the findings `where` shows, each named for it, after those added before. */
  add(where: string, findings: readonly ReviewedFinding[]): void {
    if (findings.length === 0) return;
    this.#paths.push({ path: where, findings: this.#heldAs(findings) });
    this.#length += findings.length;
  }

  /** `findings` as held: the list of the same digest held before, else `findings`, held from now on. */
  #heldAs(findings: readonly ReviewedFinding[]): readonly ReviewedFinding[] {
    if (this.#held.has(findings)) return findings;
    const key = digestButPath(findings);
    const held = this.#lists.get(key);
    if (held !== undefined) return held;
    this.#lists.set(key, findings);
    this.#held.add(findings);
    return findings;
  }

  /**
   * Each list once, with the paths that show it, in the order of the first path of each: a thousand
   * copies of one file are one list of its findings, not a thousand.
   */
  lists(): ListedFindings[] {
    const paths = new Map<readonly ReviewedFinding[], string[]>();
    for (const { path: where, findings } of this.#paths) {
      const showing = paths.get(findings);
      if (showing === undefined) paths.set(findings, [where]);
      else showing.push(where);
    }
    return [...paths].map(([findings, showing]) => ({ paths: showing, findings }));
  }

  *[Symbol.iterator](): Iterator<ReviewedFinding> {
    for (const { path: where, findings } of this.#paths) {
      for (const found of findings) yield namedFor(found, where);
    }
  }

  /** How many findings `matches` holds (it reads no path), counted without making them. */
  count(matches: (found: ReviewedFinding) => boolean): number {
    let counted = 0;
    for (const { findings } of this.#paths) {
      for (const found of findings) if (matches(found)) counted++;
    }
    return counted;
  }

  /** The first `limit` of them that `matches` holds (it reads no path), in order, each made as it is taken. */
  *#taken(matches: (found: ReviewedFinding) => boolean, limit: number): Generator<ReviewedFinding> {
    let left = limit;
    for (const { path: where, findings } of this.#paths) {
      for (const found of findings) {
        if (left <= 0) return;
        if (!matches(found)) continue;
        left--;
        yield namedFor(found, where);
      }
    }
  }

  /** How many findings of `lists` `matches` holds (it reads no path), counted without making them. */
  static countIn(lists: readonly ShownFindings[], matches: (found: ReviewedFinding) => boolean): number {
    return lists.reduce((sum, list) => sum + list.count(matches), 0);
  }

  /**
   * The first `limit` findings of `lists` (one after the other) worst first: by severity, new before old,
   * else in order, as a stable sort of them all by new, then by severity, has them; only those are made.
   */
  static worstFirst(lists: readonly ShownFindings[], limit: number): ReviewedFinding[] {
    const taken: ReviewedFinding[] = [];
    for (const severity of SEVERITIES) {
      for (const isNew of [true, false]) {
        const matches = (found: ReviewedFinding) => found.severity === severity && found.new === isNew;
        for (const list of lists) {
          for (const found of list.#taken(matches, limit - taken.length)) taken.push(found);
        }
      }
    }
    return taken;
  }
}

/** Whether a finding is of `severity`, and new or not when `isNew` says: what the review counts them by. */
export function ofSeverity(severity: Severity, isNew?: boolean): (found: ReviewedFinding) => boolean {
  return (found) => found.severity === severity && (isNew === undefined || found.new === isNew);
}

function namedFor(found: ReviewedFinding, where: string): ReviewedFinding {
  return found.path === where ? found : { ...found, path: where };
}

/** The SHA-256 of the findings' JSON, each with its path left out (its key kept in place, empty). */
function digestButPath(findings: readonly ReviewedFinding[]): string {
  const hash = createHash("sha256");
  // One finding a line: JSON holds no raw line feed.
  for (const found of findings) hash.update(`${JSON.stringify({ ...found, path: "" })}\n`);
  return hash.digest("hex");
}
