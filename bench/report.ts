/** The benchmark's results as Markdown tables and JSON, and the generated part of docs/performance.md. */
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { type HostileRow, hostileTable } from "./hostile.js";
import { ROOT } from "./processes.js";
import type { SavedIndexStart, ScaleRow } from "./scale.js";
import type { ThroughputReport, ThroughputRow } from "./throughput.js";
import type { TokenRow } from "./tokens.js";

export interface Machine {
  readonly cpu: string;
  readonly cores: number;
  readonly memoryGiB: number;
  readonly node: string;
  readonly os: string;
  readonly date: string;
  readonly commit: string;
}

export interface BenchResults {
  readonly machine: Machine;
  readonly seconds: number;
  readonly throughput?: ThroughputReport & { readonly catalog: string };
  readonly scale?: readonly ScaleRow[];
  readonly tokens?: readonly TokenRow[];
  readonly hostile?: {
    readonly rows: readonly HostileRow[];
    readonly capSeconds: number;
    /** The build compared against, when `--compare` was given. */
    readonly baseline?: string;
  };
}

export function describeMachine(): Machine {
  const cpus = os.cpus();
  return {
    cpu: cpus[0]?.model.trim() ?? "unknown",
    cores: cpus.length,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
    node: process.version,
    os: `${os.type()} ${os.release()}`,
    date: new Date().toISOString(),
    commit: gitCommit(),
  };
}

function gitCommit(): string {
  try {
    const commit = execFileSync("git", ["rev-parse", "--short", "HEAD"], {
      cwd: ROOT,
      encoding: "utf8",
    }).trim();
    // Only what is measured counts: a run that rewrites docs/performance.md is still of this commit.
    const measured = ["src", "bench", "scripts", "package.json", "package-lock.json", "tsconfig.build.json"];
    const dirty = execFileSync("git", ["status", "--porcelain", "--", ...measured], {
      cwd: ROOT,
      encoding: "utf8",
    }).trim();
    return dirty ? `${commit} (with uncommitted changes)` : commit;
  } catch {
    return "unknown";
  }
}

/** A part of the results, each printed as a section of its own (`### …`). */
type Section = Exclude<keyof BenchResults, "machine" | "seconds">;

/** How each section's heading begins, in the order the bench prints them. */
const HEADINGS: Readonly<Record<Section, string>> = {
  throughput: "### Throughput and latency",
  scale: "### Scale",
  tokens: "### Tokens",
  hostile: "### Hostile corpus",
};

export function formatMarkdown(results: BenchResults): string {
  return [measuredLine(results), ...sectionsOf(results).map(({ text }) => text)].join("\n\n");
}

function measuredLine({ machine, seconds }: BenchResults): string {
  return (
    `Measured ${machine.date.slice(0, 10)} on ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, ` +
    `${machine.os}, Node ${machine.node}; commit ${machine.commit}; the bench took ${Math.round(seconds)} s.`
  );
}

function sectionsOf(results: BenchResults): { readonly section: Section; readonly text: string }[] {
  const sections: { section: Section; text: string }[] = [];
  if (results.throughput) sections.push({ section: "throughput", text: throughputTable(results.throughput) });
  if (results.scale) sections.push({ section: "scale", text: scaleTable(results.scale) });
  if (results.tokens) sections.push({ section: "tokens", text: tokensTable(results.tokens) });
  if (results.hostile) {
    const { rows, capSeconds, baseline } = results.hostile;
    sections.push({ section: "hostile", text: hostileTable(rows, capSeconds, baseline) });
  }
  return sections;
}

