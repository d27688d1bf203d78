import {
  accessSync,
  closeSync,
  constants,
  type Dirent,
  fstatSync,
  openSync,
  readFileSync,
  readSync,
  realpathSync,
  statSync,
} from "node:fs";
import path from "node:path";
import { type DocumentReading, KnownDocuments } from "./documents.js";
import { FileReader, unnameableReason } from "./files.js";
import { describeFsError, readFolder } from "./folders.js";
import {
  closesFrontmatter,
  nameRuleViolation,
  type SkillDocument as ParsedDocument,
  readSkillFrontmatter,
  stripBom,
} from "./frontmatter.js";
import { compareSkills, compareText, Scope, SelectorError } from "./scope.js";
import { fileStamp } from "./stamps.js";
import {
  type CatalogFile,
  type CatalogIssue,
  MAX_PACK_DESCRIPTION,
  type Skill,
  type Source,
} from "./types.js";

export interface Catalog {
  /** Every loaded skill: the widest scope any caller can have. */
  readonly everything: Scope;
  /** Reads the files of skills and packs for clients, keeping those read recently. */
  readonly files: FileReader;
  /** The fetched commits, when the skills folder holds a `sources.json`; empty otherwise. */
  readonly sources: readonly Source[];
}

/** The skills folder cannot be served: the server must not start. */
export class CatalogError extends Error {
  override name = "CatalogError";
}

export interface LoadOptions {
  /** `SKILL_PACKS`: only these packs or groups are loaded. Empty loads everything. */
  readonly packs?: readonly string[];
  /** SKILL.md files read before (saved with the search index): what still fits is not read again. */
  readonly known?: KnownDocuments;
}

export interface LoadedCatalog {
  readonly catalog: Catalog;
  readonly issues: readonly CatalogIssue[];
  /** What each SKILL.md held, to be saved for the next start (see KnownDocuments). */
  readonly documents: readonly DocumentReading[];
  /**
   * The digest of each skill's whole frontmatter as YAML reads it (see frontmatterDigest), for the skills
   * whose SKILL.md was parsed now: the inspection compares the Skills extension's reading with it instead of
   * parsing the YAML again.
   */
  readonly frontmatters: ReadonlyMap<Skill, string>;
}

/** What the walk of the skills folder reports to, and reads with. */
interface Reading {
  readonly root: string;
  readonly issues: CatalogIssue[];
  readonly known: KnownDocuments;
  readonly documents: DocumentReading[];
  readonly frontmatters: Map<Skill, string>;
}

export const SKILL_DOCUMENT = "SKILL.md";
/** Bounds the memory one runaway SKILL.md can take; real ones are a few KiB. */
const MAX_SKILL_DOCUMENT_BYTES = 1024 * 1024;

/**
 * Reads a skills folder (one sub-folder per pack) into an immutable Catalog. Broken skills are left out
 * and reported in `issues`; only a folder that cannot be served at all throws a CatalogError.
 * Synchronous on purpose: it runs once, before the server listens, and nothing else is waiting.
 */
export function loadCatalog(dir: string, options: LoadOptions = {}): LoadedCatalog {
  const root = realDirectory(dir);
  const issues: CatalogIssue[] = [];
  const selectors = options.packs ?? [];
  const reading: Reading = {
    root,
    issues,
    known: options.known ?? KnownDocuments.fromBytes(undefined),
    documents: [],
    frontmatters: new Map(),
  };

  const skills: Skill[] = [];
  const packFiles = new Map<string, ReadonlyMap<string, CatalogFile>>();
  for (const name of packsToScan(listPackFolders(root, issues), selectors)) {
    const pack = scanPack(name, reading);
    if (pack.skills.length === 0) {
      issues.push({ severity: "skipped", path: name, reason: "pack folder holds no valid skill" });
      continue;
    }
    skills.push(...pack.skills);
    packFiles.set(name, pack.files);
  }
  skills.sort(compareSkills);

  let everything = new Scope(skills, (name) => packFiles.get(name) ?? new Map());
  if (everything.skills.length === 0) {
    const reasons = issues.slice(0, 3).map((issue) => `; ${issue.path}: ${issue.reason}`);
    throw new CatalogError(`No valid skill in ${dir}${reasons.join("")}`);
  }
  if (selectors.length > 0) {
    try {
      everything = everything.narrow(selectors);
    } catch (error) {
      if (error instanceof SelectorError) throw new CatalogError(`SKILL_PACKS: ${error.message}`);
      throw error;
    }
  }
  // The sources of packs SKILL_PACKS left out are not served, so not reported either.
  const sources = readSources(root, issues).filter((source) => everything.findPack(source.name));
  return {
    catalog: { everything, sources, files: new FileReader() },
    issues,
    documents: reading.documents,
    frontmatters: reading.frontmatters,
  };
}

