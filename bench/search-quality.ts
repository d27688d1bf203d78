/**
 * Measures how well `list_skills(query)` finds the right skill: serves a corpus, asks each labeled request
 * through the real MCP tool, and prints recall@1, @3, @10, MRR, nDCG@10 and the mean number of results
 * shown, overall and per difficulty, beside the peer baseline (SQLite FTS5 BM25 over name and
 * description), then the misses; then how many results weak requests get (bench/queries/weak.json:
 * requests about things the corpus does not cover, and single common words), where fewer is better.
 *
 *   npm run bench:search -- <corpus folder> <queries.json> [--typos] [--asked-by <agent queries.json>]
 *     [--ranking <key=number,...>] [--ranks <out.json>] [--weak <weak queries.json>]
 *
 * With --typos, each request is asked with one typing mistake in one of its words (see typos.ts). With
 * --asked-by, each request is asked as an agent phrased its query (see asked-by-agent.ts). --ranking
 * changes numbers of the shipped ranking, to try them (see ranking-overrides.ts); --ranks writes where
 * each request's right skill ranked, for `npm run bench:compare-ranks` (see ranks.ts).
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { tolerateClosedOutput } from "../scripts/closed-output.js";
import type { RankingOptions } from "../src/search/index.js";
import { errorMessage } from "../src/shared/index.js";
import { readCommandLine, refuse } from "./command-line.js";

/** Requests no skill of the bench corpus answers well: see readWeakQueries in search-quality-run.ts. */
const WEAK_QUERIES = fileURLToPath(new URL("queries/weak.json", import.meta.url));

const COMMAND = {
  name: "bench:search",
  usage:
    "usage: npm run bench:search -- <corpus folder> <queries.json> [--typos] [--asked-by <file>] [--ranking <key=number,...>] [--ranks <out.json>] [--weak <file>]",
};

function exitWithUsage(problem: string): never {
  return refuse(COMMAND, problem);
}

const OPTIONS = {
  typos: { type: "boolean", default: false },
  "asked-by": { type: "string" },
  ranking: { type: "string" },
  ranks: { type: "string" },
  weak: { type: "string" },
} as const;

/** The arguments and options, checked as far as they can be without the search modules. */
function readArguments() {
  // Node's own text told how to place a positional after `--`, not which options there are.
  const { values, positionals } = readCommandLine(COMMAND, OPTIONS, Number.POSITIVE_INFINITY);
  const [corpus, queriesFile, ...extra] = positionals;
  // The usage alone left the reader to find which was missing.
  if (corpus === undefined) return exitWithUsage("give the corpus folder and the queries file");
  if (queriesFile === undefined)
    return exitWithUsage(`give the queries file after the corpus folder ${corpus}`);
  if (extra.length > 0) return exitWithUsage(`unexpected argument: ${extra.join(" ")}`);
  for (const option of ["asked-by", "ranks", "weak"] as const) {
    if (values[option] === "") return exitWithUsage(`--${option} needs a file`);
  }
  if (values.ranking?.trim() === "") return exitWithUsage("--ranking needs key=number settings");
  if (values.ranks !== undefined && !existsSync(path.dirname(path.resolve(values.ranks)))) {
    return exitWithUsage(`--ranks ${values.ranks}: its folder does not exist`);
  }
  return { corpus, queriesFile, values };
}

const { corpus, queriesFile, values } = readArguments();
// Loaded only now, so that --help and a mistaken command line skip the server, the SDK and the search.
const [{ main }, { rankingWith }] = await Promise.all([
  import("./search-quality-run.js"),
  import("./ranking-overrides.js"),
]);
let ranking: RankingOptions;
try {
  ranking = rankingWith(values.ranking ?? "");
} catch (error) {
  exitWithUsage(errorMessage(error));
}
tolerateClosedOutput();
main(corpus, queriesFile, {
  typos: values.typos,
  askedBy: values["asked-by"],
  ranking,
  ranksFile: values.ranks,
  weakFile: values.weak ?? WEAK_QUERIES,
}).catch((error: unknown) => {
  console.error(`bench:search: ${errorMessage(error)}`);
  process.exit(1);
});
