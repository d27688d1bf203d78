import { execFile } from "node:child_process";
import { lstat, mkdtemp, readdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { isRunning } from "../../src/shared/index.js";

/** The record in a work folder of the run that made it, for a later run to tell whether it still runs. */
const OWNER_FILE = "owner.json";
/** Where in a work folder `out` waits while the new folder is renamed into its place. */
export const PREVIOUS = "previous";
/** A work folder without a record of its run (or of another host) is left alone until this old. */
const UNOWNED_STALE_MS = 24 * 60 * 60 * 1000;

/**
 * A temporary folder beside `out` (so that renames into `out` stay on one file system), for the caller
 * to remove. It records which process on which host made it: a run that is killed cannot remove it, and
 * the next run does (see {@link removeStaleWorkFolders}).
 */
export async function makeWorkFolder(out: string): Promise<string> {
  const folder = await mkdtemp(path.join(path.dirname(out), workFolderPrefix(out)));
  await writeFile(path.join(folder, OWNER_FILE), JSON.stringify({ pid: process.pid, host: hostname() }));
  return folder;
}

function workFolderPrefix(out: string): string {
  return `.${path.basename(out)}-fetch-`;
}

/**
 * Removes the work folders beside `out` that runs stopped before they could (killed, or the machine lost
 * power), and only those: a folder whose run is on this host and no longer running, or, with no record of
 * its run on this host, one untouched for a day. A run still going, here or on another host sharing the
 * folder, keeps its own. A run killed between its two renames left `out` in its work folder and none in
 * its place: that one is put back first.
 */
export async function removeStaleWorkFolders(out: string, log: (line: string) => void): Promise<void> {
  const parent = path.dirname(out);
  const prefix = workFolderPrefix(out);
  let names: string[];
  try {
    names = await readdir(parent);
  } catch {
    return;
  }
  for (const name of names) {
    // mkdtemp adds six characters.
    if (!name.startsWith(prefix) || name.length !== prefix.length + 6) continue;
    const folder = path.join(parent, name);
    const why = await whyStale(folder);
    if (why === undefined) continue;
    if (await putBack(path.join(folder, PREVIOUS), out)) {
      log(
        `fetch-skills: put back ${out}, which a run killed while it swapped the new folder in left in ${folder}`,
      );
    }
    await removeTree(folder);
    log(`fetch-skills: removed ${folder}, left by a run that was stopped (${why})`);
  }
}

/** Renames `previous` to `out` when `out` is missing and `previous` is there; says whether it did. */
async function putBack(previous: string, out: string): Promise<boolean> {
  if (
    await lstat(out).then(
      () => true,
      () => false,
    )
  )
    return false;
  try {
    await rename(previous, out);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return false;
    throw error;
  }
}

/**
 * Removes `dir` and all it holds. A checkout may hold paths that pass PATH_MAX once joined to where it
 * is, which Node (and git) cannot remove by their whole path; `rm` walks down folder by folder.
 */
export async function removeTree(dir: string): Promise<void> {
  try {
    await rm(dir, { recursive: true, force: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENAMETOOLONG") throw error;
    await promisify(execFile)("rm", ["-rf", "--", dir]);
  }
}

/** Why the work folder `folder` belongs to no running fetch, or undefined when it may. */
async function whyStale(folder: string): Promise<string | undefined> {
  const info = await lstat(folder).catch(() => undefined);
  if (info === undefined || !info.isDirectory()) return undefined;
  const owner = await readOwner(folder);
  if (owner !== undefined && owner.host === hostname()) {
    return isRunning(owner.pid) ? undefined : `its process ${owner.pid} is gone`;
  }
  return Date.now() - info.mtimeMs > UNOWNED_STALE_MS ? "untouched for more than a day" : undefined;
}

async function readOwner(folder: string): Promise<{ pid: number; host: string } | undefined> {
  try {
    const { pid, host } = JSON.parse(await readFile(path.join(folder, OWNER_FILE), "utf8")) as {
      pid?: unknown;
      host?: unknown;
    };
    const valid = typeof pid === "number" && Number.isInteger(pid) && pid > 0 && typeof host === "string";
    return valid ? { pid, host } : undefined;
  } catch {
    return undefined;
  }
}
