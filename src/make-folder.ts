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
    const parent = path.dirname(folder);
    if (codeOf(error) !== "ENOENT" || parent === folder) throw error;
    const made = await makeFolder(parent, mode);
    try {
      await mkdir(folder, options);
    } catch (again) {
      if (codeOf(again) === "EEXIST") return (await alreadyThere(folder, again)) ?? made;
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
 * Why a folder cannot be made where Node's own error would mislead (a loop, or "no such file"), in words.
 * It carries the code, system call and path of that error, so that callers handle it as they handle it.
 */
export class MakeFolderError extends Error {
  override name = "MakeFolderError";
  readonly code = "ENOENT";
  readonly syscall = "mkdir";
  constructor(
    readonly path: string,
    message: string,
  ) {
    super(message);
  }
}

/** Undefined when `folder` is a folder (or a link to one); else the mkdir error, worded for a dangling link. */
async function alreadyThere(folder: string, error: unknown): Promise<undefined> {
  const found = await stat(folder).catch((failed: unknown) => failed as NodeJS.ErrnoException);
  if (!(found instanceof Error)) {
    if (found.isDirectory()) return undefined;
    throw error;
  }
  const target = await readlink(folder).catch(() => undefined);
  if (found.code !== "ENOENT" || target === undefined) throw error;
  throw new MakeFolderError(folder, `${folder} is a symbolic link to ${target}, which does not exist`);
}

function codeOf(error: unknown): string | undefined {
  return (error as NodeJS.ErrnoException).code;
}
