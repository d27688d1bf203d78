/**
 * Audits a skills folder as the server loads it and prints the findings, as Markdown or JSON; exits 1 when
 * one is at or above `--fail-on`, 2 when the command line or the folder is wrong.
 *
 *   npm run audit-skills -- [folder] [--json] [--fail-on high|medium|low|never]
 */
import { existsSync } from "node:fs";
import { parseArgs } from "node:util";
import { pino } from "pino";
import { atLeast, type FolderAudit, SEVERITIES, type Severity } from "../src/audit/index.js";
import { CatalogError, visible } from "../src/catalog/index.js";
import { describeArgsError, notOneOf, UsageError } from "../src/command-line.js";
import { ConfigError } from "../src/config/index.js";
import { plural } from "../src/plural.js";
import { loadStartupConfig, prepareAudit } from "../src/startup/index.js";
import { countBySeverity, findingsTable } from "./audit-markdown.js";
import { tolerateClosedOutput } from "./closed-output.js";

const USAGE = `Usage: npm run audit-skills -- [folder] [--json] [--fail-on high|medium|low|never]

Audits a skills folder (default ./skills) as the server loads it: every file it serves, each skill's
name and description, and the symlinks the fetcher skipped. Rules and their reasons: docs/audit.md.
Exits 1 when a finding is at or above --fail-on, 2 when the command line is wrong or the server would
refuse the folder.

Options:
  --json            print {"skills": N, "findings": [...]} instead of Markdown
  --fail-on LEVEL   exit 1 when a finding is LEVEL or worse: high (default), medium, low, or never
  -h, --help        show this help`;

interface Options {
  readonly folder: string;
  readonly json: boolean;
  readonly failOn: Severity | "never";
  readonly help: boolean;
}

interface Io {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

async function run(argv: readonly string[], io: Io): Promise<number> {
  try {
    const options = parseOptions(argv);
    if (options.help) {
      io.stdout(`${USAGE}\n`);
      return 0;
    }
    // The folder as the server prepares it (SKILL_PACKS as the environment gives it), every skill read now.
    const config = loadStartupConfig({ ...process.env, SKILLS_DIR: options.folder });
    const prepared = await prepareAudit(config, pino({ level: "silent" }));
    const { issues: notAudited, ...audit } = prepared.audit;
    const issues = [...prepared.loaded.issues, ...notAudited];
    // On stderr, so that the report and the JSON stay as they were: what was not audited, and why. The
    // path and the reason hold upstream names: none may start a line of its own in the build log.
    for (const { severity, path, reason } of issues) {
      const kind = severity === "skipped" ? "left out" : severity;
      io.stderr(`audit-skills: ${kind}: ${visible(`${path}: ${reason}`)}\n`);
    }
    io.stdout(options.json ? `${JSON.stringify(audit, null, 2)}\n` : report(options.folder, audit));
    const failing = audit.findings.some(
      (found) => options.failOn !== "never" && atLeast(found.severity, options.failOn),
    );
    return failing ? 1 : 0;
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`audit-skills: ${error.message}\n\n${USAGE}\n`);
      return 2;
    }
    if (error instanceof CatalogError || error instanceof ConfigError) {
      io.stderr(`audit-skills: the server would refuse this folder: ${visible(error.message)}\n`);
      return 2;
    }
    throw error;
  }
}

const AUDIT_OPTIONS = {
  json: { type: "boolean" },
  "fail-on": { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

function parseOptions(argv: readonly string[]): Options {
  let parsed: { values: { json?: boolean; "fail-on"?: string; help?: boolean }; positionals: string[] };
  try {
    parsed = parseArgs({
      args: [...argv],
      options: AUDIT_OPTIONS,
      strict: true,
      allowPositionals: true,
    });
  } catch (error) {
    throw new UsageError(describeArgsError(error, AUDIT_OPTIONS));
  }
  const { values, positionals } = parsed;
  if (positionals.length > 1) throw new UsageError(`one folder at most (got ${positionals.length})`);
  const failOn = values["fail-on"] ?? "high";
  if (failOn !== "never" && !SEVERITIES.includes(failOn as Severity)) {
    throw new UsageError(notOneOf("--fail-on", failOn, [...SEVERITIES, "never"]));
  }
  const [given] = positionals;
  if (given === undefined && !values.help && !existsSync("skills")) {
    throw new UsageError(
      "there is no ./skills to audit: `npm run fetch-skills` writes it from skills.toml; give a folder to audit another",
    );
  }
  return {
    folder: given ?? "skills",
    json: values.json === true,
    failOn: failOn as Severity | "never",
    help: values.help === true,
  };
}

function report(folder: string, { skills, findings }: Omit<FolderAudit, "issues">): string {
  const lines = [
    "## Skills audit",
    "",
    `${plural(skills, "skill")} in ${folder}: ${countBySeverity(findings)} found.`,
  ];
  if (findings.length > 0) lines.push("", ...findingsTable(findings));
  return `${lines.join("\n")}\n`;
}

tolerateClosedOutput();
process.exitCode = await run(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
});
