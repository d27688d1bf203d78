/**
 * What the repin review's line count (countLineChanges) holds for one pair of large files whose lines all
 * differ: two texts of `--mib` MiB each of distinct lines of `--width` characters. Prints the counts, the
 * heap and array memory the count left allocated (before any collection) and its time. Asserts nothing.
 *
 *   node --expose-gc --import tsx bench/line-count-memory.ts [--mib 16] [--width 10] [--root <checkout>]
 *
 * `--root` counts with another checkout's diff.ts: a before and after in one command.
 */
import path from "node:path";
import { pathToFileURL } from "node:url";
import type { LineChanges } from "../scripts/repin-review/diff.js";
import { numberAbove0, readCommandLine, wholeNumber } from "./command-line.js";
import { ROOT } from "./processes.js";

const COMMAND = {
  name: "bench/line-count-memory",
  usage:
    "usage: node --expose-gc --import tsx bench/line-count-memory.ts [--mib 16] [--width 10] [--root <checkout>]",
};
const { values } = readCommandLine(COMMAND, {
  mib: { type: "string", default: "16" },
  width: { type: "string", default: "10" },
  root: { type: "string", default: ROOT },
});
const bytes = numberAbove0(COMMAND, "--mib", values.mib) * 1024 * 1024;
const width = wholeNumber(COMMAND, "--width", values.width);
const diff = pathToFileURL(path.join(path.resolve(values.root), "scripts/repin-review/diff.ts")).href;
const { countLineChanges } = (await import(diff)) as {
  countLineChanges: (before: string, after: string) => LineChanges;
};

/** `bytes` of lines of `width` characters, each distinct, none shared with a text of another `mark`. */
function text(mark: string): string {
  const lines: string[] = [];
  let size = 0;
  for (let line = 0; size < bytes; line++) {
    lines.push(`${mark}${line}`.padEnd(width - 1, "x"));
    size += width;
  }
  // Joined, not concatenated: one flat string, as a file read is.
  return `${lines.join("\n")}\n`;
}

const before = text("a");
const after = text("b");
globalThis.gc?.();
const start = process.memoryUsage();
const started = performance.now();
const counted = countLineChanges(before, after);
const took = performance.now() - started;
const end = process.memoryUsage();
const mib = (value: number) => `${Math.round(value / 2 ** 20)} MiB`;
console.log(`${values.root}: 2 texts of ${values.mib} MiB, lines of ${width} characters`);
console.log(
  `${JSON.stringify(counted)}; heap and arrays: +${mib(end.heapUsed + end.external - start.heapUsed - start.external)}; ${Math.round(took)} ms`,
);
