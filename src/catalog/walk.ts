import { accessSync, constants, type Dirent, realpathSync, statSync } from "node:fs";
import path from "node:path";
import { compareText, isInside, visible } from "../shared/index.js";
import { describeFsError, readFolder } from "./folders.js";
import { unnameableReason } from "./paths.js";
import { fileIdentity } from "./stamps.js";
import type { CatalogFile, CatalogIssue } from "./types.js";

/**
 * The walk of a skill's or a pack's folder: every visible file it may serve, symlinks followed only to
 * what lies inside it, and what it cannot serve reported as an issue.
 */

interface WalkContext {
  /** Nothing outside this real folder is served, whatever symlinks say. */
  readonly boundary: string;
  readonly issues: CatalogIssue[];
  /** Turns a path relative to the walk's start into one relative to the skills folder, for issues. */
  readonly report: (relative: string) => string;
  /**
   * Sees each folder the walk enters and says whether to stop there: a pack's walk stops at a skill
   * folder, which is not searched for pack files.
   */
  readonly stopAt?: (relative: string, real: string, entries: readonly Dirent[]) => boolean;
  /** The walk stops once `files` holds more than this many. */
  readonly maxFiles?: number;
  /** A folder of more entries than this is not read past them, and is left out with an issue. */
  readonly maxEntries?: number;
  /**
   * How many more files and folders the walk may visit outside the folders it stops at; those, and a folder
   * holding one (a pack's group), cost nothing. Once it is below 0 the walk ends, and its caller tells what
   * that left out.
   */
  readonly budget?: { left: number };
}

/**
 * Walks a folder collecting its visible files into `files`. Symlinks are followed only when their
 * target lies inside the boundary; `seen` stops symlink cycles. What cannot be read, or could not be named
 * by a client, is left out with an issue. Returns whether the walk stopped at the folder (`stopAt`).
 */
export function walk(
  real: string,
  relative: string,
  seen: Set<string>,
  files: CatalogFile[],
  context: WalkContext,
  entries: readonly Dirent[] | undefined = readFolder(
    real,
    context.report(relative),
    context.issues,
    context.maxEntries,
  ),
): boolean {
  if (entries === undefined) return false;
  if (context.stopAt?.(relative, real, entries)) return true;
  const { budget } = context;
  if (budget !== undefined) budget.left -= 1;
  let holdsStop = false;
  for (const entry of entries) {
    if (files.length > (context.maxFiles ?? Number.POSITIVE_INFINITY)) return false;
    if (budget !== undefined && budget.left < 0) return false;
    if (isHidden(entry.name)) continue;
    const childRelative = relative === "" ? entry.name : `${relative}/${entry.name}`;
    // Issues name it escaped: a log line shows every character of a name the catalog leaves out.
    const where = () => context.report(visible(childRelative));
    const child = resolveEntry(real, entry, context.boundary);
    // A folder is counted once entered, and only when the walk does not stop at it.
    if (budget !== undefined && child.kind !== "folder") budget.left -= 1;
    if (child.kind === "outside") {
      context.issues.push({
        severity: "skipped",
        path: where(),
        reason: "symlink points outside its skill or pack folder",
      });
      continue;
    }
    if (child.kind === "unreadable") {
      context.issues.push(unreadable(where(), child));
      continue;
    }
    if (child.kind === "other") continue;
    const unnameable = unnameableReason(childRelative, child.kind);
    if (unnameable !== undefined) {
      context.issues.push({ severity: "skipped", path: where(), reason: unnameable });
    } else if (child.kind === "file") {
      files.push({
        path: flat(childRelative),
        size: child.size,
        mtimeMs: child.mtimeMs,
        source: flat(child.real),
        identity: child.identity,
      });
    } else if (!seen.has(child.real)) {
      seen.add(child.real);
      if (walk(child.real, childRelative, seen, files, context)) holdsStop = true;
    }
  }
  if (budget !== undefined && holdsStop && budget.left >= 0) budget.left += 1;
  return false;
}

