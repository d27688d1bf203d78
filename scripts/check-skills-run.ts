/** The work of `npm run check-skills` (see check-skills.ts), loaded once its command line is read. */
import path from "node:path";
import { pino } from "pino";
import type { AuditFindings, Finding, FolderAudit } from "../src/audit/index.js";
import {
  type Catalog,
  CatalogError,
  type CatalogIssue,
  describeYaml11Reading,
  PACK_WITHOUT_SKILL,
  pyyamlRefusedKeys,
  readSkillDocument,
  SKILL_DOCUMENT,
  type Skill,
  yaml11Readings,
} from "../src/catalog/index.js";
import { ConfigError } from "../src/config/index.js";
import type { Inspection } from "../src/inspection/index.js";
import { SkillResources } from "../src/mcp/index.js";
import { plural, visible } from "../src/shared/index.js";
import { loadCatalogStartupConfig, prepareAudit, refusal } from "../src/startup/index.js";
import {
  listedFindingsTable,
  markdownCode,
  markdownText,
  ruleCounts,
  severityCounts,
  unsafeLead,
} from "./audit-markdown.js";

/** The audit's table stops here: the output goes into a pull request body, which GitHub bounds. */
const LISTED_FINDINGS = 30;

/** The report, and why the server would refuse to start, when it would. */
async function report(dir: string, env: NodeJS.ProcessEnv): Promise<{ text: string; refused?: string }> {
  // Absolute: a relative SKILLS_DIR is told as one a server's client chose, not a folder given here.
  const config = loadCatalogStartupConfig({ ...env, SKILLS_DIR: path.resolve(dir) }, "check-skills");
  // On stderr, so that the report stays as it was: a setting the server's shell holds that this check
  // ignores (PORT, API_KEYS_FILE) is no reason to stop it, nor to say nothing; nor is a slip (SKILL_PACK),
  // which would check every pack unannounced.
  for (const warning of [...config.misspelledSettings, ...config.ignoredSettings])
    process.stderr.write(`check-skills: warning: ${visible(warning)}\n`);
  // Every file read now, as a server without a saved index reads them: the same entries, the same unsafe
  // skills, and the whole audit from the same reading.
  const prepared = await prepareAudit(config, pino({ level: "silent" }));
  const { catalog } = prepared.loaded;
  const issues = [...prepared.loaded.issues, ...yaml11Issues(catalog)];
  // Counted as served, as /health counts them: less the skills the audit makes unsafe, unless served.
  const unsafeLeftOut = prepared.unsafeSkills.leftOut;
  const text =
    `${catalogReport(prepared.catalog, issues, prepared.inspection, unsafeLeftOut)}\n` +
    auditReport(prepared.audit, prepared.inspection, config.serveUnsafeSkills);
  return { text, refused: refusal(prepared.catalog) };
}

/**
 * A warning for each frontmatter key PyYAML refuses inside `{ }` (see pyyamlRefusedKeys), and for each
 * unquoted frontmatter key or value a YAML 1.1 reader reads otherwise than this server: hosts
 * and tools that parse SKILL.md themselves with one (PyYAML, Psych, yaml.v2) see another frontmatter than
 * the Skills extension's entry publishes. Here and not at startup: only the author can fix it, and a
 * pull request's check reaches the author, where a log line at every start reaches whoever runs the server.
 */
function yaml11Issues(catalog: Catalog): CatalogIssue[] {
  return catalog.everything.skills.flatMap((skill) => {
    const path = [skill.pack, ...(skill.folder === "" ? [] : [skill.folder]), SKILL_DOCUMENT].join("/");
    let markdown: string;
    try {
      markdown = readSkillDocument(skill);
    } catch {
      // Gone or replaced since the load read it (a checkout under way): a report of the rest beats none.
      return [];
    }
    return [...pyyamlRefusedKeys(markdown), ...yaml11Readings(markdown).map(describeYaml11Reading)].map(
      (reason) => ({ severity: "warning" as const, path, reason }),
    );
  });
}

function catalogReport(
  catalog: Catalog,
  issues: readonly CatalogIssue[],
  inspection: Inspection,
  unsafeLeftOut: number,
): string {
  const packs = catalog.everything.packs
    .map((pack) => `${markdownText(pack.name)} ${pack.skills.length}`)
    .join(", ");
  const lines = [
    "### Catalog check",
    "",
    `${plural(catalog.everything.skills.length, "skill")} in ${plural(catalog.everything.packs.length, "pack")} ` +
      `(${packs}); ${issueCounts(issues)}` +
      (unsafeLeftOut === 0 ? "." : `; ${plural(unsafeLeftOut, "unsafe skill")} left out (Audit, below).`),
  ];
  if (issues.length > 0) lines.push("", ...capped(issues.map(formatIssue), NAMED_ON_STDERR));
  // What the inspection leaves out, and what the server's resources then cannot carry (a file larger than
  // a read carries, URIs another skill holds): /health counts both.
  const served = new Set(catalog.everything.skills.map((skill) => skill.id));
  const leftOut = inspection.leftOut().filter(({ skill }) => served.has(skill.id));
  SkillResources.build(
    catalog.everything,
    (skill) => inspection.of(skill).entry,
    ({ skill, reason }) => {
      if (skill !== undefined)
        leftOut.push({ skill, reason: reason.replace(/^left out of the Skills extension: /, "") });
    },
  );
  const carried = catalog.everything.skills.length - leftOut.length;
  lines.push("", `The Skills extension carries ${carried}; ${leftOut.length} only the tools serve.`);
  if (leftOut.length > 0) {
    lines.push(
      "",
      ...capped(
        leftOut.map(
          ({ skill, reason }) => `- tools only: ${markdownCode(skill.id)}: ${markdownText(reason)}`,
        ),
      ),
    );
  }
  const { skills } = catalog.everything;
  const unlisted = skills.filter((skill) => !skill.modelInvocable).length;
  const noPrompt = skills.filter((skill) => !skill.userInvocable).length;
  lines.push(
    "",
    `Invocation flags: ${unlisted} disable model invocation (no listing, search or preview names them to ` +
      `a model; read_skill reads them by name), ${noPrompt} are not user-invocable (no prompt).`,
  );
  return `${lines.join("\n")}\n`;
}