function throughputTable(report: ThroughputReport & { readonly catalog: string }): string {
  const before = report.baseline;
  const control = report.rows.some((row) => row.control !== undefined);
  const lines = [
    `### Throughput and latency: ${report.catalog}`,
    "",
    "| era | request | answer | conns | server req/s | ceiling req/s | ratio | p50 ms | p99 ms | ceiling p50 / p99 ms | CPU µs/req server / ceiling | errors / non-2xx |" +
      (before ? ` ${before} req/s | ${before} ratio | ${before} p50 / p99 ms | ${before} CPU µs/req |` : "") +
      (control ? " control req/s | control ratio | control CPU µs/req |" : ""),
    `|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|${before ? "---:|---:|---:|---:|" : ""}${control ? "---:|---:|---:|" : ""}`,
  ];
  for (const row of report.rows) {
    const { server, ceiling, baseline } = row;
    lines.push(
      `| ${row.era} | ${row.label} | ${kib(row.responseBytes)} | ${row.connections} | ${whole(server.requestsPerSecond)} | ` +
        `${whole(ceiling.requestsPerSecond)} | ${percent(row.ratio)} | ${ms(server.p50Ms)} | ${ms(server.p99Ms)} | ` +
        `${ms(ceiling.p50Ms)} / ${ms(ceiling.p99Ms)} | ${micros(server)} / ${micros(ceiling)} | ` +
        `${server.errors} / ${server.non2xx} |` +
        (baseline
          ? ` ${whole(baseline.requestsPerSecond)} | ${percent(baseline.ratio)} | ` +
            `${ms(baseline.p50Ms)} / ${ms(baseline.p99Ms)} | ${micros(baseline)} |`
          : before
            ? " – | – | – | – |"
            : "") +
        (row.control
          ? ` ${whole(row.control.requestsPerSecond)} | ${percent(row.control.ratio)} | ${micros(row.control)} |`
          : control
            ? " – | – | – |"
            : ""),
    );
  }
  const memory = report.serverResidentBytes;
  const sides = ["ceiling", ...(before ? [before] : []), ...(control ? ["control"] : []), "server"];
  lines.push(
    "",
    `Ratio: server req/s over ceiling req/s, each row taken in three turns, in the order ${sides.join(", ")} in the run's even turns ` +
      "and the reverse in its odd ones. " +
      "CPU µs/req: the answering process's CPU time (all threads) over its requests. Every request has a " +
      "new id. A build compared against (`--compare`) is measured in the 2025 era only when it does not speak 2026-07-28." +
      (control
        ? " Control (`--control`): a second copy of this build, another process measured in the same turns."
        : ""),
    ...spreadLines(report.rows, before),
    "",
    `Server resident memory: ${mib(memory.afterStart)} MiB after start, ${mib(memory.afterLoad)} MiB after the load.` +
      startOrderSentence(report),
  );
  return lines.join("\n");
}

/**
 * The order the servers started in: one order when they started once (or the rows do not record theirs),
 * else each order with the count of rows measured on servers started in it.
 */
function startOrderSentence(report: ThroughputReport): string {
  const counts = new Map<string, number>();
  for (const { startOrder } of report.rows) {
    if (startOrder !== undefined)
      counts.set(startOrder.join(", "), (counts.get(startOrder.join(", ")) ?? 0) + 1);
  }
  if (counts.size > 1) {
    const orders = [...counts].map(([order, rows]) => `${order} for ${rows} ${rows === 1 ? "row" : "rows"}`);
    return ` Servers started anew for each request at each connection count, in the order ${orders.join("; ")}.`;
  }
  const [only] = counts.keys();
  const order = only ?? report.startOrder?.join(", ");
  return order === undefined ? "" : ` Servers started in this order: ${order}.`;
}

/**
 * What the control and the build compared against cost in CPU µs/req over this build, across the rows:
 * the control's range is what two copies of one build differ by in this run, the noise a comparison's
 * difference must stand clear of.
 */
function spreadLines(rows: readonly ThroughputRow[], before: string | undefined): string[] {
  const control = cpuSpread(rows, (row) => row.control);
  if (control === undefined) return [];
  const compared = before === undefined ? undefined : cpuSpread(rows, (row) => row.baseline);
  return [
    "",
    `CPU µs/req over this build's, row by row: the control ${describeSpread(control)}` +
      (compared && before ? `; ${before} ${describeSpread(compared)}` : "") +
      ". A difference within the control's range is one two copies of the same build show.",
  ];
}

export interface Spread {
  readonly least: number;
  readonly median: number;
  readonly most: number;
}

/** Each row's CPU µs/req of `other` over this build's, less one (0.05: 5% dearer); none when not measured. */
export function cpuSpread(
  rows: readonly ThroughputRow[],
  other: (row: ThroughputRow) => { readonly cpuMicrosPerRequest?: number } | undefined,
): Spread | undefined {
  const differences = rows
    .flatMap((row) => {
      const theirs = other(row)?.cpuMicrosPerRequest;
      const ours = row.server.cpuMicrosPerRequest;
      return theirs === undefined || ours === undefined || ours <= 0 ? [] : [theirs / ours - 1];
    })
    .sort((a, b) => a - b);
  const least = differences[0];
  const most = differences.at(-1);
  if (least === undefined || most === undefined) return undefined;
  const middle = differences.length / 2;
  const median =
    differences.length % 2 === 1
      ? (differences[Math.floor(middle)] ?? least)
      : ((differences[middle - 1] ?? least) + (differences[middle] ?? most)) / 2;
  return { least, median, most };
}

