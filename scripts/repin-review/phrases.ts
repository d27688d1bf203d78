/** How the review words numbers, counts, cut lists and changes of a file's lines, endings and mode. */
import { markdownCode } from "../audit-markdown.js";
import type { EndingsChange, LineChanges } from "./diff.js";

/**
 * A changed file whose lines differ in whitespace alone: its diff shows lines that look the same (a
 * doubled space, a trailing one), which read as a review that failed to show the change.
 */
export const WHITESPACE_ONLY = ", whitespace only (spacing, indentation or blank lines)";

export const GITHUB_LIMIT = "GitHub's 65,536-character limit for a pull request body";

/** `skill \`kit/b\``, or the pack files for no skill. */
export function placeOf(skill: string | undefined): string {
  return skill === undefined ? "the pack files" : `skill ${markdownCode(skill)}`;
}

/** A text file whose only change is its line endings: one line, not a diff of every line. */
export function endingsOnly(endings: EndingsChange): string {
  return `line endings only, ${endings.before} → ${endings.after}`;
}

/** A note that a file's line endings changed besides its lines, which its counts and diff leave out. */
export function endingsToo(endings: EndingsChange | undefined): string {
  return endings === undefined
    ? ""
    : `; line endings changed too, ${endings.before} → ${endings.after} (not counted)`;
}

/**
 * A change of a file's execute bits, which its bytes do not show: the audit finds an executable file only
 * low, and the list showed a script made executable, its bytes unchanged, not at all.
 */
export function modeChange(executable: boolean): string {
  return executable ? "made executable" : "no longer executable";
}

export function more(total: number, limit: number): string[] {
  return total > limit ? [`- … and ${number(total - limit)} more, cut to stay under ${GITHUB_LIMIT}`] : [];
}

export function listed(items: readonly string[], limit: number): string {
  const shown = items.slice(0, limit).join(", ");
  return items.length > limit
    ? `${shown}, and ${number(items.length - limit)} more (cut to stay under ${GITHUB_LIMIT})`
    : shown;
}

type LineCounts = Pick<LineChanges, "added" | "removed">;

export function sum(changes: readonly LineCounts[]): LineCounts {
  return changes.reduce(
    (total, each) => ({ added: total.added + each.added, removed: total.removed + each.removed }),
    {
      added: 0,
      removed: 0,
    },
  );
}

export function lineCount({ added, removed }: LineCounts): string {
  return `+${number(added)} −${number(removed)} lines`;
}

/** A number as the review writes every one: `3,002`, which a reader sets beside another at a glance. */
export function number(n: number): string {
  return n.toLocaleString("en-US");
}

export function count(n: number, noun: string): string {
  return `${number(n)} ${noun}${n === 1 ? "" : "s"}`;
}
