/** The SKILL.md files a bump changes or adds, and its changed descriptions, as the review shows them. */
import { markdownText } from "../audit-markdown.js";
import type { ReviewedSource } from "../fetch-skills/review-contract.js";
import type { AddedDocument, DocumentChange } from "./compare.js";
import { type DiffLimits, type Edit, editScript, spanScript, UNIFIED_LIMITS } from "./diff.js";
import type { BodyRoom } from "./excerpt.js";
import { readUpstream } from "./git-commands.js";
import { collapsed, fenced } from "./markdown-blocks.js";
import { count } from "./phrases.js";
import { documentIn } from "./served.js";

/**
 * Descriptions are compared word by word up to these sizes (a description may be as long as its SKILL.md);
 * past them the words from the first to the last difference are marked, which takes linear work.
 */
const WORD_LIMITS: DiffLimits = { items: 2000, edits: 200 };

/**
 * Two versions of a text as table cells, the words that differ in bold (a shortest word-by-word diff), so
 * that the real edit in a long description is seen.
 */
export function sideBySide(before: string, after: string): [string, string] {
  const [a, b] = [before.split(" "), after.split(" ")];
  const edits = editScript(a, b, WORD_LIMITS) ?? spanScript(a, b);
  return [marked(edits, "added"), marked(edits, "removed")];
}

/** One side of a word diff (every edit but those of kind `other`), each run of changed words in bold. */
function marked(edits: readonly Edit<string>[], other: Edit<string>["kind"]): string {
  const parts: string[] = [];
  let run: string[] = [];
  let changed = false;
  const close = () => {
    const text = markdownText(run.join(" "));
    if (text !== "") parts.push(changed ? `**${text}**` : text);
    run = [];
  };
  for (const edit of edits) {
    if (edit.kind === other) continue;
    if ((edit.kind !== "same") !== changed) {
      close();
      changed = !changed;
    }
    run.push(edit.item);
  }
  close();
  return parts.join(" ");
}

/**
 * A changed SKILL.md, frontmatter and all, as a collapsed unified diff, cut as `room` says with a note, so
 * that a reviewer reads the edit without leaving the pull request. Hidden characters are shown as `{U+202E}`.
 */
export function documentDiff(document: DocumentChange, room: BodyRoom, source: ReviewedSource): string[] {
  const summary = `${document.skill.id}: SKILL.md diff`;
  const where = readUpstream(source, [documentIn(document.skill), document.movedFrom], true);
  const { hunks, endings, mode } = document;
  // Only past the changed files whose bodies the review keeps (KEPT_BODIES over all packs), when it cannot
  // show them all anyway; and a change of line endings or mode alone, which its line in the list says in full.
  if (hunks === "not kept" || endings?.only === true || mode?.only === true) return [];
  if (hunks === "too different") {
    return collapsed(summary, [
      `Too different to diff here (over ${count(UNIFIED_LIMITS.edits, "changed line")}, or over ${count(UNIFIED_LIMITS.items, "line")} from the first change to the last): ${where}.`,
    ]);
  }
  if (hunks.total === 0) {
    return collapsed(summary, [
      `No line reads otherwise: the bytes changed at the end of the file or where they are not UTF-8; ${where}.`,
    ]);
  }
  const note =
    endings === undefined
      ? []
      : [`Line endings changed too (${endings.before} → ${endings.after}); this diff leaves them out.`, ""];
  return collapsed(summary, [...note, ...fenced(hunks, "diff", "of this diff", room, where)]);
}

/**
 * An added skill's SKILL.md as a collapsed block, cut like a diff: the instructions a model will follow,
 * which its description in the table above does not show.
 */
export function addedDocument(
  { skill, lines }: AddedDocument,
  room: BodyRoom,
  source: ReviewedSource,
): string[] {
  const where = readUpstream(source, [documentIn(skill)], true);
  return collapsed(`${skill.id}: SKILL.md (new)`, fenced(lines, "markdown", "of it", room, where));
}
