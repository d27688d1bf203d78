import path from "node:path";
import { setTimeout } from "node:timers/promises";
import { isDeepStrictEqual } from "node:util";
import {
  notAFolderOnPath,
  packageVersion,
  plural,
  problemInWords,
  removeEmptyFolders,
  type SystemProblems,
} from "../shared/index.js";
import { apply, countDone, lockChangeAlone, type RunHold, type SyncCounts, writesAnything } from "./apply.js";
import { connectionFailure, proxyOfFailure } from "./connect-failure.js";
import { type Connection, connect, listWithin, MAX_LISTING_BYTES } from "./connection.js";
import { describeError } from "./describe-error.js";
import { readLock } from "./folder.js";
import { leftOutOfExtension } from "./left-out.js";
import { skillRoot } from "./listed-files.js";
import type { Lock, LockSource } from "./lock.js";
import { SyncError, type SyncOptions } from "./options.js";
import { OUT_OF_FILES, outOfFilesHint } from "./out-of-files.js";
import type { Step } from "./plan.js";
import { planRun } from "./plan-run.js";
import { type DownloadContext, PackReads } from "./reads.js";
import { type HeldElsewhere, type OnStop, type RunLock, takeRunLock } from "./run-lock.js";
import { clearStagingOnStop, MovedAside, STAGING_DIR, Staging } from "./staging.js";
import { forgetUnusedKept } from "./verified.js";

export interface SyncReport {
  /** The plan, sorted by name. */
  readonly steps: readonly Step[];
  /** What was done (a sync), or what the plan would do (dry run, check). */
  readonly counts: SyncCounts;
  /**
   * A dry run or a check: why a sync would rewrite the lock file though it would change no skill's folder
   * (see lockChangeAlone); undefined when it would not, and for a sync.
   */
  readonly lockChange?: string;
  /**
   * A dry run or a check: why sync owns no skill there from this server, its lock file gone (`missing`)
   * or recording none from it (`empty`, as a sync after the lock was lost leaves it); undefined when it
   * owns some.
   */
  readonly ownsNone?: "missing" | "empty";
}

/**
 * Brings the skills the server serves (in the scope asked for) into `folder`, one folder per skill, and
 * records what it wrote in the lock file there; or, for a dry run or a check, says what it would do.
 */
export async function syncSkills(options: SyncOptions): Promise<SyncReport> {
  if (options.mode !== "sync") return planAndCarryOut(options);
  const { folder } = options;
  const movedAside = new MovedAside();
  const onStop = {
    // The skills fetched so far, staged beside the folder, go; the files verified stay for the next run.
    // With the lock another run's, so is what the staging folder holds: only the copies moved aside go back.
    tidy: (ours: boolean) => (ours ? clearStagingOnStop(folder, movedAside) : movedAside.putBack()),
    // The progress said "fetched and verified" of skills that a stop leaves out: say what the folder holds.
    tell: (signal: NodeJS.Signals) => {
      options.progress.finish();
      options.progress.note(
        `skills-mcp sync: stopped by ${signal}: each skill in ${folder} is as it was or as the server serves it; the skills fetched are not put in place, but the files they verified are kept for the next run: run sync again`,
      );
    },
  };
  const runLock = await waitForRunLock(options, onStop);
  // No run lock where nothing can be written: a run with nothing to write needs none, as a check does.
  if ("unwritable" in runLock)
    return planAndCarryOut(options, (plan) => write(options, plan, { unwritable: runLock.unwritable }));
  let synced = false;
  try {
    const stillHeld = () => {
      const other = runLock.check();
      if (other === undefined) return;
      throw new SyncError(
        `${holderOf(other)} took over the run lock of ${folder} while this sync ran, so both were installing there: this one stops without writing more and leaves the folder to it; run sync again once it is done`,
      );
    };
    const report = await planAndCarryOut(options, (plan) =>
      write(options, plan, { movedAside, stillHeld, withRoom: runLock.withRoom }),
    );
    synced = true;
    return report;
  } finally {
    await runLock.release();
    if (!synced && runLock.made !== undefined) removeEmptyFolders(folder, runLock.made);
  }
}

/** How long a sync waits for another that holds the folder's run lock, unless told (`--wait`). */
const RUN_LOCK_WAIT_MS = 60_000;
/** How often a sync waiting for the run lock tries to take it. */
const RUN_LOCK_RETRY_MS = 500;

