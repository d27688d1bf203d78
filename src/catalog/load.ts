import { type Dirent, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { compareText } from "../sorted.js";
import { caseCollisionIssue, caseCollisions } from "./case-collisions.js";
import { DocumentReader, type DocumentRecord, KnownDocuments } from "./documents.js";
import { FileReader } from "./files.js";
import { describeFsError, MAX_FOLDER_ENTRIES } from "./folders.js";
import { besideIssue, NestedPlacement } from "./nested-placement.js";
import { listPackFolders } from "./pack-folders.js";
import { compareSkills, Scope, SelectorError } from "./scope.js";
import { type ReadSkill, readSkill, type SkillFolder } from "./skill.js";
import { CatalogError, realSkillsFolder } from "./skills-folder.js";
import { readSources } from "./sources.js";
import { type CatalogFile, type CatalogIssue, SKILL_DOCUMENT, type Skill, type Source } from "./types.js";
import { visible } from "./visible.js";
import { NO_FILES, toFileMap, walk } from "./walk.js";

export interface Catalog {
  /** Every loaded skill: the widest scope any caller can have. */
  readonly everything: Scope;
  /** Reads the files of skills and packs for clients, keeping those read recently. */
  readonly files: FileReader;
  /** The fetched commits, when the skills folder holds a `sources.json`; empty otherwise. */
  readonly sources: readonly Source[];
}

export interface LoadOptions {
  /** `SKILL_PACKS`: only these packs or groups are loaded. Empty loads everything. */
  readonly packs?: readonly string[];
  /** SKILL.md files read before (saved with the search index): what still fits is not read again. */
  readonly known?: KnownDocuments;
  /** What to add when `dir` is no folder: how it was worked out, when that is likely the mistake. */
  readonly missingFolderHint?: string;
}

export interface LoadedCatalog {
  readonly catalog: Catalog;
  readonly issues: readonly CatalogIssue[];
  /** What each SKILL.md held, to be saved for the next start (see KnownDocuments). */
  readonly documents: readonly DocumentRecord[];
  /**
   * The digest of each skill's whole frontmatter as YAML reads it (see frontmatterDigest), for the skills
   * whose SKILL.md was parsed now: the inspection compares the Skills extension's reading with it instead of
   * parsing the YAML again.
   */
  readonly frontmatters: ReadonlyMap<Skill, string>;
}

/** What a load reports to and reads with, as it goes through the packs. */
interface LoadContext {
  readonly root: string;
  readonly issues: CatalogIssue[];
  readonly documents: DocumentReader;
  readonly frontmatters: Map<Skill, string>;
}

/**
 * Reads a skills folder (one sub-folder per pack) into an immutable Catalog. Broken skills are left out
 * and reported in `issues`; only a folder that cannot be served at all throws a CatalogError.
 * Synchronous on purpose: it runs once, before the server listens, and nothing else is waiting.
 */
export function loadCatalog(dir: string, options: LoadOptions = {}): LoadedCatalog {
  const root = realSkillsFolder(dir, options.missingFolderHint);
  const issues: CatalogIssue[] = [];
  const selectors = options.packs ?? [];
  const context: LoadContext = {
    root,
    issues,
    documents: new DocumentReader(options.known ?? KnownDocuments.fromBytes(undefined)),
    frontmatters: new Map(),
  };

  const skills: Skill[] = [];
  const packFiles = new Map<string, ReadonlyMap<string, CatalogFile>>();
  for (const name of packsToScan(listPackFolders(root, issues), selectors)) {
    const pack = scanPack(name, context);
    if (pack.skills.length === 0) {
      issues.push({ severity: "skipped", path: name, reason: "pack folder holds no valid skill" });
      continue;
    }
    skills.push(...pack.skills);
    packFiles.set(name, pack.files);
  }
  skills.sort(compareSkills);

  const scanned = new Scope(skills, (name) => packFiles.get(name) ?? new Map());
  if (scanned.skills.length === 0) {
    const reasons = issues.slice(0, 3).map((issue) => `; ${issue.path}: ${issue.reason}`);
    // A skill's own folder given as the skills folder: its SKILL.md is read as no pack's, so nothing is served.
    if (isFile(path.join(root, SKILL_DOCUMENT))) {
      reasons.unshift(
        `; it is a skill's folder (it holds ${SKILL_DOCUMENT}): give the folder of packs, as in <folder>/<pack>/<skill>/${SKILL_DOCUMENT}`,
      );
    }
    throw new CatalogError(`No valid skill in ${dir}${reasons.join("")}`);
  }
  if (isOnePacksFolder(scanned)) {
    issues.push({
      severity: "warning",
      path: ".",
      reason: `each pack is a single skill with its ${SKILL_DOCUMENT} at the pack's top, as when the folder given is one pack's: give the folder that holds the packs, as in <folder>/<pack>/<skill>/${SKILL_DOCUMENT}, or each skill is served as a pack of its own`,
    });
  }
  const everything = narrowedBySkillPacks(scanned, selectors);
  for (const pack of everything.packs) issues.push(...caseCollisions(pack).map(caseCollisionIssue));
  // The sources of packs SKILL_PACKS left out are not served, so not reported either; a description,
  // written for the whole pack, would name groups a pack loaded in part does not serve.
  const sources = readSources(root, issues).flatMap(({ description, ...source }) => {
    const pack = everything.findPack(source.name);
    if (pack === undefined) return [];
    const whole = pack.skills.length === scanned.findPack(source.name)?.skills.length;
    return whole ? [{ ...source, description }] : [source];
  });
  return {
    catalog: { everything, sources, files: new FileReader() },
    issues,
    documents: context.documents.records,
    frontmatters: context.frontmatters,
  };
}

/**
 * Whether the packs look like the skills of one pack, read a level too low: two or more packs, each one
 * skill whose folder is the pack's own (`<pack>/SKILL.md`). One such pack alone is a single-skill
 * repository fetched as a pack; a catalog of nothing but them, most often `SKILLS_DIR=skills/design`.
 */
function isOnePacksFolder(scanned: Scope): boolean {
  return (
    scanned.packs.length >= 2 &&
    scanned.packs.every(({ skills }) => skills.length === 1 && skills[0]?.folder === "")
  );
}

/** Whether `file` is a regular file, following symlinks; false when it cannot be told. */
function isFile(file: string): boolean {
  try {
    return statSync(file).isFile();
  } catch {
    return false;
  }
}

function narrowedBySkillPacks(scanned: Scope, selectors: readonly string[]): Scope {
  if (selectors.length === 0) return scanned;
  try {
    return scanned.narrow(selectors);
  } catch (error) {
    if (error instanceof SelectorError) throw new CatalogError(`SKILL_PACKS: ${error.message}`);
    throw error;
  }
}

/** Skips walking packs that `SKILL_PACKS` cannot select, when every selector names its pack. */
function packsToScan(packs: readonly string[], selectors: readonly string[]): readonly string[] {
  const named = selectors.map((selector) => selector.trim().split("/")[0] ?? "");
  if (selectors.length === 0 || !named.every((pack) => packs.includes(pack))) return packs;
  return packs.filter((pack) => named.includes(pack));
}

interface ScannedPack {
  readonly skills: readonly Skill[];
  readonly files: ReadonlyMap<string, CatalogFile>;
}

/**
 * How many skills a served skill may lie in. Collections nest one or two levels
 * (`game-development/web-games/SKILL.md`); each level makes every file below it a file of one skill more,
 * walked, listed and inspected once for each, so a chain of skills nested 500 deep took minutes to start.
 */
export const MAX_SKILL_NESTING = 3;

function scanPack(name: string, context: LoadContext): ScannedPack {
  const { root, issues } = context;
  let packRoot: string;
  try {
    packRoot = realpathSync(path.join(root, name));
  } catch (error) {
    issues.push({ severity: "skipped", path: name, reason: `pack folder ${describeFsError(error)}` });
    return { skills: [], files: NO_FILES };
  }
  const skillFolders: SkillFolder[] = [];
  const files: CatalogFile[] = [];
  const isSkillFolder = (folder: string, real: string, entries: readonly Dirent[]) => {
    const found = entries.some((entry) => entry.name === SKILL_DOCUMENT);
    if (found) skillFolders.push({ folder, real, entries, nesting: 0 });
    return found;
  };
  walk(packRoot, "", new Set([packRoot]), files, {
    boundary: packRoot,
    issues,
    report: (relative) => path.posix.join(name, relative),
    stopAt: isSkillFolder,
    maxEntries: MAX_FOLDER_ENTRIES,
  });

  // Reading a skill finds the skills nested in it, which are read in turn; a symlink may lead to one twice.
  // Skills are read outer first, so each is found first by the path that nests it least.
  const read: ReadSkill[] = [];
  const queued = new Set(skillFolders.map((found) => found.real));
  for (let next = 0; next < skillFolders.length; next++) {
    const found = skillFolders[next];
    if (found === undefined) break;
    const { skill, nested } = readSkill(name, found, issues, context.documents);
    for (const inner of nested) {
      if (queued.has(inner.real)) continue;
      queued.add(inner.real);
      if (inner.nesting <= MAX_SKILL_NESTING) skillFolders.push(inner);
      else issues.push(nestedTooDeep(path.posix.join(name, inner.folder)));
    }
    if (skill) read.push(skill);
  }

  // Of two skills with one name, the shallower is served, then the first by path: the tools name a skill
  // `pack/name`, which names one skill. A problem inside a nested skill is seen by the walk of each skill
  // around it, and reported once. Outer skills come first, so each is placed before those nested in it.
  // Names are one when they differ only in Unicode normalization (`é` as one character or as `e` and a
  // combining accent): each reads as the other, and a client's input method picks which one it asks for.
  const skills = new Map<string, Skill>();
  const placement = new NestedPlacement();
  const reported = new Set<string>();
  for (const { skill, warnings, namedOtherwise, frontmatter } of read.sort(byDepthThenPath)) {
    const key = skill.name.normalize("NFC");
    const earlier = skills.get(key);
    if (earlier) {
      issues.push(duplicateIssue(name, skill, earlier, placement.enclosing(skill.folder)));
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
    if (frontmatter !== undefined) context.frontmatters.set(placed, frontmatter);
  }
  return { skills: [...skills.values()], files: toFileMap(files) };
}

/**
 * A skill of a name a shallower skill of its pack has (or one before it by path): not served, since
 * `pack/name` names that one. A nested one's files stay files of the skill around it, which the warning
 * names with the call that reads its SKILL.md.
 */
function duplicateIssue(
  pack: string,
  skill: Skill,
  earlier: Skill,
  enclosing: Skill | undefined,
): CatalogIssue {
  const served = `duplicate skill name "${visible(skill.name)}": ${path.posix.join(pack, earlier.folder)} is served instead`;
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

function byDepthThenPath(a: ReadSkill, b: ReadSkill): number {
  const depth = (read: ReadSkill) => read.found.folder.split("/").length;
  return depth(a) - depth(b) || compareText(a.found.folder, b.found.folder);
}
