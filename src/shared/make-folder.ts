import { rmdirSync, type Stats, statSync } from "node:fs";
import { mkdir, readlink, stat } from "node:fs/promises";
import path from "node:path";

/**
 * Makes `folder` and the folders missing above it, as `mkdir -p` does, and returns the first folder it
 * made (undefined when `folder` was there). Node's recursive mkdir (20 to 24) never returns, spinning a
 * thread at full CPU, where mkdir answers ENOENT below a folder that is there (anything under /proc, a
 * folder deleted while in use): it makes the parent again and again. Here each folder is made once, and
 * such an answer fails with a {@link MakeFolderError} saying so.
 *
 * Node built-ins only: the image's skills stage copies this file for the fetcher, without the rest of src/.
 */
export async function makeFolder(folder: string, mode?: number): Promise<string | undefined> {
  const options = mode === undefined ? {} : { mode };
  try {
    await mkdir(folder, options);
    return folder;
  } catch (error) {
    if (codeOf(error) === "EEXIST") return alreadyThere(folder, error);
    if (codeOf(error) === "ENOTDIR") throw notAFolderError(folder, error);
    if (codeOf(error) === "ELOOP") throw loopError(folder);
    const parent = path.dirname(folder);
    if (codeOf(error) !== "ENOENT" || parent === folder) throw error;
    const made = await makeFolder(parent, mode);
    try {
      await mkdir(folder, options);
    } catch (again) {
      if (codeOf(again) === "EEXIST") return (await alreadyThere(folder, again)) ?? made;
      if (codeOf(again) === "ENOTDIR") throw notAFolderError(folder, again);
      if (codeOf(again) !== "ENOENT") throw again;
      throw new MakeFolderError(
        folder,
        `no folder can be made in ${parent}: mkdir ${folder} answered ENOENT (no such file or directory) though ${parent} is a folder: its file system takes none (as /proc), or it was deleted while in use`,
      );
    }
    return made ?? folder;
  }
}

/**
 * Removes `folder` and its parents up to `top` (what makeFolder returned), while they are empty: the
 * folders a run made and then put nothing in. Synchronous, for a stop signal's handler too.
 */
export function removeEmptyFolders(folder: string, top: string): void {
  for (let at = folder; ; at = path.dirname(at)) {
    // rmdir removes only an empty folder: one holding anything, however it came there, stays.
    try {
      rmdirSync(at);
    } catch {
      return;
    }
    if (at === top || path.dirname(at) === at) return;
  }
}

/**
 * Why a folder cannot be made where Node's own error would mislead (a loop, or "no such file"), in words.
 * It carries the code, system call and path of that error, so that callers handle it as they handle it.
 */
export class MakeFolderError extends Error {
  override name = "MakeFolderError";
  readonly syscall = "mkdir";
  constructor(
    readonly path: string,
    message: string,
    readonly code: "ENOENT" | "ENOTDIR" | "ELOOP" = "ENOENT",
  ) {
    super(message);
  }
}

/**
 * What stands where `target`'s path needs a folder, in words (`/dev/null is a device where the path needs a
 * folder`): the first part of the path, as given, that is there and is no folder. Undefined when each part
 * there is a folder, or cannot be looked at. Node's words for it, EEXIST ("file already exists") or ENOTDIR,
 * name neither the part nor what to give instead.
 */
export function notAFolderOnPath(target: string): string | undefined {
  const parts: string[] = [];
  for (let at = target; ; at = path.dirname(at)) {
    if (at !== ".") parts.unshift(at);
    if (path.dirname(at) === at) break;
  }
  for (const part of parts) {
    let found: Stats;
    try {
      found = statSync(part);
    } catch {
      return undefined;
    }
    if (!found.isDirectory()) return `${part} is ${entryKindOf(found)} where the path needs a folder`;
  }
  return undefined;
}

/** What a file system entry that is no folder is, in words: `a file`, `a device`, `a socket`. */
export function entryKindOf(found: Stats): string {
  if (found.isFile()) return "a file";
  if (found.isFIFO()) return "a named pipe (FIFO)";
  if (found.isCharacterDevice() || found.isBlockDevice()) return "a device";
  if (found.isSocket()) return "a socket";
  return "something other than a folder";
}

/** The ENOTDIR (or EEXIST) of making `folder`, as the part of its path that is no folder, when one is found. */
function notAFolderError(folder: string, error: unknown): unknown {
  const said = notAFolderOnPath(folder);
  return said === undefined ? error : new MakeFolderError(folder, said, "ENOTDIR");
}

/** Undefined when `folder` is a folder (or a link to one); else the mkdir error, worded for a dangling link. */
async function alreadyThere(folder: string, error: unknown): Promise<undefined> {
  const found = await stat(folder).catch((failed: unknown) => failed as NodeJS.ErrnoException);
  if (!(found instanceof Error)) {
    if (found.isDirectory()) return undefined;
    throw notAFolderError(folder, error);
  }
  if (found.code === "ELOOP") throw loopError(folder);
  const target = await readlink(folder).catch(() => undefined);
  if (found.code !== "ENOENT" || target === undefined) throw error;
  throw new MakeFolderError(folder, `${folder} is a symbolic link to ${target}, which does not exist`);
}

/**
 * The ELOOP of making `folder`, in words: Node's ("too many symbolic links encountered"), or, for the
 * folder itself a link in a loop, EEXIST's "file already exists", say nothing of a loop.
 */
function loopError(folder: string): MakeFolderError {
  return new MakeFolderError(
    folder,
    `${folder} leads round a loop of symbolic links (one leading back to another on the way): make it a folder, or a link to one`,
    "ELOOP",
  );
}

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}
