/**
 * What telling files moved between skills costs the repin review's comparison of one pack (no fetch, no
 * render): writes `--skills` skills of `--files` supporting files each, and a new commit of the same
 * skills whose files are all removed and as many others added, and times comparePacks on them twice: once
 * with every added file unlike any old one (nothing to pair: the cost of looking), once with each an
 * edited copy of a file of another skill (every one moved). Prints the time and how many files each found
 * moved. Asserts nothing.
 *
 *   npx tsx bench/repin-review-moves.ts [--skills 2000] [--files 5]
 */
import { readCommandLine, wholeNumber } from "./command-line.js";

const COMMAND = {
  name: "bench/repin-review-moves",
  usage: "usage: npx tsx bench/repin-review-moves.ts [--skills 2000] [--files 5]",
};
const { values } = readCommandLine(COMMAND, {
  skills: { type: "string", default: "2000" },
  files: { type: "string", default: "5" },
});
const skills = wholeNumber(COMMAND, "--skills", values.skills);
const files = wholeNumber(COMMAND, "--files", values.files);
// Loaded only now, so that --help and a mistaken command line skip the review's and the catalog's modules.
const { main } = await import("./repin-review-moves-run.js");
await main(skills, files);
