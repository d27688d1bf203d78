import type { Stem } from "./words.js";

/**
 * The kinds of what {@link KeptParts} (kept.ts) keeps, on their own: kept.ts is imported by summary.ts,
 * whose TermFrequencies owns the parts, so naming them from the modules that make them (each of which
 * takes a TermFrequencies) closed a circle of imports.
 */

/** A pack's summary for any room within a preview (see PackSummary in pack-summary.ts). */
export interface CutSummary {
  /** Whether the pack's groups, each with a telling term at least, fit `room`. */
  groupsFit(room: number): boolean;
  within(room: number): string;
  /** Its groups within `room`, and the pack's telling terms that those leave out. */
  parts(room: number): { readonly groups: string; readonly terms: string };
}

/** The names of `skills` and their bytes joined as spread joins them. */
export interface SkillNames {
  readonly names: readonly string[];
  readonly total: number;
}

export interface SteeringParts {
  readonly names: string;
  readonly also: string;
  /** The pack's telling terms but for its name, worked out when first asked for. */
  readonly packTerms: () => string;
}

/** A skill's name, and the stems of its words. */
export interface NameWords {
  readonly name: string;
  readonly stems: readonly Stem[];
}
