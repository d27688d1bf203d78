/** What the repin review shows of each moved source and of the bump as a whole: the render step's input. */
import type { Finding } from "../../src/audit/index.js";
import type { ReviewedSource } from "../fetch-skills/review-contract.js";
import type { PackChanges } from "./compare.js";
// A finding's shape lives with the lists that hold it; the render step and the review read it here too.
import type { ShownFindings } from "./shown-findings.js";

export { NOT_AUDITED, type ReviewedFinding } from "./shown-findings.js";

export interface SourceReview {
  readonly source: ReviewedSource;
  readonly changes: PackChanges;
  readonly skills: Before<number>;
  readonly descriptionTokens: Before<number>;
  /** In files the bump adds or changes, and every high one. */
  readonly findings: ShownFindings;
  /** Skills of the new commit that a high finding makes unsafe, by id. */
  readonly unsafe: readonly string[];
  /** Of `unsafe`, the skills the old commit had too, safe then: the server stops serving them. */
  readonly newlyUnsafe: readonly string[];
  /** Skills of both commits that a high finding made unsafe before and no longer does: the server serves them now. */
  readonly newlySafe: readonly string[];
}

export interface Before<T> {
  readonly before: T;
  readonly after: T;
}

export interface ReviewContent {
  readonly reviews: readonly SourceReview[];
  readonly listPacks: Before<number>;
  /** Why the server would refuse the new skills folder, if it would. */
  readonly refused: string | undefined;
  /** High findings in packs that did not move. */
  readonly elsewhere: readonly Finding[];
  /** The ids of the skills of each bare name that two packs newly share. */
  readonly shared: readonly (readonly string[])[];
  /** What the server's load of the new commits newly leaves out, with why. */
  readonly skipped: readonly { readonly path: string; readonly reason: string }[];
  /** Served paths the new commits make differ only in case from another of their pack's (`other`). */
  readonly collisions: readonly { readonly path: string; readonly other: string }[];
}
