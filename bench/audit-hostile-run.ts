/** The work of `npm run bench:audit` (see audit-hostile.ts), loaded once its command line is read. */
import { auditFile } from "../src/audit/index.js";
import type { HostileText } from "./hostile-text.js";

const MIB = 1024 * 1024;

/** Times the audit of each text at each size (MiB) of `sizes`. */
export function main(texts: readonly HostileText[], sizes: readonly number[]): void {
  console.log(`Audit of one hostile file, Node ${process.version}: seconds, and milliseconds per MiB\n`);
  console.log(`| Text | ${sizes.map((size) => `${size} MiB`).join(" | ")} | findings |`);
  console.log(`|---|${sizes.map(() => "---:|").join("")}---:|`);
  for (const { name, path, make, latin1 } of texts) {
    const cells: string[] = [];
    let findings = 0;
    for (const size of sizes) {
      const text = make(size * MIB);
      const bytes = latin1 ? Buffer.from(text, "latin1") : new TextEncoder().encode(text);
      const started = performance.now();
      findings = auditFile(path, bytes).length;
      const ms = performance.now() - started;
      cells.push(`${(ms / 1000).toFixed(2)} s (${(ms / (bytes.length / MIB)).toFixed(0)} ms/MiB)`);
    }
    console.log(`| ${name} | ${cells.join(" | ")} | ${findings} |`);
  }
}
