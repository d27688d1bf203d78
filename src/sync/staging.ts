/**
 * The staging folder in the target folder, and one run's folder in it: skills written there, then swapped
 * into the target folder, old copies moved aside until replaced; the lock file written there, then renamed
 * over the old one. What a run leaves there is cleared by the next one (or by a stop signal's handler).
 */
import { randomUUID } from "node:crypto";
import { type Dirent, lstatSync, readdirSync, renameSync, rmdirSync, rmSync } from "node:fs";
import { mkdir, mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { errorMessage, makeFolder } from "../shared/index.js";
import { holdsExactly, lstatOrUndefined, MAX_COPY_BYTES, readFolderState } from "./folder.js";
import { type InstalledSkill, LOCK_FILE, type LockToWrite, lockText } from "./lock.js";
import { SyncError } from "./options.js";
import { renameRefused } from "./rename-refused.js";
import { keptFolderName, VERIFIED_DIR } from "./verified.js";

/**
 * In the target folder, where skills are written before they are swapped in. Hidden, and one level
 * deeper than any client looks for a SKILL.md, so that no half-written skill is ever loaded.
 */
export const STAGING_DIR = ".skills-mcp-staging";

/**
 * Where one run writes skills before swapping them into the target folder: on the same file system, so
 * that each swap is a rename. Opening it removes what a killed run left there.
 */
export class Staging {
  private constructor(
    private readonly folder: string,
    /** The URL of the server the run syncs from: what it keeps is its own (see keptFolderName). */
    private readonly server: string,
    private readonly dir: string,
    /** The run's record of the copies it moved aside, which a stop signal puts back. */
    private readonly movedAside: MovedAside,
  ) {}

  /** The staging folder, which this run's folder is in. */
  get parent(): string {
    return path.dirname(this.dir);
  }

  /** What an earlier run verified and kept (VERIFIED_DIR) stays, for the run to open (VerifiedFiles). */
  static async open(folder: string, server: string, movedAside: MovedAside): Promise<Staging> {
    await makeFolder(folder);
    const parent = path.join(folder, STAGING_DIR);
    // rm removes a symlink itself, never what it points to. What a past run could not remove (see close)
    // stays, and this run works beside it, in a folder of its own.
    const found = await lstatOrUndefined(parent);
    if (found?.isDirectory() === true) {
      try {
        clearBesideVerified(parent);
      } catch {
        // What stays (see close): this run works beside it.
      }
    } else if (found !== undefined) await rm(parent, { recursive: true, force: true });
    await mkdir(parent).catch(async (error: unknown) => {
      if ((await lstatOrUndefined(parent))?.isDirectory() !== true) throw error;
    });
    return new Staging(folder, server, await mkdtemp(path.join(parent, "run-")), movedAside);
  }

  /**
   * Writes the lock whole or not at all: in this run's folder first, then renamed over it. A run killed
   * between the two leaves the new text there, where the next run's open removes it, not beside the lock.
   * `held` throws when the run no longer holds the run lock: called right before the rename.
   */
  async writeLock(lock: LockToWrite, held: () => void): Promise<void> {
    const written = path.join(this.dir, `lock-${randomUUID()}.tmp`);
    try {
      await writeFile(written, lockText(lock), { flag: "wx", mode: 0o644 });
      held();
      await rename(written, path.join(this.folder, LOCK_FILE));
    } catch (error) {
      await rm(written, { force: true });
      // Refused as a program holds the lock open (Windows), or for a flag on it: the system's words do not say.
      const advice = renameRefused(error, "it");
      if (advice === undefined) throw error;
      throw new SyncError(
        `cannot sync into ${this.folder}: cannot replace its lock file ${LOCK_FILE}: ${errorMessage(error)}; ${advice}`,
      );
    }
  }

  /**
   * Writes `files` (checked relative paths) into a new folder for `name` and returns it. Every file is
   * created new (`wx`), in folders this run made, so nothing is written through a link; a file that
   * another path needs as a folder fails here, before anything is swapped in.
   */
  async stage(name: string, files: ReadonlyMap<string, Uint8Array>): Promise<string> {
    const staged = await mkdtemp(path.join(this.dir, `${name}-`));
    const root = path.join(staged, name);
    await mkdir(root);
    for (const [relative, bytes] of files) {
      const target = path.join(root, ...relative.split("/"));
      await makeFolder(path.dirname(target), 0o755);
      await writeFile(target, bytes, { flag: "wx", mode: 0o644 });
    }
    return root;
  }

  /**
   * Puts a staged skill at `<folder>/<name>`: the old folder (`replacing`, the copy sync installed) is
   * moved aside, the new one renamed in, the old one removed. Each skill is old or new at every moment but
   * the one between the two renames; a sync killed there (SIGKILL) leaves it missing, and the next run
   * installs it again (a stop signal puts the old one back: clearStagingOnStop). A new skill's name that
   * something took while the sync ran is left alone: it is not sync's; so is an old copy changed here
   * since the plan read it (see moveAsideIfSame). `held` throws when the run no longer holds the run
   * lock: called right before the first rename.
   */
  async swapIn(
    name: string,
    staged: string,
    replacing: InstalledSkill | undefined,
    held: () => void,
  ): Promise<void> {
    const target = path.join(this.folder, name);
    const existing = await lstatOrUndefined(target);
    if (existing !== undefined && replacing === undefined)
      throw new Error(`something named ${name} appeared there meanwhile`);
    const aside =
      existing === undefined || replacing === undefined
        ? undefined
        : await this.moveAsideIfSame(name, "old", replacing, held);
    if (aside === undefined) held();
    try {
      await rename(staged, target);
    } catch (error) {
      if (aside !== undefined) await rename(aside, target);
      throw error;
    } finally {
      if (aside !== undefined) this.movedAside.delete(aside);
    }
    // The new copy is in: the swap is done, whatever becomes of the old one. One that cannot be deleted (a
    // folder in it made read-only, a file another program holds open on Windows) stays aside, for close.
    if (aside !== undefined) await rm(aside, { recursive: true, force: true }).catch(() => undefined);
  }

  /**
   * Removes `<folder>/<name>`, the copy sync `installed`, at once (a rename), then its files. `held` as
   * for swapIn.
   */
  async remove(name: string, installed: InstalledSkill, held: () => void): Promise<void> {
    const aside = await this.moveAsideIfSame(name, "removed", installed, held);
    this.movedAside.delete(aside);
    // Gone from the folder: what cannot be deleted stays aside, as in swapIn.
    await rm(aside, { recursive: true, force: true }).catch(() => undefined);
  }

  /**
   * Moves `<folder>/<name>` into this run's folder and returns where, when it still holds exactly the
   * files of `installed`; else throws, leaving it in place. The plan read it before the skills were
   * fetched, which may take hours: a file edited or added here meanwhile is the user's, not sync's to
   * delete. Read in place, then moved at once: moved first, a copy that is not sync's would have to be put
   * back, which can fail (Windows keeps a folder whose file another program holds open from moving).
   * `held` is called right before the rename, after the read, which may take a while.
   */
  private async moveAsideIfSame(
    name: string,
    why: string,
    installed: InstalledSkill,
    held: () => void,
  ): Promise<string> {
    const maxFiles = Object.keys(installed.files).length;
    const state = await readFolderState(this.folder, name, { maxFiles, maxBytes: MAX_COPY_BYTES });
    if (!holdsExactly(state, installed.files)) {
      const reason = state.kind === "other" ? state.reason : "its files differ from what sync wrote";
      throw new Error(
        `changed here while sync ran (${reason}): left alone; delete its folder to get the server's copy`,
      );
    }
    const from = path.join(this.folder, name);
    const to = path.join(this.dir, `${why}-${name}-${randomUUID()}`);
    // Until the caller is done with it: a stop meanwhile puts it back (clearStagingOnStop). Synchronous, so
    // that no stop signal's handler runs while it is in flight: an async rename runs on another thread, and
    // could land after the handler found nothing to put back, into the staging folder it then removes.
    held();
    this.movedAside.add(to, from);
    try {
      renameSync(from, to);
    } catch (error) {
      this.movedAside.delete(to);
      throw error;
    }
    return to;
  }

  /**
   * Removes this run's folder in the staging folder, and nothing else there: for a run whose run lock
   * another run took over, which stages there too. Undefined when done, else why not. Synchronous, as
   * close is.
   */
  removeOwn(): string | undefined {
    try {
      rmSync(this.dir, { recursive: true, force: true });
      return undefined;
    } catch (error) {
      return `cannot remove ${this.dir}: ${errorMessage(error)}; remove it yourself`;
    }
  }

  /**
   * Removes the staging folder; undefined when done, else why not (what a sync could not delete).
   * `keepVerified`: a run that did not get as far as putting its skills in place keeps what it verified.
   * Synchronous: the run's end calls it with the files it set aside given back (RunLock.withRoom), which
   * only code run before the process next turns its event loop is sure to have.
   */
  close(keepVerified = false): string | undefined {
    if (!keepVerified) return Staging.clear(this.folder, this.server);
    const parent = path.join(this.folder, STAGING_DIR);
    let failure: string | undefined;
    try {
      clearBesideVerified(parent);
    } catch (error) {
      failure = `cannot remove ${parent}: ${errorMessage(error)}; remove it yourself`;
    }
    // Nothing kept (a run failed before it staged a skill): the folder is left as the run found it, as a
    // stop leaves it. rmdir removes only an empty folder: this server's, when it kept nothing, and no other.
    const verified = path.join(parent, VERIFIED_DIR);
    for (const empty of [path.join(verified, keptFolderName(this.server)), verified, parent]) {
      try {
        rmdirSync(empty);
      } catch {
        break;
      }
    }
    return failure;
  }

  /**
   * Removes what runs left in `folder`'s staging folder (a run killed, an old copy that could not be
   * deleted), if anything, and what runs from `server` kept; what runs from other servers kept stays,
   * for their next run. For a run that holds the run lock but has nothing to stage, or has put its skills
   * in place. Undefined when done, else why not. Synchronous, as close is.
   */
  static clear(folder: string, server: string): string | undefined {
    const parent = path.join(folder, STAGING_DIR);
    const failed = (remove: () => void) => {
      try {
        remove();
        return undefined;
      } catch (error) {
        return `cannot remove ${parent}: ${errorMessage(error)}; remove it yourself`;
      }
    };
    let found: ReturnType<typeof lstatSync>;
    try {
      found = lstatSync(parent, { throwIfNoEntry: false });
    } catch {
      return undefined;
    }
    if (found === undefined) return undefined;
    if (!found.isDirectory()) return failed(() => rmSync(parent, { force: true }));
    // Each goes on past what it cannot remove, and so does the other after it.
    const failures = [
      failed(() => clearBesideVerified(parent)),
      failed(() => clearVerified(path.join(parent, VERIFIED_DIR), keptFolderName(server))),
    ];
    // Empty unless something stayed or another server's run kept files: rmdir removes only an empty folder.
    for (const empty of [path.join(parent, VERIFIED_DIR), parent]) {
      try {
        rmdirSync(empty);
      } catch {
        // Not empty, or gone: it stays as it is.
      }
    }
    return failures.find((failure) => failure !== undefined);
  }
}

/**
 * Removes from the kept files' folder `verified` everything but the folders of other servers' runs
 * (`own` is this server's), going on past what cannot be removed, then throws the first failure. A plain
 * file there is an older sync's, kept for any server: this run's to remove, as that sync's runs did.
 */
function clearVerified(verified: string, own: string): void {
  const found = lstatSync(verified, { throwIfNoEntry: false });
  if (found === undefined) return;
  // A symlink or a file here is not one a run made: removed itself, nothing followed.
  if (!found.isDirectory()) rmSync(verified, { force: true });
  else removeAllBut(verified, (entry) => entry.isDirectory() && entry.name !== own);
}

/**
 * Removes everything in the staging folder `parent` but the files verified (VERIFIED_DIR), going on past
 * what cannot be removed (stopping there left every leftover after it), then throws the first failure.
 */
function clearBesideVerified(parent: string): void {
  removeAllBut(parent, (entry) => entry.name === VERIFIED_DIR);
}

/**
 * Removes each entry of `folder` but those `kept`, going on past what cannot be removed; throws the first
 * failure.
 */
function removeAllBut(folder: string, kept: (entry: Dirent) => boolean): void {
  let failure: unknown;
  for (const entry of readdirSync(folder, { withFileTypes: true })) {
    if (kept(entry)) continue;
    try {
      rmSync(path.join(folder, entry.name), { recursive: true, force: true });
    } catch (error) {
      failure ??= error;
    }
  }
  if (failure !== undefined) throw failure;
}

/**
 * Skill folders a run moved into its staging folder (by where they are now, with where they were) that
 * it has not yet replaced or decided to remove: a copy being checked may be one the user changed. Each
 * run has its own, which its Staging fills and its stop signal's handler reads (clearStagingOnStop).
 */
export class MovedAside {
  readonly #from = new Map<string, string>();

  add(aside: string, from: string): void {
    this.#from.set(aside, from);
  }

  delete(aside: string): void {
    this.#from.delete(aside);
  }

  /** Renames each back where it was, synchronously, as a stop signal ends the process. */
  putBack(): void {
    for (const [aside, from] of this.#from) {
      try {
        renameSync(aside, from);
      } catch {
        // Something is in its place (the new copy): the old one goes with the staging folder.
      }
    }
  }
}

/**
 * As a stop signal ends the process: puts back the skills' folders the run moved aside and had not yet
 * replaced (`movedAside`), then removes what a run staged in `folder`, but the files it verified, which
 * the next run takes instead of fetching them again. Synchronous: the process ends right after.
 */
export function clearStagingOnStop(folder: string, movedAside: MovedAside): void {
  const parent = path.join(folder, STAGING_DIR);
  movedAside.putBack();
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    return;
  }
  for (const name of names) {
    if (name === VERIFIED_DIR) continue;
    try {
      removeAsStopped(path.join(parent, name));
    } catch {
      // What cannot be deleted (a read-only folder in an old copy) stays: the next run says so.
    }
  }
  // Nothing kept (stopped before a skill was staged): the folder is left as a run found it. rmdir
  // removes only an empty folder: this run's own kept folder, when it kept nothing, and no other.
  const verified = path.join(parent, VERIFIED_DIR);
  let kept: string[] = [];
  try {
    kept = readdirSync(verified);
  } catch {
    // None: nothing was kept.
  }
  for (const name of kept) {
    try {
      rmdirSync(path.join(verified, name));
    } catch {
      // Holding files (kept by this run or another server's): it stays.
    }
  }
  for (const empty of [verified, parent]) {
    try {
      rmdirSync(empty);
    } catch {
      return;
    }
  }
}

/** How many times a stop tries to remove a run's folder while what was in flight lands in it. */
const STOP_REMOVE_TRIES = 4;
const STOP_REMOVE_WAIT_MS = 5;

/**
 * Removes `dir` and all it holds, synchronously, as a stop ends the process. The run's reads and writes
 * still in flight on other threads land meanwhile, and one landing in `dir` as it is removed (a skill's
 * folder staged, a file written) fails the removal (ENOTEMPTY), leaving `dir` there: tried again after a
 * pause. No more can start: the handler holds the one thread that starts them.
 */
function removeAsStopped(dir: string): void {
  for (let attempt = 1; ; attempt++) {
    try {
      rmSync(dir, { recursive: true, force: true });
      return;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOTEMPTY" || attempt === STOP_REMOVE_TRIES) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, STOP_REMOVE_WAIT_MS);
    }
  }
}
