import { closeSync, constants, fstatSync, openSync, readlinkSync, readSync } from "node:fs";
import { type FileHandle, open, readlink } from "node:fs/promises";

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

/**
 * `source`, a path the catalog listed as a regular file, open for reading; ChangedFileError if it is no
 * longer that file.
 */
export async function openListedFile(source: string): Promise<FileHandle> {
  const handle = await open(source, LISTED_FILE_FLAGS);
  let change: string | undefined;
  try {
    const regular = (await handle.stat()).isFile();
    change = regular ? movedChange(source, await openedPath(handle.fd)) : "is no longer a regular file";
  } catch (error) {
    await handle.close();
    throw error;
  }
  if (change === undefined) return handle;
  await handle.close();
  throw new ChangedFileError(source, change);
}

/**
 * The descriptor of `source` open for reading, when it is a regular file (and, unless `beside`, the file
 * listed there); ChangedFileError if not.
 */
export function openListedFileSync(source: string, options: { readonly beside?: boolean } = {}): number {
  const beside = options.beside === true;
  const descriptor = openSync(source, beside ? SIDE_FILE_FLAGS : LISTED_FILE_FLAGS);
  let change: string | undefined;
  try {
    const regular = fstatSync(descriptor).isFile();
    if (!regular) change = "is not a regular file";
    else if (!beside) change = movedChange(source, openedPathSync(descriptor));
  } catch (error) {
    closeSync(descriptor);
    throw error;
  }
  if (change === undefined) return descriptor;
  closeSync(descriptor);
  throw new ChangedFileError(source, change);
}

/**
 * The whole of a file beside the skills (`sources.json`, the saved index), when it is a regular file of at
 * most `maxBytes`; ChangedFileError if not: a FIFO in its place would stall the start until something wrote
 * to it, and a sparse file of 1.9 GB was read whole, taking 2 GB of memory and some 17 s of CPU.
 */
export function readFileBeside(file: string, maxBytes: number): Buffer {
  const descriptor = openListedFileSync(file, { beside: true });
  try {
    const { size } = fstatSync(descriptor);
    if (size > maxBytes) throw new ChangedFileError(file, `is larger than ${maxBytes / MIB} MiB`);
    // Read up to the size seen: a file growing meanwhile is read no further.
    const bytes = Buffer.alloc(size);
    let read = 0;
    while (read < size) {
      const count = readSync(descriptor, bytes, read, size - read, null);
      if (count === 0) break;
      read += count;
    }
    return bytes.subarray(0, read);
  } finally {
    closeSync(descriptor);
  }
}

const MIB = 1024 * 1024;

/**
 * Why the file opened for `source` is not the one listed there: a folder on its path replaced by a
 * symlink since (which O_NOFOLLOW does not see) leads the open elsewhere, maybe outside the skills folder.
 * Where the system does not say what a descriptor opened (no /proc), nothing is known to have changed.
 */
function movedChange(source: string, opened: string | undefined): string | undefined {
  return opened === undefined || opened === source
    ? undefined
    : "now leads elsewhere: a folder on its path changed";
}

async function openedPath(descriptor: number): Promise<string | undefined> {
  try {
    return await readlink(`/proc/self/fd/${descriptor}`);
  } catch {
    return undefined;
  }
}

function openedPathSync(descriptor: number): string | undefined {
  try {
    return readlinkSync(`/proc/self/fd/${descriptor}`);
  } catch {
    return undefined;
  }
}
