import path from "node:path";
import {
  closingLineIndex,
  compareText,
  describeBytes,
  SKILL_DOCUMENT,
  type Skill,
  stripBom,
} from "../../src/catalog/index.js";
import { countLineChanges, type LineChanges } from "./diff.js";

/** A pack as one commit has it: its skills, and every file it serves by path in the pack. */
export interface PackSide {
  readonly skills: readonly Skill[];
  /** Pack files (outside every skill folder), by path in the pack. */
  readonly packFiles: ReadonlySet<string>;
  /** The bytes of each served file the audit read. */
  readonly files: ReadonlyMap<string, Buffer>;
  /** Each served file the audit did not read (over 16 MiB, or unreadable): served all the same. */
  readonly unaudited: ReadonlyMap<string, UnauditedFile>;
}

/** A served file the audit did not read, known by its size and SHA-256, read in a stream. */
export interface UnauditedFile {
  /** Why, as the audit says it: `not audited: larger than 16 MiB, …`. */
  readonly why: string;
  /** Undefined when the file could not be read at all. */
  readonly digest: { readonly size: number; readonly sha256: string } | undefined;
}

/** A served file as the review compares it: its bytes, or its digest when the audit did not read it. */
type Served = Buffer | UnauditedFile;

export const EMPTY_SIDE: PackSide = {
  skills: [],
  packFiles: new Set(),
  files: new Map(),
  unaudited: new Map(),
};

export interface FileChange {
  /** In the pack: the new path, or the old one for a removed file. */
  readonly path: string;
  readonly kind: "added" | "removed" | "changed";
  /** For text; undefined for a binary file, or one the audit did not read. */
  readonly lines: LineChanges | undefined;
  /** Why the audit did not read the version `path` names (the new one, or the removed one). */
  readonly notAudited: string | undefined;
}

export interface SkillPair {
  readonly before: Skill;
  readonly after: Skill;
}

/**
 * A SKILL.md that a bump changes, old and new, frontmatter and all: a model reads every key of it
 * (`allowed-tools`, `metadata`, a YAML comment), not only the name and description.
 */
export interface DocumentChange {
  readonly skill: Skill;
  readonly lines: LineChanges;
  /** Whether the frontmatter changed (any key, comment or byte of it). */
  readonly frontmatter: boolean;
  readonly before: string;
  readonly after: string;
}

/** The SKILL.md of a skill the bump adds, as its new commit has it. */
export interface AddedDocument {
  readonly skill: Skill;
  readonly text: string;
}

export interface PackChanges {
  readonly added: readonly Skill[];
  /** The SKILL.md of each added skill, in the order of `added`: a model reads all of it. */
  readonly addedDocuments: readonly AddedDocument[];
  readonly removed: readonly Skill[];
  /** A new folder, a new name, or both. */
  readonly renamed: readonly SkillPair[];
  /** Added skills not compared with the removed ones for a rename (see {@link matchSkills}). */
  readonly notPaired: readonly Skill[];
  readonly descriptions: readonly SkillPair[];
  /** Every SKILL.md of a paired skill whose bytes changed. */
  readonly documents: readonly DocumentChange[];
  /** Supporting files of skills, compared within each skill's folder. */
  readonly skillFiles: readonly FileChange[];
  readonly packFiles: readonly FileChange[];
  /** Paths in the pack that the new commit adds or whose content it changes: where new findings matter. */
  readonly changedPaths: ReadonlySet<string>;
}

/**
 * What a bump changes in one pack. A skill keeps its identity through a change of name (same folder), of
 * folder (same name), or of both (see {@link matchSkills}).
 */
