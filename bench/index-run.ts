/** The work of `npm run bench` (see index.ts), loaded once its command line is read. */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { buildBaseline, describeRef } from "./baseline.js";
import { EXAMPLES_DIR, syntheticCatalog } from "./catalogs.js";
import { measureHostile } from "./hostile.js";
import { type BenchResults, describeMachine, formatMarkdown, updateDocs, writeJson } from "./report.js";
import { measureScale } from "./scale.js";
import type { StartOrderPlan } from "./start-order.js";
import { measureThroughput } from "./throughput.js";
import { measureTokensOfCatalog, measureTokensOfServer, type TokenRow } from "./tokens.js";

/** The parts of the benchmark, each run when `--only` names it. */
export type Part = "throughput" | "scale" | "tokens" | "hostile";

export interface Options {
  readonly parts: ReadonlySet<Part>;
  readonly seconds: number;
  readonly sizes: readonly number[];
  readonly connections: readonly number[];
  readonly out: string;
  readonly updateDocs: boolean;
  readonly compare?: string;
  /** Whether the throughput part also measures a second copy of this build, to show what two copies differ by. */
  readonly control: boolean;
  /** Which build starts first where a part starts two (`--start-order`), row by row. */
  readonly startOrder: StartOrderPlan;
  readonly capSeconds: number;
  readonly warmUpSeconds: number;
  /** The real corpus, beside the checkout unless named (a worktree elsewhere names it). */
  readonly corpus: string;
  /** The throughput requests to run, by id; all of them when not given. */
  readonly requests?: readonly string[];
  /** The hostile cases to run: those whose kind holds this text; all of them when not given. */
  readonly hostileKind?: string;
}

const progress = (line: string) => process.stderr.write(`${line}\n`);

export async function main(options: Options): Promise<void> {
  const started = performance.now();
  const workDir = await mkdtemp(path.join(tmpdir(), "skills-mcp-bench-run-"));
  const corpus = existsSync(options.corpus);
  if (!corpus) progress(`bench: ${options.corpus} is missing; the examples stand in for the real corpus`);
  const throughputDir = corpus ? options.corpus : EXAMPLES_DIR;
  const throughputCatalog = corpus ? "shared/bench/corpus (364 real skills)" : "examples/skills";
  let results: Omit<BenchResults, "seconds"> = { machine: describeMachine() };
  try {
    const baseline = options.compare
      ? { entry: buildBaseline(options.compare, workDir), name: describeRef(options.compare) }
      : undefined;
    if (options.parts.has("throughput")) {
      progress(`bench: throughput on ${throughputDir}, ${options.seconds} s per run`);
      const report = await measureThroughput({
        startOrder: options.startOrder,
        control: options.control,
        ...(baseline ? { baseline } : {}),
        ...(options.requests ? { requests: options.requests } : {}),
        skillsDir: throughputDir,
        connections: options.connections,
        seconds: options.seconds,
        rounds: 3,
        warmUpSeconds: options.warmUpSeconds,
        workDir,
        progress,
      });
      results = { ...results, throughput: { ...report, catalog: throughputCatalog } };
    }

    const tokens: TokenRow[] = [];
    if (options.parts.has("tokens")) {
      progress("bench: tokens");
      tokens.push(await measureTokensOfCatalog("examples", EXAMPLES_DIR, workDir));
      if (corpus) tokens.push(await measureTokensOfCatalog("corpus", options.corpus, workDir));
    }
    const largest = Math.max(...options.sizes);
    const largestLabel = `synthetic-${largest}`;
    if (options.parts.has("scale")) {
      progress(`bench: scale at ${options.sizes.join(", ")} skills`);
      const scale = await measureScale({
        sizes: options.sizes,
        queries: 200,
        loadSeconds: options.seconds,
        workDir,
        progress,
        withLargest: async (server) => {
          if (options.parts.has("tokens")) tokens.push(await measureTokensOfServer(largestLabel, server.url));
        },
        ...(baseline ? { baseline } : {}),
        startOrder: options.startOrder,
      });
      results = { ...results, scale };
    } else if (options.parts.has("tokens")) {
      const { dir } = await syntheticCatalog(largest);
      tokens.push(await measureTokensOfCatalog(largestLabel, dir, workDir));
    }
    if (tokens.length > 0) results = { ...results, tokens };
    if (options.parts.has("hostile")) {
      progress(`bench: hostile corpus, each step cut at ${options.capSeconds} s`);
      const rows = await measureHostile({
        workDir,
        capSeconds: options.capSeconds,
        progress,
        ...(baseline ? { baseline } : {}),
        startOrder: options.startOrder,
        ...(options.hostileKind !== undefined ? { kind: options.hostileKind } : {}),
      });
      results = {
        ...results,
        hostile: { rows, capSeconds: options.capSeconds, ...(baseline ? { baseline: baseline.name } : {}) },
      };
    }
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }

  const final: BenchResults = { ...results, seconds: (performance.now() - started) / 1000 };
  const markdown = formatMarkdown(final);
  process.stdout.write(`${markdown}\n`);
  writeJson(options.out, final);
  progress(`bench: wrote ${options.out}`);
  if (options.updateDocs) progress(`bench: updated ${updateDocs(final)}`);
}
