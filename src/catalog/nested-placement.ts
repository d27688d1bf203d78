/**
 * Where a pack's nested skills lie in the `skill://` namespace: below the skill around them, or beside it
 * when their name or their files would make the two disagree.
 */
import path from "node:path";
import { firstPast } from "../shared/index.js";
import { type CatalogFile, type CatalogIssue, SKILL_DOCUMENT, type Skill, skillPath } from "./types.js";
import { flat } from "./walk.js";

/**
 * The warning that a nested skill is named otherwise than its folder, saying where that leaves it in the
 * `skill://` namespace: beside the skill around it, at the URI it would have nested in no skill.
 */
export function besideIssue(warning: CatalogIssue, skill: Skill, enclosing: Skill): CatalogIssue {
  const folder = path.posix.basename(skill.folder);
  return {
    ...warning,
    reason:
      `${warning.reason} "${folder}" in skill ${enclosing.id}: its skill:// URI ends with its name, so it ` +
      `lies beside skill://${skillPath(enclosing)}, at skill://${skillPath(skill)}/${SKILL_DOCUMENT}, and ` +
      `not below it, where renaming "${folder}" would break what ${enclosing.id} cites there; name it ` +
      `"${folder}" to nest it`,
  };
}

/**
 * Where the served skills of a pack lie in the `skill://` namespace, placed outer ones first: each nested
 * one below the nearest skill it is nested in, as the Skills extension asks: `games/web` nested in `games`
 * (skill://p/games/games/SKILL.md) is skill://p/games/games/web/SKILL.md, a URI the manifest of `games`
 * lists, holding the same file. Not one named otherwise than its folder (its URI ends with its name, which
 * would be no file of the skill around it), nor one whose files are not exactly those the skill around it
 * holds in its folder (symlinks each walk follows otherwise): either skill's folder in the namespace would
 * hold files its manifest lacks. Those stay beside it.
 */
export class NestedPlacement {
  /** The skills placed so far, by folder. */
  readonly #byFolder = new Map<string, Skill>();
  readonly #sortedPaths = new Map<Skill, readonly string[]>();

  /** The nearest placed skill whose folder holds `folder`. */
  enclosing(folder: string): Skill | undefined {
    return enclosingSkill(folder, this.#byFolder);
  }

  /** `skill` as served, and the skill it lies in when it is nested but named otherwise than its folder. */
  place(skill: Skill): { placed: Skill; beside?: Skill } {
    const enclosing = this.enclosing(skill.folder);
    let placed = skill;
    let beside: Skill | undefined;
    if (enclosing !== undefined && path.posix.basename(skill.folder) !== skill.name) beside = enclosing;
    else if (enclosing !== undefined) {
      const below = enclosing.folder === "" ? skill.folder : skill.folder.slice(enclosing.folder.length + 1);
      let paths = this.#sortedPaths.get(enclosing);
      if (paths === undefined) {
        paths = [...enclosing.files.keys()];
        this.#sortedPaths.set(enclosing, paths);
      }
      if (holdsExactly(enclosing, paths, below, skill)) {
        placed = { ...skill, nestedPath: flat(`${skillPath(enclosing)}/${below}`) };
      }
    }
    this.#byFolder.set(skill.folder, placed);
    return beside === undefined ? { placed } : { placed, beside };
  }
}

/** The nearest of `byFolder` (served skills, by folder) whose folder holds `folder`. */
function enclosingSkill(folder: string, byFolder: ReadonlyMap<string, Skill>): Skill | undefined {
  if (folder === "") return undefined;
  for (let end = folder.lastIndexOf("/"); end > 0; end = folder.lastIndexOf("/", end - 1)) {
    const found = byFolder.get(folder.slice(0, end));
    if (found !== undefined) return found;
  }
  // The pack's own folder holds every other.
  return byFolder.get("");
}

/**
 * Whether the files of `outer` below `folder` are those of `inner` (SKILL.md too), each the same file as
 * the catalog tells files apart (CatalogFile.identity: a file's device and inode, whatever path, symlink
 * or hard link, leads to it). `paths` are the paths of outer's files, sorted as its map is: those below a
 * folder lie together.
 */
function holdsExactly(outer: Skill, paths: readonly string[], folder: string, inner: Skill): boolean {
  const prefix = `${folder}/`;
  const same = (file: CatalogFile, at: string) => outer.files.get(prefix + at)?.identity === file.identity;
  if (!same(inner.document, SKILL_DOCUMENT)) return false;
  for (const [at, file] of inner.files) if (!same(file, at)) return false;
  const first = firstPast(paths, (at) => at >= prefix);
  const after = firstPast(paths, (at) => at >= prefix && !at.startsWith(prefix));
  return after - first === inner.files.size + 1;
}