function describeSpread({ least, median, most }: Spread): string {
  return `${signedPercent(least)} to ${signedPercent(most)} (median ${signedPercent(median)})`;
}

function scaleTable(rows: readonly ScaleRow[]): string {
  const compared = rows.some((row) => row.savedIndexBaseline !== undefined);
  const lines = [
    "### Scale: synthetic catalogs",
    "",
    "| skills | packs | ready ms | Node + imports | catalog load | inspection | index build | app + listen | first tools/list / list_packs ms | RSS after start | RSS after load | query p50 / p99 ms | mixed load req/s | tools/list | list_packs |",
    "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const row of rows) {
    const split = row.startup;
    lines.push(
      `| ${row.skills} | ${row.packs} | ${whole(row.readyMs)} | ${part(split?.importMs)} | ${part(split?.catalogMs)} | ` +
        `${part(split?.inspectionMs)} | ${part(split?.indexMs)} | ${part(split?.listenMs)} | ` +
        `${whole(row.firstCalls.toolsListMs)} / ${whole(row.firstCalls.listPacksMs)} | ${mib(row.residentAfterStartBytes)} MiB | ` +
        `${mib(row.residentAfterLoadBytes)} MiB | ${ms(row.query.p50Ms)} / ${ms(row.query.p99Ms)} | ` +
        `${whole(row.mixedLoad.requestsPerSecond)} | ${kib(row.toolsListBytes)} (${row.toolsListTokens} tok) | ` +
        `${kib(row.listPacksBytes)} (${row.listPacksTokens} tok) |`,
    );
  }
  lines.push(
    "",
    "Ready: spawn to the first 200 of `/health`; the split is the server's own `ready` log line (ms). " +
      "Inspection: every skill's files read, hashed (SHA-256) and audited, for the Skills extension's entries. " +
      "First calls: the first `tools/list` and `list_packs` right after ready, end to end; the server works out its previews " +
      "after it listens, and a call that comes first tallies what is left (load shedding is off in this part, so that " +
      "such a stall is timed, not refused). " +
      "Query: `list_skills(query)` end to end over HTTP, one at a time, synthetic requests of 1 to 35 words. " +
      "Mixed load: every tool at 16 connections, before the second memory reading.",
    "",
    "**On a saved index** (`--build-index`, which the image build runs): the same catalogs, started again " +
      "after saving the index into the skills folder. First tools/list: sent right at ready, end to end.",
    "",
    "| skills | --build-index ms | of it, inspection | saved index | ready ms | Node + imports | catalog load | inspection | index load | app + listen | RSS after start | first tools/list ms |" +
      (compared ? " started |" : ""),
    `|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|${compared ? "---|" : ""}`,
  );
  for (const { skills, savedIndex, savedIndexBaseline, savedIndexStartOrder } of rows) {
    const started = (build: string) => (compared ? ` ${ordinal(savedIndexStartOrder, build)} |` : "");
    lines.push(savedIndexRow(`${skills}`, savedIndex) + started("server"));
    if (savedIndexBaseline) {
      lines.push(
        savedIndexRow(`${skills}, ${savedIndexBaseline.build}`, savedIndexBaseline) +
          started(savedIndexBaseline.build),
      );
    }
  }
  if (compared) {
    lines.push(
      "",
      "Started: which of the two builds started first on that size's saved index, the other right after it " +
        "(`--start-order`; alternating by size unless it says otherwise).",
    );
  }
  return lines.join("\n");
}

function savedIndexRow(label: string, savedIndex: SavedIndexStart): string {
  const split = savedIndex.startup;
  return (
    `| ${label} | ${whole(savedIndex.saveMs)} | ${part(savedIndex.saveInspectionMs)} | ${mib(savedIndex.bytes)} MiB | ` +
    `${whole(savedIndex.readyMs)} | ${part(split?.importMs)} | ${part(split?.catalogMs)} | ` +
    `${part(split?.inspectionMs)} | ${part(split?.indexMs)} | ${part(split?.listenMs)} | ` +
    `${mib(savedIndex.residentAfterStartBytes)} MiB | ${whole(savedIndex.firstToolsListMs)} |`
  );
}

