/**
 * Times the audit of one hostile file (see hostile-text.ts) at growing sizes, to show that each rule's
 * cost grows linearly with its input: the time per MiB stays about flat from one size to the next, where
 * a quadratic rule's would grow with the size. Prints a Markdown table; asserts nothing.
 *
 *   npm run bench:audit -- [--sizes 1,4,16] [--only NAME]
 *
 * `--sizes` in MiB (of characters); `--only` keeps the texts whose name holds NAME.
 */
import { parseArgs } from "node:util";
import { tolerateClosedOutput } from "../scripts/closed-output.js";
import { auditFile } from "../src/audit/index.js";
import { describeArgsError } from "../src/command-line.js";
import { HOSTILE_TEXTS } from "./hostile-text.js";

const MIB = 1024 * 1024;

const USAGE = "usage: npm run bench:audit -- [--sizes 1,4,16] [--only NAME]";

/** The command line is wrong: one line and the usage, exit 2. */
class UsageError extends Error {}

const OPTIONS = {
  sizes: { type: "string", default: "1,4,16" },
  only: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

function main(argv: readonly string[]): void {
  let values: { sizes: string; only?: string; help?: boolean };
  try {
    values = parseArgs({ args: [...argv], options: OPTIONS }).values;
  } catch (error) {
    throw new UsageError(describeArgsError(error, OPTIONS));
  }
  if (values.help) {
    console.log(USAGE);
    return;
  }
  const sizes = values.sizes.split(",").map((size) => {
    const mib = Number(size);
    if (!(mib > 0)) throw new UsageError(`--sizes: "${size}" is not a number of MiB above 0`);
    return mib;
  });
  const texts = HOSTILE_TEXTS.filter((text) => values.only === undefined || text.name.includes(values.only));
  if (texts.length === 0) throw new UsageError(`--only: no text is named like "${values.only}"`);
  console.log(`Audit of one hostile file, Node ${process.version}: seconds, and milliseconds per MiB\n`);
  console.log(`| Text | ${sizes.map((size) => `${size} MiB`).join(" | ")} | findings |`);
  console.log(`|---|${sizes.map(() => "---:|").join("")}---:|`);
  for (const { name, path, make } of texts) {
    const cells: string[] = [];
    let findings = 0;
    for (const size of sizes) {
      const bytes = new TextEncoder().encode(make(size * MIB));
      const started = performance.now();
      findings = auditFile(path, bytes).length;
      const ms = performance.now() - started;
      cells.push(`${(ms / 1000).toFixed(2)} s (${(ms / (bytes.length / MIB)).toFixed(0)} ms/MiB)`);
    }
    console.log(`| ${name} | ${cells.join(" | ")} | ${findings} |`);
  }
}

tolerateClosedOutput();
try {
  main(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  process.stderr.write(`bench:audit: ${error.message}\n${USAGE}\n`);
  process.exitCode = 2;
}