/**
 * Takes the folder's run lock, waiting up to `options.lockWaitMs` for a sync that holds it (two editor
 * sessions, a cron job and a hook), saying once that it waits; then fails, naming the holder and how to
 * clear a lock it left. `unwritable`: no lock can be taken where nothing can be written.
 */
async function waitForRunLock(
  options: SyncOptions,
  onStop: OnStop,
): Promise<RunLock | { readonly unwritable: NodeJS.ErrnoException }> {
  const { folder, lockWaitMs = RUN_LOCK_WAIT_MS } = options;
  const deadline = Date.now() + lockWaitMs;
  for (let waited = false; ; waited = true) {
    const runLock = await takeRunLock(folder, onStop).catch((error: unknown) => {
      if (isSystemError(error) && NOT_WRITABLE.has(error.code ?? "")) return { unwritable: error };
      if (!isSystemError(error)) throw error;
      throw new SyncError(
        `cannot sync into ${folder}: ${notAFolder(folder, error) ?? noFileThere(error) ?? noRoom(error) ?? error.message}`,
      );
    });
    if (!("heldBy" in runLock)) return runLock;
    // A sync writes its lock whole (created by a link): one naming no process is none of a sync's, and
    // waiting would not end it.
    if (runLock.heldBy === undefined) {
      throw new SyncError(
        `${runLock.file} names no process, so no sync wrote it as it is: remove it if no sync is installing into ${folder}`,
      );
    }
    const who = holderOf(runLock);
    const lease =
      runLock.leaseMs === undefined
        ? ""
        : ` (taken over once left untouched for ${runLock.leaseMs / 60_000} minutes)`;
    // A sync stopped in another terminal (Ctrl-Z) is not "installing", nor gone: the lock is not to remove.
    const stopped =
      runLock.stopped === true
        ? `; it is stopped (Ctrl-Z, or SIGSTOP) and installs nothing until resumed: fg in its terminal, or kill -CONT ${runLock.heldBy}`
        : "";
    // Whether it waits is the option's alone, not how long taking the lock took on a busy machine.
    if (waited ? Date.now() >= deadline : lockWaitMs === 0) {
      const after = waited ? ` after ${seconds(lockWaitMs)} of waiting` : "";
      if (stopped !== "") {
        throw new SyncError(
          `${who} holds the run lock of ${folder}${after} but is stopped (Ctrl-Z, or SIGSTOP), so it installs nothing until resumed: resume it (fg in its terminal, or kill -CONT ${runLock.heldBy}) or end it, then run sync again`,
        );
      }
      const still = waited ? "still " : "";
      const then = waited ? "run sync again once it is done (or give a longer --wait)" : "wait for it";
      throw new SyncError(
        `${who} is ${still}installing into ${folder}${after}; ${then}${lease}, or remove ${runLock.file} if it is gone`,
      );
    }
    if (!waited) {
      options.progress.note(
        `${who} is installing into ${folder}: waiting up to ${seconds(lockWaitMs)} for it to finish${lease}${stopped}`,
      );
    }
    await setTimeout(Math.max(0, Math.min(RUN_LOCK_RETRY_MS, deadline - Date.now())));
  }
}

/** The sync that holds a run lock, as messages name it: `another sync (pid 12 on build-7)`. */
function holderOf({ heldBy, host }: HeldElsewhere): string {
  const where = host === undefined ? "" : ` on ${host}`;
  return heldBy === undefined ? "another sync" : `another sync (pid ${heldBy}${where})`;
}

function seconds(ms: number): string {
  return plural(Math.round(ms / 100) / 10, "second");
}

/** What a file where the folder (or one above it) should be means, said without the system call's words. */
function notAFolder(folder: string, error: NodeJS.ErrnoException): string | undefined {
  if (error.code !== "EEXIST" && error.code !== "ENOTDIR") return undefined;
  const found =
    notAFolderOnPath(folder) ?? "it is a file, or a file is on its path, where a folder is needed";
  return `${found}; give another folder with --to`;
}

/**
 * A file that cannot be made in a folder that is there: a file system that takes none (/proc) or a folder
 * deleted while in use answers ENOENT, which Node words as "no such file or directory, open '<the lock's
 * temporary file>'", a file the user never named.
 */
