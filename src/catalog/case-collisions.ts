import { foldedName, isKeptBefore, preference, visible } from "../shared/index.js";
import type { CatalogIssue, Pack } from "./types.js";

/**
 * Which folders are served of those whose paths fold alike ({@link foldedName}), one per folded path: a
 * case-insensitive file system (macOS, Windows), where `skills-mcp sync` writes and reviewers check out,
 * holds one of them, and a name read in any case, as models and people write it, names one. Of those told
 * of at once, the one in lowercase, as the name rule asks, is served, else the one spelled in NFC, as input
 * methods type it, else the first; one told of later than another stays left out.
 */
export class FoldedPaths {
  /** The path served, by folded path. */
  readonly #served = new Map<string, string>();

  /** Each of `paths` that is not served, with the one served instead. */
  admit(paths: readonly string[]): Map<string, string> {
    const fresh = new Map<string, string>();
    for (const path of paths) {
      const key = foldedName(path);
      if (this.#served.has(key)) continue;
      const earlier = fresh.get(key);
      if (earlier === undefined || isPreferred(path, earlier)) fresh.set(key, path);
    }
    for (const [key, path] of fresh) this.#served.set(key, path);
    const leftOut = new Map<string, string>();
    for (const path of paths) {
      const kept = this.#served.get(foldedName(path));
      if (kept !== undefined && kept !== path) leftOut.set(path, kept);
    }
    return leftOut;
  }
}

/**
 * Whether `path` is served rather than `other`, which folds alike: at the first name they spell otherwise,
 * the lower (lowercase, then NFC) is.
 */
function isPreferred(path: string, other: string): boolean {
  const names = path.split("/");
  const others = other.split("/");
  const at = names.findIndex((name, index) => name !== others[index]);
  return preference(names[at] ?? "") < preference(others[at] ?? "");
}

/**
 * How `path` is spelled otherwise than `kept`, which folds alike, in words; with which normalization each
 * is in when that differs, since the two are then shown alike (`café` and `café`) and only that tells
 * them apart.
 */
export function spelledOtherwise(path: string, kept: string): string {
  const inNfc = (text: string) => text === text.normalize("NFC");
  const [here, there] = [normalizationOf(path), normalizationOf(kept)];
  // Alike only when neither is in NFC or NFD: two spellings of one text are not both in one of them.
  const forms = here === there ? ` (neither in NFC nor NFD)` : ` (this one ${here}, that one ${there})`;
  if (kept.normalize("NFC") === path.normalize("NFC")) return `Unicode normalization${forms}`;
  return inNfc(kept) && inNfc(path) ? "letter case" : `letter case and Unicode normalization${forms}`;
}

function normalizationOf(text: string): string {
  if (text === text.normalize("NFC")) return "NFC";
  return text === text.normalize("NFD") ? "NFD" : "neither NFC nor NFD";
}

/** A file or folder of one path tree, keyed by its parent's number and its folded name. */
interface Spelling {
  readonly id: number;
  /** The spelling kept ({@link isKeptBefore}), and the first path through it. */
  name: string;
  path: string;
  end: number;
}

/**
 * Which of `paths` (one skill's SKILL.md and files, or a pack's own files, `/`-separated) are not served,
 * because a file or folder on their way differs from another's only in letter case or Unicode
 * normalization (`A.md` and `a.md`, `Refs/` and `refs/`): `skills-mcp sync` refuses a skill listing both,
 * which a case-insensitive file system (macOS, Windows) holds one of, so one served skipped the whole skill
 * on every system. Of each such pair the one {@link isKeptBefore} says is served, whichever the walk met
 * first; `collisions` says, once for each name left out, which kept one it yields to (both paths in
 * `paths`' terms, cut at the colliding name). Linear in the length of the paths: two passes, each entry
 * keyed by its parent's number and folded name.
 */
export function foldedFileCollisions(paths: readonly string[]): {
  readonly leftOut: ReadonlySet<string>;
  readonly collisions: readonly CaseCollision[];
} {
  const entries = new Map<string, Spelling>();
  const entryOf = (parent: number, name: string) => `${parent}/${foldedName(name)}`;
  for (const served of paths) {
    let parent = 0;
    let start = 0;
    for (const name of served.split("/")) {
      const end = start + name.length;
      const key = entryOf(parent, name);
      let entry = entries.get(key);
      if (entry === undefined) {
        entry = { id: entries.size + 1, name, path: served, end };
        entries.set(key, entry);
      } else if (entry.name !== name && isKeptBefore(name, entry.name)) {
        entry.name = name;
        entry.path = served;
        entry.end = end;
      }
      parent = entry.id;
      start = end + 1;
    }
  }
  const leftOut = new Set<string>();
  const collisions = new Map<string, CaseCollision>();
  for (const served of paths) {
    let parent = 0;
    let start = 0;
    for (const name of served.split("/")) {
      const end = start + name.length;
      const entry = entries.get(entryOf(parent, name));
      if (entry === undefined) break;
      if (entry.name !== name) {
        leftOut.add(served);
        // What lies below a folder left out is not told of again: the folder's collision says it.
        const path = served.slice(0, end);
        if (!collisions.has(path)) collisions.set(path, { path, other: entry.path.slice(0, entry.end) });
        break;
      }
      parent = entry.id;
      start = end + 1;
    }
  }
  return { leftOut, collisions: [...collisions.values()] };
}

/**
 * The issue of a file or folder left out for one spelled otherwise ({@link foldedFileCollisions}), `where`
 * turning a path of the collision into one of the skills folder.
 */
export function foldedFileIssue(
  { path, other }: CaseCollision,
  where: (path: string) => string,
): CatalogIssue {
  return {
    severity: "skipped",
    path: visible(where(path)),
    reason:
      `it is "${visible(where(other))}" in another ${spelledOtherwise(path, other)}, which is served instead: ` +
      "a case-insensitive file system (macOS, Windows), where skills-mcp sync writes skills, holds one of the two",
  };
}

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
      `differs from "${visible(other)}" only in letter case (or Unicode normalization): a checkout on a ` +
      "case-insensitive file system (macOS, Windows) holds one of the two and loses the other " +
      "(skills-mcp sync never writes both into one folder)",
  };
}

/**
 * Each file or folder of a served pack whose path differs from another's only in letter case (`A.md` and
 * `a.md`, `Refs/` and `refs/`) or Unicode normalization: a checkout of the pack on a case-insensitive file
 * system (macOS, Windows), where reviewers read it, holds one of the two, so the other is lost there.
 * Within one skill, or the pack's own files, the load served one of the two ({@link foldedFileCollisions}):
 * what is left lies across them, which `skills-mcp sync` never writes into one folder (it copies a pack
 * file only into a citing skill's folder, leaving out one that folds like a file of that skill). Linear in the length of the pack's paths,
 * however deep: each entry is keyed by its
 * parent's number and its folded name, and a path is cut out only for a warning.
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
