/**
 * Prints what the tool surface costs a model, in o200k tokens: `tools/list`, the initialize
 * instructions, `list_packs`, and `list_skills` for each pack of a catalog folder; then, for the whole
 * catalog and for each pack as an `X-Skill-Pack` scope, what a model sees before its first call (the
 * instructions and the whole `tools/list`) and, given labelled requests, its cue coverage, also as hosts
 * that show only the instructions or only the tools see it, and as the steering line (`--steering`) alone
 * gives it.
 *
 *   npm run tokens -- [catalog folder] [--queries queries.json]... [--catalog-preview off]
 *
 * The catalog folder defaults to the bundled examples; `--catalog-preview off` measures what a server with
 * CATALOG_PREVIEW=off shows instead.
 */
import { parseArgs } from "node:util";
import {
  describeArgsError,
  errorMessage,
  examplesDir,
  notOneOf,
  quoted,
  UsageError,
} from "../src/shared/index.js";
import { tolerateClosedOutput } from "./closed-output.js";
import type { Options } from "./tokens-run.js";

const USAGE = `Usage: npm run tokens -- [catalog folder] [--queries FILE]... [--catalog-preview on|off]

Prints what the tool surface costs a model in o200k tokens, and, for the whole catalog and each pack as an
X-Skill-Pack scope, what a model sees before its first call and the cue coverage of each query set. The
catalog folder defaults to the bundled examples (whose query set is bench/queries/examples.json).
Exits 1 when the catalog or a query set cannot be read, 2 when the command line is wrong.

Options:
  --queries FILE             a query set ([{"query": "...", "expected": ["pack/name"]}]); repeat for more
  --catalog-preview on|off   measure a server with CATALOG_PREVIEW so set (default on)
  -h, --help                 show this help`;

const TOKENS_OPTIONS = {
  queries: { type: "string", multiple: true },
  "catalog-preview": { type: "string", default: "on" },
  help: { type: "boolean", short: "h" },
} as const;

/** What --catalog-preview takes. */
const CATALOG_PREVIEWS = ["on", "off"];

function parseTokensArgs(argv: readonly string[]) {
  try {
    return parseArgs({ args: [...argv], options: TOKENS_OPTIONS, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError(describeArgsError(error, TOKENS_OPTIONS, { "catalog-preview": CATALOG_PREVIEWS }));
  }
}

async function main(argv: readonly string[]): Promise<void> {
  const options = readOptions(argv);
  if (options === "help") {
    console.log(USAGE);
    return;
  }
  // Loaded only now, so that --help and a mistaken command line skip the server, the SDK and the tokenizer.
  const work = await import("./tokens-run.js");
  await work.main(options);
}

/** The command line, or "help"; a wrong one throws a UsageError. */
function readOptions(argv: readonly string[]): Options | "help" {
  const { values, positionals } = parseTokensArgs(argv);
  if (values.help) return "help";
  const [folder, ...extra] = positionals;
  // A query set listed after one --queries would otherwise be dropped from the report without a word.
  if (extra.length > 0) {
    throw new UsageError(
      `${extra.map((item) => quoted(item)).join(", ")}: one catalog folder only; give each query set its own --queries`,
    );
  }
  const preview = values["catalog-preview"];
  if (preview !== "on" && preview !== "off")
    throw new UsageError(notOneOf("--catalog-preview", preview, CATALOG_PREVIEWS));
  return { dir: folder ?? examplesDir(), preview, queryFiles: values.queries ?? [] };
}

tolerateClosedOutput();
main(process.argv.slice(2)).catch((error: unknown) => {
  if (error instanceof UsageError) {
    console.error(`tokens: ${error.message}\n\n${USAGE}`);
    process.exit(2);
  }
  console.error(`tokens: ${errorMessage(error)}`);
  process.exit(1);
});
