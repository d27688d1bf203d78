import type { Skill } from "../catalog/index.js";
import type { Bm25fIndex, RankingOptions } from "./bm25f.js";
import { Bm25fBuilder, TERMS_A_DOCUMENT } from "./bm25f-builder.js";
import { DESCRIPTION, forEachSection, NAME, PLACE } from "./fields.js";
import { NameIndex } from "./names.js";
import { indexFromPart as fromPart, type LoadedIndex } from "./saved-index.js";
import { type SearchIndex, SkillIndex } from "./skill-index.js";

/**
 * Tuned on the dev set of shared/bench, then checked on blind sets, a larger catalog and agents' queries
 * (docs/search.md): the name counts most, the body least; descriptions and bodies are normalized fully by
 * their length, since a long text mentions many things in passing.
 */
export const DEFAULT_RANKING: RankingOptions = {
  weights: { name: 4, description: 2.5, place: 0.25, headings: 0.75, body: 0.15 },
  lengthNormalization: { name: 0.5, description: 1, place: 0.5, headings: 1, body: 1 },
  k1: 2,
};

/**
 * Indexes `skills` once, reading each SKILL.md through `documentOf` (the catalog's reader: search itself
 * does no I/O); every later search and suggestion reads the index only. `ranking` is for tuning. `onFull`
 * hears of each skill whose SKILL.md holds more distinct words than {@link TERMS_A_DOCUMENT}: only its
 * first ones are indexed (the index's `cutSkills` names them too, saved or not).
 */
export function buildIndex(
  skills: readonly Skill[],
  documentOf: (skill: Skill) => string,
  ranking: RankingOptions = DEFAULT_RANKING,
  onFull: (skill: Skill) => void = () => {},
): SearchIndex {
  const { terms, cut } = indexTerms(skills, documentOf, ranking, onFull);
  return new SkillIndex(skills, terms, NameIndex.build(skills), ranking, cut);
}

/** Reads each skill's SKILL.md once, in turn, so that the catalog's documents are never all in memory. */
function indexTerms(
  skills: readonly Skill[],
  documentOf: (skill: Skill) => string,
  ranking: RankingOptions,
  onFull: (skill: Skill) => void,
): { terms: Bm25fIndex; cut: Int32Array } {
  const builder = new Bm25fBuilder(skills.length);
  const addSection = (field: number, text: string, start: number, end: number) =>
    builder.add(field, text, start, end);
  for (const skill of skills) {
    builder.add(NAME, skill.name);
    builder.add(DESCRIPTION, skill.description);
    builder.add(PLACE, skill.pack);
    if (skill.group !== undefined) builder.add(PLACE, skill.group);
    forEachSection(documentOf(skill), addSection);
    builder.endDocument();
  }
  for (const document of builder.full) {
    const skill = skills[document];
    if (skill !== undefined) onFull(skill);
  }
  return { terms: builder.finish(ranking), cut: Int32Array.from(builder.full) };
}

/**
 * A saved index's search part (see `indexToPart`), if it was built with `ranking` and is whole; otherwise
 * why it cannot be used. That it was built from exactly these `skills` is the saved index's catalog
 * fingerprint to say. Loading is a few checks and views of the part, not a build.
 */
export function indexFromPart(
  pieces: readonly Uint8Array[],
  skills: readonly Skill[],
  ranking: RankingOptions = DEFAULT_RANKING,
): LoadedIndex {
  return fromPart(pieces, skills, ranking);
}