export function comparePacks(before: PackSide, after: PackSide): PackChanges {
  const [oldFiles, newFiles] = [ownFilesIn(before), ownFilesIn(after)];
  const { pairs, notPaired } = matchSkills(
    { side: before, files: oldFiles },
    { side: after, files: newFiles },
  );
  const paired = new Set(pairs.flatMap((pair) => [pair.before, pair.after]));
  const added = after.skills.filter((skill) => !paired.has(skill));
  const removed = before.skills.filter((skill) => !paired.has(skill));
  // A skill's supporting files on each side, compared. An added skill has none before and a removed one
  // none after, so no path is ever placed in its missing side.
  const placed = (skill: Skill | undefined) => (file: string) =>
    skill === undefined ? file : inPack(skill, file);
  const compareSkillFiles = (old: Skill | undefined, now: Skill | undefined) =>
    compareFiles(
      old === undefined ? new Map() : oldFiles(old),
      now === undefined ? new Map() : newFiles(now),
      placed(now),
      placed(old),
    );
  const skillFiles: FileChange[] = [];
  const documents: DocumentChange[] = [];
  for (const { before: old, after: now } of pairs) {
    const change = documentChange(before.files.get(documentIn(old)), after.files.get(documentIn(now)), now);
    if (change !== undefined) documents.push(change);
    skillFiles.push(...compareSkillFiles(old, now));
  }
  for (const skill of added) skillFiles.push(...compareSkillFiles(undefined, skill));
  for (const skill of removed) skillFiles.push(...compareSkillFiles(skill, undefined));
  const packFilesOf = (side: PackSide) =>
    new Map([...side.packFiles].map((file) => [file, servedIn(side, file)]));
  const same = (file: string) => file;
  const changedPaths = new Set(
    [...after.files].filter(([file, bytes]) => !before.files.get(file)?.equals(bytes)).map(([file]) => file),
  );
  return {
    added,
    addedDocuments: added.map((skill) => ({
      skill,
      text: (after.files.get(documentIn(skill)) ?? EMPTY).toString("utf8"),
    })),
    removed,
    renamed: pairs.filter(
      (pair) => pair.before.folder !== pair.after.folder || pair.before.name !== pair.after.name,
    ),
    notPaired,
    descriptions: pairs.filter((pair) => pair.before.description !== pair.after.description),
    documents,
    skillFiles: skillFiles.sort(byPath),
    packFiles: compareFiles(packFilesOf(before), packFilesOf(after), same, same),
    changedPaths,
  };
}

/** The change of a skill's SKILL.md, whenever a byte of it changed; undefined when none did. */
function documentChange(
  old: Buffer | undefined,
  now: Buffer | undefined,
  skill: Skill,
): DocumentChange | undefined {
  const [a, b] = [old ?? EMPTY, now ?? EMPTY];
  if (a.equals(b)) return undefined;
  const [before, after] = [a.toString("utf8"), b.toString("utf8")];
  return {
    skill,
    lines: countLineChanges(before, after),
    frontmatter: partsOf(before).frontmatter !== partsOf(after).frontmatter,
    before,
    after,
  };
}

/**
 * Lines a skill shares with more old skills than this name none of them as a candidate for a rename: they
 * are boilerplate, and would make every skill a candidate of every other.
 */
export const RARE_LINE_SKILLS = 8;
/** Each new skill is compared with at most this many old ones: those sharing the most rare lines with it. */
const RENAME_CANDIDATES = 8;

/**
 * Pairs the skills of two commits: by folder, then by name, then by an unchanged description or SKILL.md
 * body, and last, as git finds renames, by text at least half the same (body and supporting files): a
 * skill moved and renamed whose text was edited in the same bump. Each step looks skills up by key or by
 * line, so that the work grows with the size of the pack, not with its square.
 */
function matchSkills(older: Commit, newer: Commit): { pairs: SkillPair[]; notPaired: Skill[] } {
  const [before, after] = [older.side, newer.side];
  const pairs: SkillPair[] = [];
  const left = new Set(before.skills);
  const right = new Set(after.skills);
  const pair = (old: Skill, now: Skill) => {
    pairs.push({ before: old, after: now });
    left.delete(old);
    right.delete(now);
  };
  const order = new Map(before.skills.map((skill, index) => [skill, index]));
  const rank = (skill: Skill) => order.get(skill) ?? 0;
  /** Pairs each new skill with the first old one left that has one of its keys (one key per way of telling). */
  const pairByKeys = (...ways: ((side: PackSide) => (skill: Skill) => string)[]) => {
    const indexes = ways.map((way) => {
      const key = way(before);
      const index = new Map<string, Queue>();
      for (const old of left) {
        const queue = index.get(key(old)) ?? { skills: [], next: 0 };
        queue.skills.push(old);
        index.set(key(old), queue);
      }
      return { key: way(after), index };
    });
    for (const now of [...right]) {
      const found = indexes
        .map(({ key, index }) => firstLeft(index.get(key(now)), left))
        .filter((old) => old !== undefined)
        .sort((a, b) => rank(a) - rank(b))[0];
      if (found !== undefined) pair(found, now);
    }
  };
  const body = (side: PackSide) => (skill: Skill) => bodyOf(side.files.get(documentIn(skill)));
  pairByKeys(() => (skill) => skill.folder);
  pairByKeys(() => (skill) => skill.name);
  pairByKeys(() => (skill) => skill.description, body);
  const notPaired = pairBySharedLines(
    [...left].map((skill) => ({ skill, lines: linesOf(skillText(skill, older)) })),
    [...right].map((skill) => ({ skill, lines: linesOf(skillText(skill, newer)) })),
    pair,
  );
  return { pairs, notPaired };
}

