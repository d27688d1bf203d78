import { writeFileSync } from "node:fs";
import { readJsonObject } from "./json-object.js";
import { type Outcome, SHOWN_RESULTS } from "./scoring.js";

/** Where each request's right skill ranked, by request id; null when it was not among those shown. */
export type Ranks = ReadonlyMap<string, number | null>;

export function writeRanks(file: string, outcomes: readonly Outcome[]): void {
  const ranks = Object.fromEntries(outcomes.map(({ query, rank }) => [query.id, rank ?? null]));
  writeFileSync(file, `${JSON.stringify(ranks, null, 1)}\n`);
}

export function readRanks(file: string): Ranks {
  const ranks = new Map<string, number | null>();
  const bad: string[] = [];
  for (const [id, rank] of readJsonObject(file, `request id to rank (1-${SHOWN_RESULTS}, or null)`)) {
    if (
      rank === null ||
      (typeof rank === "number" && Number.isInteger(rank) && rank >= 1 && rank <= SHOWN_RESULTS)
    ) {
      ranks.set(id, rank);
    } else {
      bad.push(id);
    }
  }
  if (bad.length > 0) {
    throw new Error(
      `${file}: a rank is 1-${SHOWN_RESULTS}, or null for a miss; not so for ${bad.join(", ")}`,
    );
  }
  return ranks;
}

/** Up to five ids and how many more: a whole query set's ids would bury the message. */
function listed(ids: readonly string[]): string {
  if (ids.length === 0) return "none";
  const more = ids.length > 5 ? ` and ${ids.length - 5} more` : "";
  return `${ids.slice(0, 5).join(", ")}${more}`;
}

/** A miss counts as the rank after the last shown: below every rank shown, and all misses tie. */
const MISSED = SHOWN_RESULTS + 1;

const shown = (rank: number): string => (rank === MISSED ? `past ${SHOWN_RESULTS}` : String(rank));

interface RankChanges {
  readonly higher: readonly string[];
  readonly lower: readonly string[];
  readonly same: number;
}

/**
 * Request by request, where `after` ranks the right skill against `before`: a sum of metrics can hide a
 * change that moves some requests up and as many down. Throws if the two do not hold the same requests.
 */
export function rankChanges(before: Ranks, after: Ranks): RankChanges {
  const onlyBefore = [...before.keys()].filter((id) => !after.has(id));
  const onlyAfter = [...after.keys()].filter((id) => !before.has(id));
  if (onlyBefore.length > 0 || onlyAfter.length > 0) {
    throw new Error(
      `the two runs hold different requests: only before, ${listed(onlyBefore)}; only after, ${listed(onlyAfter)}`,
    );
  }
  const higher: string[] = [];
  const lower: string[] = [];
  let same = 0;
  for (const [id, was] of before) {
    const from = was ?? MISSED;
    const to = after.get(id) ?? MISSED;
    if (to < from) higher.push(`${id} ${shown(from)}→${shown(to)}`);
    else if (to > from) lower.push(`${id} ${shown(from)}→${shown(to)}`);
    else same++;
  }
  return { higher, lower, same };
}
