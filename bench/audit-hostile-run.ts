/** The work of `npm run bench:audit` (see audit-hostile.ts), loaded once its command line is read. */
import { auditFile } from "../src/audit/index.js";
import type { HostileText } from "./hostile-text.js";

const MIB = 1024 * 1024;

/**
 * Times the audit of each text at each size (MiB) of `sizes`, in wall time and in CPU time: on a shared,
 * loaded machine the wall time varies with what else runs, the process's CPU time (its threads, garbage
 * collection among them) much less, so two runs compare by it.
 */
export function main(texts: readonly HostileText[], sizes: readonly number[]): void {
  console.log(
    `Audit of one hostile file, Node ${process.version}: seconds of wall time and of CPU time, and milliseconds of each per MiB\n`,
  );
  console.log(`| Text | ${sizes.map((size) => `${size} MiB`).join(" | ")} | findings |`);
  console.log(`|---|${sizes.map(() => "---:|").join("")}---:|`);
  for (const { name, path, make, latin1 } of texts) {
    const cells: string[] = [];
    let findings = 0;
    for (const size of sizes) {
      const text = make(size * MIB);
      const bytes = latin1 ? Buffer.from(text, "latin1") : new TextEncoder().encode(text);
      const mib = bytes.length / MIB;
      const started = performance.now();
      const cpuBefore = process.cpuUsage();
      findings = auditFile(path, bytes).length;
      const { user, system } = process.cpuUsage(cpuBefore);
      const ms = performance.now() - started;
      const cpuMs = (user + system) / 1000;
      cells.push(`${seconds(ms)} (${perMib(ms, mib)}), CPU ${seconds(cpuMs)} (${perMib(cpuMs, mib)})`);
    }
    console.log(`| ${name} | ${cells.join(" | ")} | ${findings} |`);
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

const perMib = (ms: number, mib: number) => `${(ms / mib).toFixed(0)} ms/MiB`;
