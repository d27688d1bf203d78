/** A file the catalog may serve. `path` is what clients see; `source` is where it really is on disk. */
export interface CatalogFile {
  /** POSIX path relative to its skill folder (skill files) or pack folder (pack files). */
  readonly path: string;
  readonly size: number;
  /**
   * `mtimeMs` of the file as the catalog was loaded: with the size, it tells whether what was saved about
   * the file (a search index, a digest) still fits it.
   */
  readonly mtimeMs: number;
  /** Absolute real path, checked at load time to lie inside its skill or pack. Never shown to clients. */
  readonly source: string;
  /**
   * The real file's device and inode (`dev:ino`, see fileIdentity): one for every path, symlink or hard
   * link, that leads to it, so that what is read of a file is read once for all of them.
   */
  readonly identity: string;
}

/** The one file every skill has. */
export const SKILL_DOCUMENT = "SKILL.md";

/** SKILL.md, as a file of the catalog. */
type SkillDocument = CatalogFile;

export interface Skill {
  /** `<pack>/<name>`: unique across the catalog. */
  readonly id: string;
  readonly name: string;
  /** The frontmatter description folded onto one line. */
  readonly description: string;
  readonly pack: string;
  /** The first folder under the pack, for skills not directly at the top of their pack. */
  readonly group: string | undefined;
  /** The skill folder relative to its pack, POSIX ("" when the pack folder itself is the skill). */
  readonly folder: string;
  /**
   * SKILL.md itself. Its text is read from disk when asked for, not kept: at ten thousand skills the
   * documents alone would take some 100 MB.
   */
  readonly document: SkillDocument;
  /** The skill's other files, sorted by path; SKILL.md itself is not among them. */
  readonly files: ReadonlyMap<string, CatalogFile>;
  /**
   * `disable-model-invocation: true` makes it false: no listing, search or preview shown to a model names
   * the skill, which stays a prompt and is read by its exact name.
   */
  readonly modelInvocable: boolean;
  /** `user-invocable: false` makes it false: the skill is no prompt. */
  readonly userInvocable: boolean;
  /**
   * For a skill nested in the folder of another skill served beside it, and named as its own folder: its
   * path in the `skill://` namespace, below that skill's (see skillPath).
   */
  readonly nestedPath?: string;
}

/**
 * The path of a skill in the Skills extension's `skill://` namespace, as the tools name it `pack/name`: its
 * pack, its group if it has one, and its frontmatter name last (also when its folder is named otherwise).
 * A nested skill's lies below the path of the skill it is nested in, as the extension asks: that skill's
 * manifest lists its files as supporting files, at the same URIs.
 */
export function skillPath(skill: Skill): string {
  return skill.nestedPath ?? unnestedSkillPath(skill);
}

/** The path a skill has in the `skill://` namespace when it is nested in no other. */
export function unnestedSkillPath(skill: Skill): string {
  return [skill.pack, ...(skill.group === undefined ? [] : [skill.group]), skill.name].join("/");
}

export interface Group {
  readonly pack: string;
  readonly name: string;
  readonly skills: readonly Skill[];
}

export interface Pack {
  readonly name: string;
  /** Sorted by name. */
  readonly skills: readonly Skill[];
  /** Sorted by name. */
  readonly groups: readonly Group[];
  /** Files outside every skill folder, sorted by path: served by read_pack_file, never as skills. */
  readonly files: ReadonlyMap<string, CatalogFile>;
}

/** Where a pack came from, when the skills folder was written by the fetcher (`sources.json`). */
export interface Source {
  readonly name: string;
  readonly ref: string;
  /** What the pack's skills are for, as `skills.toml` describes the source. */
  readonly description?: string;
  /** What the fetcher did not copy (symlinks it could not follow safely), by path in the pack. */
  readonly skipped: readonly SkippedFile[];
}

/** A file of a source that the fetcher did not copy, and why. */
export interface SkippedFile {
  readonly path: string;
  readonly reason: string;
}

/** Something about the skills folder that an operator should hear about at startup. */
export interface CatalogIssue {
  /** `skipped`: the skill or file is not served. `warning`: it is served, but something is off. */
  readonly severity: "skipped" | "warning";
  /** Path relative to the skills folder. */
  readonly path: string;
  readonly reason: string;
}