function realDirectory(dir: string): string {
  try {
    const real = realpathSync(dir);
    if (statSync(real).isDirectory()) return real;
  } catch {
    // Reported below with the path as the operator gave it.
  }
  throw new CatalogError(`Skills folder ${dir} does not exist or is not a folder`);
}

/** Pack folders are the visible sub-folders of the skills folder; files there (sources.json) are not packs. */
function listPackFolders(root: string, issues: CatalogIssue[]): string[] {
  const names: string[] = [];
  const problems: CatalogIssue[] = [];
  const entries = readFolder(root, "", problems);
  if (entries === undefined) throw new CatalogError(`Skills folder ${root}: ${problems[0]?.reason}`);
  issues.push(...problems);
  for (const entry of entries) {
    if (isHidden(entry.name) || entry.isFile()) continue;
    const resolved = resolveEntry(root, entry, undefined);
    if (resolved.kind === "unreadable") issues.push(unreadable(entry.name, resolved));
    if (resolved.kind !== "folder") continue;
    if (/[\s,\\]/.test(entry.name)) {
      issues.push({
        severity: "skipped",
        path: entry.name,
        reason: "pack folder names cannot hold spaces, commas or backslashes",
      });
      continue;
    }
    const violation = nameRuleViolation(entry.name);
    if (violation) issues.push({ severity: "warning", path: entry.name, reason: `pack name ${violation}` });
    names.push(entry.name);
  }
  return names;
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

/** A folder holding a SKILL.md, as the walk found it. */
interface SkillFolder {
  /** Relative to its pack, POSIX. */
  readonly folder: string;
  /** Its real path: the walk follows symlinks only into real folders inside the pack. */
  readonly real: string;
  readonly entries: readonly Dirent[];
}

function scanPack(name: string, reading: Reading): ScannedPack {
  const { root, issues } = reading;
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
    if (found) skillFolders.push({ folder, real, entries });
    return found;
  };
  walk(packRoot, "", new Set([packRoot]), files, {
    boundary: packRoot,
    issues,
    report: (relative) => path.posix.join(name, relative),
    stopAt: isSkillFolder,
  });

  // Reading a skill finds the skills nested in it, which are read in turn; a symlink may lead to one twice.
  const read: ReadSkill[] = [];
  const queued = new Set(skillFolders.map((found) => found.real));
  for (let next = 0; next < skillFolders.length; next++) {
    const found = skillFolders[next];
    if (found === undefined) break;
    const { skill, nested } = readSkill(name, found, reading);
    for (const inner of nested) {
      if (!queued.has(inner.real)) skillFolders.push(inner);
      queued.add(inner.real);
    }
    if (skill) read.push(skill);
  }

  // Of two skills with one name, the shallower is served, then the first by path. A problem inside a
  // nested skill is seen by the walk of each skill around it, and reported once.
  const skills = new Map<string, Skill>();
  const reported = new Set<string>();
  for (const { skill, warnings, found } of read.sort(byDepthThenPath)) {
    const earlier = skills.get(skill.name);
    if (earlier) {
      issues.push({
        severity: "skipped",
        path: path.posix.join(name, found.folder),
        reason: `duplicate skill name "${skill.name}": ${path.posix.join(name, earlier.folder)} is served instead`,
      });
      continue;
    }
    for (const warning of warnings) {
      const key = `${warning.path}\n${warning.reason}`;
      if (!reported.has(key)) issues.push(warning);
      reported.add(key);
    }
    skills.set(skill.name, skill);
  }
  return { skills: [...skills.values()], files: toFileMap(files) };
}

function byDepthThenPath(a: ReadSkill, b: ReadSkill): number {
  const depth = (read: ReadSkill) => read.found.folder.split("/").length;
  return depth(a) - depth(b) || compareText(a.found.folder, b.found.folder);
}

/** A skill as read from its folder, and the warnings to report if it is served. */
interface ReadSkill {
  readonly skill: Skill;
  readonly warnings: readonly CatalogIssue[];
  readonly found: SkillFolder;
}

/**
 * A skill, unless it must be skipped (the reason goes straight to `issues`), and the skill folders nested
 * in its folder, found either way: collections nest skills (`game-development/web-games/SKILL.md`), and
 * each is a skill of its own. Its files stay files of the outer skill too, which may cite them.
 */
