import type { Skill } from "../catalog/index.js";
import { MalformedPart, PartReader, PartWriter, type Unfit } from "../saved/index.js";
import type { RankingOptions } from "./bm25f.js";
import { FIELD_NAMES } from "./fields.js";
import { type SearchIndex, SkillIndex } from "./skill-index.js";

/**
 * The version of the search's part of the saved index and of everything that decides what an index holds:
 * the analysis of words, the fields, the scoring and its impact levels. Bump it with any change to them, so
 * that indexes saved before are built anew instead of trusted; test/search/saved-index.test.ts holds the
 * digest of a saved fixture and fails when the bytes change while the version does not.
 */
export const INDEX_FORMAT_VERSION = 21;

/** A saved index loaded, or why it cannot be used. */
export type LoadedIndex =
  | { readonly ok: true; readonly index: SearchIndex }
  | ({ readonly ok: false } & Unfit);

/**
 * The search's part of the saved index: its format version and ranking options, then its typed arrays as
 * they are in memory (see SkillIndex.save). The container checks it whole and says which catalog it was
 * built from; this part says how.
 */
export function indexToPart(index: SearchIndex): Uint8Array[] {
  if (!(index instanceof SkillIndex)) throw new TypeError("only an index made by buildIndex can be saved");
  const part = new PartWriter();
  part.number(INDEX_FORMAT_VERSION, ...rankingNumbers(index.ranking));
  index.save(part);
  return part.pieces();
}

/**
 * The index that a part saved by {@link indexToPart} holds, if it was saved by this format version with
 * this `ranking` from these `skills` (the container's catalog fingerprint says so), and its lists hold
 * together; otherwise why not. Never throws on bad bytes. The index's arrays are views of the part.
 */
export function indexFromPart(
  pieces: readonly Uint8Array[],
  skills: readonly Skill[],
  ranking: RankingOptions,
): LoadedIndex {
  try {
    const part = new PartReader(pieces);
    const version = part.number();
    if (version !== INDEX_FORMAT_VERSION) {
      return outdated(`format version ${version}; this server reads version ${INDEX_FORMAT_VERSION}`);
    }
    if (rankingNumbers(ranking).some((number) => number !== part.number())) {
      return outdated(
        "ranked with other options (field weights, length normalization, k1) than this server's",
      );
    }
    const index = SkillIndex.load(part, skills, ranking);
    part.end();
    return { ok: true, index };
  } catch (error) {
    if (!(error instanceof MalformedPart)) throw error;
    return { ok: false, problem: `malformed: ${error.message}`, outdated: false };
  }
}

function outdated(problem: string): LoadedIndex {
  return { ok: false, problem, outdated: true };
}

function rankingNumbers(ranking: RankingOptions): number[] {
  return [
    ...FIELD_NAMES.map((field) => ranking.weights[field]),
    ...FIELD_NAMES.map((field) => ranking.lengthNormalization[field]),
    ranking.k1,
  ];
}
