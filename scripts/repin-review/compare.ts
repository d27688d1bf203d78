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
  readonly files: ReadonlyMap<string, Buffer>;
}

export const EMPTY_SIDE: PackSide = { skills: [], packFiles: new Set(), files: new Map() };

export interface FileChange {
  /** In the pack: the new path, or the old one for a removed file. */
  readonly path: string;
  readonly kind: "added" | "removed" | "changed";
  /** For text; undefined for a binary file. */
  readonly lines: LineChanges | undefined;
}

export interface SkillPair {
  readonly before: Skill;
  readonly after: Skill;
}

/** A SKILL.md body (the frontmatter taken off) that a bump changes, old and new. */
export interface BodyChange {
  readonly skill: Skill;
  readonly lines: LineChanges;
  readonly before: string;
  readonly after: string;
}

export interface PackChanges {
  readonly added: readonly Skill[];
  readonly removed: readonly Skill[];
  /** A new folder, a new name, or both. */
  readonly renamed: readonly SkillPair[];
  readonly descriptions: readonly SkillPair[];
  readonly bodies: readonly BodyChange[];
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
  const pairs = matchSkills(before, after);
  const paired = new Set(pairs.flatMap((pair) => [pair.before, pair.after]));
  const added = after.skills.filter((skill) => !paired.has(skill));
  const removed = before.skills.filter((skill) => !paired.has(skill));
  // A skill's supporting files on each side, compared. An added skill has none before and a removed one
  // none after, so no path is ever placed in its missing side.
  const filesOf = (skill: Skill | undefined, side: PackSide) =>
    skill === undefined ? new Map<string, Buffer>() : ownFiles(skill, side);
  const placed = (skill: Skill | undefined) => (file: string) =>
    skill === undefined ? file : inPack(skill, file);
  const compareSkillFiles = (old: Skill | undefined, now: Skill | undefined) =>
    compareFiles(filesOf(old, before), filesOf(now, after), placed(now), placed(old));
  const skillFiles: FileChange[] = [];
  const bodies: BodyChange[] = [];
  for (const { before: old, after: now } of pairs) {
    const oldBody = bodyOf(before.files.get(documentIn(old)));
    const newBody = bodyOf(after.files.get(documentIn(now)));
    if (oldBody !== newBody)
      bodies.push({ skill: now, lines: countLineChanges(oldBody, newBody), before: oldBody, after: newBody });
    skillFiles.push(...compareSkillFiles(old, now));
  }
  for (const skill of added) skillFiles.push(...compareSkillFiles(undefined, skill));
  for (const skill of removed) skillFiles.push(...compareSkillFiles(skill, undefined));
  const packFilesOf = (side: PackSide) =>
    new Map([...side.packFiles].map((file) => [file, side.files.get(file) ?? Buffer.alloc(0)]));
  const same = (file: string) => file;
  const changedPaths = new Set(
    [...after.files].filter(([file, bytes]) => !before.files.get(file)?.equals(bytes)).map(([file]) => file),
  );
  return {
    added,
    removed,
    renamed: pairs.filter(
      (pair) => pair.before.folder !== pair.after.folder || pair.before.name !== pair.after.name,
    ),
    descriptions: pairs.filter((pair) => pair.before.description !== pair.after.description),
    bodies,
    skillFiles: skillFiles.sort(byPath),
    packFiles: compareFiles(packFilesOf(before), packFilesOf(after), same, same),
    changedPaths,
  };
}

/**
 * Pairs the skills of two commits: by folder, then by name, then by an unchanged description or SKILL.md
 * body, and last, as git finds renames, by text at least half the same (body and supporting files): a
 * skill moved and renamed whose text was edited in the same bump.
 */
