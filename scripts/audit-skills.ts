/**
 * Audits a skills folder as the server loads it and prints the findings, as Markdown or JSON; exits 1 when
 * one is at or above `--fail-on`, 2 when the command line or the folder is wrong.
 *
 *   npm run audit-skills -- [folder] [--json] [--fail-on high|medium|low|never]
 */
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import type { Severity } from "../src/audit/index.js";
import { describeArgsError, givenTwice, notOneOf, UsageError } from "../src/shared/index.js";
import type { AuditOptions } from "./audit-skills-run.js";
import { tolerateClosedOutput } from "./closed-output.js";

const USAGE = `Usage: npm run audit-skills -- [folder] [--json] [--fail-on high|medium|low|never]

Audits a skills folder (default ./skills) as the server loads it (SKILL_PACKS as the environment gives
it): every file it serves, each skill's name and description, and the symlinks the fetcher skipped.
Rules and their reasons: docs/audit.md. What it did not audit goes to stderr, a line each.
Exits 1 when a finding is at or above --fail-on, 2 when the command line is wrong or the server would
refuse the folder.

Options:
  --json            print {"skills": N, "findings": [...]} instead of Markdown
  --fail-on LEVEL   exit 1 when a finding is LEVEL or worse: high (default), medium, low, or never
  -h, --help        show this help`;

const AUDIT_OPTIONS = {
  json: { type: "boolean" },
  "fail-on": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

/**
 * --fail-on's levels, worst first: every severity (the type refuses one missing) and never. Written out
 * here because src/audit's SEVERITIES comes with the catalog's modules.
 */
const FAIL_ON_LEVELS: Readonly<Record<Severity | "never", true>> = {
  high: true,
  medium: true,
  low: true,
  never: true,
};
const FAIL_ON = Object.keys(FAIL_ON_LEVELS) as (Severity | "never")[];

/** The options given, or `help`; throws a UsageError for a wrong command line. */
function parseOptions(argv: readonly string[]): AuditOptions | "help" {
  let parsed: {
    values: { json?: boolean; "fail-on"?: string; help?: boolean };
    positionals: string[];
    tokens: Parameters<typeof givenTwice>[0];
  };
  try {
    parsed = parseArgs({
      args: [...argv],
      options: AUDIT_OPTIONS,
      strict: true,
      allowPositionals: true,
      tokens: true,
    });
  } catch (error) {
    throw new UsageError(describeArgsError(error, AUDIT_OPTIONS, { "fail-on": FAIL_ON }));
  }
  const { values, positionals, tokens } = parsed;
  // Whatever else is given: a wrong value must not hide the usage that fixes it.
  if (values.help === true) return "help";
  const twice = givenTwice(tokens, AUDIT_OPTIONS);
  if (twice !== undefined) throw new UsageError(twice);
  if (positionals.length > 1) throw new UsageError(`one folder at most (got ${positionals.length})`);
  const failOn = FAIL_ON.find((level) => level === (values["fail-on"] ?? "high"));
  if (failOn === undefined) throw new UsageError(notOneOf("--fail-on", values["fail-on"] ?? "", FAIL_ON));
  const [given] = positionals;
  if (given === undefined && !existsSync("skills")) {
    throw new UsageError(
      "there is no ./skills to audit: `npm run fetch-skills` writes it from skills.toml; give a folder to audit another",
    );
  }
  return { folder: given ?? "skills", json: values.json === true, failOn };
}

tolerateClosedOutput();
let options: AuditOptions | "help" | undefined;
try {
  options = parseOptions(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof UsageError)) throw error;
  process.stderr.write(`audit-skills: ${error.message}\n\n${USAGE}\n`);
  process.exitCode = 2;
}
if (options === "help") {
  process.stdout.write(`${USAGE}\n`);
} else if (options !== undefined) {
  // Loaded only now, so that --help and a mistaken command line skip the server's modules.
  const { run } = await import("./audit-skills-run.js");
  process.exitCode = await run(options, {
    // Settled once written (or once the reader is gone: tolerateClosedOutput): what is left is made only
    // then, so that a slow reader holds back the audit's output rather than it piling up in memory.
    stdout: (text) => new Promise((settle) => process.stdout.write(text, () => settle())),
    stderr: (text) => process.stderr.write(text),
  });
}
