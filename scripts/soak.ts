/**
 * Soak: runs the real server process on 127.0.0.1 under a steady mixed load (every tool, several
 * X-Skill-Pack ceilings and ?pack= scopes, some caller mistakes), then prints the request count,
 * latency, errors (must be 0) and the server's resident memory before, after warm-up and at the end.
 *
 *   npm run soak -- [--duration 60] [--connections 64] [--warmup 5] [--skills-dir examples/skills]
 *
 * `npm run soak` passes --build: dist/, the server it runs, is built once the command line is read.
 *
 * Exits 1 when any request failed at the HTTP level (a connection error, a timeout or a non-2xx) or the
 * server did not start (a --skills-dir it refuses), 2 when the command line is wrong.
 */
import path from "node:path";
import { parseArgs } from "node:util";
import {
  describeArgsError,
  errorMessage,
  examplesDir,
  notWholeNumber,
  UsageError,
  wholeNumberIn,
} from "../src/shared/index.js";
import { builtFirst } from "./build-first.js";
import { tolerateClosedOutput } from "./closed-output.js";
import type { Options } from "./soak-run.js";

const USAGE = `Usage: npm run soak -- [options]

Runs the server on 127.0.0.1 under a steady mixed load and prints the requests, latency, errors (must be 0)
and resident memory at the start, after the warm-up and at the end. Exits 1 when any request failed, the
build failed or the server did not start (a --skills-dir it refuses), 2 when the command line is wrong.

Options:
  --duration SECONDS     how long the load runs (default 60)
  --connections COUNT    concurrent connections (default 64)
  --warmup SECONDS       load before memory is read again, shorter than --duration (default 5)
  --skills-dir FOLDER    the skills folder served (default the bundled examples)
  --build                build dist/, the server it runs, first (npm run soak passes it)
  -h, --help             show this help`;

const SOAK_OPTIONS = {
  duration: { type: "string", default: "60" },
  connections: { type: "string", default: "64" },
  warmup: { type: "string", default: "5" },
  "skills-dir": { type: "string", default: examplesDir() },
  build: { type: "boolean", default: false },
  help: { type: "boolean", short: "h" },
} as const;

/** The soak's options, and whether to build dist/ before it runs (`--build`). */
interface CommandLine {
  readonly options: Options;
  readonly build: boolean;
}

function readOptions(argv: readonly string[]): CommandLine | "help" {
  let parsed: ReturnType<typeof parseSoakArgs>;
  try {
    parsed = parseSoakArgs(argv);
  } catch (error) {
    throw new UsageError(describeArgsError(error, SOAK_OPTIONS));
  }
  const { values } = parsed;
  if (values.help) return "help";
  const positive = (name: string, value: string) => {
    const number = wholeNumberIn(value);
    if (number === undefined) throw new UsageError(notWholeNumber(`--${name}`, value));
    return number;
  };
  const durationSeconds = positive("duration", values.duration);
  const warmupSeconds = positive("warmup", values.warmup);
  // Memory is read once the warm-up is over: a soak that ends before then has no such reading.
  if (warmupSeconds >= durationSeconds) {
    throw new UsageError(
      `--warmup (${warmupSeconds} s) must be shorter than --duration (${durationSeconds} s)`,
    );
  }
  const options: Options = {
    durationSeconds,
    connections: positive("connections", values.connections),
    warmupSeconds,
    skillsDir: path.resolve(values["skills-dir"]),
  };
  return { options, build: values.build };
}

function parseSoakArgs(argv: readonly string[]) {
  return parseArgs({ args: [...argv], options: SOAK_OPTIONS, strict: true });
}

async function main(): Promise<number> {
  const commandLine = readOptions(process.argv.slice(2));
  if (commandLine === "help") {
    console.log(USAGE);
    return 0;
  }
  if (commandLine.build && !builtFirst()) {
    console.error("soak: npm run build failed (above); no server was started");
    return 1;
  }
  // Loaded only now, so that --help and a mistaken command line skip the catalog and the load generator.
  const work = await import("./soak-run.js");
  return work.main(commandLine.options);
}

tolerateClosedOutput();
main().then(
  (status) => process.exit(status),
  (error: unknown) => {
    if (error instanceof UsageError) {
      console.error(`soak: ${error.message}\n\n${USAGE}`);
      process.exit(2);
    }
    console.error(`soak: ${errorMessage(error)}`);
    process.exit(1);
  },
);
