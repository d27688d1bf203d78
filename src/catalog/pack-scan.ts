/**
 * One pack folder scanned: its skill folders found by the walk, nested ones in turn, each read as a skill,
 * one skill served per name, and the files outside every skill folder kept as the pack's own.
 */
import { type Dirent, realpathSync } from "node:fs";
import path from "node:path";
import { compareText, foldedName, preference, visible } from "../shared/index.js";
import { FoldedPaths, foldedFileCollisions, foldedFileIssue, spelledOtherwise } from "./case-collisions.js";
import type { DocumentReader } from "./documents.js";
import { describeFsError, MAX_FOLDER_ENTRIES } from "./folders.js";
import { besideIssue, NestedPlacement } from "./nested-placement.js";
import { type ReadSkill, readSkill, type SkillFolder } from "./skill.js";
import { type CatalogFile, type CatalogIssue, SKILL_DOCUMENT, type Skill } from "./types.js";
import { NO_FILES, toFileMap, walk } from "./walk.js";

/** What a load reports to and reads with, as it goes through the packs. */
export interface LoadContext {
  readonly root: string;
  readonly issues: CatalogIssue[];
  readonly documents: DocumentReader;
  readonly frontmatters: Map<Skill, string>;
}

/** A pack's served skills, and its own files (those outside every skill folder). */
interface ScannedPack {
  readonly skills: readonly Skill[];
  readonly files: ReadonlyMap<string, CatalogFile>;
  /** The issue saying the pack was walked no further (MAX_PACK_ENTRIES), also among the load's issues. */
  readonly overfull?: CatalogIssue;
}

/**
 * The most files and folders a pack's walk visits outside its skill folders (which cost nothing: a pack of
 * 50,000 skills in a few groups walks a few folders). Packs hold skill folders and a few shared files (the
 * most in the corpus of docs/search.md: 281); a skills folder set to /usr walked its 139,000 files and
 * folders (1.4 s and 165 MB, 9.6 s with a cold cache) to find no skill.
 */
export const MAX_PACK_ENTRIES = 10_000;

/**
 * How many skills a served skill may lie in. Collections nest one or two levels
 * (`game-development/web-games/SKILL.md`); each level makes every file below it a file of one skill more,
 * walked, listed and inspected once for each, so a chain of skills nested 500 deep took minutes to start.
 */
export const MAX_SKILL_NESTING = 3;

/**
 * The pack in folder `name` of the skills folder: its skills, outer ones read first, and its own files. What
 * cannot be served goes to the context's issues; a pack folder that cannot be read holds nothing.
 */
export function scanPack(name: string, context: LoadContext): ScannedPack {
  const { root, issues } = context;
  let packRoot: string;
  try {
    packRoot = realpathSync(path.join(root, name));
  } catch (error) {
    issues.push({ severity: "skipped", path: name, reason: `pack folder ${describeFsError(error)}` });
    return { skills: [], files: NO_FILES };
  }
  const walked: SkillFolder[] = [];
  const packFiles: CatalogFile[] = [];
  const isSkillFolder = (folder: string, real: string, entries: readonly Dirent[]) => {
    const found = entries.some((entry) => entry.name === SKILL_DOCUMENT);
    if (found) walked.push({ folder, real, entries, nesting: 0 });
    return found;
  };
  const budget = { left: MAX_PACK_ENTRIES };
  walk(packRoot, "", new Set([packRoot]), packFiles, {
    boundary: packRoot,
    issues,
    report: (relative) => path.posix.join(name, relative),
    stopAt: isSkillFolder,
    maxEntries: MAX_FOLDER_ENTRIES,
    budget,
  });
  if (budget.left < 0) {
    const overfull: CatalogIssue = {
      severity: "skipped",
      path: name,
      reason:
        `pack folder holds more than ${MAX_PACK_ENTRIES.toLocaleString("en-US")} files and folders outside ` +
        `its skill folders: neither it nor its skills are served (a pack holds skill folders and a few ` +
        `shared files; is the skills folder the one that holds the packs?)`,
    };
    issues.push(overfull);
    return { skills: [], files: NO_FILES, overfull };
  }

  // Of two groups, or two skill folders, whose paths differ only in case, one is served, as of pack folders.
  const folded = new FoldedPaths();
  const groups = new Set(walked.flatMap(({ folder }) => (folder === "" ? [] : [firstName(folder)])));
  const leftOutGroups = folded.admit([...groups]);
  const walkedFolders = new Set(walked.map(({ folder }) => folder));
  for (const [group, kept] of leftOutGroups) {
    const what = walkedFolders.has(group) ? "skill folder" : "group";
    issues.push(foldedDuplicateIssue(name, group, kept, what));
  }
  const inServedGroups = packFiles.filter((file) => !leftOutGroups.has(firstName(file.path)));
  const { leftOut, collisions } = foldedFileCollisions(inServedGroups.map((file) => file.path));
  issues.push(
    ...collisions.map((collision) => foldedFileIssue(collision, (at) => path.posix.join(name, at))),
  );
  const files = inServedGroups.filter((file) => !leftOut.has(file.path));
  const inServedGroup = walked.filter(({ folder }) => !leftOutGroups.has(firstName(folder)));
  const skillFolders = servedSkillFolders(name, inServedGroup, folded, issues);

  const read = readSkillsOuterFirst(name, skillFolders, folded, context);
  return { skills: servedByName(name, read, context), files: toFileMap(files) };
}