/** A side of the comparison, with each skill's supporting files. */
interface Commit {
  readonly side: PackSide;
  readonly files: (skill: Skill) => Map<string, Served>;
}

/** Skills of one key, in the old commit's order, and the first that may still be unpaired. */
interface Queue {
  readonly skills: Skill[];
  next: number;
}

function firstLeft(queue: Queue | undefined, left: ReadonlySet<Skill>): Skill | undefined {
  if (queue === undefined) return undefined;
  for (let skill = queue.skills[queue.next]; skill !== undefined; skill = queue.skills[++queue.next]) {
    if (left.has(skill)) return skill;
  }
  return undefined;
}

/** A skill's text as a multiset of its lines (blank ones left out: they tell no skill from another). */
interface Lines {
  readonly counts: ReadonlyMap<string, number>;
  readonly total: number;
}

interface Unpaired {
  readonly skill: Skill;
  readonly lines: Lines;
}

/**
 * Pairs each new skill with the old one whose lines it shares most, when that is at least half the lines
 * of the longer of the two: git's rename detection, by content rather than by order. Candidates are the
 * old skills sharing a rare line with it (one that at most RARE_LINE_SKILLS old skills have), the
 * RENAME_CANDIDATES sharing the most, so the work is linear in the text. Returns the new skills left
 * unpaired that could not be told apart this way: at least half their lines are boilerplate of many old
 * skills, too many to say which one each came from.
 */
function pairBySharedLines(
  olds: readonly Unpaired[],
  news: readonly Unpaired[],
  pair: (old: Skill, now: Skill) => void,
): Skill[] {
  const holders = new Map<string, Unpaired[]>();
  for (const old of olds) {
    for (const line of old.lines.counts.keys()) {
      const held = holders.get(line) ?? [];
      // One past the limit is enough to know the line is boilerplate.
      if (held.length <= RARE_LINE_SKILLS) held.push(old);
      holders.set(line, held);
    }
  }
  const left = new Set(olds);
  const notPaired: Skill[] = [];
  for (const now of news) {
    const shared = new Map<Unpaired, number>();
    let boilerplate = 0;
    for (const [line, count] of now.lines.counts) {
      const held = holders.get(line) ?? [];
      if (held.length > RARE_LINE_SKILLS) boilerplate += count;
      else for (const old of held) if (left.has(old)) shared.set(old, (shared.get(old) ?? 0) + 1);
    }
    const best = [...shared]
      .sort(([, a], [, b]) => b - a)
      .slice(0, RENAME_CANDIDATES)
      .map(([old]) => ({ old, likeness: similarity(old.lines, now.lines) }))
      .filter(({ likeness }) => likeness >= 0.5)
      .sort((a, b) => b.likeness - a.likeness)[0];
    if (best !== undefined) {
      pair(best.old.skill, now.skill);
      left.delete(best.old);
    } else if (2 * boilerplate >= now.lines.total && boilerplate > 0) notPaired.push(now.skill);
  }
  return notPaired;
}

function linesOf(text: string): Lines {
  const counts = new Map<string, number>();
  let total = 0;
  for (const line of text.split("\n")) {
    if (line.trim() === "") continue;
    counts.set(line, (counts.get(line) ?? 0) + 1);
    total++;
  }
  return { counts, total };
}

/** The share of lines two texts have in common, of the longer one, counted by content. */
function similarity(a: Lines, b: Lines): number {
  const [fewer, more] = a.counts.size <= b.counts.size ? [a, b] : [b, a];
  let common = 0;
  for (const [line, count] of fewer.counts) common += Math.min(count, more.counts.get(line) ?? 0);
  return common / Math.max(a.total, b.total, 1);
}

/** The body and the text supporting files of a skill, in path order, for telling how alike two skills are. */
function skillText(skill: Skill, { side, files }: Commit): string {
  const sorted = [...files(skill)].sort(([a], [b]) => compareText(a, b));
  const texts = sorted.map(([file, content]) => `${file}\n${textOf(content) ?? ""}`);
  return [bodyOf(side.files.get(documentIn(skill))), ...texts].join("\n");
}

