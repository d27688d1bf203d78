import { closeSync, constants, fstatSync, openSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";

/** A catalog file changed on disk since the catalog was loaded: what it held then cannot be served. */
export class ChangedFileError extends Error {
  override name = "ChangedFileError";
  /** What changed, in words that follow the file's name and hold no path of the server. */
  readonly change: string;

  constructor(source: string, change: string) {
    super(`${source} ${change}`);
    this.change = change;
  }
}

/**
 * How a file the catalog listed as a regular one is opened. Without O_NONBLOCK, a FIFO put in its place
 * since would block the open until some process wrote to it: one of libuv's four threads held for good,
 * and after four such reads every file read of the server waited (or, at startup, the whole process).
 * A listed path is real (resolved when listed), so a symlink in its last part is a change too, and one
 * that could lead outside the skills folder.
 */
const LISTED_FILE_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;
/** Files beside the skills (`sources.json`, the saved index) may be symlinks, as a mounted volume makes them. */
const SIDE_FILE_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK;

/** `source`, a path the catalog listed as a regular file, open for reading; ChangedFileError if it is not one. */
export async function openListedFile(source: string): Promise<FileHandle> {
  const handle = await open(source, LISTED_FILE_FLAGS);
  let regular = false;
  try {
    regular = (await handle.stat()).isFile();
  } finally {
    if (!regular) await handle.close();
  }
  if (!regular) throw new ChangedFileError(source, "is no longer a regular file");
  return handle;
}

/** The descriptor of `source` open for reading, when it is a regular file; ChangedFileError if not. */
export function openListedFileSync(source: string, options: { readonly beside?: boolean } = {}): number {
  const descriptor = openSync(source, options.beside === true ? SIDE_FILE_FLAGS : LISTED_FILE_FLAGS);
  let regular = false;
  try {
    regular = fstatSync(descriptor).isFile();
  } finally {
    if (!regular) closeSync(descriptor);
  }
  if (!regular) throw new ChangedFileError(source, "is not a regular file");
  return descriptor;
}
