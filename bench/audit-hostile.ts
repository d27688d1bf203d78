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
import { auditFile } from "../src/audit/index.js";
import { numberAbove0, readCommandLine, refuse } from "./command-line.js";
import { HOSTILE_TEXTS } from "./hostile-text.js";

const MIB = 1024 * 1024;

const COMMAND = {
  name: "bench:audit",
  usage: "usage: npm run bench:audit -- [--sizes 1,4,16] [--only NAME]",
};

function main(argv: readonly string[]): void {
  const { values } = readCommandLine(
    COMMAND,
    { sizes: { type: "string", default: "1,4,16" }, only: { type: "string" } },
    0,
    argv,
  );
  const sizes = values.sizes.split(",").map((size) => numberAbove0(COMMAND, "--sizes", size));
  const texts = HOSTILE_TEXTS.filter((text) => values.only === undefined || text.name.includes(values.only));
  if (texts.length === 0) refuse(COMMAND, `--only: no text is named like "${values.only}"`);
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
main(process.argv.slice(2));
