import type { Dirent } from "node:fs";
import { copyFile, opendir, readdir, readFile, readlink, realpath, stat } from "node:fs/promises";
import path from "node:path";
import {
  compareText,
  decodeUtf8,
  foldedName,
  isInside,
  isKeptBefore,
  makeFolder,
  portableNameProblem,
  quoted,
  systemProblem,
  visible,
} from "../../src/shared/index.js";

/** Something of the repository that was not copied, and why: reported as a warning. */
export interface SkippedEntry {
  /** Repository-relative POSIX path; bytes of a name that is not UTF-8 are written `\xe9`. */
  readonly path: string;
  readonly reason: string;
  /** A symlink left out: recorded in sources.json, where the audit finds it. */
  readonly symlink: boolean;
}

/** Thrown when the folder to copy itself cannot be copied (missing, or a symlink leading out). */
export class CopyError extends Error {
  override name = "CopyError";
}

/** Thrown when a source brings more files or bytes than its limits allow. */
export class SourceTooLargeError extends Error {
  override name = "SourceTooLargeError";
}

/** The most files and bytes one source may bring: its path and extras together, each copy a symlink makes. */
export interface SourceLimits {
  readonly files: number;
  readonly bytes: number;
}

/** Far above any real pack, and a stop for a repository whose symlinks multiply what it holds. */
export const SOURCE_LIMITS: SourceLimits = { files: 20_000, bytes: 512 * 1024 * 1024 };

/**
 * What a source has brought so far, against its limits: one for its path and extras together. Folders are
 * counted too, against the files limit, since a folder costs no bytes: a link to a folder of folders that
 * hold only hidden files copied each of those once per link, none a file, so 200 links to one folder of
 * 200 such folders wrote 40,000 empty folders from 400 files of the repository.
 */
export class SourceBudget {
  #files = 0;
  #bytes = 0;
  #folders = 0;
  #skipped = 0;

  constructor(private readonly limits: SourceLimits) {}

