import type { Skill } from "../../src/catalog/index.js";
import {
  findingsTable,
  listedFindingsTable,
  markdownCode,
  markdownText,
  severityCounts,
  tableRow,
  unsafeLead,
} from "../audit-markdown.js";
import { type LeftOutFile, shortRef } from "../fetch-skills/review-contract.js";
import type { AddedDocument, DocumentChange, PackChanges } from "./compare.js";
import { addedDocument, documentDiff, sideBySide } from "./document-diffs.js";
import { type BodyRoom, SHORT, WHOLE } from "./excerpt.js";
import type { FileChange } from "./file-change.js";
import {
  CONTENT_CHARS,
  type ContentRoom,
  fileContents,
  fileCounts,
  fileList,
  type ListParts,
  listParts,
} from "./file-lists.js";
import { grantsShown, keyRank } from "./frontmatter-keys.js";
import { append, collapsible, section } from "./markdown-blocks.js";
import {
  count,
  endingsOnly,
  endingsToo,
  GITHUB_LIMIT,
  lineCount,
  listed,
  modeChange,
  more,
  number,
  placeOf,
  sum,
  WHITESPACE_ONLY,
} from "./phrases.js";
import { remembered } from "./remembered.js";
import { RARE_LINE_SKILLS, RENAME_TEXT_BYTES, type SkillPair } from "./renames.js";
import type { Before, ReviewContent, ReviewedFinding, SourceReview } from "./review-content.js";
import { ofSeverity, ShownFindings } from "./shown-findings.js";

// The render step's input and its order of paths, which the bench and tests import from here.
export { naturalOrder } from "./file-lists.js";
export type { ReviewContent } from "./review-content.js";
export { ShownFindings } from "./shown-findings.js";

/**
 * The high and new medium findings listed however short the lists are cut: past them the rows, alike by
 * then, would push every source's lists and diffs out of the body.
 */
const ALARMING_ROWS = 50;

/**
 * The review as Markdown in at most `budget` characters: bodies are cut, then lists, to the longest that
 * fits, found by bisection (a review grows with its lists' limit), and it says so. The limits tried were
 * 200, 50, 15, 5 and 1: a bump of 250 files of long paths, whose review at 200 passed the budget, was
 * cut to 50 and filled half of it.
 */
export function renderReview(content: ReviewContent, budget: number): string {
  const parts = partsOnce();
  for (const room of [WHOLE, SHORT]) {
    const text = render(content, Number.POSITIVE_INFINITY, room, parts, budget);
    if (text.length <= budget) return text;
  }
  // `fits` is the longest limit known to fit, `over` the shortest known not to: every list is cut at
  // `longest`, so that one did not.
  let [fits, over] = [0, longestList(content)];
  let best: string | undefined;
  while (over - fits > 1) {
    const limit = Math.floor((fits + over) / 2);
    const text = render(content, limit, SHORT, parts, budget);
    if (text.length <= budget) [fits, best] = [limit, text];
    else over = limit;
  }
  if (best !== undefined) return best;
  const text = render(content, 1, SHORT, parts, budget);
  const cut = text.slice(0, text.lastIndexOf("\n", budget - 300));
  const open = (cut.match(/<details>/g) ?? []).length - (cut.match(/<\/details>/g) ?? []).length;
  const fence = openFence(cut);
  return `${cut}\n${fence === undefined ? "" : `${fence}\n`}${"\n</details>\n".repeat(Math.max(0, open))}\n… the review stops here, to stay under ${GITHUB_LIMIT}.\n`;
}

/** The most items any list of the review holds: a limit of that many cuts none. */
function longestList({ reviews, elsewhere, shared, skipped, collisions }: ReviewContent): number {
  const total = (count: (review: SourceReview) => number) =>
    reviews.reduce((sum, review) => sum + count(review), 0);
  const lists = [
    elsewhere.length,
    shared.length,
    skipped.length,
    collisions.length,
    // Lists of every source together: the findings, the skills made unsafe, those the bump serves anew, the
    // skills whose keys changed.
    total(({ findings }) => findings.length),
    total(({ unsafe }) => unsafe.length),
    total(({ newlySafe }) => newlySafe.length),
    total(({ changes }) => changes.documents.length + changes.addedKeys.length),
  ];
  for (const { changes, source } of reviews) {
    lists.push(
      source.leftOut?.length ?? 0,
      changes.added.length,
      changes.removed.length,
      changes.renamed.length,
      changes.descriptions.length,
      changes.documents.length,
      changes.skillFiles.length,
      changes.packFiles.length,
    );
    // A skill's keys are a list too, of KEPT_KEYS at most.
    for (const { keys } of [...changes.documents, ...changes.addedKeys]) lists.push(keys.length);
  }
  return lists.reduce((most, length) => Math.max(most, length), 1);
}

