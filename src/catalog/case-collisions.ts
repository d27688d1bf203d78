import type { CatalogIssue, Pack } from "./types.js";
import { visible } from "./visible.js";

/** One file or folder of a pack, by its parent and its name as a case-insensitive file system reads it. */
interface Entry {
  readonly id: number;
  /** Its name as served. */
  readonly name: string;
  /** The first served path through it, and where its own name ends in that path. */
  readonly path: string;
  readonly end: number;
}

/** A served path of a pack, and the one before it that it differs from only in case: both `<pack>/…`. */
export interface CaseCollision {
  readonly path: string;
  readonly other: string;
}

/** The load's warning of a {@link CaseCollision}. */
export function caseCollisionIssue({ path, other }: CaseCollision): CatalogIssue {
  return {
    severity: "warning",
    path,
    reason:
      `differs from "${visible(other)}" only in letter case (or Unicode normalization): on a case-insensitive ` +
      "file system (macOS, Windows), where skills-mcp sync writes skills and reviewers check them out, the two " +
      "are one and one of them is lost",
  };
}

/**
 * Each file or folder of a served pack whose path differs from another's only in letter case (`A.md` and
 * `a.md`, `Refs/` and `refs/`) or Unicode normalization: a case-insensitive file system (macOS, Windows),
 * where `skills-mcp sync` writes skills and where reviewers check them out, holds one of the two, so the
 * other is lost there. Linear in the length of the pack's paths, however deep: each entry
 * is keyed by its parent's number and its folded name, and a path is cut out only for a warning.
 */
export function caseCollisions(pack: Pack): CaseCollision[] {
  const entries = new Map<string, Entry>();
  const reported = new Set<string>();
  const found: CaseCollision[] = [];
  for (const served of servedPaths(pack)) {
    let parent = 0;
    let start = 0;
    for (const name of served.split("/")) {
      const end = start + name.length;
      const key = `${parent}/${name.normalize("NFC").toLowerCase()}`;
      const entry = entries.get(key);
      if (entry === undefined) {
        const id = entries.size + 1;
        entries.set(key, { id, name, path: served, end });
        parent = id;
      } else if (entry.name === name) {
        parent = entry.id;
      } else {
        // What lies below a colliding folder is not warned about again: the warning of the folder says it.
        if (!reported.has(`${key}/${name}`)) {
          reported.add(`${key}/${name}`);
          found.push({
            path: `${pack.name}/${served.slice(0, end)}`,
            other: `${pack.name}/${entry.path.slice(0, entry.end)}`,
          });
        }
        break;
      }
      start = end + 1;
    }
  }
  return found;
}

/** Every path a pack serves, relative to it: its pack files, and each skill's SKILL.md and files. */
function* servedPaths(pack: Pack): Generator<string> {
  yield* pack.files.keys();
  for (const skill of pack.skills) {
    const prefix = skill.folder === "" ? "" : `${skill.folder}/`;
    yield `${prefix}${skill.document.path}`;
    for (const file of skill.files.keys()) yield `${prefix}${file}`;
  }
}
