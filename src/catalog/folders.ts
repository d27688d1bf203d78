import { isUtf8 } from "node:buffer";
import { type Dirent, opendirSync } from "node:fs";
import path from "node:path";
import {
  compareText,
  errorMessage,
  problemInWords,
  type SystemProblems,
  utf8SequenceLength,
  visible,
} from "../shared/index.js";
import { ChangedFileError } from "./open.js";
import type { CatalogIssue } from "./types.js";

/** What the errors of the file system that a hostile or broken folder can cause mean, for an operator. */
const FS_PROBLEMS: SystemProblems = {
  ENOENT: { what: "it vanished while the catalog was loaded" },
  // Also what O_NOFOLLOW answers for a symlink put where a listed file was (catalog/open.ts): no loop.
  ELOOP: { what: "too many levels of symlinks" },
};

/**
 * Why a file or folder could not be read, in a few words and the error's code, without the absolute path.
 */
export function describeFsError(error: unknown): string {
  if (error instanceof ChangedFileError) return `cannot be read: it ${error.change}`;
  const code = (error as NodeJS.ErrnoException).code;
  if (code === undefined) return `cannot be read: ${errorMessage(error)}`;
  return `cannot be read: ${problemInWords(error, FS_PROBLEMS) ?? `error (${code})`}`;
}

/**
 * The most entries a folder of a pack or skill may hold: as many files as a skill may hold (MAX_SKILL_FILES).
 * A folder is read one entry at a time and no further than this: a skill folder of a million empty files
 * was listed whole, 1.5 s of CPU and 300 MB, before the skill's limit on files was applied.
 */
export const MAX_FOLDER_ENTRIES = 20_000;

/**
 * An issue saying a folder held more entries than it was read for: told apart from the others by its
 * class, not by reading its words, and written as any other issue (it has no field of its own).
 */
class OverfullFolder implements CatalogIssue {
  // Declared in the order of an issue's fields elsewhere, so that it is written (logged, as JSON) alike.
  readonly severity = "skipped";
  readonly path: string;
  readonly reason: string;

  constructor(path: string, maxEntries: number) {
    this.path = path;
    this.reason = `folder holds more than ${maxEntries.toLocaleString("en-US")} entries: nothing in it is served`;
  }
}

/** Whether `issue` says that its folder held more entries than it was read for. */
export function isOverfull(issue: CatalogIssue): boolean {
  return issue instanceof OverfullFolder;
}

/**
 * The entries of folder `dir`, sorted by name; `where` is its path relative to the skills folder, for
 * issues. A folder that cannot be read, or holds more than `maxEntries` entries, is an issue and gives
 * undefined. An entry whose name is not UTF-8 is an issue too and left out: Node would hand it over with
 * U+FFFD in place of the bad bytes, a name that names nothing on disk, and no client could ask for it anyway.
 */
export function readFolder(
  dir: string,
  where: string,
  issues: CatalogIssue[],
  maxEntries = Number.POSITIVE_INFINITY,
): Dirent[] | undefined {
  let entries: Dirent[] | undefined;
  try {
    entries = firstEntries(dir, maxEntries, "utf8");
    if (entries?.some((entry) => entry.name.includes("\uFFFD")))
      entries = withoutBadNames(dir, where, entries, maxEntries, issues);
  } catch (error) {
    issues.push({ severity: "skipped", path: where, reason: `folder ${describeFsError(error)}` });
    return undefined;
  }
  if (entries === undefined) {
    issues.push(new OverfullFolder(where, maxEntries));
    return undefined;
  }
  return entries.sort((a, b) => compareText(a.name, b.name));
}

/** The entries of `dir`, read one at a time; undefined once it holds more than `maxEntries`. */
function firstEntries(dir: string, maxEntries: number, encoding: "utf8" | "buffer"): Dirent[] | undefined {
  // The typings know no `buffer` encoding for a Dir, which then gives each name as its bytes.
  const folder = opendirSync(dir, { encoding: encoding as BufferEncoding });
  try {
    const entries: Dirent[] = [];
    for (let entry = folder.readSync(); entry !== null; entry = folder.readSync()) {
      if (entries.length >= maxEntries) return undefined;
      entries.push(entry);
    }
    return entries;
  } finally {
    folder.closeSync();
  }
}

/** `entries` less those whose names on disk are not UTF-8 (each reported); one entry per name. */
function withoutBadNames(
  dir: string,
  where: string,
  entries: Dirent[],
  maxEntries: number,
  issues: CatalogIssue[],
): Dirent[] | undefined {
  const good = new Set<string>();
  const named = firstEntries(dir, maxEntries, "buffer");
  if (named === undefined) return undefined;
  for (const entry of named) {
    const name: unknown = entry.name;
    if (!(name instanceof Uint8Array)) continue;
    if (isUtf8(name)) {
      good.add(Buffer.from(name).toString("utf8"));
      continue;
    }
    issues.push({
      severity: "skipped",
      path: path.posix.join(where, escapeName(name)),
      reason: "its name is not UTF-8, so no client could ask for it",
    });
  }
  // A good name holding U+FFFD and a bad one that decodes to it come as two entries of one name.
  const kept = new Set<string>();
  return entries.filter((entry) => {
    const keep = good.has(entry.name) && !kept.has(entry.name);
    kept.add(entry.name);
    return keep;
  });
}

/**
 * A file name as bytes, its UTF-8 parts as text (what no reader sees as `{U+…}`) and every other byte as
 * `\xNN`, for a log line.
 */
function escapeName(name: Uint8Array): string {
  let text = "";
  for (let at = 0; at < name.length; ) {
    const length = utf8SequenceLength(name, at);
    if (length > 0) {
      text += visible(Buffer.from(name.subarray(at, at + length)).toString("utf8"));
      at += length;
    } else {
      text += `\\x${(name[at] ?? 0).toString(16).padStart(2, "0")}`;
      at += 1;
    }
  }
  return text;
}
