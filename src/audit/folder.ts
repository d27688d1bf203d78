import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import {
  type Catalog,
  type CatalogFile,
  compareText,
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
}

/**
 * Audits a skills folder as the server loads it: every file it would serve (each once, though nested
 * skills share files), each skill's name and description, and the symlinks the fetcher recorded as
 * skipped in `sources.json`. Throws the catalog's CatalogError when the server would refuse the folder.
 */
export function auditFolder(dir: string, options: LoadOptions = {}): FolderAudit {
  return auditCatalog(loadCatalog(dir, options).catalog, dir);
}

/**
 * {@link auditFolder} of a catalog the caller has loaded from `dir` already. `onRead` sees the bytes of
 * each served file as the audit reads them, for a caller that needs them too and need not read again.
 */
export function auditCatalog(
  catalog: Catalog,
  dir: string,
  onRead?: (served: ServedFile, bytes: Buffer) => void,
): FolderAudit {
  const scope = catalog.everything;
  const byDocument = new Map(scope.skills.map((skill) => [documentPath(skill), skill]));
  const findings: Finding[] = [];
  for (const served of listServedFiles(scope)) {
    const bytes = readFileSync(served.file.source);
    onRead?.(served, bytes);
    const executable = (statSync(served.file.source).mode & 0o111) !== 0;
    findings.push(...auditFile(served.path, bytes, { executable }));
    // A skill's name and description are placed in its SKILL.md, so they are audited from its bytes.
    const skill = byDocument.get(served.path);
    if (skill) findings.push(...auditSkillMetadata(served.path, skill, bytes.toString("utf8")));
  }
  const packs = new Set(scope.packs.map((pack) => pack.name));
  findings.push(...skippedSymlinks(dir).filter((found) => packs.has(found.path.split("/", 1)[0] ?? "")));
  return { skills: scope.skills.length, findings: findings.sort(compareFindings) };
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
