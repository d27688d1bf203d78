import path from "node:path";
import type { Finding } from "../../src/audit/index.js";
import { formatSize, type Skill } from "../../src/catalog/index.js";
import { compareText } from "../../src/sorted.js";
import {
  DOLLAR_QUOTE_SHELLS,
  dollarQuoted,
  longestBacktickRun,
  shellWord,
  visible,
} from "../../src/visible.js";
import {
  countBySeverity,
  findingsTable,
  markdownCode,
  markdownText,
  tableRow,
  unsafeLead,
} from "../audit-markdown.js";
import { type ReviewedSource, shortRef } from "../fetch-skills/review-contract.js";
import {
  type AddedDocument,
  CONTENT_BYTES,
  CROWD_SAMPLES,
  type Crowd,
  contentShare,
  crowdsIn,
  type DocumentChange,
  type FileChange,
  KEPT_CONTENT_CHARS,
  type PackChanges,
  renamedAsItWas,
} from "./compare.js";
import {
  type DiffLimits,
  type Edit,
  type EndingsChange,
  editScript,
  type LineChanges,
  spanScript,
  UNIFIED_LIMITS,
} from "./diff.js";
import { type BodyRoom, type Excerpt, SHORT, shownLines, WHOLE } from "./excerpt.js";
import { keyRank } from "./frontmatter-keys.js";
import { RARE_LINE_SKILLS, RENAME_TEXT_BYTES, type SkillPair } from "./renames.js";
import { documentIn, type ServedFile } from "./served.js";

/**
 * The review's own rule, high: a served file the bump adds or changes that the audit did not read (over
 * 16 MiB, or unreadable). The server serves it unaudited; the review makes someone read it.
 */
export const NOT_AUDITED = "not-audited";

/** A finding of the new commit (the audit's, or the review's own), and whether the old one had it too. */
export type ReviewedFinding = Omit<Finding, "rule"> & {
  readonly rule: Finding["rule"] | typeof NOT_AUDITED;
  readonly new: boolean;
  /**
   * Of a finding the old commit had in a file moved out of one skill into another: the id of the skill it
   * moved into, to which the finding is new (see newToSkill in index.ts); undefined for the pack files.
   */
  readonly newTo?: { readonly skill: string | undefined };
};

export interface SourceReview {
  readonly source: ReviewedSource;
  readonly changes: PackChanges;
  readonly skills: Before<number>;
  readonly descriptionTokens: Before<number>;
  /** In files the bump adds or changes, and every high one. */
  readonly findings: readonly ReviewedFinding[];
  /** Skills of the new commit that a high finding makes unsafe, by id. */
  readonly unsafe: readonly string[];
  /** Of `unsafe`, the skills the old commit had too, safe then: the server stops serving them. */
  readonly newlyUnsafe: readonly string[];
  /** Skills of both commits that a high finding made unsafe before and no longer does: the server serves them now. */
  readonly newlySafe: readonly string[];
}

interface Before<T> {
  readonly before: T;
  readonly after: T;
}

export interface ReviewContent {
  readonly reviews: readonly SourceReview[];
  readonly listPacks: Before<number>;
  /** Why the server would refuse the new skills folder, if it would. */
  readonly refused: string | undefined;
  /** High findings in packs that did not move. */
  readonly elsewhere: readonly Finding[];
  /** The ids of the skills of each bare name that two packs newly share. */
  readonly shared: readonly (readonly string[])[];
  /** What the server's load of the new commits newly leaves out, with why. */
  readonly skipped: readonly { readonly path: string; readonly reason: string }[];
  /** Served paths the new commits make differ only in case from another of their pack's (`other`). */
  readonly collisions: readonly { readonly path: string; readonly other: string }[];
}

/**
 * A changed file whose lines differ in whitespace alone: its diff shows lines that look the same (a
 * doubled space, a trailing one), which read as a review that failed to show the change.
 */
const WHITESPACE_ONLY = ", whitespace only (spacing, indentation or blank lines)";
/** Lists longer than this are collapsed, so that a 60-skill bump still reads from the top. */
const OPEN_ITEMS = 10;
/**
 * The high and new medium findings listed however short the lists are cut: past them the rows, alike by
 * then, would push every source's lists and diffs out of the body.
 */
const ALARMING_ROWS = 50;
const GITHUB_LIMIT = "GitHub's 65,536-character limit for a pull request body";
/**
 * Descriptions are compared word by word up to these sizes (a description may be as long as its SKILL.md);
 * past them the words from the first to the last difference are marked, which takes linear work.
 */
const WORD_LIMITS: DiffLimits = { items: 2000, edits: 200 };
/**
 * The characters of supporting and pack files' contents one review shows in all, as wide as the review
 * keeps (KEPT_CONTENT_CHARS) and narrower once bodies are cut: a bump adding a hundred scripts still
 * leaves the findings and SKILL.md diffs room under GitHub's limit.
 */
