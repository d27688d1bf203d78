/** The audit's findings as Markdown, for the scripts that print them: check-skills, audit-skills, the repin review. */
import { type Finding, RULES, SEVERITIES, type Severity } from "../src/audit/index.js";
import { longestBacktickRun, visible } from "../src/shared/index.js";

/**
 * `text` as inline code that any content leaves intact: upstream file names may hold backticks or
 * invisible characters, and must neither end the span nor hide in it. In a table, `tableRow` escapes
 * its pipes.
 */
export function markdownCode(text: string): string {
  const shown = visible(text);
  const fence = "`".repeat(longestBacktickRun(shown) + 1);
  const pad = shown.startsWith("`") || shown.endsWith("`") ? " " : "";
  return `${fence}${pad}${shown}${pad}${fence}`;
}

/**
 * A word GitHub would make live in a pull request: an @mention (it notifies the user or team), an issue
 * reference (`#1`, `GH-1`, `owner/repo#1`; after "Fixes" it closes the issue on merge), or an autolink
 * (`https://`, `www.`, an e-mail address). GitHub finds mentions and references after the Markdown is
 * parsed, so neither a backslash nor an entity (`&#64;`) stops them, and cmark-gfm links `a&#64;b.com`;
 * a code span stops them all.
 */
const LIVE_WORD = /@|:\/\/|www\.|#\d|\bgh-\d/i;
const OPENING = "([\"'";
const CLOSING = ")]\"'.,;:!?";

/**
 * `text` shown as written, with nothing in it read as Markdown or HTML (in a table, through `tableRow`);
 * a word that GitHub would make live is shown as inline code.
 */
export function markdownText(text: string): string {
  return visible(text)
    .split(" ")
    .map((word) => (LIVE_WORD.test(word) ? inertWord(word) : escaped(word)))
    .join(" ");
}

/** A live word as inline code, the brackets and punctuation around it left as text: `(`@octocat`),`. */
function inertWord(word: string): string {
  let start = 0;
  while (start < word.length && OPENING.includes(word.charAt(start))) start++;
  let end = word.length;
  while (end > start && CLOSING.includes(word.charAt(end - 1))) end--;
  return `${escaped(word.slice(0, start))}${markdownCode(word.slice(start, end))}${escaped(word.slice(end))}`;
}

function escaped(text: string): string {
  return text.replace(/[\\`*_[\]<>~&#!]/g, "\\$&");
}

/**
 * A table row of Markdown `cells`, each pipe in them escaped: a table splits its cells at every other
 * pipe, inside code spans too, and shows `\|` as `|` (GFM; only there, so only here).
 */
export function tableRow(cells: readonly string[]): string {
  return `| ${cells.map((cell) => cell.replaceAll("|", "\\|")).join(" | ")} |`;
}

/** A finding as a report shows it: the audit's, or one of a rule the report adds (the repin review's). */
type ShownFinding = Omit<Finding, "rule"> & { readonly rule: string };

/** `3 high, 1 medium, 12 low`, or `none`. */
export function countBySeverity(findings: readonly ShownFinding[]): string {
  return severityCounts((severity) => findings.filter((found) => found.severity === severity).length);
}

/** `3 high, 1 medium, 12 low`, or `none`, from how many findings `count` says each severity has. */
export function severityCounts(count: (severity: Severity) => number): string {
  const counts = SEVERITIES.map((severity) => [severity, count(severity)] as const).filter(
    ([, counted]) => counted > 0,
  );
  return counts.length === 0
    ? "none"
    : counts.map(([severity, counted]) => `${counted.toLocaleString("en-US")} ${severity}`).join(", ");
}

/** `path:line`, or the path alone for a finding about a whole file. */
function findingPlace(found: ShownFinding): string {
  return found.line > 0 ? `${found.path}:${found.line}` : found.path;
}

/** The first two lines of a table of findings (findingsTable). */
export const FINDINGS_TABLE_HEAD = ["| Severity | Where | Rule | Detail |", "|---|---|---|---|"] as const;

/** A finding as a row of a table of findings, its severity shown as `severity` says. */
export function findingRow(found: ShownFinding, severity: string = found.severity): string {
  return tableRow([severity, markdownCode(findingPlace(found)), found.rule, markdownText(found.detail)]);
}

/**
 * A Markdown table of `findings`, worst first; past `limit` rows, one line says how many are left out.
 * `note` may add a word to a finding's severity (`high (new)`).
 */
export function findingsTable<T extends ShownFinding>(
  findings: readonly T[],
  limit = Number.POSITIVE_INFINITY,
  note: (found: T) => string | undefined = () => undefined,
): string[] {
  const ordered = [...findings].sort(
    (a, b) => SEVERITIES.indexOf(a.severity) - SEVERITIES.indexOf(b.severity),
  );
  return listedFindingsTable(ordered.slice(0, limit), ordered.length, note);
}

/**
 * A Markdown table of `listed`, already worst first, the first of `total` findings: one line says how many
 * are left out. For a caller that goes through the findings rather than hold them all (check-skills).
 */
export function listedFindingsTable<T extends ShownFinding>(
  listed: readonly T[],
  total: number,
  note: (found: T) => string | undefined = () => undefined,
): string[] {
  const severity = (found: T) => {
    const noted = note(found);
    return noted === undefined ? found.severity : `${found.severity} (${noted})`;
  };
  const lines = [...FINDINGS_TABLE_HEAD, ...listed.map((found) => findingRow(found, severity(found)))];
  if (total > listed.length) lines.push("", `… and ${total - listed.length} more, not listed.`);
  return lines;
}

/** One line per rule that found something: `low  binary-file  12  a binary file`. */
export function ruleCounts(findings: Iterable<Finding>, severity?: Severity): string[] {
  const counts = new Map<string, number>();
  for (const found of findings) {
    if (severity === undefined || found.severity === severity)
      counts.set(found.rule, (counts.get(found.rule) ?? 0) + 1);
  }
  return Object.entries(RULES)
    .filter(([rule]) => counts.has(rule))
    .map(
      ([rule, { severity: level, summary }]) => `- ${level} \`${rule}\` (${summary}): ${counts.get(rule)}`,
    );
}

/**
 * How check-skills and the repin review open their list of the `count` skills a high finding makes
 * unsafe, and what the server does with them: `A high finding makes 2 skills unsafe; the server leaves
 * them out`, or, with UNSAFE_SKILLS=serve, that it serves them with a warning.
 */
export function unsafeLead(count: number, serveUnsafe: boolean): string {
  const one = count === 1;
  const them = one ? "it" : "them";
  const made = `A high finding makes ${count.toLocaleString("en-US")} skill${one ? "" : "s"} unsafe`;
  return serveUnsafe
    ? `${made}; UNSAFE_SKILLS=serve serves ${them} all the same, with a warning`
    : `${made}; the server leaves ${them} out`;
}
