/**
 * Paths as clients write them, against the files the catalog listed: a path is only ever looked up among
 * those, never joined onto a folder on disk, so that no request can reach outside a skill or pack.
 */
import path from "node:path";
import { portableNameProblem, visible } from "../shared/index.js";
import { type CatalogFile, type Pack, SKILL_DOCUMENT, type Skill } from "./types.js";

/**
 * Turns a client's path into the key of a manifest, or undefined when the path cannot name a file in
 * the folder: absolute, climbing out with `..`, holding NUL or a backslash. Such paths are then refused
 * exactly like missing files.
 */
export function normalizeFilePath(requested: string): string | undefined {
  if (requested.includes("\0") || requested.includes("\\")) return undefined;
  if (requested.startsWith("/")) return undefined;
  const normalized = path.posix.normalize(requested);
  if (normalized === "." || normalized === ".." || normalized.startsWith("../")) return undefined;
  return normalized.endsWith("/") ? undefined : normalized;
}

/** The `file` that asks read_skill and read_pack_file for the list of files instead of one of them. */
export const MANIFEST_NAME = "_manifest";

/**
 * Why no client could read a file or folder at `relative` (POSIX, in its skill or pack) by that path, or
 * should not be shown it, or undefined when one can. The catalog leaves such entries out, so that every
 * file a manifest or a resource list names can be read by that name, and every name a model or a reviewer
 * sees shows all it holds; nor any name `portableNameProblem` refuses (`git~1`, `aux.txt`, `a:b.md`,
 * `notes.`), which skills-mcp sync would not write on macOS or Windows, so that every skill served can be
 * synced. Only the last name of `relative` is looked at: the walk entered its folders.
 */
export function unnameableReason(relative: string, kind: "file" | "folder"): string | undefined {
  const name = path.posix.basename(relative);
  if (name.includes("\\")) {
    return "its name holds a backslash, which no client can send in a path";
  }
  if (visible(name) !== name) {
    return (
      "its name holds a character no reader sees (a control, line separator, bidi control, tag or other " +
      "invisible character, shown here as {U+…}), which a manifest would pass on unseen"
    );
  }
  if (kind === "file" && relative === MANIFEST_NAME) {
    return `a file named ${MANIFEST_NAME} cannot be read: that name asks for the list of files`;
  }
  const unportable = portableNameProblem(name);
  if (unportable !== undefined) {
    // Served, it would keep skills-mcp sync from installing the skill: sync refuses such a path.
    return `its name is not one every system can hold (${unportable}), so skills-mcp sync could not write it`;
  }
  return undefined;
}

/**
 * The file of a skill at `requested`, or undefined. Only files listed at load time can be served, and
 * those were checked then to lie inside the skill folder, so no request can reach outside it.
 */
export function resolveSkillFile(skill: Skill, requested: string): CatalogFile | undefined {
  const key = normalizeFilePath(requested);
  return key === undefined ? undefined : skill.files.get(key);
}

/** A pack-level file at `requested`, or undefined. Files of skills are never pack files. */
export function resolvePackFile(pack: Pack, requested: string): CatalogFile | undefined {
  const key = normalizeFilePath(requested);
  return key === undefined ? undefined : pack.files.get(key);
}

/**
 * The folder `requested` names (`references`, `references/`) and the files of `files` below it, at any
 * depth, or undefined when it holds none of them.
 */
export function filesInFolder(
  files: ReadonlyMap<string, CatalogFile>,
  requested: string,
): { readonly folder: string; readonly files: ReadonlyMap<string, CatalogFile> } | undefined {
  const folder = normalizeFilePath(withoutTrailingSlashes(requested));
  if (folder === undefined) return undefined;
  const below = new Map([...files].filter(([key]) => key.startsWith(`${folder}/`)));
  return below.size > 0 ? { folder, files: below } : undefined;
}

/**
 * The pack-level path a skill means when it cites `requested` relative to its own folder or to the
 * pack (skills often cite `../../shared/x.md` or `shared/x.md`), if the pack has such a file.
 */
export function packPathCitedBySkill(skill: Skill, pack: Pack, requested: string): string | undefined {
  if (requested.includes("\0") || requested.includes("\\") || requested.startsWith("/")) return undefined;
  const candidates = [path.posix.join(skill.folder, requested), requested];
  return candidates.map(normalizeFilePath).find((key) => key !== undefined && pack.files.has(key));
}