type ResolvedEntry =
  | {
      readonly kind: "file";
      readonly real: string;
      readonly size: number;
      readonly mtimeMs: number;
      readonly identity: string;
    }
  | { readonly kind: "folder"; readonly real: string }
  | { readonly kind: "outside" }
  | { readonly kind: "unreadable"; readonly reason: string }
  | { readonly kind: "other" };

/**
 * What a directory entry really is, following a symlink only when it stays inside `boundary`. A file is
 * one the server can read: one it cannot is `unreadable`, rather than listed and then failing every read.
 */
export function resolveEntry(parent: string, entry: Dirent, boundary: string | undefined): ResolvedEntry {
  const full = path.join(parent, entry.name);
  if (entry.isDirectory()) return { kind: "folder", real: full };
  if (entry.isFile()) return readableFile(full);
  if (!entry.isSymbolicLink()) return { kind: "other" };
  return resolveLink(full, boundary);
}

/** Follows every symlink in `full`; a target outside `boundary` (when given) is reported as such. */
export function resolveLink(full: string, boundary: string | undefined): ResolvedEntry {
  let real: string;
  try {
    real = realpathSync(full);
  } catch (error) {
    // A dangling symlink leads nowhere: nothing to serve, and nothing wrong with the server.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return { kind: "other" };
    return { kind: "unreadable", reason: describeFsError(error) };
  }
  if (boundary !== undefined && !isInside(boundary, real)) return { kind: "outside" };
  try {
    const stat = statSync(real);
    if (stat.isDirectory()) return { kind: "folder", real };
    if (stat.isFile()) return readableFile(real);
  } catch (error) {
    // A link of /proc (`/dev/stdout` is one) to a pipe or a socket is spelled `pipe:[123]`, which realpath
    // gives as a path that names nothing, though the link itself leads somewhere: no file vanished as the
    // catalog loaded, and what has no path is not served, as a dangling link is not.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return throughLink(full, error);
    return { kind: "unreadable", reason: describeFsError(error) };
  }
  return { kind: "other" };
}

/** What the kernel finds following the links of `full` itself, once its real path named nothing (`error`). */
function throughLink(full: string, error: unknown): ResolvedEntry {
  try {
    if (statSync(full, { throwIfNoEntry: false }) !== undefined) return { kind: "other" };
  } catch (linkError) {
    return { kind: "unreadable", reason: describeFsError(linkError) };
  }
  return { kind: "unreadable", reason: describeFsError(error) };
}

/** The regular file at `real` when the server may read it, else why not. */
function readableFile(real: string): ResolvedEntry {
  try {
    const stats = statSync(real);
    accessSync(real, constants.R_OK);
    return {
      kind: "file",
      real,
      size: stats.size,
      mtimeMs: stats.mtimeMs,
      identity: fileIdentity(stats, real),
    };
  } catch (error) {
    return { kind: "unreadable", reason: describeFsError(error) };
  }
}

export function unreadable(where: string, entry: { readonly reason: string }): CatalogIssue {
  return { severity: "skipped", path: where, reason: entry.reason };
}

export function isHidden(name: string): boolean {
  return name.startsWith(".");
}

/** Most skills have no file besides SKILL.md; they share one empty map. */
export const NO_FILES: ReadonlyMap<string, CatalogFile> = new Map();

export function toFileMap(files: readonly CatalogFile[]): ReadonlyMap<string, CatalogFile> {
  if (files.length === 0) return NO_FILES;
  return new Map([...files].sort((a, b) => compareText(a.path, b.path)).map((file) => [file.path, file]));
}

/**
 * `text` as one flat string. V8 keeps a string built by concatenation (path.join, template literals, the
 * YAML parser folding a scalar) as a chain of its pieces, and a substring as a view that keeps its whole
 * source alive: kept for every skill, these took 4.4 KB a skill at 10k skills instead of 1.1 KB.
 */
export function flat(text: string): string {
  return Buffer.from(text, "utf8").toString("utf8");
}