function readSkill(
  pack: string,
  found: SkillFolder,
  reading: Reading,
): { skill?: ReadSkill; nested: readonly SkillFolder[] } {
  const { issues } = reading;
  const { folder, real: skillRoot, entries } = found;
  const where = path.posix.join(pack, folder);
  const warnings: CatalogIssue[] = [];
  const files: CatalogFile[] = [];
  // Only the nearest nested skills: each finds those nested in it in turn. The walk is depth first.
  const nested: SkillFolder[] = [];
  let lastNested: string | undefined;
  const noteNested = (relative: string, real: string, children: readonly Dirent[]) => {
    const inside = lastNested !== undefined && relative.startsWith(`${lastNested}/`);
    if (!inside && children.some((entry) => entry.name === SKILL_DOCUMENT)) {
      nested.push({ folder: path.posix.join(folder, relative), real, entries: children });
      lastNested = relative;
    }
    return false;
  };
  walk(
    skillRoot,
    "",
    new Set([skillRoot]),
    files,
    {
      boundary: skillRoot,
      issues: warnings,
      report: (relative) => path.posix.join(where, relative),
      stopAt: noteNested,
    },
    entries.filter((entry) => entry.name !== SKILL_DOCUMENT),
  );

  const documentPath = path.join(skillRoot, SKILL_DOCUMENT);
  // A plain file needs no resolving; a symlink is followed only to a file inside the skill folder.
  const plainFile = entries.some((entry) => entry.name === SKILL_DOCUMENT && entry.isFile());
  const document = plainFile
    ? { kind: "file" as const, real: documentPath }
    : resolveLink(documentPath, skillRoot);
  if (document.kind !== "file") {
    issues.push({
      severity: "skipped",
      path: where,
      reason:
        document.kind === "unreadable"
          ? `SKILL.md ${document.reason}`
          : "SKILL.md is not a regular file inside the skill folder",
    });
    return { nested };
  }
  const start = readDocument(path.posix.join(where, SKILL_DOCUMENT), document.real, reading);
  if ("problem" in start) {
    issues.push({ severity: "skipped", path: where, reason: `SKILL.md ${start.problem}` });
    return { nested };
  }
  if (start.size > MAX_SKILL_DOCUMENT_BYTES) {
    issues.push({ severity: "skipped", path: where, reason: "SKILL.md is larger than 1 MiB" });
    return { nested };
  }
  const { parsed } = start;
  if (!parsed.ok) {
    issues.push({ severity: "skipped", path: where, reason: parsed.reason });
    return { nested };
  }
  // `pack/name` names a skill to read_skill and to prompts: a slash in the name would make it another's.
  if (parsed.name.includes("/")) {
    issues.push({
      severity: "skipped",
      path: where,
      reason: `name "${parsed.name}" holds a slash: skills are named pack/name, so a name cannot hold one`,
    });
    return { nested };
  }

  const violation = nameRuleViolation(parsed.name);
  if (violation)
    warnings.push({ severity: "warning", path: where, reason: `name "${parsed.name}" ${violation}` });
  if (parsed.name !== (folder === "" ? pack : path.posix.basename(folder))) {
    warnings.push({
      severity: "warning",
      path: where,
      reason: `name "${parsed.name}" differs from its folder`,
    });
  }
  const skill: Skill = {
    id: flat(`${pack}/${parsed.name}`),
    name: flat(parsed.name),
    description: flat(parsed.description),
    pack,
    group: groupOf(folder, nested.length > 0),
    folder: flat(folder),
    document: {
      path: SKILL_DOCUMENT,
      size: start.size,
      mtimeMs: start.mtimeMs,
      source: flat(document.real),
    },
    files: toFileMap(files),
    modelInvocable: parsed.modelInvocable,
    userInvocable: parsed.userInvocable,
  };
  if (start.digest !== undefined) reading.frontmatters.set(skill, start.digest);
  return { skill: { skill, warnings, found }, nested };
}

/**
 * The first folder under the pack, for a skill below the top of its pack. A skill at the top that holds
 * others is in their group too, so that selecting the group selects them all.
 */
function groupOf(folder: string, holdsSkills: boolean): string | undefined {
  const slash = folder.indexOf("/");
  if (slash > 0) return flat(folder.slice(0, slash));
  return holdsSkills && folder !== "" ? flat(folder) : undefined;
}

/** What a SKILL.md says; `digest` when its frontmatter was parsed now (see readSkillFrontmatter). */
interface DocumentRead {
  readonly parsed: ParsedDocument;
  readonly digest?: string;
  readonly size: number;
  readonly mtimeMs: number;
}

/**
 * What a SKILL.md says, from the documents read before when it still has the size and modification time
 * it had then, else read now from disk; either way recorded for the next start. A file that cannot be read
 * gives the problem instead, and is not recorded.
 */
