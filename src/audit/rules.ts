import { MAX_FILE_BYTES } from "../catalog/index.js";
import { compareText } from "../shared/index.js";

/** How much a finding matters: `high` makes a skill unsafe to serve; the others are worth a look. */
export type Severity = "high" | "medium" | "low";

/** The rules, by stable id: scripts and reviewers match on these, so an id never changes meaning. */
export const RULES = {
  "tag-characters": { severity: "high", summary: "Unicode tag characters (invisible text)" },
  "bidi-control": { severity: "high", summary: "bidi embedding, override or isolate control" },
  "invisible-character": {
    severity: "high",
    summary: "invisible character inside a word, or a stray variation selector",
  },
  "control-character": {
    severity: "high",
    summary: "control character, or line or paragraph separator (U+2028, U+2029), in a text file",
  },
  "metadata-invisible-character": {
    severity: "high",
    summary: "invisible character in a skill's name or description",
  },
  "metadata-mixed-script": {
    severity: "high",
    summary: "a word of a skill's name or description mixing Latin, Greek and Cyrillic letters",
  },
  "metadata-look-alike-name": {
    severity: "high",
    summary:
      "a skill's name, or a pack's or group's folder name, written in letters that pass for ASCII ones (Cyrillic, Greek, fullwidth…)",
  },
  "explorer-remote-location": {
    severity: "high",
    summary: "a file Windows Explorer reads by itself (desktop.ini, .url, .lnk…) naming a remote share",
  },
  "pipe-to-shell": { severity: "medium", summary: "a download piped into an interpreter" },
  "secret-file": { severity: "medium", summary: "a file that holds keys or credentials, named" },
  "data-upload": {
    severity: "medium",
    summary: "a command that sends a local file or a command's output to a host",
  },
  "prompt-injection": {
    severity: "medium",
    summary: "words telling the agent to drop its other instructions or keep something from the user",
  },
  "destructive-command": {
    severity: "medium",
    summary: "a command that removes the home folder, the root or a system folder, or overwrites a disk",
  },
  "upload-instruction": {
    severity: "medium",
    summary: "words telling the agent to send a file, a key or credentials to a URL or an address",
  },
  "html-comment": { severity: "medium", summary: "an HTML comment, hidden from the rendered Markdown" },
  "markdown-comment": {
    severity: "medium",
    summary:
      "a link definition used as a comment (`[//]: # (text)`), or a title no link shows, hidden from the rendered Markdown",
  },
  "hidden-html": {
    severity: "medium",
    summary: "an HTML element hidden by `hidden` or `display: none` in the rendered Markdown",
  },
  "encoded-blob": { severity: "medium", summary: "a long base64 or hex blob" },
  "deceptive-link": { severity: "medium", summary: "a link whose text shows another host than its target" },
  "soft-hyphen": { severity: "medium", summary: "a soft hyphen inside a word" },
  "metadata-claims-every-task": {
    severity: "medium",
    summary: "a description that claims every task, ahead of every other skill",
  },
  "ligature-break": {
    severity: "medium",
    summary: "a zero-width non-joiner keeping two Latin letters from a ligature",
  },
  "executable-file": { severity: "low", summary: "an executable file" },
  "binary-file": { severity: "low", summary: "a binary file" },
  "large-file": { severity: "low", summary: `a file over ${MAX_FILE_BYTES / 1024} KiB` },
  "skipped-symlink": { severity: "low", summary: "a symlink the fetcher did not copy" },
} as const satisfies Record<string, { severity: Severity; summary: string }>;

export type RuleId = keyof typeof RULES;

export interface Finding {
  /** `<pack>/<path in pack>` from a folder audit; whatever path the caller gave for one file. */
  readonly path: string;
  /** 1-based; 0 when the finding is about the file as a whole (binary, size, mode, symlink). */
  readonly line: number;
  readonly rule: RuleId;
  readonly severity: Severity;
  /** What was found, with every offending character escaped (`U+E0041`), never raw. */
  readonly detail: string;
}

/**
 * One occurrence of a file rule, at a string offset in the file's text: the rules report offsets, and
 * auditFile turns them into lines and findings.
 */
export interface Hit {
  readonly rule: RuleId;
  readonly offset: number;
  readonly detail: string;
}

export const SEVERITIES: readonly Severity[] = ["high", "medium", "low"];

export function finding(path: string, line: number, rule: RuleId, detail: string): Finding {
  return { path, line, rule, severity: RULES[rule].severity, detail };
}

/** Whether a finding makes its skill unsafe to serve: every high one does. */
export function isUnsafe(found: Finding): boolean {
  return found.severity === "high";
}

/** Whether `severity` is `threshold` or worse. */
export function atLeast(severity: Severity, threshold: Severity): boolean {
  return SEVERITIES.indexOf(severity) <= SEVERITIES.indexOf(threshold);
}

/**
 * By path, then line, then rule: the order of an audit's findings, as `audit-skills --json` prints them.
 * The Markdown tables sort them by severity first, keeping this order within a severity.
 */
export function compareFindings(a: Finding, b: Finding): number {
  return compareText(a.path, b.path) || a.line - b.line || compareText(a.rule, b.rule);
}
