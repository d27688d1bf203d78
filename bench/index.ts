/**
 * The performance benchmark: throughput and latency against a bare-route ceiling, behaviour at scale,
 * and token costs. Prints Markdown tables and writes JSON; see docs/performance.md for the method.
 *
 *   npm run bench -- [--only throughput,scale,tokens,hostile] [--seconds 3] [--sizes 1000,10000,50000]
 *                    [--connections 16,64] [--out bench/results/latest.json] [--update-docs]
 *                    [--compare <git ref>] [--cap-seconds 30] [--corpus <folder>] [--warm-up-seconds 2]
 *                    [--requests tools-list,list-packs,list-skills-pack,list-skills-query,
 *                                list-skills-new-query,read-skill]
 *
 * `--compare` also serves a build of another commit in the throughput runs, in the same turns against
 * the same ceiling, starts it on its own saved index of each synthetic catalog, and starts it on each
 * folder of the hostile corpus, for a before/after measured in one run. The hostile corpus (`hostile`, not
 * run unless asked for) cuts each step at `--cap-seconds`. Each throughput server is loaded for
 * `--warm-up-seconds` before it is measured: Node 24, the image's runtime, needs some 15 to reach its
 * steady cost on a new search every request.
 *
 * `npm run bench` builds first: the server runs as `node dist/main.js`, as in production.
 */
import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { tolerateClosedOutput } from "../scripts/closed-output.js";
import { describeArgsError, notWholeNumber, wholeNumberIn } from "../src/command-line.js";
import { notAFolderOnPath } from "../src/make-folder.js";
import { errorMessage } from "../src/system-errors.js";
import { buildBaseline, describeRef } from "./baseline.js";
import { CORPUS_DIR, EXAMPLES_DIR, syntheticCatalog } from "./catalogs.js";
import { measureHostile } from "./hostile.js";
import { ROOT } from "./processes.js";
import { type BenchResults, describeMachine, formatMarkdown, updateDocs, writeJson } from "./report.js";
import { measureScale } from "./scale.js";
import { measureThroughput } from "./throughput.js";
import { measureTokensOfCatalog, measureTokensOfServer, type TokenRow } from "./tokens.js";

const PARTS = ["throughput", "scale", "tokens", "hostile"] as const;
type Part = (typeof PARTS)[number];
/** What runs without `--only`: the hostile corpus takes minutes of its own, and is run when asked for. */
const DEFAULT_PARTS: readonly Part[] = ["throughput", "scale", "tokens"];

interface Options {
  readonly parts: ReadonlySet<Part>;
  readonly seconds: number;
  readonly sizes: readonly number[];
  readonly connections: readonly number[];
  readonly out: string;
  readonly updateDocs: boolean;
  readonly compare?: string;
  readonly capSeconds: number;
  readonly warmUpSeconds: number;
  /** The real corpus, beside the checkout unless named (a worktree elsewhere names it). */
  readonly corpus: string;
  /** The throughput requests to run, by id; all of them when not given. */
  readonly requests?: readonly string[];
  /** The hostile cases to run: those whose kind holds this text; all of them when not given. */
  readonly hostileKind?: string;
}

const USAGE = `usage: npm run bench -- [--only throughput,scale,tokens,hostile] [--seconds 3] [--sizes 1000,10000,50000]
                    [--connections 16,64] [--out bench/results/latest.json] [--update-docs]
                    [--compare <git ref>] [--cap-seconds 30] [--corpus <folder>] [--warm-up-seconds 2]
                    [--requests <ids, comma list>] [--hostile-kind <text>]
(docs/performance.md says what each measures)`;

const OPTIONS = {
  only: { type: "string", default: DEFAULT_PARTS.join(",") },
  seconds: { type: "string", default: "3" },
  sizes: { type: "string", default: "1000,10000,50000" },
  connections: { type: "string", default: "16,64" },
  out: { type: "string", default: path.join(ROOT, "bench/results/latest.json") },
  "update-docs": { type: "boolean", default: false },
  compare: { type: "string" },
  "cap-seconds": { type: "string", default: "30" },
  "warm-up-seconds": { type: "string", default: "2" },
  corpus: { type: "string", default: CORPUS_DIR },
  requests: { type: "string" },
  "hostile-kind": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

function readOptions(argv: readonly string[]): Options | "help" {
  let values: ReturnType<typeof parseArgs<{ args: string[]; options: typeof OPTIONS }>>["values"];
  try {
    values = parseArgs({ args: [...argv], options: OPTIONS }).values;
  } catch (error) {
    // Node's own text told how to place a positional after `--`, not which options there are.
    throw new Error(describeArgsError(error, OPTIONS));
  }
  if (values.help) return "help";
  const parts = values.only.split(",").map((part) => part.trim());
  const unknown = parts.filter((part) => !(PARTS as readonly string[]).includes(part));
  if (unknown.length > 0)
    throw new Error(`--only: unknown part ${unknown.join(", ")} (valid: ${PARTS.join(", ")})`);
  // Written once every part has run: a path through a file failed only then, minutes in, in Node's words.
  const throughFile = notAFolderOnPath(path.dirname(path.resolve(values.out)));
  if (throughFile !== undefined) throw new Error(`--out ${values.out}: ${throughFile}; give another --out`);
  return {
    parts: new Set(parts as Part[]),
    seconds: positive("seconds", values.seconds),
    sizes: values.sizes.split(",").map((size) => positive("sizes", size)),
    connections: values.connections.split(",").map((count) => positive("connections", count)),
    out: path.resolve(values.out),
    updateDocs: values["update-docs"],
    capSeconds: positive("cap-seconds", values["cap-seconds"]),
    warmUpSeconds: positive("warm-up-seconds", values["warm-up-seconds"]),
    corpus: path.resolve(values.corpus),
    ...(values.requests !== undefined ? { requests: values.requests.split(",").map((id) => id.trim()) } : {}),
    ...(values.compare !== undefined ? { compare: values.compare } : {}),
    ...(values["hostile-kind"] !== undefined ? { hostileKind: values["hostile-kind"] } : {}),
  };
}

function positive(name: string, value: string): number {
  const number = wholeNumberIn(value);
  if (number === undefined) throw new Error(notWholeNumber(`--${name}`, value));
  return number;
}

const progress = (line: string) => process.stderr.write(`${line}\n`);

async function main(options: Options): Promise<void> {
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
        ...(baseline ? { baseline: baseline.entry } : {}),
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
  if (options.updateDocs) progress(`bench: updated ${updateDocs(markdown)}`);
}

tolerateClosedOutput();
let options: Options;
try {
  const read = readOptions(process.argv.slice(2));
  if (read === "help") {
    console.log(USAGE);
    process.exit(0);
  }
  options = read;
} catch (error) {
  // A mistaken option is the caller's to mend: its message, not a stack.
  console.error(`bench: ${errorMessage(error)}`);
  process.exit(2);
}
main(options).catch((error: unknown) => {
  console.error(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
