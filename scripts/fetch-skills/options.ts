/**
 * fetch-skills' command line, read and, when it is --help or wrong, answered without git's and TOML's
 * modules: index.ts does so before it imports the fetch (cli.ts).
 */
import {
  accessSync,
  existsSync,
  constants as fsConstants,
  lstatSync,
  readlinkSync,
  realpathSync,
  statSync,
} from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import {
  describeArgsError,
  givenTwice,
  notAFolderOnPath,
  notWholeNumber,
  visible,
  wholeNumberIn,
} from "../../src/shared/index.js";
import { SOURCE_LIMITS, type SourceLimits } from "./copy.js";
import { describeWriteError, ManifestError, UsageError } from "./errors.js";

const USAGE = `Usage: npm run fetch-skills -- [options]

Fetches the skill packs pinned in skills.toml into a skills folder, all or nothing. Progress goes to
stderr, a Markdown summary to stdout. Exits 1 when the fetch (or the repin) fails, 2 when the command line
is wrong, 128 + the signal's number when stopped by SIGINT or SIGTERM.

Options:
  --manifest FILE   the manifest (default ./skills.toml)
  --out DIR         the skills folder to write (default ./skills)
  --cache DIR       keep a bare git store per repository here; later runs fetch only what is new
  --source NAME     fetch only this source (repeat for more); the others keep what --out holds
  --max-files N     the most files (and folders, and entries left out) one source may bring,
                    symlinked copies counted (default 20000)
  --max-mib N       the most MiB one source may bring, symlinked copies counted (default 512)
  --update          repin: move each ref to the head of its branch (or the remote's HEAD), then fetch
  --no-fetch        with --update: rewrite skills.toml only
  --summary FILE    also write the Markdown summary to FILE
  --findings FILE   with --update: also write the review's audit findings as JSON, each marked new or not
  -h, --help        show this help`;

export interface Options {
  readonly manifest: string;
  readonly manifestLabel: string;
  readonly out: string;
  readonly cache: string | undefined;
  readonly sources: readonly string[];
  readonly limits: SourceLimits;
  readonly update: boolean;
  readonly fetch: boolean;
  readonly summary: string | undefined;
  readonly findings: string | undefined;
}