function noFileThere(error: NodeJS.ErrnoException): string | undefined {
  return error.code === "ENOENT" && error.syscall === "open"
    ? "no file can be made in it (ENOENT, no such file or directory, though it is a folder): its file system takes none (as /proc), or it was deleted while in use"
    : undefined;
}

/**
 * Room to write that ran out: the disk full, a quota, a file size limit. The system's words ("EFBIG: file
 * too large, write") name no file, and a user cannot tell whether the folder was left half written: no
 * skill was, as each is swapped in whole.
 */
const NO_ROOM_LEFT = "each skill there is as it was or as the server serves it";
const NO_ROOM: SystemProblems = {
  ENOSPC: { fix: `${NO_ROOM_LEFT}: free some space (or give a folder on another disk), then run sync again` },
  EDQUOT: { fix: `${NO_ROOM_LEFT}: free some space (or give a folder on another disk), then run sync again` },
  EFBIG: { fix: `${NO_ROOM_LEFT}: raise the limit (ulimit -f), then run sync again` },
  EMFILE: {
    what: OUT_OF_FILES.EMFILE.who,
    fix: `${NO_ROOM_LEFT}: ${OUT_OF_FILES.EMFILE.fix}, then run sync again`,
  },
  // The whole system's table, filled by every process: no limit of this one's to raise.
  ENFILE: {
    what: "the system has too many files open, this process's and other programs'",
    fix: `${NO_ROOM_LEFT}: ${OUT_OF_FILES.ENFILE.fix}, then run sync again`,
  },
};

function noRoom(error: NodeJS.ErrnoException): string | undefined {
  return error.code !== undefined && error.code in NO_ROOM ? problemInWords(error, NO_ROOM) : undefined;
}

/** Why a folder cannot be written to: its permissions, or a read-only file system. */
const NOT_WRITABLE = new Set(["EACCES", "EPERM", "EROFS"]);

/** What a run found: the plan, and what carrying it out needs. */
interface Plan {
  readonly steps: readonly Step[];
  readonly context: DownloadContext;
  readonly lock: Lock | undefined;
  readonly source: LockSource | undefined;
  /** The packs asked for changed since the last sync from the server. */
  readonly packsChanged: boolean;
}

/**
 * How a sync reaches the folder: holding its run lock, with the record of what it moves aside, which the
 * lock's stop handler puts back; or without, as the folder cannot be written to (why).
 */
type Access = RunHold | { readonly unwritable: NodeJS.ErrnoException };

/**
 * Connects, plans, and, given `write` (a sync, not a check or a dry run), carries out the plan while the
 * server is still connected. Whether the run lock is held is the caller's: it decides what `write` may do.
 */