/**
 * The audit: how many skills a high finding makes unsafe (the server leaves them out unless
 * UNSAFE_SKILLS=serve), the high and medium findings, and the low ones counted by rule.
 */
function auditReport(audit: FolderAudit, inspection: Inspection, serveUnsafe: boolean): string {
  // Gone through, never held whole: 4,000 links to a file of 252 findings make a million (see AuditFindings).
  const { skills, inOrder, issues } = audit;
  const unsafe = inspection.unsafe().map(({ skill }) => skill);
  const lines = [
    "### Audit",
    "",
    `${plural(skills, "skill")}: ${severityCounts((severity) => inOrder.count(severity))} found ([rules](docs/audit.md)).`,
  ];
  if (issues.length > 0) lines.push("", ...capped(issues.map(formatIssue), NAMED_ON_STDERR));
  if (unsafe.length > 0) lines.push("", unsafeLine(unsafe, serveUnsafe));
  const worth = inOrder.count("high") + inOrder.count("medium");
  if (worth > 0) lines.push("", ...listedFindingsTable(worstFirst(inOrder, LISTED_FINDINGS), worth));
  const low = ruleCounts(inOrder, "low");
  if (low.length > 0) lines.push("", "Low findings by rule:", "", ...low);
  return `${lines.join("\n")}\n`;
}

/**
 * The first `limit` high and medium findings, high first, each severity in the findings' order, as
 * findingsTable orders them: a pass a severity, ended once `limit` are taken.
 */
function worstFirst(findings: AuditFindings, limit: number): Finding[] {
  const first: Finding[] = [];
  for (const severity of ["high", "medium"] as const) {
    for (const found of findings) {
      if (first.length === limit) return first;
      if (found.severity === severity) first.push(found);
    }
  }
  return first;
}

function unsafeLine(unsafe: readonly Skill[], serveUnsafe: boolean): string {
  const names = unsafe.slice(0, LISTED_FINDINGS).map((skill) => markdownCode(skill.id));
  const more = unsafe.length > names.length ? `, and ${unsafe.length - names.length} more` : "";
  const them = unsafe.length === 1 ? "it" : "them";
  const lift = serveUnsafe ? "" : ` (UNSAFE_SKILLS=serve would serve ${them})`;
  return `${unsafeLead(unsafe.length, serveUnsafe)}${lift}: ${names.join(", ")}${more}.`;
}

/**
 * What the load found in a folder of which it serves no skill: the refusal names the first three, and an
 * author fixing those would find the next ones only on the next run.
 */
function refusedReport(issues: readonly CatalogIssue[]): string {
  const lines = [
    "### Catalog check",
    "",
    `No skill to serve; ${issueCounts(issues)}.`,
    "",
    ...capped(issues.map(formatIssue)),
  ];
  return `${lines.join("\n")}\n`;
}

/**
 * How many skills, files and folders are left out, and how many warnings. A pack whose every skill is left
 * out is counted apart: counted with them, two broken skills read as three left out.
 */
function issueCounts(issues: readonly CatalogIssue[]): string {
  const skipped = issues.filter((issue) => issue.severity === "skipped");
  const packs = skipped.filter((issue) => issue.reason === PACK_WITHOUT_SKILL).length;
  const withoutSkill = packs === 0 ? "" : `, ${plural(packs, "pack")} with no valid skill`;
  const warnings = plural(issues.length - skipped.length, "warning");
  return `${skipped.length - packs} left out${withoutSkill}, ${warnings}`;
}

const NAMED_ON_STDERR = " (`npm run audit-skills` names each on stderr)";

/** The first LISTED_FINDINGS of `items`, and a line counting the rest: upstream decides how many there are. */
function capped(items: readonly string[], where = ""): string[] {
  if (items.length <= LISTED_FINDINGS) return [...items];
  return [...items.slice(0, LISTED_FINDINGS), `- … and ${items.length - LISTED_FINDINGS} more${where}`];
}

/** The path and the reason come from upstream (names of files and folders, a frontmatter name quoted). */
function formatIssue(issue: CatalogIssue): string {
  const kind = issue.severity === "skipped" ? "left out" : "warning";
  return `- ${kind}: ${markdownCode(issue.path)}: ${markdownText(issue.reason)}`;
}

/** Prints the report of `dir`; when the server would refuse to start, says why and sets exit code 1. */
export async function main(dir: string, env: NodeJS.ProcessEnv): Promise<void> {
  try {
    const { text, refused } = await report(dir, env);
    process.stdout.write(text);
    if (refused !== undefined) throw new CatalogError(refused);
  } catch (error) {
    if (!(error instanceof CatalogError || error instanceof ConfigError)) throw error;
    if (error instanceof CatalogError && error.issues.length > 0)
      process.stdout.write(refusedReport(error.issues));
    // The message may quote upstream names (the first skills left out): none may start a line of its own.
    process.stderr.write(`check-skills: the server would refuse to start: ${visible(error.message)}\n`);
    process.exitCode = 1;
  }
}
