import { readJsonFile } from "./json-object.js";

/** How many results a search shows, as the tool does: recall@10 and MRR are over these. */
export const SHOWN_RESULTS = 10;

/** One labeled request of a search benchmark (format: shared/bench/README.md). */
export interface LabeledQuery {
  readonly id: string;
  readonly query: string;
  readonly expected: readonly string[];
  readonly alsoOk: readonly string[];
  readonly difficulty: string;
}

/** Where a search put the first right answer for one query; `rank` is 1-based, undefined for a miss. */
export interface Outcome {
  readonly query: LabeledQuery;
  readonly rank: number | undefined;
  /** The first result, to show what won instead on a miss. */
  readonly first: string | undefined;
  /** Distinct results shown: each one costs the model tokens, a wrong one misleads it. */
  readonly shown: number;
  /** nDCG@10 with a gain of 1 for each right result (expected or also_ok), at its distinct position. */
  readonly ndcg: number;
}

export interface Metrics {
  readonly queries: number;
  readonly recallAt1: number;
  readonly recallAt3: number;
  readonly recallAt10: number;
  readonly mrr: number;
  readonly ndcgAt10: number;
  /** Mean distinct results shown a query. */
  readonly shown: number;
}

export function readQueries(file: string): LabeledQuery[] {
  const raw = readJsonFile(file);
  if (!Array.isArray(raw)) throw new Error(`${file}: expected a JSON array of queries`);
  return raw.map((item: unknown, position) => {
    const entry = (item ?? {}) as Record<string, unknown>;
    const { id, query, expected, difficulty } = entry;
    const alsoOk = entry.also_ok ?? [];
    if (
      typeof id !== "string" ||
      typeof query !== "string" ||
      typeof difficulty !== "string" ||
      !isStringList(expected) ||
      expected.length === 0 ||
      !isStringList(alsoOk)
    ) {
      throw new Error(`${file}: query #${position + 1} needs id, query, difficulty, expected[] (also_ok[])`);
    }
    return { id, query, expected, alsoOk, difficulty };
  });
}

function isStringList(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === "string");
}

/**
 * Scores one ranked result list. Each result is the ids it stands for: one, or several when a line shows
 * one skill held by several packs. A result whose ids all came before counts once, at its best position.
 */
export function judge(query: LabeledQuery, results: readonly (readonly string[])[]): Outcome {
  const right = new Set([...query.expected, ...query.alsoOk]);
  const seen = new Set<string>();
  const distinct = results.filter((ids) => {
    const isNew = ids.some((id) => !seen.has(id));
    for (const id of ids) seen.add(id);
    return isNew;
  });
  const isRight = distinct.map((ids) => ids.some((id) => right.has(id)));
  const index = isRight.indexOf(true);
  return {
    query,
    rank: index < 0 ? undefined : index + 1,
    first: distinct[0]?.[0],
    shown: distinct.length,
    ndcg: normalizedGain(isRight.slice(0, SHOWN_RESULTS), right.size),
  };
}

/** DCG of the right results at their positions over that of `rightCount` right results ranked first. */
function normalizedGain(isRight: readonly boolean[], rightCount: number): number {
  const gain = (position: number) => 1 / Math.log2(position + 2);
  const dcg = isRight.reduce((sum, right, position) => sum + (right ? gain(position) : 0), 0);
  let ideal = 0;
  for (let position = 0; position < Math.min(rightCount, SHOWN_RESULTS); position++) ideal += gain(position);
  return ideal === 0 ? 0 : dcg / ideal;
}

export function summarize(outcomes: readonly Outcome[]): Metrics {
  const count = outcomes.length;
  const share = (hit: (outcome: Outcome) => boolean) =>
    count === 0 ? 0 : outcomes.filter(hit).length / count;
  const within = (k: number) => share(({ rank }) => rank !== undefined && rank <= k);
  const mean = (value: (outcome: Outcome) => number) =>
    count === 0 ? 0 : outcomes.reduce((sum, outcome) => sum + value(outcome), 0) / count;
  return {
    queries: count,
    recallAt1: within(1),
    recallAt3: within(3),
    recallAt10: within(10),
    mrr: mean(({ rank }) => (rank === undefined ? 0 : 1 / rank)),
    ndcgAt10: mean(({ ndcg }) => ndcg),
    shown: mean(({ shown }) => shown),
  };
}

/** Overall first, then each difficulty in the order the query file first uses it. */
export function summarizeByDifficulty(outcomes: readonly Outcome[]): [string, Metrics][] {
  const difficulties = [...new Set(outcomes.map(({ query }) => query.difficulty))];
  return [
    ["all", summarize(outcomes)],
    ...difficulties.map((difficulty): [string, Metrics] => [
      difficulty,
      summarize(outcomes.filter(({ query }) => query.difficulty === difficulty)),
    ]),
  ];
}