/** `make` of each skill, made once: a skill's files are asked for when pairing and again when comparing. */
function perSkill<T>(make: (skill: Skill) => T): (skill: Skill) => T {
  const made = new Map<Skill, T>();
  return (skill) => {
    const known = made.get(skill);
    if (known !== undefined) return known;
    const value = make(skill);
    made.set(skill, value);
    return value;
  };
}

function documentIn(skill: Skill): string {
  return path.posix.join(skill.folder, SKILL_DOCUMENT);
}

function inPack(skill: Skill, file: string): string {
  return path.posix.join(skill.folder, file);
}

/**
 * Each skill's supporting files on `side`, without SKILL.md and without the files of skills nested in it
 * (found by looking each folder above a file up among the skill folders, not by scanning every skill).
 */
function ownFilesIn(side: PackSide): (skill: Skill) => Map<string, Served> {
  const folders = new Set(side.skills.map((skill) => skill.folder));
  return perSkill((skill) => {
    const base = skill.folder === "" ? "" : `${skill.folder}/`;
    const nested = (file: string) => {
      for (let end = file.indexOf("/"); end > 0; end = file.indexOf("/", end + 1))
        if (folders.has(base + file.slice(0, end))) return true;
      return false;
    };
    const own = new Map<string, Served>();
    for (const file of skill.files.keys()) {
      if (!nested(file)) own.set(file, servedIn(side, inPack(skill, file)));
    }
    return own;
  });
}

const EMPTY = Buffer.alloc(0);

/** A served file's bytes, or its digest when the audit did not read it; nothing for a file it never saw. */
function servedIn(side: PackSide, file: string): Served {
  return side.files.get(file) ?? side.unaudited.get(file) ?? EMPTY;
}

function sameContent(a: Served, b: Served): boolean {
  if (Buffer.isBuffer(a) || Buffer.isBuffer(b))
    return Buffer.isBuffer(a) && Buffer.isBuffer(b) && a.equals(b);
  // A file that could not be read is never known to be the same.
  return a.digest !== undefined && a.digest.size === b.digest?.size && a.digest.sha256 === b.digest.sha256;
}

/** The frontmatter taken off: what a model reads after choosing the skill. */
function bodyOf(bytes: Buffer | undefined): string {
  return partsOf(bytes?.toString("utf8") ?? "").body;
}

/**
 * A SKILL.md's frontmatter, its `---` lines included ("" when it has none), and its body: the whole text
 * when the frontmatter is missing or never closed.
 */
function partsOf(text: string): { frontmatter: string; body: string } {
  const lines = stripBom(text).split("\n");
  if (lines[0]?.trimEnd() !== "---") return { frontmatter: "", body: text };
  const end = closingLineIndex(lines);
  if (end < 0) return { frontmatter: lines.join("\n"), body: text };
  return { frontmatter: lines.slice(0, end + 1).join("\n"), body: lines.slice(end + 1).join("\n") };
}

function compareFiles(
  before: ReadonlyMap<string, Served>,
  after: ReadonlyMap<string, Served>,
  afterPath: (file: string) => string,
  beforePath: (file: string) => string,
): FileChange[] {
  const changes: FileChange[] = [];
  for (const [file, now] of after) {
    const old = before.get(file);
    if (old === undefined) changes.push(fileChange(afterPath(file), "added", undefined, now));
    else if (!sameContent(old, now)) changes.push(fileChange(afterPath(file), "changed", old, now));
  }
  for (const [file, old] of before) {
    if (!after.has(file)) changes.push(fileChange(beforePath(file), "removed", old, undefined));
  }
  return changes.sort(byPath);
}

function fileChange(
  where: string,
  kind: FileChange["kind"],
  before: Served | undefined,
  after: Served | undefined,
): FileChange {
  const named = kind === "removed" ? before : after;
  const [old, now] = [textOf(before), textOf(after)];
  return {
    path: where,
    kind,
    lines: old === undefined || now === undefined ? undefined : countLineChanges(old, now),
    notAudited: named === undefined || Buffer.isBuffer(named) ? undefined : named.why,
  };
}

/** The text of a file the server serves as text; undefined for a binary one, or one the audit did not read. */
function textOf(content: Served | undefined): string | undefined {
  if (content === undefined) return "";
  if (!Buffer.isBuffer(content)) return undefined;
  const described = describeBytes(content, content.length, "");
  return described.kind === "text" ? described.text : undefined;
}

function byPath(a: FileChange, b: FileChange): number {
  return compareText(a.path, b.path);
}
