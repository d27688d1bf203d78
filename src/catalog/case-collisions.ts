import { visible } from "../visible.js";
import type { CatalogIssue, Pack } from "./types.js";

/**
 * A name or path as a case-insensitive file system compares it, in NFC, upper then lower case (which folds
 * `ſ` with `s`): the load serves one pack folder, group or skill folder of paths that fold alike, and a
 * selector finds a pack so.
 */
export function foldedName(name: string): string {
  // ASCII is in NFC, and upper then lower case folds it as lower case alone: normalizing took most of
  // the time of list_skills's look-up of its query as a skill's name.
  if (!NOT_ASCII.test(name)) return name.toLowerCase();
  return name.normalize("NFC").toUpperCase().toLowerCase();
}

const NOT_ASCII = /[\u0080-\uffff]/;

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

/** Of names that fold alike, the lower is served: lowercase first, then NFC. */
export function preference(name: string): number {
  return (name === name.toLowerCase() ? 0 : 2) + (name === name.normalize("NFC") ? 0 : 1);
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
 * other is lost there. Linear in the length of the pack's paths, however deep: each entry is keyed by its
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
