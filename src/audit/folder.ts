import path from "node:path";
import { type CatalogIssue, SKILL_DOCUMENT, type Skill, type Source } from "../catalog/index.js";
import { compareText } from "../shared/index.js";
import { auditFile, type FileFacts, nameReading } from "./file.js";
import { auditFolderName, auditSkillMetadata } from "./metadata.js";
import { compareFindings, type Finding, finding, type Severity } from "./rules.js";

/** A file the server serves, once, by the path findings name it with. */
export interface ServedFile {
  /** `<pack>/<path in pack>`. */
  readonly path: string;
  readonly pack: string;
}

/**
 * Sees the bytes of each served file as it is audited, for a caller that needs them too, and may return
 * their digest: a path whose bytes (by that digest), mode and name's reading (see nameReading) were audited
 * already under another path then takes those findings, as a path leading to the same real file does.
 * Copies of one file (the fetcher copies each symlink's target as a file of its own) are audited once.
 */
export type ReadHook = (served: ServedFile, bytes: Uint8Array) => string | undefined;

/**
 * Every finding of a folder audit in its order (path, line, rule), each path's made as they are gone
 * through: a path leading to a file audited under another takes that file's findings, named for it only
 * then. Going through them holds one path's findings at a time, where the whole list holds links ×
 * findings (4,000 links to a file of 252 findings: a million, and 1.3 GiB to print them as JSON).
 */
export class AuditFindings implements Iterable<Finding> {
  /** By path: the findings lists named for it (some named for another path leading to the same file). */
  readonly #byPath: ReadonlyMap<string, readonly (readonly Finding[])[]>;
  readonly #paths: readonly string[];

  constructor(byPath: ReadonlyMap<string, readonly (readonly Finding[])[]>) {
    this.#byPath = byPath;
    this.#paths = [...byPath.keys()].sort(compareText);
  }

  *[Symbol.iterator](): Iterator<Finding> {
    for (const where of this.#paths) yield* this.of(where);
  }

  /** Every path a finding names, in order. */
  paths(): readonly string[] {
    return this.#paths;
  }

  /** The findings of the path `where`, in order, named for it, made anew at each call. */
  of(where: string): Finding[] {
    const lists = this.#byPath.get(where) ?? [];
    // A stable sort of each path's findings, in the order the audit met them: the order of a stable
    // sort of them all, since no two paths compare equal.
    return lists.flatMap((findings) => namedFor(findings, where)).sort(compareFindings);
  }

  /**
   * The lists `of(where)` is made of, as held: one is shared by every path leading to one audited file and
   * named for the first, so two paths holding the same lists have the same findings but for their path,
   * which a caller going through thousands of such paths need not make again for each.
   */
  listsOf(where: string): readonly (readonly Finding[])[] {
    return this.#byPath.get(where) ?? [];
  }

  /** How many findings are of `severity`, counted without making them. */
  count(severity: Severity): number {
    let count = 0;
    for (const lists of this.#byPath.values()) {
      for (const findings of lists) {
        for (const found of findings) if (found.severity === severity) count++;
      }
    }
    return count;
  }
}

/** The audit of a whole folder (CatalogAudit.result). */
export class FolderAudit {
  /** Skills the server would load from the folder. */
  readonly skills: number;
  /** Every finding, in order, made as they are gone through (see AuditFindings). */
  readonly inOrder: AuditFindings;
  /** The served files that were not audited, and why: they could not be read, or are too large to read. */
  readonly issues: readonly CatalogIssue[];
  #whole: readonly Finding[] | undefined;

  constructor(skills: number, inOrder: AuditFindings, issues: readonly CatalogIssue[]) {
    this.skills = skills;
    this.inOrder = inOrder;
    this.issues = issues;
  }