/** Whether `build` started first or second in `order`; "–" where the order was not recorded. */
function ordinal(order: readonly string[] | undefined, build: string): string {
  return ["1st", "2nd"][order?.indexOf(build) ?? -1] ?? "–";
}

function part(value: number | undefined): string {
  return value === undefined || Number.isNaN(value) ? "–" : `${value}`;
}

function tokensTable(rows: readonly TokenRow[]): string {
  const lines = [
    "### Tokens (o200k), as `npm run tokens` counts them",
    "",
    "| catalog | skills | packs | tools/list | instructions | list_packs | list_skills(pack) median | list_skills(pack) max |",
    "|---|---:|---:|---:|---:|---:|---:|---:|",
  ];
  for (const row of rows) {
    lines.push(
      `| ${row.catalog} | ${row.skills} | ${row.packs} | ${row.toolsList} | ${row.instructions} | ${row.listPacks} | ` +
        `${row.listSkillsPackMedian} | ${row.listSkillsPackMax} |`,
    );
  }
  return lines.join("\n");
}

export function writeJson(file: string, results: BenchResults): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
}

const BEGIN = "<!-- bench:begin (written by npm run bench -- --update-docs) -->";
const END = "<!-- bench:end -->";

/**
 * Rewrites, in the generated part of docs/performance.md (or `file`), the sections `results` measured,
 * and returns the file's path. The sections of parts not run are kept as written: a run of `--only tokens`
 * dropped the throughput and scale tables. Each kept section then says when it was measured, in the line
 * that said it for the whole part (`Measured … on …`), which now tells of this run.
 */
export function updateDocs(results: BenchResults, file = path.join(ROOT, "docs/performance.md")): string {
  const text = readFileSync(file, "utf8");
  const begin = text.indexOf(BEGIN);
  const end = text.indexOf(END);
  if (begin < 0 || end < begin) throw new Error(`${file} lacks the ${BEGIN} … ${END} markers`);
  const part = updatedPart(text.slice(begin + BEGIN.length, end), results);
  writeFileSync(file, `${text.slice(0, begin + BEGIN.length)}\n${part}\n${text.slice(end)}`);
  return file;
}

/** The generated part `written` with the sections of `results` in place of theirs, the others kept. */
function updatedPart(written: string, results: BenchResults): string {
  const [top = "", ...sections] = written
    .trim()
    .split(/^(?=### )/m)
    .map((chunk) => chunk.trim());
  const fresh = sectionsOf(results);
  const freshFor = (chunk: string) => fresh.find(({ section }) => chunk.startsWith(HEADINGS[section]));
  const kept = sections.filter((chunk) => freshFor(chunk) === undefined);
  if (kept.length === 0) return formatMarkdown(results);
  // The top line told when every section was measured; a kept one without a line of its own takes it.
  const earlier = top.startsWith("Measured ") ? top : "";
  const updated = sections.map((chunk) => freshFor(chunk)?.text ?? withMeasuredLine(chunk, earlier));
  const added = fresh
    .filter(({ section }) => !sections.some((chunk) => chunk.startsWith(HEADINGS[section])))
    .map(({ text }) => text);
  return [measuredLine(results), ...updated, ...added].join("\n\n");
}

/** `section` with `line` below its heading, unless it has a Measured line of its own or `line` is empty. */
function withMeasuredLine(section: string, line: string): string {
  const [heading = "", ...rest] = section.split("\n\n");
  if (line === "" || rest[0]?.startsWith("Measured ") === true) return section;
  return [heading, line, ...rest].join("\n\n");
}

const whole = (value: number) => (Number.isFinite(value) ? Math.round(value).toString() : "–");
const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(value < 10 ? 2 : 1) : "–");
const micros = (result: { cpuMicrosPerRequest?: number }) =>
  result.cpuMicrosPerRequest === undefined ? "–" : Math.round(result.cpuMicrosPerRequest).toString();
const percent = (value: number) => `${Math.round(value * 100)}%`;
const signedPercent = (value: number) => {
  const rounded = Math.round(value * 100);
  return `${rounded < 0 ? "−" : "+"}${Math.abs(rounded)}%`;
};
const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
const kib = (bytes: number) => (bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KiB`);
