import { writeFileSync } from "node:fs";
import { readJsonObject } from "./json-object.js";
import type { Outcome } from "./scoring.js";

/** Where each request's right skill ranked, by request id; null when it was not among the 10 shown. */
export type Ranks = ReadonlyMap<string, number | null>;

export function writeRanks(file: string, outcomes: readonly Outcome[]): void {
  const ranks = Object.fromEntries(outcomes.map(({ query, rank }) => [query.id, rank ?? null]));
  writeFileSync(file, `${JSON.stringify(ranks, null, 1)}\n`);
}

export function readRanks(file: string): Ranks {
  const ranks = new Map<string, number | null>();
  const bad: string[] = [];
  for (const [id, rank] of readJsonObject(file, "request id to rank (1-10, or null)")) {
    if (rank === null || (typeof rank === "number" && Number.isInteger(rank) && rank >= 1 && rank <= 10)) {
      ranks.set(id, rank);
    } else {
      bad.push(id);
    }
  }
  if (bad.length > 0) {
    throw new Error(`${file}: a rank is 1-10, or null for a miss; not so for ${bad.join(", ")}`);
  }
  return ranks;
}

/** A rank past the 10 shown counts as 11: a miss is below every rank shown, and all misses tie. */
const MISSED = 11;

const shown = (rank: number): string => (rank === MISSED ? "past 10" : String(rank));

export interface RankChanges {
  readonly higher: readonly string[];
  readonly lower: readonly string[];
  readonly same: number;
}

/**
 * Request by request, where `after` ranks the right skill against `before`: a sum of metrics can hide a
 * change that moves some requests up and as many down. Throws if the two do not hold the same requests.
 */
export function rankChanges(before: Ranks, after: Ranks): RankChanges {
  const onlyOne = [...before.keys(), ...after.keys()].filter((id) => !(before.has(id) && after.has(id)));
  if (onlyOne.length > 0)
    throw new Error(`the two hold different requests: ${[...new Set(onlyOne)].join(", ")}`);
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
