/**
 * The target folder as sync reads it: a skill's folder there (what it holds, whether it is the copy sync
 * wrote), the names taken, and the lock file.
 */
import { lstat, opendir, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { SKILL_LIMITS } from "@modelcontextprotocol/client/ext/skills";
import { digestOf, foldedName } from "../catalog/index.js";
import { LOCK_FILE, type Lock, parseLock } from "./lock.js";
import { SyncError } from "./options.js";

/**
 * The most a copy sync installed holds: the skill's files, its pack files and a note, a little over the
 * extension's limit. A folder holding more is not one sync wrote, and is not read further.
 */
export const MAX_COPY_BYTES = SKILL_LIMITS.bytes + 65_536;

/**
 * Files the system's file manager writes into a folder the user only looked at (macOS's Finder, Windows
 * Explorer): no change of the user's. A skill's folder holding one besides what sync wrote is still its
 * copy, updated or removed as such; one a skill serves by such a name is compared as any other file.
 */
const VIEWER_FILES = new Set([".DS_Store", "Thumbs.db", "desktop.ini"]);

/**
 * The first bytes of an AppleDouble file: macOS keeps an entry's extended attributes (a download's
 * quarantine, Finder tags) in `._<name>` beside it wherever the file system has none of its own (FAT,
 * exFAT, SMB and NFS shares), so copying a skills folder there writes one beside each file and folder. Such
 * a file is passed over as the file manager's files are, also with no `<name>` beside it (removed from
 * another system, which leaves it): it holds no content of the user's. Its bytes, not its name alone,
 * tell it from a file the user wrote by such a name, which is a change.
 */
const APPLE_DOUBLE = Buffer.from([0x00, 0x05, 0x16, 0x07]);

function isAppleDouble(name: string, bytes: Uint8Array): boolean {
  return name.startsWith("._") && Buffer.from(bytes.subarray(0, APPLE_DOUBLE.length)).equals(APPLE_DOUBLE);
}

/** What a skill's folder in the target holds. */
type FolderState =
  | { readonly kind: "missing" }
  /**
   * Plain files only, each by its path in the folder with its digest; `viewer`: those of them a file
   * manager or macOS may have written (VIEWER_FILES, AppleDouble files), apart, not counted against the
   * limit on files sync wrote.
   */
  | {
      readonly kind: "files";
      readonly files: Readonly<Record<string, string>>;
      readonly viewer: Readonly<Record<string, string>>;
    }
  /**
   * Not a folder of plain files (a symlink, a special file), or more than was looked at; `unreadable`
   * when sync may not read a file or folder in it.
   */
  | { readonly kind: "other"; readonly reason: string; readonly unreadable?: true };

/**
 * The state of `<folder>/<name>`, read without following any symlink. It stops after `maxFiles` files
 * (besides a file manager's, at most one of each name per folder, and AppleDouble files, at most one
 * beside each file or folder sync wrote) or `maxBytes` bytes: a folder that holds more is not one sync
 * wrote, and is not read further.
 */
export async function readFolderState(
  folder: string,
  name: string,
  limits: { readonly maxFiles: number; readonly maxBytes: number },
): Promise<FolderState> {
  const root = path.join(folder, name);
  const top = await lstatOrUndefined(root);
  if (top === undefined) return { kind: "missing" };
  if (!top.isDirectory())
    return { kind: "other", reason: top.isSymbolicLink() ? "a symlink" : "not a folder" };
  const files: Record<string, string> = {};
  const viewer: Record<string, string> = {};
  let count = 0;
  let appleDouble = 0;
  let folders = 0;
  let bytes = 0;
  const pending = [""];
  try {
    for (let relative = pending.pop(); relative !== undefined; relative = pending.pop()) {
      // One entry at a time: a folder of a million entries is not listed whole before a limit applies.
      for await (const entry of await opendir(path.join(root, relative))) {
        const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
        if (entry.isDirectory()) {
          // A skill of n files lies in at most n folders.
          folders += 1;
          if (folders > limits.maxFiles) return { kind: "other", reason: "more folders than sync wrote" };
          pending.push(child);
          continue;
        }
        if (!entry.isFile()) return { kind: "other", reason: `${child} is not a plain file` };
        const file = path.join(root, child);
        bytes += (await lstat(file)).size;
        if (bytes > limits.maxBytes) return { kind: "other", reason: "more bytes than sync wrote" };
        const content = await readFile(file);
        const doubled = isAppleDouble(entry.name, content);
        const viewed = doubled || VIEWER_FILES.has(entry.name);
        if (doubled) appleDouble += 1;
        else if (!viewed) count += 1;
        if (count > limits.maxFiles || appleDouble > 2 * limits.maxFiles)
          return { kind: "other", reason: "more files than sync wrote" };
        (viewed ? viewer : files)[child] = digestOf(content);
      }
    }
  } catch (error) {
    // Made unreadable here: changed since sync wrote it, as an edit is; the other skills still sync.
    const { code, message } = error as NodeJS.ErrnoException;
    if (code !== "EACCES" && code !== "EPERM") throw error;
    return { kind: "other", reason: message, unreadable: true };
  }
  return { kind: "files", files, viewer };
}

/**
 * The bytes of `file` when it is a plain file (no symlink followed) of `size` bytes whose digest is
 * `digest`; else undefined. Nothing larger than `size` is read.
 */
export async function readIfSame(
  file: string,
  size: number,
  digest: string,
): Promise<Uint8Array | undefined> {
  const stats = await lstatOrUndefined(file).catch(() => undefined);
  if (stats === undefined || !stats.isFile() || stats.size !== size) return undefined;
  const bytes = await readFile(file).catch(() => undefined);
  return bytes !== undefined && digestOf(bytes) === digest ? bytes : undefined;
}

/**
 * Whether `state` is a folder holding exactly `files`, byte for byte. Paths are compared in NFC: macOS's
 * HFS+ lists a file written as `café.md` in NFD, its own form, and opens it by either; no two paths the
 * lock holds are one in NFC (clashingPaths), and two on disk that are (a normalization-sensitive file
 * system) make the folder hold more than sync wrote.
 */
export function holdsExactly(state: FolderState, files: Readonly<Record<string, string>>): boolean {
  if (state.kind !== "files") return false;
  const wrote = new Map(Object.entries(files).map(([file, digest]) => [file.normalize("NFC"), digest]));
  // A file manager's files count where sync wrote one of that path, and are passed over elsewhere.
  const viewer = Object.entries(state.viewer).filter(([file]) => wrote.has(file.normalize("NFC")));
  const all = [...Object.entries(state.files), ...viewer];
  const held = new Map(all.map(([file, digest]) => [file.normalize("NFC"), digest]));
  const count = all.length;
  return (
    held.size === count &&
    count === wrote.size &&
    [...held].every(([file, digest]) => wrote.get(file) === digest)
  );
}

/**
 * Names of everything at the top of `folder` as a case-insensitive system compares them (skill names are
 * lowercase: `Review-Code`, `ſkill` or `skill` in another Unicode normalization is the folder of a skill
 * there), or none when it does not exist.
 */
export async function namesIn(folder: string): Promise<Set<string>> {
  // Read whole and unbounded: a collision can hide under any name (folding needs each), and the folder is
  // the user's own. A server adds to it only the skills it lists, which the run holds already (the listing,
  // the lock); the rest is what the user or their programs put there, which a bound would only refuse.
  try {
    return new Set((await readdir(folder)).map(foldedName));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return new Set();
    throw error;
  }
}

/** The lock in `folder`, or undefined when it has none. */
export async function readLock(folder: string): Promise<Lock | undefined> {
  const file = path.join(folder, LOCK_FILE);
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    if (code === "ENOENT") return undefined;
    // Node's words ("EISDIR: illegal operation on a directory, read") name neither the file nor a way out.
    if (code === "EISDIR")
      throw new SyncError(`${file} is a folder, not a lock file; move it away to start over`);
    throw error;
  }
  return parseLock(text, file);
}

/** The stats of `file`, no symlink followed; undefined when it is not there. */
export async function lstatOrUndefined(file: string) {
  try {
    return await lstat(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw error;
  }
}