function readDocument(where: string, real: string, reading: Reading): DocumentRead | { problem: string } {
  let read: DocumentRead;
  try {
    read = reading.known.empty ? fromDisk(real) : fromKnown(where, real, reading.known);
  } catch (error) {
    return { problem: describeFsError(error) };
  }
  reading.documents.push({ path: where, stamp: fileStamp(read), parsed: read.parsed });
  return read;
}

function fromKnown(where: string, real: string, known: KnownDocuments): DocumentRead {
  const { size, mtimeMs } = statSync(real);
  // What was read before says nothing of whether the file can still be read.
  accessSync(real, constants.R_OK);
  const parsed = known.get(where, fileStamp({ size, mtimeMs }));
  return parsed === undefined ? fromDisk(real) : { parsed, size, mtimeMs };
}

function fromDisk(real: string): DocumentRead {
  const start = readDocumentStart(real);
  return { ...readSkillFrontmatter(start.text), size: start.size, mtimeMs: start.mtimeMs };
}

/**
 * How much of SKILL.md is read first: real frontmatters take a few hundred bytes (2 KB at most in
 * shared/bench), and Node serves buffers this small from its pool instead of allocating each.
 */
const DOCUMENT_START_BYTES = 2048;

/**
 * The start of SKILL.md, in whole lines, up to the end of its frontmatter (the body is read when a
 * client asks for it), and the file's size and modification time. Reads on, a larger piece at a time,
 * while the frontmatter is still open; a file over the size limit is not read at all.
 */
function readDocumentStart(file: string): { text: string; size: number; mtimeMs: number } {
  const handle = openSync(file, "r");
  try {
    const { size, mtimeMs } = fstatSync(handle);
    if (size > MAX_SKILL_DOCUMENT_BYTES) return { text: "", size, mtimeMs };
    for (let want = Math.min(size, DOCUMENT_START_BYTES); ; want = Math.min(size, want * 8)) {
      const buffer = Buffer.allocUnsafe(want);
      const read = readSync(handle, buffer, 0, want, 0);
      if (read < want || read >= size) {
        return { text: stripBom(buffer.toString("utf8", 0, read)), size, mtimeMs };
      }
      // Whole lines only: a line cut in two could pass for the closing ---.
      const text = stripBom(buffer.toString("utf8", 0, buffer.lastIndexOf(0x0a, read - 1) + 1));
      if (closesFrontmatter(text)) return { text, size, mtimeMs };
    }
  } finally {
    closeSync(handle);
  }
}

interface WalkContext {
  /** Nothing outside this real folder is served, whatever symlinks say. */
  readonly boundary: string;
  readonly issues: CatalogIssue[];
  /** Turns a path relative to the walk's start into one relative to the skills folder, for issues. */
  readonly report: (relative: string) => string;
  /**
   * Sees each folder the walk enters and says whether to stop there: a pack's walk stops at a skill
   * folder, which is not searched for pack files.
   */
  readonly stopAt?: (relative: string, real: string, entries: readonly Dirent[]) => boolean;
}

/**
 * Walks a folder collecting its visible files into `files`. Symlinks are followed only when their
 * target lies inside the boundary; `seen` stops symlink cycles. What cannot be read, or could not be named
 * by a client, is left out with an issue.
 */
function walk(
  real: string,
  relative: string,
  seen: Set<string>,
  files: CatalogFile[],
  context: WalkContext,
  entries: readonly Dirent[] | undefined = readFolder(real, context.report(relative), context.issues),
): void {
  if (entries === undefined || context.stopAt?.(relative, real, entries)) return;
  for (const entry of entries) {
    if (isHidden(entry.name)) continue;
    const childRelative = relative === "" ? entry.name : `${relative}/${entry.name}`;
    const child = resolveEntry(real, entry, context.boundary);
    if (child.kind === "outside") {
      context.issues.push({
        severity: "skipped",
        path: context.report(childRelative),
        reason: "symlink points outside its skill or pack folder",
      });
      continue;
    }
    if (child.kind === "unreadable") {
      context.issues.push(unreadable(context.report(childRelative), child));
      continue;
    }
    if (child.kind === "other") continue;
    const unnameable = unnameableReason(childRelative, child.kind);
    if (unnameable !== undefined) {
      context.issues.push({ severity: "skipped", path: context.report(childRelative), reason: unnameable });
    } else if (child.kind === "file") {
      files.push({
        path: flat(childRelative),
        size: child.size,
        mtimeMs: child.mtimeMs,
        source: flat(child.real),
      });
    } else if (!seen.has(child.real)) {
      seen.add(child.real);
      walk(child.real, childRelative, seen, files, context);
    }
  }
}