/**
 * The fence of a code block `text` leaves open (a body cut in the middle), which must be closed before
 * anything follows: the rest of the pull request body would otherwise show as its code.
 */
function openFence(text: string): string | undefined {
  let open: string | undefined;
  for (const line of text.split("\n")) {
    const fence = /^`{3,}/.exec(line)?.[0];
    if (fence === undefined) continue;
    // A block is closed by a line of at least as many backticks and nothing else (fenced() makes its fence
    // longer than any run of backticks inside).
    if (open === undefined) open = fence;
    else if (fence.length >= open.length && line.trimEnd() === fence) open = undefined;
  }
  return open;
}

/**
 * The fewest characters of a row of a table of findings, its line feed left out: `| low | \`x\` | r |  |`.
 * A table of more rows than a budget holds of those makes a text over it.
 */
const FINDING_ROW_CHARS = 20;

/**
 * The review at list limit `limit`. A text over `budget` is only ever measured, so its table of findings
 * stops at one row more than a text within it can hold (see FINDING_ROW_CHARS): a million findings
 * (4,000 links to a file of 252) made a million rows at each render that shows every item.
 */
function render(content: ReviewContent, limit: number, room: BodyRoom, parts: Parts, budget: number): string {
  const { reviews, listPacks, refused, elsewhere, shared, skipped, collisions } = content;
  const findings = reviews.map((review) => review.findings);
  const counted = (matches: (found: ReviewedFinding) => boolean) => ShownFindings.countIn(findings, matches);
  const total = counted(() => true);
  const newHigh = counted(ofSeverity("high", true));
  // A new medium finding fails no status, so the line says so plainly: "no new high finding" alone read
  // as all clear over a step that uploads ~/.ssh.
  const newMedium = counted(ofSeverity("medium", true));
  const unsafe = reviews.flatMap((review) => review.unsafe);
  const lines = ["## What changes for agents", ""];
  if (refused !== undefined)
    lines.push(`**The server would refuse the new skills folder:** ${markdownText(refused)}`, "");
  lines.push(
    `- \`list_packs\` costs ${tokens(listPacks)} tokens (o200k).`,
    `- Audit ([rules](docs/audit.md)): ${
      newHigh > 0 ? `**${count(newHigh, "new high finding")}**` : "no new high finding"
    }${newMedium > 0 ? `, **${count(newMedium, "new medium finding")}** to read (table below)` : ""}; in what this bump adds or changes: ${severityCounts((severity) => counted(ofSeverity(severity, true)))} new.`,
  );
  // What the bump changes in what the server serves comes first, ahead of every skill left out.
  const stopped = reviews.flatMap((review) => review.newlyUnsafe);
  if (stopped.length > 0) {
    const one = stopped.length === 1;
    lines.push(
      `- **${count(stopped.length, "skill")} served before this bump ${one ? "is" : "are"} left out after it**, a high finding making ${one ? "it" : "them"} unsafe: ${listed(stopped.map(markdownCode), limit)}`,
    );
  }
  const started = reviews.flatMap((review) => review.newlySafe);
  if (started.length > 0) {
    const one = started.length === 1;
    lines.push(
      `- **${count(started.length, "skill")} left out before this bump ${one ? "is" : "are"} served after it**, no high finding making ${one ? "it" : "them"} unsafe any more: ${listed(started.map(markdownCode), limit)}`,
    );
  }
  if (unsafe.length > 0) {
    lines.push(`- ${unsafeLead(unsafe.length, false)}: ${listed(unsafe.map(markdownCode), limit)}`);
  }
  // A new skill's keys too: one arriving with `allowed-tools: Bash(*)` grants as much as an edit adding it.
  // The skills whose keys a host acts on first (their keys come sorted so), so that a list cut short keeps them.
  const edits = reviews
    .flatMap((review) => [
      ...review.changes.documents
        .filter((document) => document.keys.length > 0)
        .map(({ skill, keys, keysLeftOut }) => ({
          rank: keyRank(keys[0]?.key ?? ""),
          text: `${markdownCode(skill.id)} (${keyList(
            keys.map((change) => `${markdownCode(change.key)} ${change.kind}${grantsShown(change)}`),
            keysLeftOut,
            limit,
          )})`,
        })),
      ...review.changes.addedKeys.map(({ skill, keys, keysLeftOut }) => ({
        rank: keyRank(keys[0]?.key ?? ""),
        text: `${markdownCode(skill.id)} (new skill: ${keyList(
          keys.map((change) => `${markdownCode(change.key)}${grantsShown(change)}`),
          keysLeftOut,
          limit,
        )})`,
      })),
    ])
    .sort((a, b) => a.rank - b.rank)
    .map(({ text }) => text);
  if (edits.length > 0) {
    lines.push(
      `- Frontmatter keys changed, besides name and description (a host may act on them: \`allowed-tools\` lets a skill use tools without asking): ${listed(edits, limit)}`,
    );
  }
  if (shared.length > 0) {
    const names = shared.map((ids) => ids.map(markdownCode).join(" and "));
    lines.push(
      `- Bare names now shared across packs, which agents must qualify with the pack (a bare \`read_skill\` is refused as ambiguous): ${listed(names, limit)}`,
    );
  }
  if (skipped.length > 0) {
    const items = skipped.map(({ path, reason }) => `${markdownCode(path)}: ${markdownText(reason)}`);
    lines.push(`- Left out by the server's load, newly (upstream still holds them): ${listed(items, limit)}`);
  }
  if (collisions.length > 0) {
    const pairs = collisions.map(({ path, other }) => `${markdownCode(path)} and ${markdownCode(other)}`);
    lines.push(
      `- Paths that newly differ only in letter case, which a checkout on a case-insensitive file system (macOS, Windows) holds as one, losing the other (\`skills-mcp sync\` never writes both into one folder): ${listed(pairs, limit)}`,
    );
  }
  if (limit !== Number.POSITIVE_INFINITY) {
    lines.push(`- Lists below show at most ${count(limit, "item")} each, to stay under ${GITHUB_LIMIT}.`);
  }
  lines.push("");
  if (total > 0) {
    // Before every source's lists and diffs, and open when it holds a new high or medium finding, which the
    // shorter lists do not cut (up to ALARMING_ROWS): what looks dangerous is read first, not at the end of
    // the body in a collapsed section. New ones first within a severity.
    const alarming = counted(ofSeverity("high")) + newMedium;
    const rows = Math.min(
      Math.max(limit, Math.min(alarming, ALARMING_ROWS)),
      Math.floor(budget / FINDING_ROW_CHARS) + 1,
    );
    lines.push("### Audit findings", "");
    append(
      lines,
      collapsible(
        severityCounts((severity) => counted(ofSeverity(severity))),
        listedFindingsTable(ShownFindings.worstFirst(findings, rows), total, newNote),
        newHigh + newMedium > 0 ? 0 : total,
      ),
    );
  }
  const contents: ContentRoom = {
    left: room === WHOLE ? CONTENT_CHARS.whole : CONTENT_CHARS.short,
    files: reviews
      .flatMap(({ changes }) => [...changes.skillFiles.slice(0, limit), ...changes.packFiles.slice(0, limit)])
      .filter(({ content }) => content !== undefined && "lines" in content).length,
  };
  for (const review of reviews) append(lines, renderSource(review, limit, room, contents, parts));
  if (elsewhere.length > 0) {
    lines.push("### High findings in packs this bump does not move", "");
    append(
      lines,
      collapsible(`${count(elsewhere.length, "finding")}`, findingsTable(elsewhere, limit), elsewhere.length),
    );
  }
  // Its sections each end in a blank line: the last one's would stand as blank lines before what follows
  // the review in the pull request body (## Skills fetched).
  while (lines.at(-1) === "") lines.pop();
  return `${lines.join("\n")}\n`;
}

/** `new`, or `new to skill \`kit/b\`` for one its file brought from another skill. */
function newNote({ new: isNew, newTo }: ReviewedFinding): string | undefined {
  if (!isNew) return undefined;
  if (newTo === undefined) return "new";
  return `new to ${placeOf(newTo.skill)}`;
}

/**
 * A skill's keys as `limit` lets a list show them, and how many more it has: a frontmatter of 64 KiB holds
 * hundreds of long keys, which would push the findings out of the review.
 */
function keyList(keys: readonly string[], leftOut: number, limit: number): string {
  const shown = keys.slice(0, limit);
  const more = keys.length - shown.length + leftOut;
  return `${shown.join(", ")}${more > 0 ? `, and ${count(more, "more key")}` : ""}`;
}

function renderSource(
  review: SourceReview,
  limit: number,
  room: BodyRoom,
  contents: ContentRoom,
  parts: Parts,
): string[] {
  const { source, changes, skills, descriptionTokens } = review;
  const lines = [
    `### ${markdownCode(source.name)}: \`${shortRef(source.from)}\` → \`${shortRef(source.to)}\``,
    "",
  ];
  if (source.missing !== undefined) {
    lines.push(
      `> The old commit could not be fetched, so everything shows as added: ${markdownText(source.missing)}`,
      "",
    );
  }
  const files = changes.skillFiles;
  lines.push(
    `- Skills: ${number(skills.before)} → ${number(skills.after)}: ${number(changes.added.length)} added, ${number(changes.removed.length)} removed, ${number(changes.renamed.length)} renamed.`,
    ...notPairedLine(changes.notPaired.length),
    ...pastRenameTextLine(changes.pastRenameText),
    `- Descriptions: ${number(changes.descriptions.length)} changed; the pack's cost ${tokens(descriptionTokens)} tokens (o200k).`,
    `- SKILL.md files: ${documentCounts(changes.documents)}.`,
    `- Supporting files: ${fileCounts(files)}; pack files: ${fileCounts(changes.packFiles)}.`,
    `- Audit: ${auditLine(review.findings)}`,
    ...leftOutLine(source.leftOut ?? []),
    "",
  );
  const id = (skill: Skill) => markdownCode(skill.id);
  section(lines, "Added skills", changes.added.length, [
    "| Skill | Description |",
    "|---|---|",
    ...changes.added.slice(0, limit).map((skill) => tableRow([id(skill), markdownText(skill.description)])),
    ...more(changes.added.length, limit),
    "",
    ...changes.addedDocuments.slice(0, limit).flatMap(parts.addedDocument(review)(room)),
  ]);
  section(lines, "Removed skills", changes.removed.length, [listed(changes.removed.map(id), limit)]);
  const leftOut = source.leftOut ?? [];
  section(lines, `Left out by the fetcher at \`${shortRef(source.to)}\``, leftOut.length, [
    ...leftOut
      .slice(0, limit)
      .map(
        (file) =>
          `- left out: ${markdownCode(file.path)} (${markdownText(file.reason)})${file.new ? " (new)" : ""}`,
      ),
    ...more(leftOut.length, limit),
  ]);
  section(
    lines,
    "Renamed skills",
    changes.renamed.length,
    changes.renamed
      .slice(0, limit)
      .map(({ before, after }) => `- ${id(before)} → ${id(after)}${renamedHow(before, after)}`)
      .concat(more(changes.renamed.length, limit)),
  );
  section(lines, "Descriptions changed", changes.descriptions.length, [
    "| Skill | Before | After |",
    "|---|---|---|",
    ...changes.descriptions.slice(0, limit).map(parts.description),
    ...more(changes.descriptions.length, limit),
  ]);
  const documents = changes.documents.slice(0, limit);
  section(lines, "SKILL.md files changed", changes.documents.length, [
    ...documents.map(
      ({ skill, lines: changed, endings, frontmatter, whitespaceOnly, mode }) =>
        `- ${id(skill)}: ${
          mode?.only === true
            ? `mode only: ${modeChange(mode.executable)}`
            : `${
                endings?.only === true
                  ? endingsOnly(endings)
                  : `${lineCount(changed)}${frontmatter ? ", frontmatter included" : ""}${whitespaceOnly ? WHITESPACE_ONLY : ""}${endingsToo(endings)}`
              }${mode === undefined ? "" : `; ${modeChange(mode.executable)}`}`
        }`,
    ),
    ...more(changes.documents.length, limit),
    "",
    ...documents.flatMap(parts.documentDiff(review)(room)),
  ]);
  for (const [title, list] of [
    ["Supporting files", files],
    ["Pack files", changes.packFiles],
  ] as const) {
    section(lines, title, list.length, [
      ...fileList(parts.list(review)(list), limit),
      "",
      ...fileContents(review.source, list, limit, room, contents, parts.list(review)(list)),
    ]);
  }
  return lines;
}

/**
 * How many files the fetcher leaves out of the pack at the new commit, which the server never serves and
 * the diffs above do not show: a symlink out of the repository is an attempt as often as a slip.
 */
function leftOutLine(leftOut: readonly LeftOutFile[]): string[] {
  if (leftOut.length === 0) return [];
  const fresh = leftOut.filter((file) => file.new).length;
  return [`- Left out by the fetcher: ${number(leftOut.length)} (${number(fresh)} new), listed below.`];
}

function auditLine(findings: ShownFindings): string {
  if (findings.length === 0) return "nothing in what this bump adds or changes, and no high finding.";
  const fresh = findings.count((found) => found.new);
  const old = findings.length - fresh;
  const freshCounts = severityCounts((severity) => findings.count(ofSeverity(severity, true)));
  return `${fresh > 0 ? `${freshCounts} new` : "nothing new"}${old > 0 ? `; ${number(old)} already there before` : ""}.`;
}

/**
 * What the review shows of each source that its list limit does not change, worked out when first asked
 * for and then reused by every render the bisection tries.
 */
interface Parts {
  readonly list: (review: SourceReview) => (list: readonly FileChange[]) => ListParts;
  /** A changed description's row, its words diffed (up to WORD_LIMITS each time). */
  readonly description: (pair: SkillPair) => string;
  readonly documentDiff: (review: SourceReview) => (room: BodyRoom) => (document: DocumentChange) => string[];
  readonly addedDocument: (review: SourceReview) => (room: BodyRoom) => (added: AddedDocument) => string[];
}

function partsOnce(): Parts {
  return {
    list: remembered((review) => remembered((list) => listParts(review, list))),
    description: remembered(({ before, after }) =>
      tableRow([markdownCode(after.id), ...sideBySide(before.description, after.description)]),
    ),
    documentDiff: remembered(({ source }) =>
      remembered((room) => remembered((document) => documentDiff(document, room, source))),
    ),
    addedDocument: remembered(({ source }) =>
      remembered((room) => remembered((added) => addedDocument(added, room, source))),
    ),
  };
}

function renamedHow(before: Skill, after: Skill): string {
  const folder = before.folder !== after.folder;
  const name = before.name !== after.name;
  if (folder && name && before.folder === before.name && after.folder === after.name)
    return " (folder and name)";
  const how: string[] = [];
  if (folder) how.push(`folder ${markdownCode(before.folder)} → ${markdownCode(after.folder)}`);
  if (name) how.push(`name ${markdownCode(before.name)} → ${markdownCode(after.name)}`);
  return ` (${how.join(", ")})`;
}

/** Why some added skills may be renamed ones the review did not pair (see RARE_LINE_SKILLS). */
function notPairedLine(added: number): string[] {
  if (added === 0) return [];
  return [
    `- Not compared for a rename: ${count(added, "added skill")}, at least half of whose lines more than ${RARE_LINE_SKILLS} removed skills share, too many to tell which one each came from; a skill moved and edited among them shows as removed and added.`,
  ];
}

/** Which skills were not compared for a rename, their text past what the review reads for it. */
function pastRenameTextLine({ added, removed }: PackChanges["pastRenameText"]): string[] {
  if (added === 0 && removed === 0) return [];
  const skills = [
    ...(added > 0 ? [count(added, "added skill")] : []),
    ...(removed > 0 ? [count(removed, "removed skill")] : []),
  ].join(" and ");
  return [
    `- Not compared for a rename: ${skills}, past the ${RENAME_TEXT_BYTES / 1024 / 1024} MiB of text the review reads to tell renames (the removed skills' together, each added skill's own); a skill moved and edited among them shows as removed and added.`,
  ];
}

function documentCounts(documents: readonly DocumentChange[]): string {
  if (documents.length === 0) return "none changed";
  const frontmatters = documents.filter((document) => document.frontmatter).length;
  const endings = documents.filter((document) => document.endings?.only === true).length;
  const modes = documents.filter((document) => document.mode?.only === true).length;
  return `${number(documents.length)} changed (${lineCount(sum(documents.map((document) => document.lines)))})${
    frontmatters > 0 ? `, ${number(frontmatters)} of them in the frontmatter` : ""
  }${endings > 0 ? `, ${number(endings)} only in line endings` : ""}${modes > 0 ? `, ${number(modes)} only in mode` : ""}`;
}

function tokens({ before, after }: Before<number>): string {
  const change = after - before;
  const sign = change > 0 ? "+" : change < 0 ? "−" : "±";
  return `${number(before)} → ${number(after)} (${sign}${number(Math.abs(change))})`;
}