const CONTENT_CHARS = { whole: KEPT_CONTENT_CHARS, short: 6000 };
/**
 * How much of the room for file contents a review has left, shared by its sources in turn, and how many
 * files are still to show in it: each takes a fair share (see contentShare).
 */
interface ContentRoom {
  left: number;
  files: number;
}

/**
 * The review as Markdown in at most `budget` characters: bodies are cut, then lists, to the longest that
 * fits, found by bisection (a review grows with its lists' limit), and it says so. The limits tried were
 * 200, 50, 15, 5 and 1: a bump of 250 files of long paths, whose review at 200 passed the budget, was
 * cut to 50 and filled half of it.
 */
export function renderReview(content: ReviewContent, budget: number): string {
  const parts = partsOnce();
  for (const room of [WHOLE, SHORT]) {
    const text = render(content, Number.POSITIVE_INFINITY, room, parts);
    if (text.length <= budget) return text;
  }
  // `fits` is the longest limit known to fit, `over` the shortest known not to: every list is cut at
  // `longest`, so that one did not.
  let [fits, over] = [0, longestList(content)];
  let best: string | undefined;
  while (over - fits > 1) {
    const limit = Math.floor((fits + over) / 2);
    const text = render(content, limit, SHORT, parts);
    if (text.length <= budget) [fits, best] = [limit, text];
    else over = limit;
  }
  if (best !== undefined) return best;
  const text = render(content, 1, SHORT, parts);
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
  for (const { changes } of reviews) {
    lists.push(
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

function render(content: ReviewContent, limit: number, room: BodyRoom, parts: Parts): string {
  const { reviews, listPacks, refused, elsewhere, shared, skipped, collisions } = content;
  const findings = reviews.flatMap((review) => review.findings);
  const newHigh = findings.filter((found) => found.new && found.severity === "high");
  // A new medium finding fails no status, so the line says so plainly: "no new high finding" alone read
  // as all clear over a step that uploads ~/.ssh.
  const newMedium = findings.filter((found) => found.new && found.severity === "medium").length;
  const unsafe = reviews.flatMap((review) => review.unsafe);
  const lines = ["## What changes for agents", ""];
  if (refused !== undefined)
    lines.push(`**The server would refuse the new skills folder:** ${markdownText(refused)}`, "");
  lines.push(
    `- \`list_packs\` costs ${tokens(listPacks)} tokens (o200k).`,
    `- Audit ([rules](docs/audit.md)): ${
      newHigh.length > 0 ? `**${count(newHigh.length, "new high finding")}**` : "no new high finding"
    }${newMedium > 0 ? `, **${count(newMedium, "new medium finding")}** to read (table below)` : ""}; in what this bump adds or changes: ${countBySeverity(findings.filter((found) => found.new))} new.`,
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
            keys.map(({ key, kind }) => `${markdownCode(key)} ${kind}`),
            keysLeftOut,
            limit,
          )})`,
        })),
      ...review.changes.addedKeys.map(({ skill, keys, keysLeftOut }) => ({
        rank: keyRank(keys[0] ?? ""),
        text: `${markdownCode(skill.id)} (new skill: ${keyList(keys.map(markdownCode), keysLeftOut, limit)})`,
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
      `- Paths that newly differ only in letter case, which a case-insensitive file system (macOS, Windows: where \`skills-mcp sync\` writes skills and reviewers check them out) holds as one, losing the other: ${listed(pairs, limit)}`,
    );
  }
  if (limit !== Number.POSITIVE_INFINITY) {
    lines.push(`- Lists below show at most ${count(limit, "item")} each, to stay under ${GITHUB_LIMIT}.`);
  }
  lines.push("");
  if (findings.length > 0) {
    // Before every source's lists and diffs, and open when it holds a new high or medium finding, which the
    // shorter lists do not cut (up to ALARMING_ROWS): what looks dangerous is read first, not at the end of
    // the body in a collapsed section. New ones first within a severity (the table sorts by severity, stably).
    const ordered = [...findings].sort((a, b) => Number(b.new) - Number(a.new));
    const alarming = findings.filter(
      (found) => found.severity === "high" || (found.new && found.severity === "medium"),
    );
    lines.push("### Audit findings", "");
    append(
      lines,
      collapsible(
        countBySeverity(findings),
        findingsTable(ordered, Math.max(limit, Math.min(alarming.length, ALARMING_ROWS)), newNote),
        alarming.some((found) => found.new) ? 0 : findings.length,
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

/** `skill \`kit/b\``, or the pack files for no skill. */
function placeOf(skill: string | undefined): string {
  return skill === undefined ? "the pack files" : `skill ${markdownCode(skill)}`;
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
 * Two versions of a text as table cells, the words that differ in bold (a shortest word-by-word diff), so
 * that the real edit in a long description is seen.
 */
function sideBySide(before: string, after: string): [string, string] {
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
function documentDiff(document: DocumentChange, room: BodyRoom, source: ReviewedSource): string[] {
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

/** A text file whose only change is its line endings: one line, not a diff of every line. */
function endingsOnly(endings: EndingsChange): string {
  return `line endings only, ${endings.before} → ${endings.after}`;
}

/** A note that a file's line endings changed besides its lines, which its counts and diff leave out. */
function endingsToo(endings: EndingsChange | undefined): string {
  return endings === undefined
    ? ""
    : `; line endings changed too, ${endings.before} → ${endings.after} (not counted)`;
}

/**
 * An added skill's SKILL.md as a collapsed block, cut like a diff: the instructions a model will follow,
 * which its description in the table above does not show.
 */
function addedDocument({ skill, lines }: AddedDocument, room: BodyRoom, source: ReviewedSource): string[] {
  const where = readUpstream(source, [documentIn(skill)], true);
  return collapsed(`${skill.id}: SKILL.md (new)`, fenced(lines, "markdown", "of it", room, where));
}

/**
 * `lines` in a code fence longer than any run of backticks in them, each line and all of them cut as `room`
 * says, with a note of what was left out (`of what`) and `where` it is, hidden characters shown as `{U+…}`.
 */
function fenced(lines: Excerpt, language: string, ofWhat: string, room: BodyRoom, where: string): string[] {
  const shown = shownLines(lines.lines, room);
  const longest = shown.reduce((most, line) => Math.max(most, longestBacktickRun(line)), 2);
  const fence = "`".repeat(longest + 1);
  const left = lines.total - shown.length;
  return [
    `${fence}${language}`,
    ...shown,
    fence,
    ...(left > 0
      ? ["", `… and ${count(left, "more line")} ${ofWhat}, cut to keep the review short: ${where}.`]
      : []),
  ];
}

function collapsed(summary: string, body: readonly string[]): string[] {
  // Hidden characters of a skill's name shown as `{U+202E}`, as everywhere else, not left to reorder the line.
  return ["<details>", `<summary>${html(visible(summary))}</summary>`, "", ...body, "", "</details>", ""];
}

/** `text` safe inside an HTML element. */
function html(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

function auditLine(findings: readonly ReviewedFinding[]): string {
  if (findings.length === 0) return "nothing in what this bump adds or changes, and no high finding.";
  const fresh = findings.filter((found) => found.new);
  const old = findings.length - fresh.length;
  return `${fresh.length > 0 ? `${countBySeverity(fresh)} new` : "nothing new"}${old > 0 ? `; ${number(old)} already there before` : ""}.`;
}

/** A heading and its lines, collapsed when there are many; nothing when there is nothing. */
function section(lines: string[], title: string, items: number, body: readonly string[]): void {
  if (items === 0) return;
  lines.push(`#### ${title}`, "");
  append(lines, collapsible(count(items, "item"), body, items));
}

/**
 * `items` added to `lines` one by one: spread into one call (`push(...items)`), some hundred thousand
 * lines (twenty added SKILL.md files of 10,000 short lines, shown whole) overflow the call stack.
 */
function append(lines: string[], items: readonly string[]): void {
  for (const item of items) lines.push(item);
}

function collapsible(summary: string, body: readonly string[], items: number): string[] {
  // One blank line after it: a body ending in a collapsed block (a diff) has its own.
  if (items <= OPEN_ITEMS) return body.at(-1) === "" ? [...body] : [...body, ""];
  return ["<details>", `<summary>${summary}</summary>`, "", ...body, "", "</details>", ""];
}

/**
 * The content of each added or changed text file listed, collapsed as a SKILL.md diff is (hidden characters
 * as `{U+…}`, in a fence longer than any run of backticks in it), each cut at its fair share of what
 * `contents` has left, while it has room; then the files left out, with why and where to read them.
 */
function fileContents(
  source: ReviewedSource,
  list: readonly FileChange[],
  limit: number,
  room: BodyRoom,
  contents: ContentRoom,
  parts: ListParts,
): string[] {
  const lines: string[] = [];
  const pastRoom: FileChange[] = [];
  const tooLarge: FileChange[] = [];
  const gitText: FileChange[] = [];
  for (const file of list.slice(0, limit)) {
    const { content } = file;
    if (content === undefined || content.kind === "crowd") continue;
    const named = `${source.name}/${file.path}`;
    const where = parts.where(file);
    if (content.kind === "text to git") gitText.push(file);
    else if (content.kind === "too large") tooLarge.push(file);
    else if (content.kind === "too different") {
      append(
        lines,
        collapsed(`${named}: diff`, [
          `Too different to diff here (over ${count(UNIFIED_LIMITS.edits, "changed line")}, or over ${count(UNIFIED_LIMITS.items, "line")} from the first change to the last): ${where}.`,
        ]),
      );
    } else if ("lines" in content && contentShare(contents.left, contents.files) > 0) {
      const share = contentShare(contents.left, contents.files);
      contents.files -= 1;
      // Lines cut to the share too: one longer than it would leave a minified file showing nothing.
      const fits = { chars: Math.min(room.chars, share), lineChars: Math.min(room.lineChars, share - 2) };
      const diff = content.kind === "diff";
      const body = fenced(
        content.lines,
        diff ? "diff" : "text",
        diff ? "of this diff" : "of it",
        fits,
        where,
      );
      // The lines shown are charged, not the fence and note around them, as a share counts them.
      contents.left -= shownLines(content.lines.lines, fits).reduce(
        (size, line) => size + line.length + 1,
        0,
      );
      const sample = file.sample === undefined ? "" : `, a sample of its crowd: ${file.sample}`;
      append(lines, collapsed(`${named}: ${diff ? "diff" : "(new)"}${sample}`, body));
    } else pastRoom.push(file);
  }
  const named = (files: readonly FileChange[]) =>
    files.map((file) => markdownCode(`${source.name}/${file.path}`)).join(", ");
  // One file's own diff; of several, the diff of the pack's folders, which a list of their paths would
  // make as long as the list.
  const where = (files: readonly FileChange[]) =>
    files.length === 1 && files[0] !== undefined ? parts.where(files[0]) : parts.pack;
  if (pastRoom.length > 0)
    lines.push(
      `- Content not shown, past the ${number(CONTENT_CHARS.whole)} characters (${number(CONTENT_CHARS.short)} when the review is cut) the review gives the contents of files: ${named(pastRoom)}; ${where(pastRoom)}.`,
      "",
    );
  if (tooLarge.length > 0)
    lines.push(
      `- Content not shown, over ${CONTENT_BYTES / 1024 / 1024} MiB: ${named(tooLarge)}; ${where(tooLarge)}.`,
      "",
    );
  // Its list line says binary, as the server serves it, while git shows its lines: a Latin-1 script.
  if (gitText.length > 0)
    lines.push(
      `- Content not shown, served as binary (not UTF-8, or a NUL or many control characters in its first 8 KiB) but diffed by git as text: ${named(gitText)}; ${where(gitText)}.`,
      "",
    );
  append(lines, crowdsLeftOut(parts, limit));
  return lines;
}

/**
 * For each crowd of the list, how many of its files' contents are left out past its samples (every one of
 * them, not only those a cut list names), and the `git diff` that shows the crowd (see crowdDiff).
 */
function crowdsLeftOut({ leftOut }: ListParts, limit: number): string[] {
  // As many crowds as the list names (see fileList): a line each would otherwise outgrow the budget.
  return [...leftOut.slice(0, limit).flat(), ...more(leftOut.length, limit)];
}

/** Every path in the pack the review says the bump changes, old paths of moved files and skills included. */
function changedPaths(changes: PackChanges): string[] {
  return [
    ...[...changes.skillFiles, ...changes.packFiles].flatMap((file) => [file.path, file.movedFrom]),
    ...changes.documents.flatMap((document) => [documentIn(document.skill), document.movedFrom]),
    ...[...changes.added, ...changes.removed].map(documentIn),
    ...changes.renamed.flatMap(({ before, after }) => [documentIn(before), documentIn(after)]),
  ].filter((file) => file !== undefined);
}

/**
 * What a `git diff` of the pack's folders shows, as far as the review knows: the paths only the old commit
 * has (removed, or where a file or skill was before it moved) and only the new one has, which git compares
 * to find renames, each once; whether the review paired any of them; and the supporting and pack files.
 */
interface PackDiffs {
  readonly sources: readonly string[];
  readonly destinations: readonly string[];
  readonly paired: boolean;
  readonly files: readonly FileChange[];
}

function packDiffs(changes: PackChanges): PackDiffs {
  const [sources, destinations] = [new Set<string>(), new Set<string>()];
  let paired = false;
  const moved = (from: string, to: string) => {
    sources.add(from);
    destinations.add(to);
    paired = true;
  };
  const files = [...changes.skillFiles, ...changes.packFiles];
  for (const file of files) {
    if (file.kind === "removed") sources.add(file.path);
    else if (file.kind === "added") destinations.add(file.path);
    else if (file.movedFrom !== undefined) moved(file.movedFrom, file.path);
  }
  for (const { skill, movedFrom } of changes.documents)
    if (movedFrom !== undefined) moved(movedFrom, documentIn(skill));
  for (const { before, after } of changes.renamed)
    if (before.folder !== after.folder) moved(documentIn(before), documentIn(after));
  for (const skill of changes.removed) sources.add(documentIn(skill));
  for (const skill of changes.added) destinations.add(documentIn(skill));
  return { sources: [...sources], destinations: [...destinations], paired, files };
}

/** Whether `file`, a path in the pack, is one of `folders` or in one (`.` the whole pack). */
function isWithin(file: string, folders: readonly string[]): boolean {
  return folders.some((folder) => folder === "." || file === folder || file.startsWith(`${folder}/`));
}

/** The default `diff.renameLimit` of git before 2.28 (1,000 since): the review's commands raise it past this. */
const GIT_RENAME_LIMIT = 400;

/**
 * The option that lets `git diff` of `folders` pair the renames in them. Past its rename limit (when files
 * only removed times files only added, left once it paired the same bytes and unique names, pass the limit
 * squared: 1,000 since git 2.28, 400 before), git pairs no other, and shows each edited one removed and
 * added. A limit of twice the larger side leaves room for files the review does not know of, hidden ones.
 */
function renameLimit(shown: PackDiffs, folders: readonly string[]): string[] {
  const sources = shown.sources.filter((file) => isWithin(file, folders)).length;
  const destinations = shown.destinations.filter((file) => isWithin(file, folders)).length;
  if (sources * destinations <= GIT_RENAME_LIMIT ** 2) return [];
  return [`-l${2 * Math.max(sources, destinations)}`];
}

/**
 * Whether every file the review knows a `git diff` of `folders` shows is one it shows as text (see
 * textToGit): files deeper than its pathspecs reach count too, which at worst leaves `--text` out.
 */
function allTextWithin(shown: PackDiffs, folders: readonly string[]): boolean {
  return shown.files.every(
    (file) =>
      textToGit(file) ||
      !(isWithin(file.path, folders) || (file.movedFrom !== undefined && isWithin(file.movedFrom, folders))),
  );
}

/** At most this many folders a moved crowd came from are named in its `git diff`, to keep the command short. */
const CROWD_OLD_FOLDERS = 4;

/**
 * The `git diff` that shows a crowd and no other change the review knows of: its folder when nothing else
 * changed in it; else only the files at the crowd's depth (`:(glob)data/*` for the files of `data`,
 * `:(glob)data/*\/*` for those one level down), and then only its kind of change (`--diff-filter`). The
 * parent folder of a crowd spread one level down showed the files beside it too, and those deeper. A crowd
 * renamed or moved from a few folders names them too, so to be read the same way: git pairs a file
 * with the one it was only when both paths are in its diff, and showed a crowd moved into another skill
 * as added, its whole text as new. From more, it names the folder that holds them all (see holdingFolder).
 */
function crowdDiff(
  source: ReviewedSource,
  crowd: Crowd,
  members: readonly FileChange[],
  changed: readonly string[],
  shown: PackDiffs,
  pack: string,
): string {
  const spread = crowd.folder === "*" || crowd.folder.endsWith("/*");
  const base = crowd.folder.replace(/\/?\*$/, "");
  // A crowd at the top of the pack is of the pack's own folders, extras among them: the pack's diff.
  if (base === "." || base === "") return pack;
  const own = new Set(members.flatMap((file) => [file.path, file.movedFrom]));
  const othersIn = (folder: string) =>
    changed.filter((file) => !own.has(file) && file.startsWith(`${folder}/`));
  // The folder itself when nothing else changed in it, else the files at the crowd's depth.
  const scope = (folder: string, others: readonly string[]) => {
    const inRepository = repositoryPath(source, folder);
    if (others.length === 0) return inRepository;
    return `:(glob)${inRepository.replace(/[*?[\]\\]/g, "\\$&")}/*${spread ? "/*" : ""}`;
  };
  const others = othersIn(base);
  const kind = members[0]?.kind;
  const olds = new Set(
    members.flatMap(({ movedFrom }) =>
      movedFrom === undefined ? [] : [path.posix.dirname(spread ? path.posix.dirname(movedFrom) : movedFrom)],
    ),
  );
  // A file renamed, or changed in a skill moved to another folder, git shows by both paths, or as added at
  // its new one, which no filter on the crowd's own kind keeps: then the files at its depth, and where
  // they were.
  if (olds.size > 0) {
    const holder = olds.size > CROWD_OLD_FOLDERS || olds.has(".") ? holdingFolder([...olds]) : undefined;
    // From the top of the pack: the pack's folders. A folder holding them all is named whole, as is the
    // crowd's own folder when it is not inside it.
    if (holder === ".") return pack;
    const named =
      holder === undefined
        ? [base, ...olds].filter((folder, index) => index === 0 || folder !== base)
        : [...(isWithin(base, [holder]) ? [] : [base]), holder];
    const specs = named.map((folder) =>
      folder === holder ? repositoryPath(source, folder) : scope(folder, othersIn(folder)),
    );
    return gitDiff(source, renameLimit(shown, named), specs, true, allTextWithin(shown, named));
  }
  const text = allTextWithin(shown, [base]);
  if (others.length === 0) return gitDiff(source, [], [scope(base, others)], true, text);
  const depth = (file: string) => file.slice(base.length + 1).split("/").length;
  const atDepth = others.filter((file) => depth(file) === (spread ? 2 : 1));
  if (atDepth.length === 0 || kind === undefined || kind === "renamed")
    return gitDiff(source, [], [scope(base, others)], true, text);
  const letter = { added: "A", removed: "D", changed: "M" }[kind];
  // Without renames, an added file of the crowd that git would pair with another stays added.
  return gitDiff(source, ["--no-renames", `--diff-filter=${letter}`], [scope(base, others)], true, text);
}

/**
 * The folder holding every folder a moved crowd's files were in (`.` for the top of the pack): named when
 * they are too many to name each (past CROWD_OLD_FOLDERS), so that the command stays short and git still
 * pairs each file with the one it was. Named alone, the crowd's new folder showed every file added.
 */
function holdingFolder(folders: readonly string[]): string {
  const parts = folders.map((folder) => (folder === "." ? [] : folder.split("/")));
  const first = parts[0] ?? [];
  let shared = 0;
  while (shared < first.length && parts.every((each) => each[shared] === first[shared])) shared++;
  return shared === 0 ? "." : first.slice(0, shared).join("/");
}

/**
 * Where to read what the review leaves out: `git diff` of the two commits in a clone of the source, for
 * one file by its `paths` in the pack (a file moved with its skill by both, so that git shows it as the
 * rename it is), each path quoted for a shell.
 */
function readUpstream(source: ReviewedSource, paths: readonly (string | undefined)[], text: boolean): string {
  const inRepository = paths.flatMap((inPack) =>
    inPack === undefined ? [] : [repositoryPath(source, inPack)],
  );
  return gitDiff(source, [], inRepository, false, text);
}

/**
 * `git diff` of the source's two commits with `options`, of `pathspecs` (quoted here for a shell). git
 * reads attributes from the reviewer's checkout, which upstream writes: `*.md binary` made it say `Binary
 * files differ` of the text the review diffs, unless `text` (every file it shows is text to the review)
 * adds `--text`; and `*.md diff=x` runs the reviewer's own `diff.x.command` or `textconv` on upstream's
 * bytes, and shows what it prints rather than them, unless told not to.
 */
function gitDiff(
  source: ReviewedSource,
  options: readonly string[],
  pathspecs: readonly string[],
  them: boolean,
  text: boolean,
): string {
  const words = pathspecs.map(shellWord);
  const command = [
    "git diff",
    ...(text ? ["--text"] : []),
    "--no-ext-diff",
    "--no-textconv",
    ...options,
    shortRef(source.from),
    shortRef(source.to),
    "--",
    ...words,
  ].join(" ");
  // A path's hidden characters are written as their bytes in `$'…'`, which not every sh reads.
  const shell = words.some(dollarQuoted) ? `, in ${DOLLAR_QUOTE_SHELLS} (for its \`$'…'\` quoting)` : "";
  return `read ${them ? "them" : "it"} upstream: ${markdownCode(command)} in a clone of ${markdownCode(source.repo)}${shell}`;
}

/**
 * Whether `git diff --text` shows the file as the review reads it: one whose lines the review counts, or
 * that git would diff as text anyway. A binary one it would print byte for byte.
 */
function textToGit(file: FileChange): boolean {
  return file.lines !== undefined || file.content?.kind === "text to git";
}

/** A path in the pack as the source's repository has it: an extra keeps its path, the rest is under `path`. */
function repositoryPath(source: ReviewedSource, inPack: string): string {
  const extra = source.extras.some((folder) => inPack === folder || inPack.startsWith(`${folder}/`));
  return extra ? inPack : path.posix.join(source.path, inPack);
}

/**
 * Each file, as many as `limit` lets a list show; when that cuts the list short, each crowd of files (see
 * CROWD_FILES) is one line, after the files of none: what a bump does beside a data set is still named.
 */
function fileList({ lines, loners, crowds }: ListParts, limit: number): readonly string[] {
  if (lines.length <= limit) return lines;
  return [
    ...loners.slice(0, limit),
    ...more(loners.length, limit),
    ...crowds.slice(0, limit),
    ...more(crowds.length, limit),
  ];
}

/**
 * What a list of files shows at any limit, worked out once for a review: its bisection renders it at
 * several limits, and a list of thousands of files had its lines, crowds and `git diff`s built each time.
 */
interface ListParts {
  /** Each file's line. */
  readonly lines: readonly string[];
  /** The lines of the files in no crowd. */
  readonly loners: readonly string[];
  /** A line for each crowd. */
  readonly crowds: readonly string[];
  /** The lines of each crowd whose contents are left out past its samples (see crowdsLeftOut). */
  readonly leftOut: readonly (readonly string[])[];
  /** Where to read a file of the list upstream, its `git diff` quoted for a shell. */
  readonly where: (file: FileChange) => string;
  /** Where to read the pack's changes upstream: the `git diff` of its folders. */
  readonly pack: string;
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

/** `make` of each key, made once. */
function remembered<K, V>(make: (key: K) => V): (key: K) => V {
  const made = new Map<K, { readonly value: V }>();
  return (key) => {
    const known = made.get(key);
    if (known !== undefined) return known.value;
    const value = make(key);
    made.set(key, { value });
    return value;
  };
}

function listParts({ source, changes }: SourceReview, files: readonly FileChange[]): ListParts {
  const pack = source.name;
  const line = (file: FileChange) =>
    file.kind === "renamed"
      ? `- ${file.skills === undefined ? "renamed" : "moved"} ${markdownCode(`${pack}/${file.movedFrom ?? ""}`)} → ${markdownCode(`${pack}/${file.path}`)}${betweenSkills(file)} (${fileLines(file)})`
      : `- ${file.kind} ${markdownCode(`${pack}/${file.path}`)} (${fileLines(file)})`;
  const crowdOf = crowdsIn(files);
  const lines: string[] = [];
  const loners: string[] = [];
  const crowds = new Map<string, { crowd: Crowd; members: FileChange[]; leftOut: number }>();
  for (const file of files) {
    const text = line(file);
    lines.push(text);
    const crowd = crowdOf(file);
    if (crowd === undefined) {
      loners.push(text);
      continue;
    }
    const held = crowds.get(crowd.key) ?? { crowd, members: [], leftOut: 0 };
    held.members.push(file);
    if (file.content?.kind === "crowd") held.leftOut += 1;
    crowds.set(crowd.key, held);
  }
  const leftOut = [...crowds.values()].filter(({ leftOut: files }) => files > 0);
  const diffs = packDiffs(changes);
  const whole = gitDiff(
    source,
    diffs.paired ? renameLimit(diffs, ["."]) : [],
    [source.path, ...source.extras],
    true,
    diffs.files.every(textToGit),
  );
  const changed = leftOut.length > 0 ? changedPaths(changes) : [];
  return {
    lines,
    loners,
    crowds: [...crowds.values()].map(({ crowd, members }) => crowdLine(pack, crowd, members)),
    leftOut: leftOut.map(({ crowd, members, leftOut: files }) => {
      const shown = crowd.folder === "." ? "" : `${crowd.folder}/`;
      return [
        `- Content not shown of ${count(files, "more file")} in ${markdownCode(`${pack}/${shown}`)}, alike in kind, past the ${count(CROWD_SAMPLES, "file")} of a crowd the review shows; ${crowdDiff(source, crowd, members, changed, diffs, whole)}.`,
        "",
      ];
    }),
    where: remembered((file) => readUpstream(source, [file.path, file.movedFrom], textToGit(file))),
    pack: whole,
  };
}

/**
 * The skills a file moved between, when it moved out of one into another: the one it moved into reads it
 * now, though its bytes or findings may be the same.
 */
function betweenSkills({ skills }: FileChange): string {
  if (skills === undefined) return "";
  return `, out of ${placeOf(skills.from?.id)} into ${placeOf(skills.to?.id)}`;
}

function fileLines(file: FileChange): string {
  if (file.mode?.only === true) return `mode only: ${modeChange(file.mode.executable)}`;
  const mode = file.mode === undefined ? "" : `; ${modeChange(file.mode.executable)}`;
  // Renamed as it was; one renamed and edited has its lines counted, as a changed file has, or its sizes.
  if (renamedAsItWas(file)) return `unchanged${mode}`;
  if (file.notAudited !== undefined)
    return `${markdownText(file.notAudited)}; compared by size and SHA-256${mode}`;
  if (file.lines === undefined) return `binary, ${binarySizes(file)}, content not shown${mode}`;
  if (file.endings?.only === true) return `${endingsOnly(file.endings)}${mode}`;
  return `${lineCount(file.lines)}${file.whitespaceOnly ? WHITESPACE_ONLY : ""}${endingsToo(file.endings)}${mode}`;
}

/**
 * A binary file's size, or old and new sizes when it changed: an image replaced by one a hundred times its
 * size, or of the same size, is told apart without its content.
 */
function binarySizes({ kind, sides }: FileChange): string {
  const size = (file: ServedFile | undefined) => formatSize(file?.digest?.size ?? 0);
  if (kind === "added") return size(sides.after);
  if (kind === "removed") return size(sides.before);
  return `${size(sides.before)} → ${size(sides.after)}`;
}

/**
 * A change of a file's execute bits, which its bytes do not show: the audit finds an executable file only
 * low, and the list showed a script made executable, its bytes unchanged, not at all.
 */
function modeChange(executable: boolean): string {
  return executable ? "made executable" : "no longer executable";
}

/**
 * The files of one crowd (one kind, one folder) as one line of a list, naming its first and last file in
 * natural order: by text, rows 1 to 3,000 ran from `row-1` to `row-999`.
 */
function crowdLine(pack: string, crowd: Crowd, files: readonly FileChange[]): string {
  const [first, last] = files.reduce<[FileChange | undefined, FileChange | undefined]>(
    ([low, high], file) => [
      low === undefined || naturalOrder(file.path, low.path) < 0 ? file : low,
      high === undefined || naturalOrder(file.path, high.path) > 0 ? file : high,
    ],
    [undefined, undefined],
  );
  if (first === undefined || last === undefined) return "";
  // `data/rows/` or `data/*/`: the first and last files named from there.
  const base = crowd.folder === "." || crowd.folder === "*" ? "" : `${crowd.folder.replace(/\/\*$/, "")}/`;
  const named = (file: FileChange) => markdownCode(file.path.slice(base.length));
  const text = files.flatMap((file) => (file.lines === undefined ? [] : [file.lines]));
  // Renamed as they were: no lines counted, and no binary files for that.
  const unchanged = files.filter(renamedAsItWas).length;
  const binary = files.length - text.length - unchanged;
  // A crowd's files share their change of mode, and the skills they moved between (see crowdOf).
  const counts =
    first.mode?.only === true
      ? `mode only: ${modeChange(first.mode.executable)}`
      : [
          ...(text.length > 0 ? [lineCount(sum(text))] : []),
          ...(unchanged > 0 ? [`${number(unchanged)} unchanged`] : []),
          ...(binary > 0 ? [`${count(binary, "binary file")}`] : []),
          ...(first.mode === undefined ? [] : [modeChange(first.mode.executable)]),
        ].join(", ");
  const folder = crowd.folder === "." ? "" : `${crowd.folder}/`;
  const kind = first.skills === undefined ? first.kind : "moved";
  return `- ${kind} ${count(files.length, "file")} in ${markdownCode(`${pack}/${folder}`)}${betweenSkills(first)}, ${named(first)} to ${named(last)} (${counts})`;
}

/**
 * Two paths in the order a person counts: each run of digits compared by its value (`row-9` before
 * `row-10`, `07` beside `7`), the rest by text; paths alike that way by text.
 */
export function naturalOrder(a: string, b: string): number {
  const [partsA, partsB] = [a.split(/(\d+)/), b.split(/(\d+)/)];
  for (let index = 0; index < Math.min(partsA.length, partsB.length); index++) {
    const [x, y] = [partsA[index] ?? "", partsB[index] ?? ""];
    // split() with a captured group puts digit runs at the odd indices; compared by value without parsing,
    // so that a run of any length compares right.
    const order =
      index % 2 === 1 ? compareDigits(x.replace(/^0+/, ""), y.replace(/^0+/, "")) : compareText(x, y);
    if (order !== 0) return order;
  }
  return partsA.length - partsB.length || compareText(a, b);
}

/** Two runs of digits without leading zeros, by value. */
function compareDigits(a: string, b: string): number {
  return a.length - b.length || compareText(a, b);
}

function more(total: number, limit: number): string[] {
  return total > limit ? [`- … and ${number(total - limit)} more, cut to stay under ${GITHUB_LIMIT}`] : [];
}

function listed(items: readonly string[], limit: number): string {
  const shown = items.slice(0, limit).join(", ");
  return items.length > limit
    ? `${shown}, and ${number(items.length - limit)} more (cut to stay under ${GITHUB_LIMIT})`
    : shown;
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

function fileCounts(files: readonly FileChange[]): string {
  if (files.length === 0) return "none changed";
  const of = (kind: FileChange["kind"]) => files.filter((file) => file.kind === kind).length;
  const modes = files.filter((file) => file.mode?.only === true).length;
  // Renamed within their skill or the pack files, or moved across: how they came where they are.
  const how = ({ skills }: FileChange) => {
    if (skills === undefined) return "renamed";
    if (skills.to === undefined) return "moved out of a skill";
    return skills.from === undefined ? "moved in from the pack files" : "moved into another skill";
  };
  const renamed = (kind: string) => {
    const those = files.filter((file) => file.kind === "renamed" && how(file) === kind);
    const edited = those.filter((file) => !renamedAsItWas(file)).length;
    if (those.length === 0) return "";
    return `, ${number(those.length)} ${kind}${edited > 0 ? ` (${number(edited)} of them edited)` : ""}`;
  };
  const kinds = [
    "renamed",
    "moved into another skill",
    "moved in from the pack files",
    "moved out of a skill",
  ];
  return `${number(of("added"))} added, ${number(of("removed"))} removed, ${number(of("changed"))} changed${modes > 0 ? ` (${number(modes)} only in mode)` : ""}${kinds.map(renamed).join("")}`;
}

type LineCounts = Pick<LineChanges, "added" | "removed">;

function sum(changes: readonly LineCounts[]): LineCounts {
  return changes.reduce(
    (total, each) => ({ added: total.added + each.added, removed: total.removed + each.removed }),
    {
      added: 0,
      removed: 0,
    },
  );
}

function lineCount({ added, removed }: LineCounts): string {
  return `+${number(added)} −${number(removed)} lines`;
}

function tokens({ before, after }: Before<number>): string {
  const change = after - before;
  const sign = change > 0 ? "+" : change < 0 ? "−" : "±";
  return `${number(before)} → ${number(after)} (${sign}${number(Math.abs(change))})`;
}

/** A number as the review writes every one: `3,002`, which a reader sets beside another at a glance. */
function number(n: number): string {
  return n.toLocaleString("en-US");
}

function count(n: number, noun: string): string {
  return `${number(n)} ${noun}${n === 1 ? "" : "s"}`;
}
