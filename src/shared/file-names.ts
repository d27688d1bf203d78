/**
 * Which names of a skill's files and folders can be a file or folder on every system a skill reaches: the
 * fetcher copies them from git on the build machine, the server serves them from Linux, and `skills-mcp
 * sync` writes them on a user's macOS or Windows machine, where a name Linux takes as it is may be read as
 * another (`.GIT`, `git~1`), as a device (`aux.txt`), or be cut (`notes.`). One rule for all three, so that
 * what the server serves is what sync can write, and what the fetcher copies is what the server serves.
 */
import { codePoint, visible } from "./visible.js";

/** The longest file name most file systems take, in UTF-8 bytes. */
const MAX_NAME_BYTES = 255;
/** Control characters, and what Windows refuses or reads as a drive or a stream (`:`) or a separator. */
const FORBIDDEN = /[\p{Cc}\\:*?"<>|]/u;

/**
 * What Windows opens as a device whatever the folder: CON, PRN, AUX, NUL, COM0-9 and LPT0-9 (with the
 * superscript digits it also takes), CONIN$ and CONOUT$ (as git for Windows refuses them), in any case,
 * with or without an extension.
 */
const DEVICE =
  /^(?:con|prn|aux|nul|conin\$|conout\$|com[0-9\u00b9\u00b2\u00b3]|lpt[0-9\u00b9\u00b2\u00b3]) *(?:\..*)?$/i;

/**
 * The shape of a short (8.3) name NTFS may give a long one, `references` as `REFERE~1`, `release notes.md`
 * as `RELEAS~1.MD`, or, past a few alike, `RE1A2B~1`: up to 8 characters with a `~` and digits ending them,
 * then up to 3 after a dot. A file of that name in a folder where NTFS gave it to another opens that one
 * (as `git~1` opens `.git`), so no such name is taken whatever the long names beside it. The classes are
 * apart and bounded, so the match reads the name once; {@link isShortName} bounds the part before the dot.
 */
const SHORT_NAME = /^([^.~]{1,6}~[0-9]{1,7})(?:\.[^.]{1,3})?$/;
const SHORT_NAME_BASE = 8;

function isShortName(name: string): boolean {
  const base = SHORT_NAME.exec(name)?.[1];
  return base !== undefined && base.length <= SHORT_NAME_BASE;
}

/** The code points HFS+ (macOS) leaves out when it compares names, as git lists them (`next_hfs_char`). */
const HFS_IGNORED = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;
/**
 * `.git`, or `git~1`, the 8.3 short name NTFS gives it: a repository's `.git` is made before anything else
 * in it, so no other name took `git~1` first and left it `git~2` (git reasons the same).
 */
const NTFS_GIT = /^(?:\.git|git~1)/i;

/**
 * Whether `name` reaches a repository's `.git` (its config, whose hooks and fsmonitor run commands) on some
 * file system, as git's own `is_hfs_dotgit` and `is_ntfs_dotgit` tell (git refuses to check out such a
 * name): in any case, as case-insensitive file systems read it; on HFS+, with the code points it ignores
 * anywhere in it (`.g{U+200C}it`); on NTFS, as `.git` or `git~1` followed only by the dots and spaces it
 * drops, up to the end or a `:` that opens an alternate data stream (`.git::$INDEX_ALLOCATION`). Linear in
 * the name: one pass to drop, one over what follows the prefix. The `i` flag without `u` folds ASCII
 * letters only, as git does: no other character reads as g, i or t.
 */
export function readsAsDotGit(name: string): boolean {
  if (/^\.git$/i.test(name.replace(HFS_IGNORED, ""))) return true;
  const prefix = NTFS_GIT.exec(name);
  if (prefix === null) return false;
  for (const character of name.slice(prefix[0].length)) {
    if (character === ":") return true;
    if (character !== "." && character !== " ") return false;
  }
  return true;
}

/**
 * Why `name` cannot be one file or folder name on every system, said in words that quote it, or undefined
 * when it can: not a name (empty, `.`, `..`), a slash; a name macOS or Windows reads as `.git`; one of the
 * shape of an NTFS short name (`REFERE~1`), which may be another file's there; a character
 * Windows refuses or reads as a separator, a drive or a stream; one no reader sees; a Windows device; a
 * trailing dot or space Windows drops; longer than file systems take. Linear in the name.
 */
export function portableNameProblem(name: string): string | undefined {
  const notAName = notANameProblem(name);
  if (notAName !== undefined) return notAName;
  if (readsAsDotGit(name))
    return `a name macOS or Windows reads as .git: ${JSON.stringify(visible(name))} (a .git folder or file would make the folder a git repository of its own, whose config runs commands)`;
  if (isShortName(name))
    return `a name of the shape of a short (8.3) name NTFS gives a longer one, which Windows may read as that one: ${JSON.stringify(visible(name))}`;
  const forbidden = forbiddenProblem(name);
  if (forbidden !== undefined) return forbidden;
  const shown = visible(name);
  if (shown !== name) return `a name holds a character no reader sees: ${JSON.stringify(shown)}`;
  if (DEVICE.test(name)) return `a name is a device on Windows: ${JSON.stringify(name)}`;
  // Windows drops a trailing dot or space: `a.md.` would be written as `a.md`.
  if (name.endsWith(".") || name.endsWith(" "))
    return `a name ends in a dot or a space, which Windows drops: ${JSON.stringify(name)}`;
  return lengthProblem(name);
}

/**
 * Why `name` is no single name below a folder on any system, or undefined when it is one there: not a name
 * (empty, `.`, `..`), a slash, a separator, drive, stream or control character, longer than file systems
 * take. Every skills-mcp sync has refused these, while {@link portableNameProblem} refuses more since
 * (`aux.txt`, `git~1`): a path an older sync recorded may be refused now, but never one of these. Linear
 * in the name.
 */
export function nameShapeProblem(name: string): string | undefined {
  return notANameProblem(name) ?? forbiddenProblem(name) ?? lengthProblem(name);
}

function notANameProblem(name: string): string | undefined {
  if (name === "" || name === "." || name === "..") return `"${name}" is not a name`;
  return name.includes("/") ? "a name holds a slash" : undefined;
}

function forbiddenProblem(name: string): string | undefined {
  const forbidden = FORBIDDEN.exec(name);
  return forbidden === null ? undefined : `a name holds ${describe(forbidden[0])}`;
}

function lengthProblem(name: string): string | undefined {
  return Buffer.byteLength(name) > MAX_NAME_BYTES
    ? `a name is longer than ${MAX_NAME_BYTES} bytes`
    : undefined;
}

function describe(character: string): string {
  const code = character.codePointAt(0) ?? 0;
  return code < 0x20 || code === 0x7f ? `a control character (${codePoint(code)})` : `"${character}"`;
}

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

/** Of names that fold alike, the lower is served: lowercase first, then NFC. */
export function preference(name: string): number {
  return (name === name.toLowerCase() ? 0 : 2) + (name === name.normalize("NFC") ? 0 : 1);
}

/** A skill's document, kept whatever name of its folder folds like it (`skill.md`, `SKILL.MD`). */
const SKILL_DOCUMENT = "SKILL.md";

/**
 * Of two names of one folder that fold alike ({@link foldedName}), which a case-insensitive file system
 * (macOS, Windows) holds one of, whether `name` is the one kept rather than `other`: `SKILL.md`, then
 * the lower {@link preference} (lowercase, then NFC), as of folders, then the first by UTF-16 code units.
 * The server serves, and the fetcher copies, the one kept, so that what either leaves is what sync writes.
 */
export function isKeptBefore(name: string, other: string): boolean {
  if (name === SKILL_DOCUMENT || other === SKILL_DOCUMENT) return name === SKILL_DOCUMENT;
  const preferred = preference(name) - preference(other);
  return preferred === 0 ? name < other : preferred < 0;
}
