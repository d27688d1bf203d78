import { type FSWatcher, watch } from "node:fs";
import { readdir, readFile, rm, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { gitAt, gitFeeding } from "./git.js";

/**
 * How often a running fetch's download is measured when nothing says git wrote: a listing of the store's
 * pack folder (a few files) and a stat of each new one. Alone, it let a fetch pass its bound by what
 * arrived in a quarter of a second (a 4 MiB bound, a local fetch: up to 9.5 MiB written).
 */
const POLL_MS = 250;

/**
 * How soon after git writes into the pack folder it is measured: what git writes meanwhile (in pieces of
 * a few KiB) costs no measure of its own. A fetch passes its bound by what arrives in this time and one
 * measure's.
 */
const SETTLE_MS = 10;

/**
 * Git settings of a bounded fetch: what it brings is kept as one pack however few its objects (below
 * the unpack limit, 100 by default, git unpacked them into loose objects spread over 256 folders, which
 * only a deep walk could measure), and no automatic gc runs within it (a repack writes new packs of what
 * the store held before, which would count as brought, and gone old ones). The limit is set under both
 * names: a fetch reads `transfer.unpackLimit` before `fetch.unpackLimit`, so a build machine whose git
 * config set the former had a few huge objects written loose, unmeasured, past any bound.
 */
export const BOUNDED_FETCH_CONFIG = [
  "-c",
  "transfer.unpackLimit=1",
  "-c",
  "fetch.unpackLimit=1",
  "-c",
  "gc.auto=0",
  "-c",
  "maintenance.auto=false",
] as const;

/** Thrown when a fetch brought more than its bound: it was stopped, and what it brought removed. */
export class FetchTooLargeError extends Error {
  override name = "FetchTooLargeError";
}

/**
 * Runs `fetch`, a git fetch into the bare repository `store` that stops when the signal it is given
 * aborts, and stops it once what it has written into the store's pack folder (git's temporary
 * `tmp_pack_*` as it downloads, then the pack) passes `most` bytes: measured soon after git writes there
 * (the folder is watched), and every {@link POLL_MS} where the file system tells nothing (or the watch
 * cannot be had: a machine out of inotify watches); measured again when git is done, so a download
 * faster than the watch is refused too. Either way the files it wrote there are removed, and
 * the store's `shallow` file and, when `movesRefs`, its refs are put back as they were, so the store holds
 * nothing of it; then throws {@link FetchTooLargeError}. `signal` (the run's) stops it as before.
 * A fetch that names no ref to write (`movesRefs` false) leaves the refs out: listing them is a git
 * process of its own for every source fetched, for nothing to restore.
 */
export async function boundedFetch(
  store: string,
  most: number,
  movesRefs: boolean,
  signal: AbortSignal | undefined,
  fetch: (signal: AbortSignal) => Promise<unknown>,
): Promise<void> {
  const packs = path.join(store, "objects", "pack");
  const before = new Set(await namesIn(packs));
  const shallow = await readFile(path.join(store, "shallow")).catch(() => undefined);
  const refs = movesRefs ? await refsOf(store) : undefined;
  const watchdog = new AbortController();
  let watching: Promise<void> = Promise.resolve();
  // At most one measure waits behind the running one: on a slow disk, writes must not queue up measures.
  let queued = false;
  const measure = () => {
    if (queued) return;
    queued = true;
    watching = watching.then(async () => {
      queued = false;
      if (!watchdog.signal.aborted && (await broughtBytes(packs, before)) > most) watchdog.abort();
    });
  };
  // Watched until git writes, then measured, then watched again: a watch left open called back for every
  // few KiB git wrote (0.5 s of CPU a fetch of 96 MiB; so, 0.25 s, and 0.1 to 0.3 s with the poll alone).
  let done = false;
  let watcher: FSWatcher | undefined;
  let settling: NodeJS.Timeout | undefined;
  const watchUntilWritten = () => {
    watcher = watchFolder(packs, () => {
      if (settling !== undefined) return;
      watcher?.close();
      settling = setTimeout(() => {
        measure();
        void watching.then(() => {
          settling = undefined;
          if (!done) watchUntilWritten();
        });
      }, SETTLE_MS);
    });
  };
  const timer = setInterval(measure, POLL_MS);
  watchUntilWritten();
  let failure: unknown;
  try {
    await fetch(signal === undefined ? watchdog.signal : AbortSignal.any([signal, watchdog.signal]));
  } catch (error) {
    failure = error;
  } finally {
    done = true;
    watcher?.close();
    clearInterval(timer);
    clearTimeout(settling);
    await watching;
  }
  const over =
    watchdog.signal.aborted || (failure === undefined && (await broughtBytes(packs, before)) > most);
  if (!over) {
    if (failure !== undefined) throw failure;
    return;
  }
  await removeBrought(store, packs, before, shallow, refs);
  throw new FetchTooLargeError(`brought more than ${most} bytes`);
}

/**
 * Calls `changed` whenever the file system says something in `folder` changed; undefined when it cannot
 * watch it (the folder missing, no inotify watch left), and silent once the watch fails: the poll measures.
 */
function watchFolder(folder: string, changed: () => void): FSWatcher | undefined {
  try {
    const watcher = watch(folder, { persistent: false }, changed);
    watcher.on("error", () => watcher.close());
    return watcher;
  } catch {
    return undefined;
  }
}

/** The names in `folder`, none when it is missing. */
async function namesIn(folder: string): Promise<string[]> {
  return readdir(folder).catch((): string[] => []);
}

/** The bytes of the files in `packs` that were not there `before`: what the running fetch has written. */
async function broughtBytes(packs: string, before: ReadonlySet<string>): Promise<number> {
  const sizes = await Promise.all(
    (await namesIn(packs))
      .filter((name) => !before.has(name))
      // A temporary file git renamed or removed since the listing counts nothing.
      .map((name) =>
        stat(path.join(packs, name)).then(
          ({ size }) => size,
          () => 0,
        ),
      ),
  );
  return sizes.reduce((sum, size) => sum + size, 0);
}

/** Each ref of the store and the object it names, as `for-each-ref` writes them: `<object> <ref>`. */
async function refsOf(store: string): Promise<Map<string, string>> {
  const listing = await gitAt(store, undefined).raw(["for-each-ref", "--format=%(objectname) %(refname)"]);
  const refs = new Map<string, string>();
  for (const line of listing.split("\n")) {
    const space = line.indexOf(" ");
    if (space > 0) refs.set(line.slice(space + 1), line.slice(0, space));
  }
  return refs;
}

/**
 * Removes what a fetch wrote into the store: its files in `packs` (a pack, its index, git's temporary
 * files), and what it recorded of them, the `shallow` file (a shallow fetch) and the refs it moved (a
 * full fetch, done before they are checked; `refs` undefined for one that moves none), which would name
 * objects the store no longer holds, and those it pruned, which name objects it still holds.
 */
async function removeBrought(
  store: string,
  packs: string,
  before: ReadonlySet<string>,
  shallow: Buffer | undefined,
  refs: ReadonlyMap<string, string> | undefined,
): Promise<void> {
  const brought = (await namesIn(packs)).filter((name) => !before.has(name));
  await Promise.all(brought.map((name) => rm(path.join(packs, name), { force: true })));
  const shallowFile = path.join(store, "shallow");
  if (shallow === undefined) await rm(shallowFile, { force: true });
  else await writeFile(shallowFile, shallow);
  if (refs === undefined) return;
  const moved: string[] = [];
  const now = await refsOf(store);
  for (const [ref, object] of now) {
    const was = refs.get(ref);
    if (was === undefined) moved.push(`delete ${ref}\n`);
    else if (was !== object) moved.push(`update ${ref} ${was}\n`);
  }
  // A fetch that prunes deletes the refs gone upstream before it downloads; the objects they name are kept.
  for (const [ref, was] of refs) if (!now.has(ref)) moved.push(`update ${ref} ${was}\n`);
  if (moved.length > 0) await gitFeeding(store, moved.join("")).raw(["update-ref", "--stdin"]);
}
