/**
 * The load: a skills folder read into a Catalog, pack by pack (skills-folder.ts, pack-folders.ts,
 * pack-scan.ts, skill.ts), narrowed by `SKILL_PACKS`, with every issue to report at startup.
 */
import { statSync } from "node:fs";
import path from "node:path";
import { caseCollisionIssue, caseCollisions } from "./case-collisions.js";
import { DocumentReader, type DocumentRecord, KnownDocuments } from "./documents.js";
import { FileReader } from "./files.js";
import { listPackFolders } from "./pack-folders.js";
import { type LoadContext, scanPack } from "./pack-scan.js";
import { compareSkills, Scope, SelectorError } from "./scope.js";
import { CatalogError, realSkillsFolder } from "./skills-folder.js";
import { readSources } from "./sources.js";
import { type CatalogFile, type CatalogIssue, SKILL_DOCUMENT, type Skill, type Source } from "./types.js";

export interface Catalog {
  /** Every loaded skill: the widest scope any caller can have. */
  readonly everything: Scope;
  /** Reads the files of skills and packs for clients, keeping those read recently. */
  readonly files: FileReader;
  /** The fetched commits, when the skills folder holds a `sources.json`; empty otherwise. */
  readonly sources: readonly Source[];
}

interface LoadOptions {
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

/**
 * Why a pack is left out when each skill in it was (or it held none): a consequence, which a count of what
 * was left out tells apart from the skills and files themselves.
 */
export const PACK_WITHOUT_SKILL = "pack folder holds no valid skill";

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
  // The packs walked no further: what says most plainly that the folder given holds no packs (/usr).
  const overfull: CatalogIssue[] = [];
  for (const name of packsToScan(listPackFolders(root, issues), selectors)) {
    const pack = scanPack(name, context);
    if (pack.overfull !== undefined) {
      overfull.push(pack.overfull);
      continue;
    }
    if (pack.skills.length === 0) {
      issues.push({ severity: "skipped", path: name, reason: PACK_WITHOUT_SKILL });
      continue;
    }
    skills.push(...pack.skills);
    packFiles.set(name, pack.files);
  }
  skills.sort(compareSkills);

  const scanned = new Scope(skills, (name) => packFiles.get(name) ?? new Map());
  if (scanned.skills.length === 0) throw noValidSkill(dir, root, [...overfull, ...issues]);
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
 * Why a skills folder serves nothing: the first few reasons of what the load `found` (the overfull packs
 * ahead), and first of all when the folder is a skill's own; the error carries every one.
 */
function noValidSkill(dir: string, root: string, found: readonly CatalogIssue[]): CatalogError {
  const first = [...new Set(found)];
  const reasons = first.slice(0, 3).map((issue) => `; ${issue.path}: ${issue.reason}`);
  // A skill's own folder given as the skills folder: its SKILL.md is no pack's, so nothing is served.
  if (isFile(path.join(root, SKILL_DOCUMENT))) {
    reasons.unshift(
      `; it is a skill's folder (it holds ${SKILL_DOCUMENT}): give the folder of packs, as in <folder>/<pack>/<skill>/${SKILL_DOCUMENT}`,
    );
  }
  return new CatalogError(`No valid skill in ${dir}${reasons.join("")}`, first);
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
