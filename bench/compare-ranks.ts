/**
 * Compares two runs of `npm run bench:search -- … --ranks <file>` request by request: how many requests
 * the second ranks higher, how many lower, and which.
 *
 *   npm run bench:compare-ranks -- <before.json[,more.json…]> <after.json[,more.json…]>
 *
 * Files joined by commas are taken together (say, the three query sets of one run); ids must not repeat.
 */
import { tolerateClosedOutput } from "../scripts/closed-output.js";
import { type Ranks, rankChanges, readRanks } from "./ranks.js";

function readAll(files: string): Ranks {
  const ranks = new Map<string, number | null>();
  const names = files.split(",");
  if (names.some((name) => name.trim() === "")) throw new Error(`an empty file name in "${files}"`);
  for (const file of names) {
    for (const [id, rank] of readRanks(file)) {
      if (ranks.has(id)) throw new Error(`${file}: request ${id} is in an earlier file too`);
      ranks.set(id, rank);
    }
  }
  return ranks;
}

/** What is wrong with a command line that is not two files (or comma lists of files). */
function wrongArguments(option: string | undefined, extra: readonly string[]): string {
  if (option !== undefined) return `unknown option ${option}; valid: --help (-h)`;
  if (extra.length > 0) return `two files (or comma lists of files) only; also given: ${extra.join(" ")}`;
  return "give the ranks before and the ranks after: two files (or comma lists of files)";
}

const USAGE = "usage: npm run bench:compare-ranks -- <before.json[,more.json…]> <after.json[,more.json…]>";

tolerateClosedOutput();
const args = process.argv.slice(2);
if (args.includes("--help") || args.includes("-h")) {
  console.log(USAGE);
  process.exit(0);
}
const [before, after, ...extra] = args;
const option = args.find((arg) => arg.startsWith("-"));
if (option !== undefined || before === undefined || after === undefined || extra.length > 0) {
  // It printed the usage alone, leaving the reader to find what was wrong.
  console.error(`bench:compare-ranks: ${wrongArguments(option, extra)}\n${USAGE}`);
  process.exit(2);
}
try {
  const { higher, lower, same } = rankChanges(readAll(before), readAll(after));
  console.log(
    `${higher.length} ranked higher, ${lower.length} lower, ${same} the same (a miss counts as 11th)`,
  );
  if (higher.length > 0) console.log(`higher: ${higher.join(", ")}`);
  if (lower.length > 0) console.log(`lower: ${lower.join(", ")}`);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