/**
 * The skills of `outer` and of the skill folders nested in them, which reading a skill finds and which are
 * read in turn (a symlink may lead to one twice): outer first, so each is found first by the path that
 * nests it least. One nested too deep is left out with an issue.
 */
function readSkillsOuterFirst(
  pack: string,
  outer: readonly SkillFolder[],
  folded: FoldedPaths,
  { issues, documents }: LoadContext,
): ReadSkill[] {
  const skillFolders = [...outer];
  const read: ReadSkill[] = [];
  const queued = new Set(skillFolders.map((found) => found.real));
  for (let next = 0; next < skillFolders.length; next++) {
    const found = skillFolders[next];
    if (found === undefined) break;
    const { skill, nested } = readSkill(pack, found, issues, documents);
    const unqueued: SkillFolder[] = [];
    for (const inner of nested) {
      if (queued.has(inner.real)) continue;
      queued.add(inner.real);
      unqueued.push(inner);
    }
    for (const inner of servedSkillFolders(pack, unqueued, folded, issues)) {
      if (inner.nesting <= MAX_SKILL_NESTING) skillFolders.push(inner);
      else issues.push(nestedTooDeep(path.posix.join(pack, inner.folder)));
    }
    if (skill) read.push(skill);
  }
  return read;
}

/**
 * Of `read`, the skills served: one a name (see below), each placed among the skills nested around it, its
 * warnings reported once, its frontmatter noted in the context.
 */
function servedByName(pack: string, read: ReadSkill[], { issues, frontmatters }: LoadContext): Skill[] {
  // Of two skills with one name, the shallower is served, then the first by path: the tools name a skill
  // `pack/name`, which names one skill. A problem inside a nested skill is seen by the walk of each skill
  // around it, and reported once. Outer skills come first, so each is placed before those nested in it.
  // Names are one when they fold alike as folder paths do (foldedName: `PDF` and `pdf`, `é` as one
  // character or as `e` and a combining accent): a model reads names in any case, an input method picks the
  // normalization, and a host writing each skill to a folder of its name on macOS or Windows makes them
  // one. Of those as shallow, the one the folder rule prefers is served (lowercase, then NFC).
  const skills = new Map<string, Skill>();
  const placement = new NestedPlacement();
  const reported = new Set<string>();
  for (const { skill, warnings, namedOtherwise, frontmatter } of read.sort(servedFirst)) {
    const key = foldedName(skill.name);
    const earlier = skills.get(key);
    if (earlier) {
      issues.push(duplicateIssue(pack, skill, earlier, placement.enclosing(skill.folder)));
      continue;
    }
    const { placed, beside } = placement.place(skill);
    for (const warning of warnings) {
      const told = warning === namedOtherwise && beside ? besideIssue(warning, skill, beside) : warning;
      const said = `${told.path}\n${told.reason}`;
      if (!reported.has(said)) issues.push(told);
      reported.add(said);
    }
    skills.set(key, placed);
    if (frontmatter !== undefined) frontmatters.set(placed, frontmatter);
  }
  return [...skills.values()];
}

