/** The lists of supporting and pack files a bump changes, their crowds, and the contents shown of them. */
import { formatSize } from "../../src/catalog/index.js";
import { compareText } from "../../src/shared/index.js";
import { markdownCode, markdownText } from "../audit-markdown.js";
import type { ReviewedSource } from "../fetch-skills/review-contract.js";
import { CROWD_SAMPLES, type Crowd, crowdsIn } from "./crowds.js";
import { UNIFIED_LIMITS } from "./diff.js";
import { type BodyRoom, shownLines } from "./excerpt.js";
import { CONTENT_BYTES, type FileChange, renamedAsItWas } from "./file-change.js";
import { contentShare, KEPT_CONTENT_CHARS } from "./file-contents.js";
import {
  changedPaths,
  crowdDiff,
  gitDiff,
  packDiffs,
  readUpstream,
  renameLimit,
  textToGit,
} from "./git-commands.js";
import { append, collapsed, fenced } from "./markdown-blocks.js";
import {
  count,
  endingsOnly,
  endingsToo,
  lineCount,
  modeChange,
  more,
  number,
  placeOf,
  sum,
  WHITESPACE_ONLY,
} from "./phrases.js";
import { remembered } from "./remembered.js";
import type { SourceReview } from "./review-content.js";
import type { ServedFile } from "./served.js";

/**
 * The characters of supporting and pack files' contents one review shows in all, as wide as the review
 * keeps (KEPT_CONTENT_CHARS) and narrower once bodies are cut: a bump adding a hundred scripts still
 * leaves the findings and SKILL.md diffs room under GitHub's limit.
 */
export const CONTENT_CHARS = { whole: KEPT_CONTENT_CHARS, short: 6000 };

/**
 * How much of the room for file contents a review has left, shared by its sources in turn, and how many
 * files are still to show in it: each takes a fair share (see contentShare).
 */
export interface ContentRoom {
  left: number;
  files: number;
}

/**
 * The content of each added or changed text file listed, collapsed as a SKILL.md diff is (hidden characters
 * as `{U+…}`, in a fence longer than any run of backticks in it), each cut at its fair share of what
 * `contents` has left, while it has room; then the files left out, with why and where to read them.
 */
export function fileContents(
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

/**
 * Each file, as many as `limit` lets a list show; when that cuts the list short, each crowd of files (see
 * CROWD_FILES) is one line, after the files of none: what a bump does beside a data set is still named.
 */
export function fileList({ lines, loners, crowds }: ListParts, limit: number): readonly string[] {
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
export interface ListParts {
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

export function listParts({ source, changes }: SourceReview, files: readonly FileChange[]): ListParts {
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

export function fileCounts(files: readonly FileChange[]): string {
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
