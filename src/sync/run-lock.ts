/**
 * The run lock of a sync's target folder: taken, refreshed, checked before each change, and removed on
 * release or on a stop signal. Who holds one and whether that holder is gone: run-holder.ts; the turns
 * runs take to remove one: takeover.ts.
 */
import { randomUUID } from "node:crypto";
import { readFileSync, rmSync, utimesSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout } from "node:timers/promises";
import { endBySignal, makeFolder, RUN_STOP_SIGNALS, removeEmptyFolders } from "../shared/index.js";
import { createWith, createWithSync } from "./create-whole.js";
import {
  type Holder,
  holderIn,
  holderText,
  hostOf,
  isGone,
  isLeased,
  isStopped,
  LEASE_MS,
  readOrNone,
  type ThisProcess,
  thisProcess,
} from "./run-holder.js";
import { SpareFiles } from "./spare-files.js";
import { removeLeftovers, takeTurn } from "./takeover.js";

/**
 * In the target folder while a sync installs there: which process does. A second sync into the folder
 * would clear the first's staging folder and write the lock from a stale plan, so it waits its turn.
 */
export const RUN_LOCK_FILE = ".skills-mcp-sync.lock";

/** The run lock of a folder, held by this process until released. */
export interface RunLock {
  /** The first folder taking the lock made on the way to the target folder, if it made any. */
  readonly made: string | undefined;
  /**
   * Whether the lock still names this run: undefined when it does, else who it names now. Another run may
   * have taken it over while this one ran (an older sync's takeover of a live lock, or a lease run out
   * while this process was frozen): both then install at once. A lock gone meanwhile (an older sync's
   * release removed it) is taken again, when nothing else has taken it. Synchronous, so that a caller can
   * make its next change to the folder with nothing else of the process run in between.
   */
  check(): HeldElsewhere | undefined;
  /**
   * Runs `use`, synchronous, with the files the run set aside for its end given back (SpareFiles.lend): for
   * what it removes before the lock (its staging folder), once its connection opens no more. Release gives
   * them back for good.
   */
  withRoom<T>(use: () => T): T;
  /** Removes the lock, if it still names this run: one another run took over stays, that run's. */
  release(): Promise<void>;
}

/** What a stop signal (SIGINT, SIGTERM, SIGHUP) does besides removing the run lock, as it ends the process. */
export interface OnStop {
  /**
   * Synchronous, while the lock is still held: leaves the folder as a stop should (the staging folder).
   * `ours`: false when another run took the lock over meanwhile, whose files the staging folder holds too.
   */
  readonly tidy: (ours: boolean) => void;
  /** Once the lock is gone: says what the stop left. */
  readonly tell: (signal: NodeJS.Signals) => void;
}

const NOTHING_ON_STOP: OnStop = { tidy: () => undefined, tell: () => undefined };

/** Another process holds the folder's run lock, or a run lock there cannot be read. */
export interface HeldElsewhere {
  readonly heldBy: number | undefined;
  /**
   * The host the holder runs on, when not this machine (another container, another machine, one of the same
   * host name), as messages name it.
   */
  readonly host?: string;
  /** The lock is taken over once its holder leaves it untouched this long (a holder in another container). */
  readonly leaseMs?: number;
  /**
   * The holder's process is stopped (Ctrl-Z, SIGSTOP, or a background job writing to its terminal), so
   * it installs nothing until resumed: where it can be looked for (Linux, the same pid namespace).
   */
  readonly stopped?: true;
  readonly file: string;
}

/**
 * A holder refreshes its lock's modification time this often, whatever it is doing (its longest step,
 * auditing a 16 MiB skill, takes seconds): well within LEASE_MS, past which a lock of a sync in another
 * container of the machine is taken over.
 */
const REFRESH_MS = 10_000;

/**
 * The runs that hold a lock in this process: a lock naming this process and another run is not held.
 * Process-wide, not a field of an object a caller passes: a lock names a process, and every run of it
 * (several syncs of one process, each calling takeRunLock) must find the locks the others hold held. A
 * set per caller would have one run take over another's live lock as stale.
 */
const heldRuns = new Set<string>();

