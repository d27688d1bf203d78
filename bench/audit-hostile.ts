/**
 * Times the audit of one hostile file (see hostile-text.ts) at growing sizes, to show that each rule's
 * cost grows linearly with its input: the time per MiB stays about flat from one size to the next, where
 * a quadratic rule's would grow with the size. Prints a Markdown table; asserts nothing.
 *
 *   npm run bench:audit -- [--sizes 1,4,16] [--only NAME]
 *
 * `--sizes` in MiB (of characters); `--only` keeps the texts whose name holds NAME.
 */
import { tolerateClosedOutput } from "../scripts/closed-output.js";
import { numberAbove0, readCommandLine, refuse } from "./command-line.js";
import { HOSTILE_TEXTS } from "./hostile-text.js";

const COMMAND = {
  name: "bench:audit",
  usage: "usage: npm run bench:audit -- [--sizes 1,4,16] [--only NAME]",
};

tolerateClosedOutput();
const { values } = readCommandLine(COMMAND, {
  sizes: { type: "string", default: "1,4,16" },
  only: { type: "string" },
});
const sizes = values.sizes.split(",").map((size) => numberAbove0(COMMAND, "--sizes", size));
const texts = HOSTILE_TEXTS.filter((text) => values.only === undefined || text.name.includes(values.only));
if (texts.length === 0) refuse(COMMAND, `--only: no text is named like "${values.only}"`);
// Loaded only now, so that --help and a mistaken command line skip the audit's modules.
const { main } = await import("./audit-hostile-run.js");
main(texts, sizes);
