/**
 * Compares the html-comment rule's reading of Markdown with the commonmark reference renderer on generated
 * documents, and prints how many lines with a comment the renderer hides the rule missed, and how many it
 * flagged where the renderer shows every comment. Asserts nothing.
 *
 *   npm install --no-save commonmark@0.31.2   (not a dependency: the measure alone needs it)
 *   npx tsx bench/audit-commonmark.ts [--count 40000] [--seed 1] [--tabs] [--deep] [--wide] [--uneven] [--misses FILE] [--flags FILE]
 *
 * Each document is 3 to 10 lines: blank, or 0 to 8 spaces, 0 to 3 list item or quote markers, then a
 * paragraph of words, backtick runs and comments, a heading, a fence, HTML, a break or one more marker and a
 * paragraph. With `--tabs`, a marker may be followed by a tab, and a line indented by one or two tabs before
 * its spaces. With `--deep`, up to five markers a line, of more kinds (`1) `, `-` alone, `* * `, `- -`,
 * `>  > `), indentations up to 12 columns, and more breaks and HTML (`- - -`, `___`, `<details>`, `<?x`,
 * `<script>`). With `--wide`, each document repeats one run of markers six to fourteen times at the start
 * of its lines (`>`, `> `, `- `, `1. `, `- > `, `>  `…; past the eight a line's markers are read one by
 * one, see docs/audit.md), on some lines fewer times, or as white space as wide as any part of it, with a
 * quote's `>` and two spaces before blocks too (`>  # x`). With `--uneven`, each document opens with a run of
 * 8 to 10 `- `, `> ` or `1. ` and then 2 to 6 markers of uneven, wide text offsets (`-    `, `12345.  `,
 * `123456789.    `, `>   `: text up to 14 columns past its marker), the groups past the eighth whose
 * columns the audit does not keep; the lines after are comments at 0 to 49 columns, blank lines, fences,
 * list items, text, or the run again. Every comment is numbered: the renderer hides one it writes as is,
 * and shows one it escapes. `--misses` writes the documents with a miss, each with the renderer's HTML;
 * `--flags`, those with a line flagged where the renderer shows every comment.
 */
import { tolerateClosedOutput } from "../scripts/closed-output.js";
import { UsageError } from "../src/shared/index.js";
import { readCommandLine, wholeNumber } from "./command-line.js";

const COMMAND = {
  name: "bench:audit-commonmark",
  usage:
    "usage: npx tsx bench/audit-commonmark.ts [--count 40000] [--seed 1] [--tabs] [--deep] [--wide] [--uneven] [--misses FILE] [--flags FILE]",
};

tolerateClosedOutput();
// Node's own words, for an unknown option: "Unknown option '--x'. To specify a positional argument …".
const { values } = readCommandLine(COMMAND, {
  count: { type: "string", default: "40000" },
  seed: { type: "string", default: "1" },
  tabs: { type: "boolean", default: false },
  deep: { type: "boolean", default: false },
  wide: { type: "boolean", default: false },
  uneven: { type: "boolean", default: false },
  misses: { type: "string" },
  flags: { type: "string" },
});
const count = wholeNumber(COMMAND, "--count", values.count);
const seed = wholeNumber(COMMAND, "--seed", values.seed, 0);
// Loaded only now, so that --help and a mistaken command line skip the audit's modules.
const { main } = await import("./audit-commonmark-run.js");
try {
  main({ ...values, count, seed });
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  process.stderr.write(`${COMMAND.name}: ${error.message}\n${COMMAND.usage}\n`);
  process.exitCode = 2;
}
