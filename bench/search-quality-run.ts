/** The work of `npm run bench:search` (see search-quality.ts), loaded once its command line is read. */
import { readFileSync } from "node:fs";
import type { Client } from "@modelcontextprotocol/client";
import type { CallToolResult } from "@modelcontextprotocol/server";
import { connectInMemory, preparedDepsOf } from "../scripts/in-memory-client.js";
import { readSkillDocument, type Scope } from "../src/catalog/index.js";
import { buildIndex, type RankingOptions } from "../src/search/index.js";
import { errorMessage } from "../src/shared/index.js";
import { askedByAgent, readAgentQueries } from "./asked-by-agent.js";
import { buildFts5Baseline } from "./fts5-baseline.js";
import { writeRanks } from "./ranks.js";
import { emptyTally, tallyReadings } from "./readings.js";
import {
  judge,
  type LabeledQuery,
  type Metrics,
  type Outcome,
  readQueries,
  SHOWN_RESULTS,
  summarizeByDifficulty,
} from "./scoring.js";
import { type Mistyped, withTypo } from "./typos.js";

interface Options {
  readonly typos: boolean;
  readonly askedBy: string | undefined;
  readonly ranking: RankingOptions;
  readonly ranksFile: string | undefined;
  readonly weakFile: string;
}

export async function main(corpus: string, queriesFile: string, options: Options): Promise<void> {
  const labeled = readQueries(queriesFile);
  const asked = options.askedBy === undefined ? labeled : askedAs(options.askedBy, labeled);
  const requests = options.typos ? mistyped(asked) : asked.map((query) => ({ query, mistake: undefined }));
  const queries = requests.map(({ query }) => query);
  // The corpus served as the server serves it, ranked with the options measured.
  const { prepared, deps } = await preparedDepsOf(corpus);
  for (const issue of prepared.loaded.issues) console.error(`corpus: ${issue.path}: ${issue.reason}`);
  const { catalog } = deps;
  const skills = catalog.everything.skills;
  checkLabels(
    queries.flatMap((query) => [...query.expected, ...query.alsoOk]),
    catalog.everything,
  );

  const started = performance.now();
  const index = buildIndex(skills, readSkillDocument, options.ranking);
  const buildMs = performance.now() - started;
  const client = await connectInMemory({ ...deps, index });

  const ours: Outcome[] = [];
  const readings = emptyTally();
  for (const { query, mistake } of requests) {
    const answer = await listSkills(client, query.query);
    ours.push(judge(query, resultIds(answer, catalog.everything)));
    tallyReadings(readings, mistake, answer);
  }
  const weak = readWeakQueries(options.weakFile);
  const weakShown: number[] = [];
  for (const { query } of weak)
    weakShown.push(resultIds(await listSkills(client, query), catalog.everything).length);
  await client.close();

  const baseline = buildFts5Baseline(skills);
  const theirs = queries.map((query) =>
    judge(
      query,
      baseline.search(query.query, SHOWN_RESULTS).map((id) => [id]),
    ),
  );
  baseline.close();

  console.log(
    `${queries.length} queries over ${skills.length} skills (${corpus}); index built in ${buildMs.toFixed(0)} ms\n`,
  );
  printTable([
    ["skills-mcp", summarizeByDifficulty(ours)],
    ["FTS5 baseline", summarizeByDifficulty(theirs)],
  ]);
  printMisses("skills-mcp", ours);
  printMisses("FTS5 baseline", theirs);
  console.log(
    options.typos
      ? `\nmistyped words: ${readings.meant} read as meant (a word of its stem), ${readings.another} as another, ` +
          `${readings.unread} unread; ${readings.others} other words read`
      : `\nwords read as others (requests as written): ${readings.others}`,
  );
  printWeakShown(weak, weakShown);
  if (options.ranksFile !== undefined) writeRanks(options.ranksFile, ours);
}

/** A request no skill answers well, and what kind of weak it is (`off-topic`, `one word`). */
interface WeakQuery {
  readonly query: string;
  readonly kind: string;
}

function readWeakQueries(file: string): WeakQuery[] {
  const raw: unknown = JSON.parse(readFileSync(file, "utf8"));
  if (!Array.isArray(raw)) throw new Error(`${file}: expected a JSON array of weak queries`);
  return raw.map((item: unknown, position) => {
    const { query, kind } = (item ?? {}) as Record<string, unknown>;
    if (typeof query !== "string" || typeof kind !== "string") {
      throw new Error(`${file}: weak query #${position + 1} needs query and kind`);
    }
    return { query, kind };
  });
}

/**
 * The mean number of results the weak requests of each kind were shown, and of them all, with how many
 * were shown none; then each weak request shown some, since every line shown one is a false answer.
 */