/** How often a run that finds another run taking over a stale lock looks again, and how long it waits. */
const TAKEOVER_TRIES = 20;
const TAKEOVER_WAIT_MS = 25;

/**
 * Takes the run lock of `folder` (made if missing): a file created only if none is there, naming this
 * run and process. A lock whose holder is gone (a sync killed with SIGKILL, in this container or another,
 * or on a machine since restarted) is taken over, by one run when several find it. The lock goes on
 * release, and on SIGINT, SIGTERM or SIGHUP (after `onStop.tidy`), while it still names this run.
 */
export async function takeRunLock(
  folder: string,
  onStop: OnStop = NOTHING_ON_STOP,
): Promise<RunLock | HeldElsewhere> {
  const made = await makeFolder(folder);
  const file = path.join(folder, RUN_LOCK_FILE);
  const me = thisProcess();
  const run = randomUUID();
  const text = holderText(me, run);
  let found: HeldElsewhere = { heldBy: undefined, file };
  for (let attempt = 0; attempt < TAKEOVER_TRIES; attempt++) {
    // Marked held first: another run of this process that reads the lock meanwhile must find it held.
    heldRuns.add(run);
    const created = await createWith(file, text).catch((error: unknown) => {
      heldRuns.delete(run);
      throw error;
    });
    if (created) {
      await removeLeftovers(file, me);
      return held(file, text, run, made, onStop);
    }
    heldRuns.delete(run);
    const current = await lockText(file);
    if (current === undefined) continue;
    const holder = holderIn(current);
    found = heldElsewhere(file, holder, me);
    if (holder === undefined || !isGone(holder, me, file, heldRuns)) return found;
    if (!removeStale(file, current)) await setTimeout(TAKEOVER_WAIT_MS);
  }
  return found;
}

/** A lock of `file` that names `holder` (undefined: names no process), as this process `me` sees it. */
function heldElsewhere(file: string, holder: Holder | undefined, me: ThisProcess): HeldElsewhere {
  const host = holder === undefined ? undefined : hostOf(holder, me);
  const leased = holder !== undefined && isLeased(holder, me);
  return {
    heldBy: holder?.pid,
    ...(host === undefined ? {} : { host }),
    ...(leased ? { leaseMs: LEASE_MS } : {}),
    ...(holder !== undefined && isStopped(holder, me) ? { stopped: true } : {}),
    file,
  };
}

/**
 * What the run lock holds; undefined when it went meanwhile. A folder in its place (made by hand) names no
 * process, as a file no sync wrote: Node's EISDIR would name neither it nor a way out.
 */
async function lockText(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    if (code === "ENOENT") return undefined;
    if (code === "EISDIR") return "";
    throw error;
  }
}

/** lockText, synchronously. */
function lockTextSync(file: string): string | undefined {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    if (code === "ENOENT") return undefined;
    if (code === "EISDIR") return "";
    throw error;
  }
}

/**
 * Removes the lock `file` if it still reads `text` (a stale lock, or the run's own on release), unless
 * another run has the turn to: false then. Runs that find the same stale lock take turns (takeTurn), and
 * each reads the lock again in its turn, so none removes a lock that another has taken meanwhile (that one
 * reads otherwise: a new id and time).
 */
function removeStale(file: string, text: string): boolean {
  const leave = takeTurn(file, text);
  if (leave === undefined) return false;
  // Synchronous, as takeTurn is: a run's release removes its lock within the room it was given.
  try {
    if (lockTextSync(file) === text) rmSync(file, { force: true });
  } finally {
    leave();
  }
  return true;
}

/**
 * Removes the lock while it still reads `text`, in a turn taken as a run taking over a stale lock takes
 * one (removeStale), so that none takes it over between the read and the removal and loses its lock to
 * it. A live run's turn is waited for a while, then passed over. Each try runs synchronously with the
 * `spares` given back, which are set aside again while it waits: what the process runs meanwhile would
 * take them, and under a low limit leave it no file to take the turn or read the lock with.
 */