/**
 * A skill of a name a skill of its pack served before it has, or has in another letter case or Unicode
 * normalization: not served, since `pack/name` names that one. A nested one's files stay files of the skill
 * around it, which the warning names with the call that reads its SKILL.md.
 */
function duplicateIssue(
  pack: string,
  skill: Skill,
  earlier: Skill,
  enclosing: Skill | undefined,
): CatalogIssue {
  const where = path.posix.join(pack, earlier.folder);
  const served =
    skill.name === earlier.name
      ? `duplicate skill name "${visible(skill.name)}": ${where} is served instead`
      : `duplicate skill name "${visible(skill.name)}": it is "${visible(earlier.name)}" in another ` +
        `${spelledOtherwise(skill.name, earlier.name)}, and ${where} is served instead`;
  if (enclosing === undefined) {
    return { severity: "skipped", path: path.posix.join(pack, skill.folder), reason: served };
  }
  const below = enclosing.folder === "" ? skill.folder : skill.folder.slice(enclosing.folder.length + 1);
  return {
    severity: "skipped",
    path: path.posix.join(pack, skill.folder),
    reason:
      `${served}; its files stay files of skill ${enclosing.id} around it ` +
      `(read_skill(skill="${enclosing.id}", file="${below}/${SKILL_DOCUMENT}"))`,
  };
}

/** The first name of `at`, a path in the pack: a skill folder's group, or the skill folder itself. */
function firstName(at: string): string {
  return at.split("/", 1)[0] ?? at;
}

/**
 * `found` less the skill folders whose path is another's in another letter case or Unicode normalization
 * (`pdf/` and `PDF/`), as {@link FoldedPaths} serves one of them: both were served, two folders that a
 * checkout on macOS or Windows makes one, and two skills that a model, reading names in any case, takes
 * for one. Each other is left out with an issue naming the one served.
 */
function servedSkillFolders(
  pack: string,
  found: readonly SkillFolder[],
  folded: FoldedPaths,
  issues: CatalogIssue[],
): SkillFolder[] {
  const leftOut = folded.admit(found.map(({ folder }) => folder));
  for (const [folder, kept] of leftOut) issues.push(foldedDuplicateIssue(pack, folder, kept, "skill folder"));
  return found.filter(({ folder }) => !leftOut.has(folder));
}

/** The issue of a group or skill folder left out for `kept`, its path in another spelling, served instead. */
function foldedDuplicateIssue(
  pack: string,
  folder: string,
  kept: string,
  what: "group" | "skill folder",
): CatalogIssue {
  const served =
    `duplicate ${what}: it is "${visible(path.posix.join(pack, kept))}" in another ` +
    `${spelledOtherwise(folder, kept)}, which is served instead`;
  return {
    severity: "skipped",
    path: visible(path.posix.join(pack, folder)),
    reason: what === "group" ? `${served}; nothing in this one is served` : served,
  };
}

/** A skill folder in more than MAX_SKILL_NESTING others: neither it nor the skills in it are read. */
function nestedTooDeep(where: string): CatalogIssue {
  return {
    severity: "skipped",
    path: where,
    reason:
      `skills nest at most ${MAX_SKILL_NESTING} deep in other skills: this one and those inside it are ` +
      "not served as skills (their files stay files of the skills around them)",
  };
}

/** Which of two skills whose names fold alike is served: the shallower, then lowercase, NFC, first by path. */
function servedFirst(a: ReadSkill, b: ReadSkill): number {
  const depth = (read: ReadSkill) => read.found.folder.split("/").length;
  return (
    depth(a) - depth(b) ||
    preference(a.skill.name) - preference(b.skill.name) ||
    compareText(a.found.folder, b.found.folder)
  );
}