async function planAndCarryOut(
  options: SyncOptions,
  write?: (plan: Plan) => Promise<SyncCounts>,
): Promise<SyncReport> {
  const { folder } = options;
  const lock = await readLock(folder).catch((error: unknown) => {
    if (!isSystemError(error)) throw error;
    throw new SyncError(`cannot read ${folder}: ${notAFolder(folder, error) ?? error.message}`);
  });
  const server = options.server.url.href;
  let connection: Connection;
  try {
    connection = await connect(options.server, options.era, packageVersion(), (seconds, status) =>
      options.progress.note(`the server asks to wait ${seconds} s (HTTP ${status}): waiting`),
    );
  } catch (error) {
    throw connectionFailure(options.server, error);
  }
  try {
    if (!connection.skills.supported) {
      throw new SyncError(
        `${server} does not serve the MCP Skills extension (io.modelcontextprotocol/skills), which sync reads; give the URL of a skills-mcp server's MCP endpoint (…/mcp)`,
      );
    }
    const listing = await listWithin(MAX_LISTING_BYTES, () => connection.skills.list()).catch(
      (error: unknown) => {
        const why = describeError(error);
        const { through, hint } = proxyOfFailure(options.server.url, error, why);
        throw new SyncError(
          `cannot list the skills of ${server}${through}: ${why}${hint || outOfFilesHint(why)}`,
        );
      },
    );
    // Otherwise a user would find fewer skills installed than list_skills shows, and not know why.
    const leftOut = await leftOutOfExtension(connection.client, listing);
    if (leftOut !== undefined) options.progress.note(leftOut.note);
    const context: DownloadContext = {
      server: options.server.url,
      client: connection.client,
      skills: connection.skills,
      readAnswers: connection.readAnswers,
      skillRoots: new Set(listing.skills.map(skillRoot)),
      packReads: new PackReads(),
    };
    const source = lock?.sources.find((item) => item.server === server);
    const steps = await planRun(options, listing, context, lock, source, leftOut?.named ?? new Set());
    const packsBefore = source?.scope.packs;
    const movedFrom = packsBefore !== undefined && !samePacks(packsBefore, options.scope.packs);
    if (movedFrom && steps.some((step) => step.kind === "remove")) {
      // Two commands with different --pack into one folder undo each other: say so, once.
      options.progress.note(
        `the packs asked for changed since the last sync from ${server} (${packList(packsBefore)}, now ${packList(options.scope.packs)}): the skills they no longer select are removed; give every --pack in one command to keep them all`,
      );
    }
    if (write === undefined) {
      const lockChange = lockChangeAlone(options, steps, source);
      return {
        steps,
        counts: countDone(steps, new Set()),
        ...(lockChange === undefined ? {} : { lockChange }),
        ...(lock === undefined
          ? { ownsNone: "missing" }
          : Object.keys(source?.skills ?? {}).length === 0
            ? { ownsNone: "empty" }
            : {}),
      };
    }
    return { steps, counts: await write({ steps, context, lock, source, packsChanged: movedFrom }) };
  } catch (error) {
    // The folder cannot be read or written (EACCES, ENOTDIR, ENOSPC): say which, without a stack.
    if (isSystemError(error))
      throw new SyncError(`cannot sync into ${folder}: ${noRoom(error) ?? error.message}`);
    throw error;
  } finally {
    await connection.close();
  }
}

/** Carries out `plan` in the folder, if it changes anything there; what `access` allows. */
async function write(options: SyncOptions, plan: Plan, access: Access): Promise<SyncCounts> {
  const { folder, progress } = options;
  const { steps, context, lock, source } = plan;
  for (const step of steps) {
    if (step.kind === "skip") progress.note(`${step.name}: skipped: ${step.reason}`);
  }
  if ("movedAside" in access) {
    access.stillHeld();
    const forgotten = await forgetUnusedKept(path.join(folder, STAGING_DIR), options.server.url.href);
    if (forgotten !== undefined) progress.note(forgotten);
  }
  if (!writesAnything(options, steps, source)) {
    progress.finish();
    // Only a run holding the run lock may touch the staging folder: another run may be staging there.
    const leftOver = "movedAside" in access ? Staging.clear(folder, options.server.url.href) : undefined;
    if (leftOver !== undefined) progress.note(leftOver);
    return countDone(steps, new Set());
  }
  if ("unwritable" in access) throw cannotWrite(folder, access.unwritable, countDone(steps, new Set()));
  return apply(options, steps, context, lock, source, plan.packsChanged, access);
}

/**
 * A folder sync may not write to, with something to write: what, and what the user can do. The system's
 * message named the run lock's temporary file, which the user never gave.
 */
function cannotWrite(folder: string, error: NodeJS.ErrnoException, counts: SyncCounts): SyncError {
  // A folder missing below one it may not write to: the system's words name that one.
  const what =
    error.syscall === "mkdir"
      ? `it cannot be made (${error.message})`
      : `it cannot be written to (${error.message.split(", ")[0] ?? error.message})`;
  const work =
    counts.added + counts.updated + counts.removed === 0
      ? "its lock file to bring up to date"
      : `${counts.added} to add, ${counts.updated} to update, ${counts.removed} to remove`;
  // No user may write to a read-only file system (a mount, a container's volume given `:ro`).
  const then =
    error.code === "EROFS"
      ? "its file system is mounted read-only: mount it read-write"
      : "run sync as a user who may write to it";
  return new SyncError(
    `cannot sync into ${folder}: ${what}, and a sync has ${work} there: ${then}, or give another folder with --to`,
  );
}

function samePacks(a: readonly string[], b: readonly string[]): boolean {
  return isDeepStrictEqual([...a].sort(), [...b].sort());
}

function packList(packs: readonly string[]): string {
  return packs.length === 0 ? "every pack" : `--pack ${packs.join(" --pack ")}`;
}

function isSystemError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === "string";
}