  /**
   * Every finding, sorted by path, line and rule, made whole when first asked for: links × findings of
   * the files links lead to. A caller that can go through them in order takes `inOrder` instead.
   */
  get findings(): readonly Finding[] {
    this.#whole ??= [...this.inOrder];
    return this.#whole;
  }
}

/**
 * The audit of a whole catalog, as the walk that reads every served file (the inspection's) hands it each
 * file: every finding of each file, once though nested skills share files, of each skill's name and
 * description, and of the symlinks the fetcher skipped. Reads nothing itself.
 */
export class CatalogAudit {
  /** The findings of each path audited under its own name. */
  readonly #files = new Map<string, readonly Finding[]>();
  /**
   * The findings of each real file audited (its `identity`), under the first path that led to it: symlinks
   * and hard links may lead thousands of served paths to one file, and each path audited anew made a start
   * take the file's audit that many times (64 links to one text file of 4 MiB: a minute), where they cost
   * one look-up now.
   */
  readonly #sources = new Map<string, readonly Finding[]>();
  /** The findings of each content audited, by digest, mode and name's reading (see ReadHook). */
  readonly #contents = new Map<string, readonly Finding[]>();
  /**
   * Each other path leading to an audited real file, with that file's findings as they were made (named for
   * the first path), shared, not copied: a copy of every finding for each path held links × findings (4,000
   * links to a file of 252 findings: a million findings). Named for the path only as the result's findings
   * are gone through (AuditFindings).
   */
  readonly #sameFiles = new Map<string, readonly Finding[]>();
  readonly #metadata = new Map<Skill, readonly Finding[]>();
  /** The findings of each pack's and group's folder name, by `<pack>` or `<pack>/<group>`: listed once. */
  readonly #folderNames = new Map<string, readonly Finding[]>();
  readonly #issues = new Map<string, CatalogIssue>();
  readonly #onRead: ReadHook | undefined;

  /** `onRead` sees the bytes of each served file as it is audited (see ReadHook). */
  constructor(onRead?: ReadHook) {
    this.#onRead = onRead;
  }

  /**
   * The findings of the served file `served` with these `bytes`, audited the first time, remembered after
   * (a file of a nested skill is a file of the skill around it too). `identity` names its real file
   * (see CatalogFile): a path leading to a file audited already takes its findings, as `auditedAs` says.
   */
  file(served: ServedFile, bytes: Uint8Array, facts: FileFacts, identity?: string): readonly Finding[] {
    const known = identity === undefined ? undefined : this.auditedAs(served, identity);
    if (known !== undefined) return known;
    const own = this.#files.get(served.path) ?? this.#sameFiles.get(served.path);
    if (own !== undefined) return own;
    const digest = this.#onRead?.(served, bytes);
    const content =
      digest === undefined
        ? undefined
        : `${digest}\n${facts.executable === true}\n${nameReading(served.path)}`;
    const same = content === undefined ? undefined : this.#contents.get(content);
    if (same !== undefined) {
      this.#sameFiles.set(served.path, same);
      return same;
    }
    const findings = auditFile(served.path, bytes, facts);
    this.#files.set(served.path, findings);
    if (identity !== undefined && !this.#sources.has(identity)) this.#sources.set(identity, findings);
    if (content !== undefined) this.#contents.set(content, findings);
    return findings;
  }

  /**
   * The findings of `served` when the real file it leads to, `identity`, was audited already, under it or
   * under another path; undefined when it was not, and the file must be read and audited. The findings are
   * named for the path they were made under, which may be another than `served` (see `namedFor`); the
   * result names them for each path. Never taken when the caller sees each file's bytes (`onRead`): it
   * may share findings by content instead (see ReadHook).
   */
  auditedAs(served: ServedFile, identity: string): readonly Finding[] | undefined {
    const own = this.#files.get(served.path) ?? this.#sameFiles.get(served.path);
    if (own !== undefined) return own;
    const audited = this.#sources.get(identity);
    if (audited === undefined || this.#onRead !== undefined) return undefined;
    this.#sameFiles.set(served.path, audited);
    return audited;
  }

  /**
   * The findings of a skill's name and description, placed on their lines of its SKILL.md when given, and
   * of the names of its pack and group folders, which name it too (`pack/name`): a look-alike pack name
   * makes each of its skills unsafe, as a look-alike skill name does its skill.
   */
  metadata(skill: Skill, document?: Uint8Array): readonly Finding[] {
    const folders = this.#folderNamesOf(skill);
    const own = this.#skillMetadata(skill, document);
    return folders.length === 0 ? own : [...own, ...folders];
  }

  #folderNamesOf(skill: Skill): readonly Finding[] {
    const named: [string, "pack" | "group", string][] = [[skill.pack, "pack", skill.pack]];
    if (skill.group !== undefined) named.push([`${skill.pack}/${skill.group}`, "group", skill.group]);
    return named.flatMap(([where, kind, name]) => {
      let findings = this.#folderNames.get(where);
      if (findings === undefined) {
        findings = auditFolderName(where, kind, name);
        this.#folderNames.set(where, findings);
      }
      return findings;
    });
  }

  #skillMetadata(skill: Skill, document?: Uint8Array): readonly Finding[] {
    let findings = this.#metadata.get(skill);
    if (findings === undefined) {
      // A view of the document's bytes, not a copy of them (the BOM kept, as the lines were counted with it).
      const text =
        document === undefined
          ? undefined
          : Buffer.from(document.buffer, document.byteOffset, document.byteLength).toString("utf8");
      findings = auditSkillMetadata(documentPath(skill), skill, text);
      this.#metadata.set(skill, findings);
    }
    return findings;
  }

