import { closeSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import path from "node:path";
import {
  type Catalog,
  type CatalogFile,
  type CatalogIssue,
  compareText,
  describeFsError,
  type LoadOptions,
  loadCatalog,
  type Scope,
  SKILL_DOCUMENT,
  type Skill,
} from "../catalog/index.js";
import { auditFile } from "./file.js";
import { auditSkillMetadata } from "./metadata.js";
import { compareFindings, type Finding, finding } from "./rules.js";

/** A file the server serves, once, by the path findings name it with. */
export interface ServedFile {
  /** `<pack>/<path in pack>`. */
  readonly path: string;
  readonly pack: string;
  readonly file: CatalogFile;
}

export interface FolderAudit {
  /** Skills the server would load from the folder. */
  readonly skills: number;
  /** Sorted by path, line and rule. */
  readonly findings: readonly Finding[];
  /**
   * What was not audited, and why: what the catalog left out as it loaded the folder (auditFolder only),
   * and the served files that could not be read, or are too large to read whole.
   */
  readonly issues: readonly CatalogIssue[];
}

/**
 * A file larger than this is not read: the audit's rules take a file's whole text, and one hostile file
 * must not take the memory of gigabytes. The server does not inspect such a file either.
 */
const MAX_AUDITED_FILE_BYTES = 16 * 1024 * 1024;
const TOO_LARGE = `larger than ${MAX_AUDITED_FILE_BYTES / 1024 / 1024} MiB, the most the audit reads`;

/**
 * Audits a skills folder as the server loads it: every file it would serve (each once, though nested
 * skills share files), each skill's name and description, and the symlinks the fetcher recorded as
 * skipped in `sources.json`. Throws the catalog's CatalogError when the server would refuse the folder.
 */
export function auditFolder(dir: string, options: LoadOptions = {}): FolderAudit {
  const { catalog, issues } = loadCatalog(dir, options);
  const audit = auditCatalog(catalog, dir);
  return { ...audit, issues: [...issues, ...audit.issues] };
}

/**
 * {@link auditFolder} of a catalog the caller has loaded from `dir` already (its issues are the caller's
 * to report). `onRead` sees the bytes of each served file as the audit reads them, for a caller that
 * needs them too and need not read again. One file is held at a time.
 */
export function auditCatalog(
  catalog: Catalog,
  dir: string,
  onRead?: (served: ServedFile, bytes: Buffer) => void,
): FolderAudit {
  const scope = catalog.everything;
  const byDocument = new Map(scope.skills.map((skill) => [documentPath(skill), skill]));
  const findings: Finding[] = [];
  const issues: CatalogIssue[] = [];
  for (const served of listServedFiles(scope)) {
    const read = readServedFile(served.file);
    if ("problem" in read) {
      issues.push({ severity: "warning", path: served.path, reason: `not audited: ${read.problem}` });
      continue;
    }
    const { bytes, executable } = read;
    onRead?.(served, bytes);
    findings.push(...auditFile(served.path, bytes, { executable }));
    // A skill's name and description are placed in its SKILL.md, so they are audited from its bytes.
    const skill = byDocument.get(served.path);
    if (skill) findings.push(...auditSkillMetadata(served.path, skill, bytes.toString("utf8")));
  }
  const packs = new Set(scope.packs.map((pack) => pack.name));
  findings.push(...skippedSymlinks(dir).filter((found) => packs.has(found.path.split("/", 1)[0] ?? "")));
  return { skills: scope.skills.length, findings: findings.sort(compareFindings), issues };
}

/** A served file's bytes and whether its mode lets it run, or why it was not read. */
function readServedFile(file: CatalogFile): { bytes: Buffer; executable: boolean } | { problem: string } {
  if (file.size > MAX_AUDITED_FILE_BYTES) {
    return { problem: TOO_LARGE };
  }
  let handle: number;
  try {
    handle = openSync(file.source, "r");
  } catch (error) {
    return { problem: describeFsError(error) };
  }
  try {
    const { mode, size } = fstatSync(handle);
    if (size > MAX_AUDITED_FILE_BYTES) {
      return { problem: TOO_LARGE };
    }
    const bytes = Buffer.alloc(size);
    let at = 0;
    for (let read = 1; at < size && read > 0; at += read) read = readSync(handle, bytes, at, size - at, at);
    return { bytes: bytes.subarray(0, at), executable: (mode & 0o111) !== 0 };
  } catch (error) {
    return { problem: describeFsError(error) };
  } finally {
    closeSync(handle);
  }
}

/** Every file of `scope`'s skills and packs, once each, sorted by path. */
function listServedFiles(scope: Scope): ServedFile[] {
  const files = new Map<string, ServedFile>();
  const add = (pack: string, relative: string, file: CatalogFile) => {
    const where = `${pack}/${relative}`;
    if (!files.has(where)) files.set(where, { path: where, pack, file });
  };
  for (const pack of scope.packs) {
    for (const skill of pack.skills) {
      add(pack.name, path.posix.join(skill.folder, SKILL_DOCUMENT), skill.document);
      for (const file of skill.files.values()) add(pack.name, path.posix.join(skill.folder, file.path), file);
    }
    for (const file of pack.files.values()) add(pack.name, file.path, file);
  }
  return [...files.values()].sort((a, b) => compareText(a.path, b.path));
}

/** `<pack>/<folder>/SKILL.md`: where the findings of a skill's name and description point. */
export function documentPath(skill: Skill): string {
  return path.posix.join(skill.pack, skill.folder, SKILL_DOCUMENT);
}

/**
 * The symlinks the fetcher left out, from the `skipped` lists of `sources.json` (paths in the pack). A
 * folder the fetcher did not write has none to report; the catalog skips its own and logs them.
 */
function skippedSymlinks(dir: string): Finding[] {
  let text: string;
  try {
    text = readFileSync(path.join(dir, "sources.json"), "utf8");
  } catch {
    return [];
  }
  const findings: Finding[] = [];
  try {
    const sources = (JSON.parse(text) as { sources?: unknown }).sources;
    for (const source of Array.isArray(sources) ? sources : []) {
      const { name, skipped } = source as { name?: unknown; skipped?: unknown };
      if (typeof name !== "string" || !Array.isArray(skipped)) continue;
      for (const entry of skipped) {
        const { path: where, reason } = entry as { path?: unknown; reason?: unknown };
        if (typeof where !== "string" || typeof reason !== "string") continue;
        findings.push(finding(`${name}/${where}`, 0, "skipped-symlink", `not copied: ${reason}`));
      }
    }
  } catch {
    // The catalog warns about an unreadable sources.json; the audit has nothing to add.
  }
  return findings;
}