function printWeakShown(weak: readonly WeakQuery[], shown: readonly number[]): void {
  const mean = (counts: readonly number[]) => counts.reduce((sum, count) => sum + count, 0) / counts.length;
  const summary = (counts: readonly number[]) =>
    `${mean(counts).toFixed(2)}, ${counts.filter((count) => count === 0).length} none`;
  const kinds = [...new Set(weak.map(({ kind }) => kind))];
  const parts = kinds.map((kind) => {
    const counts = shown.filter((_, at) => weak[at]?.kind === kind);
    return `${kind} (${counts.length}) ${summary(counts)}`;
  });
  console.log(
    `weak requests, mean results shown: all (${shown.length}) ${summary(shown)}; ${parts.join("; ")}`,
  );
  weak.forEach(({ query }, at) => {
    const count = shown[at] ?? 0;
    if (count > 0) console.log(`  ${String(count).padStart(2)} shown: ${query}`);
  });
}

/** The requests as the agent of `file` phrased them; a problem with the file is said with its name. */
function askedAs(file: string, labeled: readonly LabeledQuery[]): LabeledQuery[] {
  const agent = readAgentQueries(file);
  try {
    return askedByAgent(labeled, agent);
  } catch (error) {
    throw new Error(`${file}: ${errorMessage(error)}`);
  }
}

/** The requests, each with one typing mistake, and the mistake; the mistakes are listed on stderr. */
function mistyped(queries: readonly LabeledQuery[]): { query: LabeledQuery; mistake: Mistyped["word"] }[] {
  return queries.map((query) => {
    const { text, word } = withTypo(query.query, query.id);
    console.error(`${query.id}: ${word === undefined ? "no word to mistype" : `${word.from} → ${word.to}`}`);
    return { query: { ...query, query: text }, mistake: word };
  });
}

/**
 * A label naming a skill the service did not load (left out for a reason printed above, or misspelt)
 * can only be a miss. It is counted as one, as a user would meet it, and said aloud rather than
 * silently; the rest of the queries are still measured.
 */
function checkLabels(ids: readonly string[], everything: Scope): void {
  const unknown = [...new Set(ids.filter((id) => everything.findSkill(id).kind !== "found"))];
  if (unknown.length === 0) return;
  console.error(`labels naming skills that are not served (counted as misses): ${unknown.join(", ")}`);
}

async function listSkills(client: Client, query: string): Promise<string> {
  const result = (await client.callTool({ name: "list_skills", arguments: { query } })) as CallToolResult;
  const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
  if (result.isError) throw new Error(`list_skills failed for "${query}": ${text}`);
  return text;
}

/**
 * Maps each `name: description` line of a listing to the ids it stands for: `<pack>/<name>`, and the
 * copies of that skill in other packs, which the line names as "(also in …)". Hint lines name no skill.
 */
function resultIds(answer: string, everything: Scope): string[][] {
  const results: string[][] = [];
  for (const line of answer.split("\n")) {
    const colon = line.indexOf(": ");
    if (colon <= 0) continue;
    const lookup = everything.findSkill(line.slice(0, colon));
    if (lookup.kind !== "found") continue;
    const { skill } = lookup;
    results.push([skill.id, ...everything.copiesOf(skill).map((copy) => copy.id)]);
  }
  return results;
}

function printTable(systems: [string, [string, Metrics][]][]): void {
  const columns = ["recall@1", "recall@3", "recall@10", "MRR", "nDCG@10", "shown"];
  console.log(
    `${"system".padEnd(14)} ${"queries".padEnd(16)} ${columns.map((name) => name.padStart(9)).join(" ")}`,
  );
  for (const [system, rows] of systems) {
    for (const [difficulty, metrics] of rows) {
      const label = `${difficulty} (${metrics.queries})`;
      const { recallAt1, recallAt3, recallAt10, mrr, ndcgAt10, shown } = metrics;
      const numbers = [recallAt1, recallAt3, recallAt10, mrr, ndcgAt10, shown]
        .map((value) => value.toFixed(2).padStart(9))
        .join(" ");
      console.log(`${system.padEnd(14)} ${label.padEnd(16)} ${numbers}`);
    }
  }
}

function printMisses(system: string, outcomes: readonly Outcome[]): void {
  const misses = outcomes.filter(({ rank }) => rank !== 1);
  console.log(`\n${system}: ${misses.length} not ranked first`);
  for (const { query, rank, first } of misses) {
    const where = rank === undefined ? "not in top 10" : `rank ${rank}`;
    console.log(
      `  ${query.id} ${query.difficulty.padEnd(10)} ${query.expected.join(", ")}: ${where}; first ${first ?? "nothing"}`,
    );
  }
}
