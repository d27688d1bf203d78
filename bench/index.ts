/**
 * The performance benchmark: throughput and latency against a bare-route ceiling, behaviour at scale,
 * and token costs. Prints Markdown tables and writes JSON; see docs/performance.md for the method.
 *
 *   npm run bench -- [--only throughput,scale,tokens,hostile] [--seconds 3] [--sizes 1000,10000,50000]
 *                    [--connections 16,64] [--out bench/results/latest.json] [--update-docs]
 *                    [--compare <git ref>] [--control] [--start-order alternate|this-first|other-first]
 *                    [--cap-seconds 30] [--corpus <folder>] [--warm-up-seconds 2]
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
 * `--control` also serves a second copy of this build in the throughput runs, measured as a side of its
 * own, so that the table shows what two copies of one build differ by next to what `--compare` finds.
 *
 * `--start-order` says which build each part starts first where it starts two: `alternate` (the default)
 * this build first in every other row (throughput: request and connection count, each started anew;
 * scale: catalog size; hostile: step), `this-first` or `other-first` in every row. Each row records its order.
 *
 * `npm run bench` builds first (`--build`, which it passes, once the command line is read): the server
 * runs as `node dist/main.js`, as in production.
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { builtFirst } from "../scripts/build-first.js";
import { tolerateClosedOutput } from "../scripts/closed-output.js";
import {
  describeArgsError,
  errorMessage,
  notAFolderOnPath,
  notWholeNumber,
  wholeNumberIn,
} from "../src/shared/index.js";
import { CORPUS_DIR } from "./catalogs.js";
import type { Options, Part } from "./index-run.js";
import { ROOT } from "./processes.js";
import { isStartOrderPlan, START_ORDER_PLANS } from "./start-order.js";

const PARTS: readonly Part[] = ["throughput", "scale", "tokens", "hostile"];
/** What runs without `--only`: the hostile corpus takes minutes of its own, and is run when asked for. */
const DEFAULT_PARTS: readonly Part[] = ["throughput", "scale", "tokens"];

const USAGE = `usage: npm run bench -- [--only ${DEFAULT_PARTS.join(",")}] [--seconds 3] [--sizes 1000,10000,50000]
                    [--connections 16,64] [--out bench/results/latest.json] [--update-docs]
                    [--compare <git ref>] [--control] [--start-order alternate|this-first|other-first]
                    [--cap-seconds 30] [--corpus <folder>] [--warm-up-seconds 2]
                    [--requests <ids, comma list>] [--hostile-kind <text>] [--build]
A number or path shown is the default (--start-order: alternate; --corpus: ../shared/bench/corpus beside
the checkout, else the bundled examples). --only takes a comma list of ${PARTS.join(", ")}:
hostile runs only when named. --build builds dist/, which the servers run, once the command line is read;
npm run bench passes it. Exits 1 when a part or the build fails, 2 when the command line is wrong.
(docs/performance.md says what each measures)`;

const OPTIONS = {
  only: { type: "string", default: DEFAULT_PARTS.join(",") },
  seconds: { type: "string", default: "3" },
  sizes: { type: "string", default: "1000,10000,50000" },
  connections: { type: "string", default: "16,64" },
  out: { type: "string", default: path.join(ROOT, "bench/results/latest.json") },
  "update-docs": { type: "boolean", default: false },
  compare: { type: "string" },
  control: { type: "boolean", default: false },
  "start-order": { type: "string", default: "alternate" },
  "cap-seconds": { type: "string", default: "30" },
  "warm-up-seconds": { type: "string", default: "2" },
  corpus: { type: "string", default: CORPUS_DIR },
  requests: { type: "string" },
  "hostile-kind": { type: "string" },
  build: { type: "boolean", default: false },
  help: { type: "boolean", short: "h" },
} as const;

/** The bench's options, and whether to build dist/ before it runs (`--build`). */
interface CommandLine {
  readonly options: Options;
  readonly build: boolean;
}

function readOptions(argv: readonly string[]): CommandLine | "help" {
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
  if (values.control && !parts.includes("throughput"))
    throw new Error("--control measures a second copy in the throughput part only: add throughput to --only");
  const startOrder = values["start-order"];
  if (!isStartOrderPlan(startOrder))
    throw new Error(`--start-order: "${startOrder}" is not one of ${START_ORDER_PLANS.join(", ")}`);
  // Written once every part has run: a path through a file failed only then, minutes in, in Node's words.
  const throughFile = notAFolderOnPath(path.dirname(path.resolve(values.out)));
  if (throughFile !== undefined) throw new Error(`--out ${values.out}: ${throughFile}; give another --out`);
  const options: Options = {
    parts: new Set(parts as Part[]),
    seconds: positive("seconds", values.seconds),
    sizes: values.sizes.split(",").map((size) => positive("sizes", size)),
    connections: values.connections.split(",").map((count) => positive("connections", count)),
    out: path.resolve(values.out),
    updateDocs: values["update-docs"],
    control: values.control,
    startOrder,
    capSeconds: positive("cap-seconds", values["cap-seconds"]),
    warmUpSeconds: positive("warm-up-seconds", values["warm-up-seconds"]),
    corpus: path.resolve(values.corpus),
    ...(values.requests !== undefined ? { requests: values.requests.split(",").map((id) => id.trim()) } : {}),
    ...(values.compare !== undefined ? { compare: values.compare } : {}),
    ...(values["hostile-kind"] !== undefined ? { hostileKind: values["hostile-kind"] } : {}),
  };
  return { options, build: values.build };
}

function positive(name: string, value: string): number {
  const number = wholeNumberIn(value);
  if (number === undefined) throw new Error(notWholeNumber(`--${name}`, value));
  return number;
}

tolerateClosedOutput();
let commandLine: CommandLine;
try {
  const read = readOptions(process.argv.slice(2));
  if (read === "help") {
    console.log(USAGE);
    process.exit(0);
  }
  commandLine = read;
} catch (error) {
  // A mistaken option is the caller's to mend: its message, not a stack.
  console.error(`bench: ${errorMessage(error)}`);
  process.exit(2);
}
if (commandLine.build && !builtFirst()) {
  console.error("bench: npm run build failed (above); nothing was measured");
  process.exit(1);
}
// Loaded only now, so that --help and a mistaken option skip the servers, clients and catalogs.
const { main } = await import("./index-run.js");
main(commandLine.options).catch((error: unknown) => {
  console.error(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