/**
 * The skill of `pack` whose folder holds `requested`, for pointing read_pack_file callers to read_skill:
 * the innermost one, when skills nest.
 */
export function skillOwningPath(pack: Pack, requested: string): { skill: Skill; file: string } | undefined {
  const key = normalizeFilePath(requested);
  if (key === undefined) return undefined;
  let owner: { skill: Skill; file: string } | undefined;
  for (const skill of pack.skills) {
    // A pack that is itself a skill holds it at its top: every path is under that skill's folder.
    const folder = skill.folder === "" ? "" : `${skill.folder}/`;
    if (!key.startsWith(folder)) continue;
    const file = key.slice(folder.length);
    const held = file === SKILL_DOCUMENT || skill.files.has(file);
    if (held && (owner === undefined || file.length < owner.file.length)) owner = { skill, file };
  }
  return owner;
}

/**
 * The one of `paths` a client most likely meant by `requested`, which names none of them: models write
 * paths with backslashes (as a SKILL.md written on Windows cites them), a leading `/` or `./`,
 * percent-encoded, in another case, from a folder above (`pack/skill/x.md`), or by the file's name alone,
 * and copy them as a SKILL.md cites them (see citedPath). Undefined unless exactly one path fits, and for
 * a path that leaves the folder.
 */
export function meantFilePath(requested: string, paths: Iterable<string>): string | undefined {
  const all = [...paths];
  const cited = citedPath(requested);
  return meantAmong(requested, all) ?? (cited === requested ? undefined : meantAmong(cited, all));
}

/** What wraps a path a SKILL.md cites, by its opening character: a code span, quotes, an autolink. */
const CITATION_ENDS: ReadonlyMap<string, string> = new Map([
  ["`", "`"],
  ['"', '"'],
  ["'", "'"],
  ["<", ">"],
]);

/**
 * `requested` without what a SKILL.md writes around a path it cites, which models copy with it: a code
 * span or quotes (`` `references/api.md` ``), and a link's anchor (`references/api.md#pagination`, of
 * `[pagination](references/api.md#pagination)`). Each was answered as naming no file.
 */
function citedPath(requested: string): string {
  const text = requested.trim();
  const end = CITATION_ENDS.get(text.charAt(0));
  const wrapped = end !== undefined && text.length > 1 && text.endsWith(end);
  const unwrapped = wrapped ? text.slice(1, -1).trim() : text;
  const anchor = unwrapped.indexOf("#");
  return anchor > 0 ? unwrapped.slice(0, anchor) : unwrapped;
}

function meantAmong(requested: string, all: readonly string[]): string | undefined {
  const key = normalizeFilePath(
    decodePercents(requested.trim().replaceAll("\\", "/")).replace(/^\.?\/+/, ""),
  );
  if (key === undefined) return undefined;
  if (all.includes(key)) return key;
  const wanted = key.toLowerCase();
  const anyCase = all.filter((candidate) => candidate.toLowerCase() === wanted);
  if (anyCase.length > 0) return onlyOne(anyCase);
  // Asked from a folder above the file's (`pack/skill/x.md`, a skill:// URI), the longest path it ends with.
  const ending = all.filter((candidate) => wanted.endsWith(`/${candidate.toLowerCase()}`));
  const longest = Math.max(0, ...ending.map((candidate) => candidate.length));
  if (ending.length > 0) return onlyOne(ending.filter((candidate) => candidate.length === longest));
  if (key.includes("/")) return undefined;
  return onlyOne(all.filter((candidate) => path.posix.basename(candidate).toLowerCase() === wanted));
}

function onlyOne(paths: readonly string[]): string | undefined {
  return paths.length === 1 ? paths[0] : undefined;
}

const SLASH = 0x2f;

/**
 * `text` without the slashes it ends with, read back from its end: `replace(/\/+$/, "")` tried the rest of
 * a run of slashes from each of them, quadratic in a request's path of slashes followed by a letter.
 */
export function withoutTrailingSlashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === SLASH) end--;
  return text.slice(0, end);
}

/** `text` without the slashes it begins and ends with (what `replace(/^\/+|\/+$/g, "")` leaves), in one pass. */
export function withoutEdgeSlashes(text: string): string {
  let start = 0;
  while (start < text.length && text.charCodeAt(start) === SLASH) start++;
  return withoutTrailingSlashes(text.slice(start));
}

/** `text` with its %XX escapes decoded, or as it is when they do not decode. */
function decodePercents(text: string): string {
  if (!/%[0-9a-f]{2}/i.test(text)) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