function matchSkills(before: PackSide, after: PackSide): SkillPair[] {
  const pairs: SkillPair[] = [];
  const left = new Set(before.skills);
  const right = new Set(after.skills);
  const pairBy = (likeness: (a: Skill, b: Skill) => number) => {
    for (const now of [...right]) {
      let best: { skill: Skill; likeness: number } | undefined;
      for (const old of left) {
        const score = likeness(old, now);
        if (score > 0 && (best === undefined || score > best.likeness))
          best = { skill: old, likeness: score };
      }
      if (best === undefined) continue;
      pairs.push({ before: best.skill, after: now });
      left.delete(best.skill);
      right.delete(now);
    }
  };
  const body = (side: PackSide) => perSkill((skill) => bodyOf(side.files.get(documentIn(skill))));
  const [oldBody, newBody] = [body(before), body(after)];
  const text = (side: PackSide) => perSkill((skill) => skillText(skill, side));
  const [oldText, newText] = [text(before), text(after)];
  const when = (same: boolean) => (same ? 1 : 0);
  pairBy((a, b) => when(a.folder === b.folder));
  pairBy((a, b) => when(a.name === b.name));
  pairBy((a, b) => when(a.description === b.description || oldBody(a) === newBody(b)));
  pairBy((a, b) => {
    const similar = similarity(oldText(a), newText(b));
    return similar >= 0.5 ? similar : 0;
  });
  return pairs;
}

/** `make` of each skill, made once: pairing asks for a skill's text once for every candidate. */
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

/** The body and the text supporting files of a skill, in path order, for telling how alike two skills are. */
function skillText(skill: Skill, side: PackSide): string {
  const files = [...ownFiles(skill, side)].sort(([a], [b]) => compareText(a, b));
  const texts = files.map(([file, bytes]) => `${file}\n${textOf(bytes) ?? ""}`);
  return [bodyOf(side.files.get(documentIn(skill))), ...texts].join("\n");
}

/** The share of lines two texts have in common, of the longer one. */
function similarity(a: string, b: string): number {
  const { added, removed, unchanged } = countLineChanges(a, b);
  return unchanged / Math.max(unchanged + removed, unchanged + added, 1);
}

function documentIn(skill: Skill): string {
  return path.posix.join(skill.folder, SKILL_DOCUMENT);
}

function inPack(skill: Skill, file: string): string {
  return path.posix.join(skill.folder, file);
}

/** The skill's supporting files, without SKILL.md and without the files of skills nested in it. */
function ownFiles(skill: Skill, side: PackSide): Map<string, Buffer> {
  const nested = side.skills
    .filter(
      (other) => other !== skill && (skill.folder === "" || other.folder.startsWith(`${skill.folder}/`)),
    )
    .map((other) => (skill.folder === "" ? other.folder : other.folder.slice(skill.folder.length + 1)))
    .filter((folder) => folder !== "");
  const own = new Map<string, Buffer>();
  for (const file of skill.files.keys()) {
    if (nested.some((folder) => file.startsWith(`${folder}/`))) continue;
    own.set(file, side.files.get(inPack(skill, file)) ?? Buffer.alloc(0));
  }
  return own;
}

/** The frontmatter taken off: what a model reads after choosing the skill. */
function bodyOf(bytes: Buffer | undefined): string {
  const text = bytes?.toString("utf8") ?? "";
  const lines = stripBom(text).split("\n");
  if (lines[0]?.trimEnd() !== "---") return text;
  const end = closingLineIndex(lines);
  return end < 0 ? text : lines.slice(end + 1).join("\n");
}

function compareFiles(
  before: ReadonlyMap<string, Buffer>,
  after: ReadonlyMap<string, Buffer>,
  afterPath: (file: string) => string,
  beforePath: (file: string) => string,
): FileChange[] {
  const changes: FileChange[] = [];
  for (const [file, bytes] of after) {
    const old = before.get(file);
    if (old === undefined)
      changes.push({ path: afterPath(file), kind: "added", lines: linesOf(undefined, bytes) });
    else if (!old.equals(bytes))
      changes.push({ path: afterPath(file), kind: "changed", lines: linesOf(old, bytes) });
  }
  for (const [file, bytes] of before) {
    if (!after.has(file))
      changes.push({ path: beforePath(file), kind: "removed", lines: linesOf(bytes, undefined) });
  }
  return changes.sort(byPath);
}

/** The text of a file the server serves as text; undefined for a binary one. */
function textOf(bytes: Buffer | undefined): string | undefined {
  if (bytes === undefined) return "";
  const content = describeBytes(bytes, bytes.length, "");
  return content.kind === "text" ? content.text : undefined;
}

function linesOf(before: Buffer | undefined, after: Buffer | undefined): LineChanges | undefined {
  const [old, now] = [textOf(before), textOf(after)];
  return old === undefined || now === undefined ? undefined : countLineChanges(old, now);
}

function byPath(a: FileChange, b: FileChange): number {
  return compareText(a.path, b.path);
}