async function removeOwn(file: string, text: string, spares: SpareFiles): Promise<void> {
  for (let attempt = 0; attempt < TAKEOVER_TRIES; attempt++) {
    let removed: boolean;
    try {
      removed = spares.lend(() => removeStale(file, text));
    } catch {
      // No marker can be made (the folder made read-only meanwhile): removed without a turn.
      break;
    }
    if (removed) return;
    await setTimeout(TAKEOVER_WAIT_MS);
  }
  spares.lend(() => {
    if (readOrNone(() => readFileSync(file, "utf8")) === text) rmSync(file, { force: true });
  });
}

/**
 * A lock taken (`file`, holding `text`), and refreshed while it still holds `text`: removed on release, or
 * by a signal that ends the process (with the staging folder), which then ends as it would have; each time
 * only while it holds `text`, so that a lock another run took over stays that run's.
 */
function held(file: string, text: string, run: string, made: string | undefined, onStop: OnStop): RunLock {
  // Given back as the run ends, for the files its end opens: see SpareFiles.
  const spares = SpareFiles.take();
  // Within the spares, synchronously: under a low limit every other descriptor may be taken, and a refresh
  // that cannot read the lock skipped its touch, so that a sync in another container took the lock over
  // once LEASE_MS had passed. Its read is a few hundred bytes, every REFRESH_MS.
  const refresh = setInterval(() => {
    spares.lend(() => {
      try {
        const now = new Date();
        if (lockTextSync(file) === text) utimesSync(file, now, now);
      } catch {
        // Gone or unreadable: the next check finds out.
      }
    });
  }, REFRESH_MS);
  refresh.unref();
  const onSignal = removeOnStop(file, text, made, onStop, spares);
  for (const signal of RUN_STOP_SIGNALS) process.once(signal, onSignal);
  return {
    made,
    check: () => {
      // Gone (an older sync's release removed it): taken again, unless another run was quicker.
      const current = lockTextSync(file) ?? (createWithSync(file, text) ? text : lockTextSync(file));
      if (current === text) return undefined;
      return heldElsewhere(file, current === undefined ? undefined : holderIn(current), thisProcess());
    },
    withRoom: (use) => spares.lend(use),
    release: async () => {
      clearInterval(refresh);
      for (const signal of RUN_STOP_SIGNALS) process.off(signal, onSignal);
      // Held until removed: a run of this process that reads the lock meanwhile must not take it over.
      try {
        await removeOwn(file, text, spares);
      } finally {
        spares.giveBack();
        heldRuns.delete(run);
      }
    },
  };
}

/**
 * What a stop signal does to the lock `file` taken holding `text`: tidies the folder (onStop), removes the
 * lock while it still holds `text`, and the folders `made` for it while they are empty (a stop before
 * anything was fetched, as a failure does), and ends the process as the signal would have. Synchronous
 * throughout.
 */
function removeOnStop(
  file: string,
  text: string,
  made: string | undefined,
  onStop: OnStop,
  spares: SpareFiles,
): (signal: NodeJS.Signals) => void {
  return (signal) => {
    spares.giveBack();
    // In a turn, as release's removeOwn: a run that takes the lock over meanwhile (one that found this
    // process frozen past LEASE_MS) keeps it. A handler cannot wait for a turn another run has: the lock
    // then stays, and the staging folder (the next run clears both), as that run may be taking it over.
    let leave: (() => void) | undefined;
    try {
      leave = takeTurn(file, text);
    } catch {
      // No marker can be made (a folder made read-only): neither can the lock be removed.
    }
    const ours = leave !== undefined && readOrNone(() => readFileSync(file, "utf8")) === text;
    try {
      onStop.tidy(ours);
      if (ours) rmSync(file, { force: true });
    } catch {
      // What stays is taken over by the next run, this process being gone: the process still ends.
    } finally {
      try {
        leave?.();
      } catch {
        // A marker that stays is passed by the next run, its holder gone.
      }
    }
    // Once the marker is gone too. Never throws: a folder that cannot be removed stays.
    if (ours && made !== undefined) removeEmptyFolders(path.dirname(file), made);
    onStop.tell(signal);
    // Also as a container's PID 1 (the image's `sync`), and past src/main.ts's listener, which stands
    // aside for this one.
    endBySignal(signal);
  };
}