  /** Counts one more file of `bytes`, or throws when that would pass a limit. */
  take(bytes: number): void {
    if (this.#files + 1 > this.limits.files) throw this.#over("files", "--max-files");
    if (this.#bytes + bytes > this.limits.bytes) throw this.#over("MiB", "--max-mib");
    this.#files++;
    this.#bytes += bytes;
  }

  /** Counts one more folder, or throws when that would pass as many folders as the files limit. */
  takeFolder(): void {
    if (this.#folders + 1 > this.limits.files) throw this.#over("folders", "--max-files");
    this.#folders++;
  }

  /**
   * Counts one more entry left out, or throws past as many as the files limit: each is a warning and a
   * line of sources.json, and a link repeats those of its target, so 200 links to a folder of 200 dangling
   * symlinks warned 40,000 times.
   */
  takeSkipped(): void {
    if (this.#skipped + 1 > this.limits.files) {
      const entries = this.limits.files === 1 ? "file or folder" : "files and folders";
      throw new SourceTooLargeError(
        `leaves out more than ${this.limits.files.toLocaleString("en-US")} ${entries}, the most one source may (each copy a symlink makes counts; --max-files sets it)`,
      );
    }
    this.#skipped++;
  }

  #over(what: "files" | "MiB" | "folders", option: string): SourceTooLargeError {
    const most = what === "MiB" ? this.limits.bytes / 1024 / 1024 : this.limits.files;
    // `--max-files 1` is one file, one folder: "1 folders" read as a slip of the fetcher's.
    const unit = what !== "MiB" && most === 1 ? what.slice(0, -1) : what;
    return new SourceTooLargeError(
      `brings more than ${most.toLocaleString("en-US")} ${unit}, the most one source may bring (each copy a symlink makes counts; ${option} sets it)`,
    );
  }
}

const SKILL_DOCUMENT = "SKILL.md";

/**
 * Copies `relative` (a folder, or for extras possibly a file) of the checked-out repository `repoRoot` to
 * `destination`. Symlinks are followed, and their targets copied as plain files, only when they resolve
 * inside the repository and outside its hidden folders: a hostile upstream must not be able to pull files
 * of the build machine (or the git store) into the image. Hidden files and folders, `.git` among them, are
 * skipped; `relative` itself may lie in a hidden folder (`.claude/skills`) when the manifest says so.
 * A symlinked folder brings in its target once per symlink of the repository's own folders, so two skills
 * that link one shared folder each get it; within what it brings in, a folder that one link reaches twice
 * is copied once (where a folder's links all led to the next folder, copies doubled at every level), and
 * `budget` stops the source at its limits. Names that are not UTF-8 or that not every system can hold
 * (portableNameProblem, the rule the server serves names by), Git LFS pointers, and what cannot be read, are
 * left out. Returns what was left out.
 */
export async function copyFromRepository(
  repoRoot: string,
  relative: string,
  destination: string,
  options: { allowFile: boolean; budget: SourceBudget },
): Promise<SkippedEntry[]> {
  const root = await realpath(repoRoot);
  let base: string;
  try {
    base = await realpath(path.join(root, relative));
  } catch {
    throw new CopyError(`${quoted(relative)} does not exist in the repository at this commit`);
  }
  if (!isInside(root, base))
    throw new CopyError(`${quoted(relative)} is a symlink pointing outside the repository`);
  if (isHidden(path.relative(root, base)) && !isHidden(relative)) {
    throw new CopyError(`${quoted(relative)} is a symlink leading into a hidden folder`);
  }
  const info = await stat(base);
  const skipped: SkippedEntry[] = [];
  if (info.isFile() && options.allowFile && (await isLfsPointer(base, info.size))) {
    skipped.push({ path: relative, reason: LFS_POINTER, symlink: false });
  } else if (info.isFile() && options.allowFile) {
    options.budget.take(info.size);
    await makeFolder(path.dirname(destination));
    await copyFile(base, destination);
  } else if (info.isDirectory()) {
    const walk: Walk = { root, base, budget: options.budget, skipped };
    await copyFolder(walk, base, relative, destination, { ancestors: new Set([base]), link: undefined });
  } else {
    throw new CopyError(`${quoted(relative)} is not a folder`);
  }
  return skipped;
}

/** One copy: the repository, the folder copied from it (which may itself be hidden), and what it found. */
interface Walk {
  readonly root: string;
  readonly base: string;
  readonly budget: SourceBudget;
  readonly skipped: SkippedEntry[];
}

/** Records `entry` as left out, against the source's budget. */
function skip(walk: Walk, entry: SkippedEntry): void {
  walk.budget.takeSkipped();
  walk.skipped.push(entry);
}

/** Where a folder is reached from: the real folders above it, and the symlink that brought it in, if one did. */
interface Reached {
  readonly ancestors: ReadonlySet<string>;
  readonly link: { readonly path: string; readonly brought: Map<string, string> } | undefined;
}

/** Whether a relative path (either separator) passes through a hidden file or folder. */
function isHidden(relative: string): boolean {
  return relative.split(/[\\/]/).some((segment) => segment.startsWith(".") && segment !== ".");
}

/** Why the symlink target `real` may not be copied, or undefined when it may. */
function symlinkProblem({ root, base }: Walk, real: string): string | undefined {
  if (!isInside(root, real)) return "symlink pointing outside the repository";
  const from = isInside(base, real) ? base : root;
  return isHidden(path.relative(from, real)) ? "symlink leading into a hidden folder" : undefined;
}

async function copyFolder(
  walk: Walk,
  real: string,
  relative: string,
  destination: string,
  reached: Reached,
): Promise<void> {
  walk.budget.takeFolder();
  await makeFolder(destination);
  const child = (name: string) => (relative === "." ? name : `${relative}/${name}`);
  const named = await visibleEntries(walk, real, relative, child);
  const resolved: ResolvedEntry[] = [];
  for (const { kind, name } of named.sort((a, b) => compareText(a.name, b.name))) {
    const target = await resolveEntry(walk, path.join(real, name), kind);
    const lfs =
      !("skip" in target) && target.kind === "file" && (await isLfsPointer(target.real, target.size));
    const copyable = !("skip" in target) && !lfs && portableNameProblem(name) === undefined;
    resolved.push({ name, kind, target, lfs, copyable });
  }
  // By folded name, the spelling copied: a case-insensitive file system (macOS, Windows) holds one of them.
  const copiedAs = new Map<string, string>();
  for (const { name, kind, target, lfs } of inCopyOrder(resolved)) {
    const childRelative = child(name);
    const into = path.join(destination, name);
    const unportable = portableNameProblem(name);
    if ("skip" in target) {
      skip(walk, { path: childRelative, reason: target.skip, symlink: target.symlink });
    } else if (unportable !== undefined) {
      // The server would leave it out, and sync could not write it on macOS or Windows; copied onto a Mac
      // (`{U+200C}.git` is `.git` on HFS+) it could be a folder the build machine reads otherwise.
      const reason = `its name is not one every system can hold (${unportable}), so the server would not serve it`;
      skip(walk, { path: visible(childRelative), reason, symlink: false });
    } else if (lfs) {
      skip(walk, { path: childRelative, reason: LFS_POINTER, symlink: false });
    } else {
      const key = foldedName(name);
      const copied = copiedAs.get(key);
      if (copied !== undefined) {
        // The server would serve the one copied (one rule: isKeptBefore), and sync could not write both.
        const reason = `it is ${quoted(visible(child(copied)))} in another letter case or Unicode normalization, which a case-insensitive file system (macOS, Windows) holds one of: that one is copied instead`;
        skip(walk, { path: visible(childRelative), reason, symlink: false });
      } else if (target.kind === "file") {
        copiedAs.set(key, name);
        walk.budget.take(target.size);
        await copyOne(walk, target.real, into, childRelative);
      } else {
        const inner = innerReach(reached, target.real, childRelative, kind === "symlink");
        if ("skip" in inner) {
          // Refused for itself: another spelling of its name, tried next, is copied in its stead.
          skip(walk, { path: childRelative, reason: inner.skip, symlink: true });
        } else {
          copiedAs.set(key, name);
          await copyFolder(walk, target.real, childRelative, into, inner);
        }
      }
    }
  }
}

/** An entry of a folder being copied, with what it leads to and whether it could be copied as named. */
interface ResolvedEntry {
  readonly name: string;
  readonly kind: EntryKind;
  readonly target: Target;
  readonly lfs: boolean;
  /** Not left out for itself before the walk reaches it: a target, not a Git LFS pointer, a portable name. */
  readonly copyable: boolean;
}

/**
 * `entries` (sorted by name) in the order they are copied: as they are, but the copyable spellings of one
 * folded name together at the place of the first, the one kept ({@link isKeptBefore}) first. The first of
 * them the walk copies is the one copied; one it refuses as it reaches it (a symlink to a folder above,
 * or to one its link brought in already) leaves the next to be copied, where choosing the kept one before
 * the walk left out both.
 */
function inCopyOrder(entries: readonly ResolvedEntry[]): ResolvedEntry[] {
  const spellings = new Map<string, ResolvedEntry[]>();
  for (const entry of entries) {
    if (!entry.copyable) continue;
    const key = foldedName(entry.name);
    const group = spellings.get(key);
    if (group === undefined) spellings.set(key, [entry]);
    else group.push(entry);
  }
  const ordered: ResolvedEntry[] = [];
  for (const entry of entries) {
    if (!entry.copyable) {
      ordered.push(entry);
      continue;
    }
    const key = foldedName(entry.name);
    const group = spellings.get(key);
    // Placed already, with the first of its spellings.
    if (group === undefined) continue;
    spellings.delete(key);
    ordered.push(...group.sort((a, b) => (isKeptBefore(a.name, b.name) ? -1 : 1)));
  }
  return ordered;
}

/** What a folder's entry is, as its listing says (a symlink is not followed). */
type EntryKind = "file" | "folder" | "symlink" | "other";

/**
 * The entries of folder `real` that are not hidden, each name that is not UTF-8 left out as a warning, or
 * none when it cannot be read (a warning too). Read one entry at a time, keeping only a name and its kind:
 * hidden entries are never held, and a Dirent of a name's bytes took some three times its name (80,001
 * names of 207 bytes read whole: 20 MB of heap). The names are sorted after (copy order and warnings do
 * not depend on the file system), so those kept are held anyway; the checkout check bounds a folder to 4
 * times --max-files entries, 80,000 by default (git checks out no empty folder).
 */
async function visibleEntries(
  walk: Walk,
  real: string,
  relative: string,
  child: (name: string) => string,
): Promise<{ readonly name: string; readonly kind: EntryKind }[]> {
  const named: { name: string; kind: EntryKind }[] = [];
  try {
    // The typings know no `buffer` encoding for a Dir, which then gives each name as its bytes.
    for await (const entry of await opendir(real, { encoding: "buffer" as BufferEncoding })) {
      const bytes: unknown = entry.name;
      if (!(bytes instanceof Uint8Array) || bytes[0] === 0x2e) continue;
      const name = decodeUtf8(bytes);
      if (name === undefined) {
        const reason = "its name is not UTF-8";
        skip(walk, { path: child(escapedName(bytes)), reason, symlink: false });
      } else {
        named.push({ name, kind: entryKind(entry) });
      }
    }
  } catch (error) {
    skip(walk, { path: relative, reason: cannotRead(error), symlink: false });
    return [];
  }
  return named;
}

function entryKind(entry: Dirent): EntryKind {
  if (entry.isDirectory()) return "folder";
  if (entry.isFile()) return "file";
  return entry.isSymbolicLink() ? "symlink" : "other";
}

/**
 * How a folder found at `relative` is reached, or why a symlink to it is left out: it leads back to a
 * folder above, or the link that brought this part of the tree in brought that folder in already.
 */
function innerReach(
  reached: Reached,
  real: string,
  relative: string,
  isLink: boolean,
): Reached | { readonly skip: string } {
  if (reached.ancestors.has(real)) return { skip: "symlink loops back to a parent folder" };
  const ancestors = new Set([...reached.ancestors, real]);
  if (!isLink) return { ancestors, link: reached.link };
  if (reached.link === undefined)
    return { ancestors, link: { path: relative, brought: new Map([[real, relative]]) } };
  const before = reached.link.brought.get(real);
  if (before !== undefined) {
    return { skip: `symlink to a folder the link ${reached.link.path} already brought in, as ${before}` };
  }
  reached.link.brought.set(real, relative);
  return { ancestors, link: reached.link };
}

async function copyOne(walk: Walk, from: string, to: string, relative: string): Promise<void> {
  try {
    await copyFile(from, to);
  } catch (error) {
    skip(walk, { path: relative, reason: cannotRead(error), symlink: false });
  }
}

type Target =
  | { readonly kind: "file"; readonly real: string; readonly size: number }
  | { readonly kind: "folder"; readonly real: string }
  | { readonly skip: string; readonly symlink: boolean };

async function resolveEntry(walk: Walk, full: string, kind: EntryKind): Promise<Target> {
  if (kind === "folder") return { kind: "folder", real: full };
  if (kind === "other") return { skip: "not a regular file or folder", symlink: false };
  let real = full;
  if (kind === "symlink") {
    try {
      real = await realpath(full);
    } catch (error) {
      const loop = (error as NodeJS.ErrnoException).code === "ELOOP";
      if (loop) return { skip: "symlink loop: it leads back to itself", symlink: true };
      return { skip: `dangling symlink${await linkText(full)}`, symlink: true };
    }
    const problem = symlinkProblem(walk, real);
    if (problem) return { skip: `${problem}${await linkText(full)}`, symlink: true };
  }
  let info: Awaited<ReturnType<typeof stat>>;
  try {
    info = await stat(real);
  } catch (error) {
    return { skip: cannotRead(error), symlink: false };
  }
  if (info.isFile()) return { kind: "file", real, size: info.size };
  if (info.isDirectory()) return { kind: "folder", real };
  return { skip: "symlink to something that is not a regular file or folder", symlink: true };
}

/**
 * `, to "…"`: what the link says, as upstream wrote it (never where it led on this machine), escaped. A
 * reviewer reads `to "../../../../home/runner/.ssh/id_rsa"` as an attempt, where "outside the repository"
 * alone could be a stray link.
 */
async function linkText(full: string): Promise<string> {
  try {
    return `, to ${quoted(await readlink(full), 120)}`;
  } catch {
    return "";
  }
}

const LFS_POINTER = "a Git LFS pointer, not the file it stands for: Git LFS content is not fetched";
/** How every Git LFS pointer opens; each is smaller than 1,024 bytes (Git LFS's docs/spec.md). */
const LFS_VERSION = "version https://git-lfs.github.com/spec/v1\n";

/**
 * Whether `file` is a Git LFS pointer: a repository that keeps files in Git LFS holds these in their place,
 * and a skill would be served the pointer's three lines as its font, image or template.
 */
async function isLfsPointer(file: string, size: number): Promise<boolean> {
  if (size < LFS_VERSION.length || size >= 1024) return false;
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch {
    // Left to the copy, which says why it cannot read it.
    return false;
  }
  return text.startsWith(LFS_VERSION) && /^oid sha256:[0-9a-f]{64}$/m.test(text);
}

/** The errors of reading what the repository holds; others (a full disk) stop the fetch. */
const READ_ERRORS = new Set(["EACCES", "EPERM", "ENOENT", "ELOOP", "ENAMETOOLONG", "ENOTDIR", "EILSEQ"]);

/** Why what the repository holds cannot be copied; rethrows an error that is not about reading it. */
function cannotRead(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === undefined || !READ_ERRORS.has(code)) throw error;
  return `cannot be read: ${systemProblem(error)}`;
}

/** A name with each byte other than printable ASCII written `\xe9`, so that a warning shows it as it is. */
function escapedName(name: Uint8Array): string {
  return [...name]
    .map((byte) =>
      byte >= 0x20 && byte < 0x7f && byte !== 0x5c
        ? String.fromCharCode(byte)
        : `\\x${byte.toString(16).padStart(2, "0")}`,
    )
    .join("");
}

/**
 * The skill folders under `dir` (relative POSIX paths), found the way the server finds them: a visible
 * folder holding SKILL.md is a skill, and so is one nested below it.
 */
export async function findSkillFolders(dir: string, relative = ""): Promise<string[]> {
  // Read whole: `dir` is the pack as copyFolder wrote it, so no folder of it holds more entries than the
  // checkout holds files, which the checkout check bounds (see visibleEntries).
  const entries = await readdir(dir, { withFileTypes: true });
  const isSkill = entries.some((entry) => entry.name === SKILL_DOCUMENT && entry.isFile());
  const found: string[] = isSkill ? [relative] : [];
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
    found.push(...(await findSkillFolders(path.join(dir, entry.name), child)));
  }
  return found.sort();
}