  /** A served file that was not audited, and why. */
  notAudited(served: ServedFile, why: string): void {
    this.#issues.set(served.path, { severity: "warning", path: served.path, reason: `not audited: ${why}` });
  }

  /** The audit of `skills` skills, the skipped symlinks of `sources` included. */
  result(skills: number, sources: readonly Source[]): FolderAudit {
    const skipped = sources.flatMap(({ name, skipped: files }) =>
      files.map(({ path: where, reason }) =>
        finding(`${name}/${where}`, 0, "skipped-symlink", `not copied: ${reason}`),
      ),
    );
    // In the order the findings were met (each path's own, the other paths to a file, the skills' names
    // and descriptions, the pack and group folders' names, the skipped symlinks), which orders the findings of a path that sort alike.
    const byPath = new Map<string, (readonly Finding[])[]>();
    const add = (where: string, findings: readonly Finding[]) => {
      const lists = byPath.get(where);
      if (lists === undefined) byPath.set(where, [findings]);
      else lists.push(findings);
    };
    for (const findings of this.#files.values()) addEachPath(add, findings);
    for (const [where, audited] of this.#sameFiles) add(where, audited);
    for (const findings of [...this.#metadata.values(), ...this.#folderNames.values(), skipped]) {
      addEachPath(add, findings);
    }
    return new FolderAudit(
      skills,
      new AuditFindings(byPath),
      [...this.#issues.values()].sort((a, b) => compareText(a.path, b.path)),
    );
  }
}

/** Adds `findings` to `add` by their own paths, in runs: a file's findings all name its path. */
function addEachPath(
  add: (where: string, findings: readonly Finding[]) => void,
  findings: readonly Finding[],
) {
  let start = 0;
  for (let end = 1; end <= findings.length; end++) {
    const where = findings[start]?.path;
    if (where === undefined) return;
    if (end === findings.length || findings[end]?.path !== where) {
      add(where, findings.slice(start, end));
      start = end;
    }
  }
}

/** `findings` of one file, named for `where`, another path leading to it. */
function namedFor(findings: readonly Finding[], where: string): Finding[] {
  return findings.map((found) => (found.path === where ? found : { ...found, path: where }));
}

/** A file of `skill` as the audit names it: `<pack>/<path in pack>`. */
export function servedFileOf(skill: Skill, file: string): ServedFile {
  return { path: path.posix.join(skill.pack, skill.folder, file), pack: skill.pack };
}

/** `<pack>/<folder>/SKILL.md`: where the findings of a skill's name and description point. */
function documentPath(skill: Skill): string {
  return path.posix.join(skill.pack, skill.folder, SKILL_DOCUMENT);
}
