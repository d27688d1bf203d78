/** The work of `npm run audit-skills` (see audit-skills.ts), loaded once its command line is read. */
import path from "node:path";
import { pino } from "pino";
import { type AuditFindings, atLeast, type Finding, SEVERITIES, type Severity } from "../src/audit/index.js";
import { CatalogError } from "../src/catalog/index.js";
import { ConfigError } from "../src/config/index.js";
import { plural, visible } from "../src/shared/index.js";
import { loadCatalogStartupConfig, prepareAudit } from "../src/startup/index.js";
import { FINDINGS_TABLE_HEAD, findingRow, severityCounts } from "./audit-markdown.js";

/** The command line, read: the folder to audit, JSON or Markdown, and the level that fails the run. */
export interface AuditOptions {
  readonly folder: string;
  readonly json: boolean;
  readonly failOn: Severity | "never";
}

interface Io {
  /** Writes `text`, settling once it is written: the output is written as it is made, a chunk at a time. */
  readonly stdout: (text: string) => Promise<void>;
  readonly stderr: (text: string) => void;
}

/**
 * How much output is gathered before it is written: a write a finding made a million writes at 4,000
 * links to a file of 252 findings.
 */
const OUTPUT_CHUNK_CHARS = 64 * 1024;

/** Audits the folder and prints what was found; the exit status: 1 when a finding fails the run. */
export async function run(options: AuditOptions, io: Io): Promise<number> {
  try {
    // The folder as the server prepares it (SKILL_PACKS as the environment gives it), every skill read now.
    // Absolute: a relative SKILLS_DIR is told as one a server's client chose, not a folder given here.
    const skillsDir = path.resolve(options.folder);
    const config = loadCatalogStartupConfig({ ...process.env, SKILLS_DIR: skillsDir }, "audit-skills");
    for (const warning of [...config.misspelledSettings, ...config.ignoredSettings])
      io.stderr(`audit-skills: warning: ${visible(warning)}\n`);
    const prepared = await prepareAudit(config, pino({ level: "silent" }));
    const { skills, inOrder, issues: notAudited } = prepared.audit;
    const issues = [...prepared.loaded.issues, ...notAudited];
    // On stderr, so that the report and the JSON stay as they were: what was not audited, and why. The
    // path and the reason hold upstream names: none may start a line of its own in the build log.
    for (const { severity, path, reason } of issues) {
      const kind = severity === "skipped" ? "left out" : severity;
      io.stderr(`audit-skills: ${kind}: ${visible(`${path}: ${reason}`)}\n`);
    }
    // Written as the findings are gone through, never held whole: a path leading to a file audited under
    // another has its findings made only then (see AuditFindings).
    await writeInChunks(
      options.json ? jsonOutput(skills, inOrder) : report(options.folder, skills, inOrder),
      io.stdout,
    );
    const { failOn } = options;
    const failing =
      failOn !== "never" &&
      SEVERITIES.some((severity) => atLeast(severity, failOn) && inOrder.count(severity) > 0);
    return failing ? 1 : 0;
  } catch (error) {
    if (error instanceof CatalogError || error instanceof ConfigError) {
      io.stderr(`audit-skills: the server would refuse this folder: ${visible(error.message)}\n`);
      return 2;
    }
    throw error;
  }
}

/**
 * `{"skills": N, "findings": [...]}` as `JSON.stringify(…, null, 2)` writes it, a finding at a time: scripts
 * read it. Each finding's lines indented two levels deeper; JSON escapes every newline inside a string.
 */
function* jsonOutput(skills: number, findings: Iterable<Finding>): Generator<string> {
  yield `{\n  "skills": ${JSON.stringify(skills)},\n  "findings": [`;
  let none = true;
  for (const found of findings) {
    yield `${none ? "" : ","}\n    ${JSON.stringify(found, null, 2).replaceAll("\n", "\n    ")}`;
    none = false;
  }
  yield none ? "]\n}\n" : "\n  ]\n}\n";
}

/** The Markdown report: the counts, then a table of the findings, worst first, each severity in order. */
function* report(folder: string, skills: number, findings: AuditFindings): Generator<string> {
  yield `## Skills audit\n\n${plural(skills, "skill")} in ${folder}: ${severityCounts((severity) => findings.count(severity))} found.\n`;
  if (!SEVERITIES.some((severity) => findings.count(severity) > 0)) return;
  yield `\n${FINDINGS_TABLE_HEAD.join("\n")}\n`;
  // One pass a severity: the findings are made anew as each goes through them, not kept between.
  for (const severity of SEVERITIES) {
    for (const found of findings) if (found.severity === severity) yield `${findingRow(found)}\n`;
  }
}

/** Writes `pieces` through `write` in chunks of about OUTPUT_CHUNK_CHARS, each written before the next is made. */
async function writeInChunks(
  pieces: Iterable<string>,
  write: (text: string) => Promise<void>,
): Promise<void> {
  let chunk = "";
  for (const piece of pieces) {
    chunk += piece;
    if (chunk.length >= OUTPUT_CHUNK_CHARS) {
      await write(chunk);
      chunk = "";
    }
  }
  if (chunk.length > 0) await write(chunk);
}