type ResolvedEntry =
  | { readonly kind: "file"; readonly real: string; readonly size: number; readonly mtimeMs: number }
  | { readonly kind: "folder"; readonly real: string }
  | { readonly kind: "outside" }
  | { readonly kind: "unreadable"; readonly reason: string }
  | { readonly kind: "other" };

/**
 * What a directory entry really is, following a symlink only when it stays inside `boundary`. A file is
 * one the server can read: one it cannot is `unreadable`, rather than listed and then failing every read.
 */
function resolveEntry(parent: string, entry: Dirent, boundary: string | undefined): ResolvedEntry {
  const full = path.join(parent, entry.name);
  if (entry.isDirectory()) return { kind: "folder", real: full };
  if (entry.isFile()) return readableFile(full);
  if (!entry.isSymbolicLink()) return { kind: "other" };
  return resolveLink(full, boundary);
}

/** Follows every symlink in `full`; a target outside `boundary` (when given) is reported as such. */
function resolveLink(full: string, boundary: string | undefined): ResolvedEntry {
  let real: string;
  try {
    real = realpathSync(full);
  } catch (error) {
    // A dangling symlink leads nowhere: nothing to serve, and nothing wrong with the server.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "other" };
    return { kind: "unreadable", reason: describeFsError(error) };
  }
  if (boundary !== undefined && !isInside(boundary, real)) return { kind: "outside" };
  try {
    const stat = statSync(real);
    if (stat.isDirectory()) return { kind: "folder", real };
    if (stat.isFile()) return readableFile(real);
  } catch (error) {
    return { kind: "unreadable", reason: describeFsError(error) };
  }
  return { kind: "other" };
}

/** The regular file at `real` when the server may read it, else why not. */
function readableFile(real: string): ResolvedEntry {
  try {
    const { size, mtimeMs } = statSync(real);
    accessSync(real, constants.R_OK);
    return { kind: "file", real, size, mtimeMs };
  } catch (error) {
    return { kind: "unreadable", reason: describeFsError(error) };
  }
}

function unreadable(where: string, entry: { readonly reason: string }): CatalogIssue {
  return { severity: "skipped", path: where, reason: entry.reason };
}

export function isInside(folder: string, target: string): boolean {
  return target === folder || target.startsWith(folder.endsWith(path.sep) ? folder : folder + path.sep);
}

function isHidden(name: string): boolean {
  return name.startsWith(".");
}

/** Most skills have no file besides SKILL.md; they share one empty map. */
const NO_FILES: ReadonlyMap<string, CatalogFile> = new Map();

function toFileMap(files: readonly CatalogFile[]): ReadonlyMap<string, CatalogFile> {
  if (files.length === 0) return NO_FILES;
  return new Map([...files].sort((a, b) => compareText(a.path, b.path)).map((file) => [file.path, file]));
}

/** `sources.json`, written by the fetcher, says which commit each pack came from. */
function readSources(root: string, issues: CatalogIssue[]): Source[] {
  let text: string;
  try {
    text = readFileSync(path.join(root, "sources.json"), "utf8");
  } catch {
    return [];
  }
  try {
    const data: unknown = JSON.parse(text);
    const list = (data as { sources?: unknown }).sources;
    if (!Array.isArray(list)) throw new Error("no sources list");
    return list.map((item: unknown) => {
      const { name, ref, description } = item as { name?: unknown; ref?: unknown; description?: unknown };
      if (typeof name !== "string" || typeof ref !== "string") throw new Error("a source lacks name or ref");
      if (description === undefined) return { name, ref };
      const text = typeof description === "string" ? description.replace(/\s+/g, " ").trim() : "";
      if (text === "" || text.length > MAX_PACK_DESCRIPTION) {
        throw new Error(
          `the description of ${name} is not a text of 1 to ${MAX_PACK_DESCRIPTION} characters`,
        );
      }
      return { name, ref, description: text };
    });
  } catch (error) {
    issues.push({
      severity: "warning",
      path: "sources.json",
      reason: `ignored: ${(error as Error).message}`,
    });
    return [];
  }
}

/**
 * `text` as one flat string. V8 keeps a string built by concatenation (path.join, template literals, the
 * YAML parser folding a scalar) as a chain of its pieces, and a substring as a view that keeps its whole
 * source alive: kept for every skill, these took 4.4 KB a skill at 10k skills instead of 1.1 KB.
 */
function flat(text: string): string {
  return Buffer.from(text, "utf8").toString("utf8");
}