const OPTIONS = {
  manifest: { type: "string" },
  out: { type: "string" },
  cache: { type: "string" },
  source: { type: "string", multiple: true },
  "max-files": { type: "string" },
  "max-mib": { type: "string" },
  update: { type: "boolean" },
  "no-fetch": { type: "boolean" },
  summary: { type: "string" },
  findings: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/** The options given, or `help` (whatever else is given: a wrong value must not hide the usage that fixes it). */
function parseOptions(argv: readonly string[], cwd: string): Options | "help" {
  let values: {
    manifest?: string;
    out?: string;
    cache?: string;
    source?: string[];
    "max-files"?: string;
    "max-mib"?: string;
    update?: boolean;
    "no-fetch"?: boolean;
    summary?: string;
    findings?: string;
    help?: boolean;
  };
  let tokens: Parameters<typeof givenTwice>[0];
  try {
    ({ values, tokens } = parseArgs({
      args: [...argv],
      options: OPTIONS,
      strict: true,
      allowPositionals: false,
      tokens: true,
    }));
  } catch (error) {
    throw new UsageError(describeArgsError(error, OPTIONS), { cause: error });
  }
  if (values.help) return "help";
  const twice = givenTwice(tokens, OPTIONS);
  if (twice !== undefined) throw new UsageError(twice);
  for (const key of ["manifest", "out", "cache", "summary", "findings"] as const) {
    if (values[key]?.trim() === "") throw new UsageError(`--${key} needs a path`);
  }
  if (values["no-fetch"] && !values.update) throw new UsageError("--no-fetch only goes with --update");
  if (values.findings !== undefined && (!values.update || values["no-fetch"])) {
    throw new UsageError("--findings only goes with --update, which fetches (not with --no-fetch)");
  }
  const resolve = (value: string | undefined) => (value === undefined ? undefined : path.resolve(cwd, value));
  const summary = resolve(values.summary);
  const findings = resolve(values.findings);
  const given = path.resolve(cwd, values.out ?? "skills");
  const out = followLink(given);
  const cache = resolve(values.cache);
  // Each run builds a new --out and throws the old one away: a store kept there was fetched anew every time.
  // Through a symlinked --out too (`skills/.cache` with `skills` leading to the folder replaced).
  const inOut = (folder: string) => cache === folder || cache?.startsWith(`${folder}${path.sep}`) === true;
  if (inOut(given) || inOut(out)) {
    throw new UsageError(
      `--cache ${values.cache} is inside --out ${values.out ?? "skills"}, which each run replaces: keep it elsewhere`,
    );
  }
  for (const [option, file] of [
    ["--summary", summary],
    ["--findings", findings],
  ] as const) {
    if (file !== undefined) checkOutputFile(option, file, out);
  }
  return {
    manifest: path.resolve(cwd, values.manifest ?? "skills.toml"),
    manifestLabel: values.manifest ?? "skills.toml",
    out,
    cache,
    sources: values.source ?? [],
    limits: {
      files: wholeNumber("--max-files", values["max-files"]) ?? SOURCE_LIMITS.files,
      bytes: (wholeNumber("--max-mib", values["max-mib"]) ?? SOURCE_LIMITS.bytes / MIB) * MIB,
    },
    update: values.update === true,
    fetch: values["no-fetch"] !== true,
    summary,
    findings,
  };
}

/**
 * `--summary` and `--findings` are written after the skills are in place, so their folders are checked
 * before any work; a folder inside `--out` is written by the fetch itself.
 */
function checkOutputFile(option: string, file: string, out: string): void {
  const folder = path.dirname(file);
  if (folder === out || folder.startsWith(`${out}${path.sep}`)) return;
  const throughFile = notAFolderOnPath(folder);
  if (throughFile !== undefined)
    throw new UsageError(`${option} ${file}: ${throughFile}; give another ${option}`);
  try {
    if (!statSync(folder).isDirectory()) throw new UsageError(`${option}: ${folder} is not a folder`);
    accessSync(folder, fsConstants.W_OK);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const problem =
      (error as NodeJS.ErrnoException).code === "ENOENT"
        ? "does not exist"
        : `cannot be written to: ${describeWriteError(error)}`;
    throw new UsageError(`${option}: the folder ${folder} ${problem}`);
  }
  if (existsSync(file) && statSync(file).isDirectory()) {
    throw new UsageError(`${option}: ${file} is a folder; give a file name`);
  }
}

/**
 * `--out` as the folder a symlink there leads to: the new folder replaces that one, where the server reads
 * it, and not the symlink (which was swapped for a folder, leaving its target as it was).
 */
function followLink(folder: string): string {
  try {
    if (!lstatSync(folder).isSymbolicLink()) return folder;
  } catch {
    // Missing: the fetch says what it cannot write.
    return folder;
  }
  try {
    return realpathSync(folder);
  } catch {
    // Dangling: its folder is missing (a run killed while it swapped the new one in left it beside), and is
    // written where the link leads all the same.
    return path.resolve(path.dirname(folder), readlinkSync(folder));
  }
}

const MIB = 1024 * 1024;

function wholeNumber(option: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = wholeNumberIn(value);
  if (number === undefined) throw new UsageError(notWholeNumber(option, value));
  return number;
}

/** What reading the command line touches: where relative paths start, and where to answer. */
export interface CommandLineIo {
  readonly cwd: string;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/**
 * The options to run with, or the exit status once the command line is answered: 0 after printing the
 * usage for --help, 2 after saying what is wrong with it.
 */
export async function readCommandLine(argv: readonly string[], io: CommandLineIo): Promise<Options | number> {
  try {
    const options = parseOptions(argv, io.cwd);
    if (options !== "help") return options;
    io.stdout(`${USAGE}\n`);
    return 0;
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    const sourceMissing = isSourceWithoutValue(error.cause) ? error.cause : undefined;
    const told = sourceMissing === undefined ? error : await withSourceNames(sourceMissing, argv, io.cwd);
    return answerUsageError(told, io.stderr);
  }
}

/** Whether parseArgs refused a `--source` given no value (at the end, or before another option). */
function isSourceWithoutValue(error: unknown): error is Error {
  return (
    error instanceof Error &&
    (error as NodeJS.ErrnoException).code === "ERR_PARSE_ARGS_INVALID_OPTION_VALUE" &&
    (error.message.startsWith("Option '--source ") || error.message.startsWith("Option '--source'")) &&
    !error.message.includes("does not take an argument")
  );
}

/**
 * A `--source` given no value, told with the names it takes: those of the manifest the command line names,
 * which only reading it tells (so TOML's module is loaded here, for this mistake alone); when it cannot be
 * read, what it takes and why the names are not listed.
 */
async function withSourceNames(missing: Error, argv: readonly string[], cwd: string): Promise<UsageError> {
  // Read leniently: the command line is wrong, and only --manifest matters here.
  const { manifest } = parseArgs({
    args: [...argv],
    options: OPTIONS,
    strict: false,
    allowPositionals: true,
  }).values;
  const label = typeof manifest === "string" ? manifest : "skills.toml";
  const { readManifest } = await import("./manifest.js");
  try {
    const { sources } = await readManifest(path.resolve(cwd, label), label);
    const names = sources.map((source) => source.name);
    return new UsageError(describeArgsError(missing, OPTIONS, { source: names }));
  } catch (error) {
    if (!(error instanceof ManifestError)) throw error;
    const [problem = error.message] = error.problems;
    return new UsageError(
      `${describeArgsError(missing, OPTIONS)}: the name of a source of ${label}, whose sources cannot be listed: ${problem}`,
    );
  }
}

/** Says what is wrong with the command line, then the usage; returns the exit status, 2. */
export function answerUsageError(error: UsageError, stderr: (text: string) => void): number {
  stderr(`fetch-skills: ${visible(error.message)}\n\n${USAGE}\n`);
  return 2;
}
