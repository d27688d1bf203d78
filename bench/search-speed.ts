/**
 * Times the search index on a synthetic catalog: index build time (wall and CPU, SKILL.md read from disk
 * as at startup) and the memory the index holds, and p50/p99 latency of `search` in process, for short,
 * sentence-long and long requests, over the whole catalog and within one pack (a cached ceiling, and a
 * scope narrowed anew per call as list_skills(pack) does), and for requests with a word mistyped (read
 * as a word one mistake away, see SkillIndex).
 *
 *   npm run bench:search-speed -- [skills=10000] [queries=3000]
 */
import { tolerateClosedOutput } from "../scripts/closed-output.js";
import { errorMessage } from "../src/shared/index.js";
import { readCommandLine, wholeNumbersOrExit } from "./command-line.js";

const COMMAND = {
  name: "bench:search-speed",
  usage: "usage: npm run bench:search-speed -- [skills=10000] [queries=3000]",
};

// "--help" was read as a count of skills (NaN), and the run failed later with "No valid skill in /tmp/…".
const { positionals } = readCommandLine(COMMAND, {}, 2);
const [skills = 10_000, queries = 3000] = wholeNumbersOrExit(COMMAND, positionals, 2);
tolerateClosedOutput();
// Loaded only now, so that --help and a mistaken command line skip the catalog and search modules.
const { main } = await import("./search-speed-run.js");
main(skills, queries).catch((error: unknown) => {
  console.error(errorMessage(error));
  process.exit(1);
});
