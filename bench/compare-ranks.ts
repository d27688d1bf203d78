/**
 * Compares two runs of `npm run bench:search -- … --ranks <file>` request by request: how many requests
 * the second ranks higher, how many lower, and which.
 *
 *   npm run bench:compare-ranks -- <before.json[,more.json…]> <after.json[,more.json…]>
 *
 * Files joined by commas are taken together (say, the three query sets of one run); ids must not repeat.
 */
import { tolerateClosedOutput } from "../scripts/closed-output.js";
import { errorMessage } from "../src/shared/index.js";
import { readCommandLine, refuse } from "./command-line.js";
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

const COMMAND = {
  name: "bench:compare-ranks",
  usage: "usage: npm run bench:compare-ranks -- <before.json[,more.json…]> <after.json[,more.json…]>",
};

tolerateClosedOutput();
const { positionals } = readCommandLine(COMMAND, {}, Number.POSITIVE_INFINITY);
const [before, after, ...extra] = positionals;
// It printed the usage alone, leaving the reader to find what was wrong.
if (extra.length > 0) {
  refuse(COMMAND, `two files (or comma lists of files) only; also given: ${extra.join(" ")}`);
}
if (before === undefined || after === undefined) {
  refuse(COMMAND, "give the ranks before and the ranks after: two files (or comma lists of files)");
}
try {
  const { higher, lower, same } = rankChanges(readAll(before), readAll(after));
  console.log(
    `${higher.length} ranked higher, ${lower.length} lower, ${same} the same (a miss counts as 11th)`,
  );
  if (higher.length > 0) console.log(`higher: ${higher.join(", ")}`);
  if (lower.length > 0) console.log(`lower: ${lower.join(", ")}`);
} catch (error) {
  console.error(errorMessage(error));
  process.exit(1);
}
