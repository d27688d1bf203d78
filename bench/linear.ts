/**
 * Times, in this process, each rule that reads text an attacker may write (skill files, skills.toml,
 * requests, git output) on inputs built to make it superlinear, at sizes that double: a ratio near 2 from
 * one size to the next is linear, near 4 quadratic. The inputs repeat what a rule starts to match and never
 * let it finish (a run of slashes then a letter, quotes, marks, keys on their own lines). Request rules are
 * fed past the tools' argument limits (1,000 characters), to show the rule's own cost. Prints a Markdown
 * table; asserts nothing. The audit's hostile files have their own bench (`npm run bench:audit`).
 *
 *   npm run bench:linear -- [--sizes 64,128,256,512,1024] [--only NAME] [--cap-ms 3000]
 *
 * `--sizes` in KiB (of characters); `--only` keeps the cases whose name holds NAME; a step over `--cap-ms`
 * is shown as over it and the larger sizes of that case are not run, so the bench ends in bounded time.
 */
import { tolerateClosedOutput } from "../scripts/closed-output.js";
import { numberAbove0, readCommandLine, refuse } from "./command-line.js";

const COMMAND = {
  name: "bench:linear",
  usage: "usage: npm run bench:linear -- [--sizes 64,128,256,512,1024] [--only NAME] [--cap-ms 3000]",
};

tolerateClosedOutput();
const { values } = readCommandLine(COMMAND, {
  sizes: { type: "string", default: "64,128,256,512,1024" },
  only: { type: "string" },
  "cap-ms": { type: "string", default: "3000" },
});
const sizes = values.sizes.split(",").map((size) => numberAbove0(COMMAND, "--sizes", size));
const capMs = numberAbove0(COMMAND, "--cap-ms", values["cap-ms"]);
// Loaded only now, so that --help and a mistaken command line skip the rules' modules.
const { casesNamedLike, main } = await import("./linear-run.js");
const cases = casesNamedLike(values.only);
if (cases.length === 0) refuse(COMMAND, `--only: no case is named like "${values.only}"`);
main(cases, sizes, capMs);
