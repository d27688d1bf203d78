/** The work of `npm run audit-skills` (see audit-skills.ts), loaded once its command line is read. */
import { pino } from "pino";
import { atLeast, type FolderAudit, type Severity } from "../src/audit/index.js";
import { CatalogError } from "../src/catalog/index.js";
import { ConfigError } from "../src/config/index.js";
import { plural } from "../src/plural.js";
import { loadCatalogStartupConfig, prepareAudit } from "../src/startup/index.js";
import { visible } from "../src/visible.js";
import { countBySeverity, findingsTable } from "./audit-markdown.js";

/** The command line, read: the folder to audit, JSON or Markdown, and the level that fails the run. */
export interface AuditOptions {
  readonly folder: string;
  readonly json: boolean;
  readonly failOn: Severity | "never";
}

interface Io {
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
}

/** Audits the folder and prints what was found; the exit status: 1 when a finding fails the run. */
export async function run(options: AuditOptions, io: Io): Promise<number> {
  try {
    // The folder as the server prepares it (SKILL_PACKS as the environment gives it), every skill read now.
    const config = loadCatalogStartupConfig({ ...process.env, SKILLS_DIR: options.folder }, "audit-skills");
    for (const warning of [...config.misspelledSettings, ...config.ignoredSettings])
      io.stderr(`audit-skills: warning: ${visible(warning)}\n`);
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
    if (error instanceof CatalogError || error instanceof ConfigError) {
      io.stderr(`audit-skills: the server would refuse this folder: ${visible(error.message)}\n`);
      return 2;
    }
    throw error;
  }
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
