import { createHash, randomUUID } from "node:crypto";
import { linkSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync } from "node:fs";
import { link, readdir, readFile, rm, utimes, writeFile } from "node:fs/promises";
import { hostname } from "node:os";
import path from "node:path";
import { setTimeout } from "node:timers/promises";
import { makeFolder } from "../make-folder.js";
import { endBySignal, STOP_SIGNALS } from "../stop-signals.js";

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
  /** Removes the lock, if it still names this run: one another run took over stays, that run's. */
  release(): Promise<void>;
}

/** What a stop signal (SIGINT, SIGTERM) does besides removing the run lock, as it ends the process. */
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
  /** The host the holder runs on, when not this one (another container, another machine). */
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
 * Who holds a run lock. `pid` and `startedAt` are all an older sync's lock holds. The rest tells one
 * process from another where process ids do not: containers (each sync is PID 1 of its own), pid
 * namespaces, a machine restarted, a process id used again. Linux gives `pidNamespace`, `boot` and `start`.
 */
interface Holder {
  readonly pid: number;
  readonly startedAt: string;
  /** Unique to the run that took the lock. */
  readonly run?: string;
  readonly host?: string;
  /** `/proc/self/ns/pid`'s link: `pid:[4026531836]`. */
  readonly pidNamespace?: string;
  /** `/proc/sys/kernel/random/boot_id`: the kernel's, also in a container. */
  readonly boot?: string;
  /** The process's start time, in clock ticks since boot (`/proc/self/stat`). */
  readonly start?: string;
}

/**
 * A holder refreshes its lock's modification time this often. Where its process cannot be looked for (a
 * sync in another container of the same machine), a lock not refreshed for LEASE_MS is one whose holder
 * was killed outright; a live one refreshes it whatever it is doing, its longest step (auditing a 16 MiB
 * skill) taking seconds.
 */
const REFRESH_MS = 10_000;
const LEASE_MS = 120_000;

/** The runs that hold a lock in this process: a lock naming this process and another run is not held. */
const heldRuns = new Set<string>();

/** How often a run that finds another run taking over a stale lock looks again, and how long it waits. */
const TAKEOVER_TRIES = 20;
const TAKEOVER_WAIT_MS = 25;

/**
 * The takeover markers (see takeTurn) this process holds, by the run id in their text: one naming this
 * process and none of these was left by it (its removal failed), and is stale.
 */
const heldMarkers = new Set<string>();

/**
 * How many stale markers a run passes on the way to a turn to take a lock over: each one is left by a run
 * killed outright in the few system calls it holds one for.
 */
const MAX_MARKERS = 8;

/**
 * Takes the run lock of `folder` (made if missing): a file created only if none is there, naming this
 * run and process. A lock whose holder is gone (a sync killed with SIGKILL, in this container or another,
 * or on a machine since restarted) is taken over, by one run when several find it. The lock goes on
 * release, and on SIGINT or SIGTERM (after `onStop.tidy`).
 */
export async function takeRunLock(
  folder: string,
  onStop: OnStop = NOTHING_ON_STOP,
): Promise<RunLock | HeldElsewhere> {
  const made = await makeFolder(folder);
  const file = path.join(folder, RUN_LOCK_FILE);
  const me = thisProcess();
  const run = randomUUID();
  const text = `${JSON.stringify({ ...me, startedAt: new Date().toISOString(), run })}\n`;
  let found: HeldElsewhere = { heldBy: undefined, file };
  for (let attempt = 0; attempt < TAKEOVER_TRIES; attempt++) {
    // Marked held first: another run of this process that reads the lock meanwhile must find it held.
    heldRuns.add(run);
    const created = await createWith(file, text).catch((error: unknown) => {
      heldRuns.delete(run);
      throw error;
    });
    if (created) {
      await removeLeftovers(folder, me);
      return held(file, text, run, made, onStop);
    }
    heldRuns.delete(run);
    const current = await lockText(file);
    if (current === undefined) continue;
    const holder = holderIn(current);
    found = heldElsewhere(file, holder, me);
    if (holder === undefined || !isGone(holder, me, file, heldRuns)) return found;
    if (!(await removeStale(file, current))) await setTimeout(TAKEOVER_WAIT_MS);
  }
  return found;
}

/** A lock of `file` that names `holder` (undefined: names no process), as this process `me` sees it. */
function heldElsewhere(
  file: string,
  holder: Holder | undefined,
  me: Omit<Holder, "startedAt">,
): HeldElsewhere {
  const host = holder?.host !== undefined && holder.host !== me.host ? holder.host : undefined;
  const leased = holder !== undefined && isLeased(holder, me);
  return {
    heldBy: holder?.pid,
    ...(host === undefined ? {} : { host }),
    ...(leased ? { leaseMs: LEASE_MS } : {}),
    ...(holder !== undefined && isStopped(holder, me) ? { stopped: true } : {}),
    file,
  };
}

/** Whether the holder's process is there and stopped (state T, or t under a debugger), as Linux says. */
function isStopped(holder: Holder, me: Omit<Holder, "startedAt">): boolean {
  if (holder.start === undefined || !samePids(holder, me)) return false;
  const fields = statOf(holder.pid);
  // Its own start time: the id is not another process's since.
  return fields?.[19] === holder.start && (fields[0] === "T" || fields[0] === "t");
}

/** This process as a lock names it; what Linux's /proc does not give (elsewhere) is left out. */
function thisProcess(): Omit<Holder, "startedAt" | "run"> & { readonly host: string } {
  const pidNamespace = readOrNone(() => readlinkSync("/proc/self/ns/pid"));
  const boot = readOrNone(() => readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim());
  const start = startOf("self");
  return {
    pid: process.pid,
    host: hostname(),
    ...(pidNamespace === undefined ? {} : { pidNamespace }),
    ...(boot === undefined ? {} : { boot }),
    ...(start === undefined ? {} : { start }),
  };
}

/** Field 22 of `/proc/<pid>/stat`: the process's start time. */
function startOf(pid: number | "self"): string | undefined {
  return statOf(pid)?.[19];
}

/**
 * The fields of `/proc/<pid>/stat` from the third on (the state first), counted after the name in
 * parentheses (which may hold anything); undefined where there is none.
 */
function statOf(pid: number | "self"): string[] | undefined {
  const line = readOrNone(() => readFileSync(`/proc/${pid}/stat`, "utf8"));
  return line?.slice(line.lastIndexOf(")") + 2).split(" ");
}

/** What `read` reads, or undefined when it cannot (a file of /proc another system lacks, a lock gone). */
function readOrNone(read: () => string): string | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/**
 * Whether the holder of a lock (or of a takeover marker, `file`) is provably gone. Its process is looked
 * for only where its id means what it meant to the holder: on this host, in this pid namespace, since
 * this boot. One from another container of this machine is gone once `file` is not refreshed for
 * LEASE_MS; one from a host since restarted is gone; one from another machine is held. `heldHere`: the
 * run ids of what this process holds, as a file naming this process may be another run's of it.
 */
function isGone(
  holder: Holder,
  me: Omit<Holder, "startedAt">,
  file: string,
  heldHere: ReadonlySet<string>,
): boolean {
  // A lock written before these fields: the process id is all there is, read as it always was.
  if (holder.host === undefined) return !isRunning(holder.pid);
  const sameKernel = holder.boot !== undefined && holder.boot === me.boot;
  if (holder.host === me.host && holder.boot !== undefined && me.boot !== undefined && !sameKernel) {
    return true;
  }
  if (isLeased(holder, me)) return ageOf(file) > LEASE_MS;
  if (!samePids(holder, me)) return false;
  if (holder.pid === process.pid) return holder.run === undefined || !heldHere.has(holder.run);
  if (!isRunning(holder.pid)) return true;
  // Running, but maybe another process given the id since.
  const start = startOf(holder.pid);
  return holder.start !== undefined && start !== undefined && start !== holder.start;
}

/** Whether the holder's process id means here what it meant to the holder. */
function samePids(holder: Holder, me: Omit<Holder, "startedAt">): boolean {
  const sameKernel = holder.boot !== undefined && holder.boot === me.boot;
  return (
    holder.host === me.host &&
    holder.pidNamespace === me.pidNamespace &&
    (sameKernel || me.boot === undefined)
  );
}

/**
 * Whether the holder runs in another container of this machine (another host name or pid namespace, the
 * same kernel): its process cannot be looked for, and its lock is held while it refreshes it.
 */
function isLeased(holder: Holder, me: Omit<Holder, "startedAt">): boolean {
  return (
    holder.host !== undefined && holder.boot !== undefined && holder.boot === me.boot && !samePids(holder, me)
  );
}

/** How long ago `file` was last modified (refreshed); 0 when it is gone. */
function ageOf(file: string): number {
  try {
    return Date.now() - statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/**
 * Removes the stale lock that reads `text`, unless another run is doing so: false then. Runs that find the
 * same stale lock take turns (takeTurn), and each reads the lock again in its turn, so none removes a lock
 * that another has taken meanwhile (that one reads otherwise: a new id and time).
 */
async function removeStale(file: string, text: string): Promise<boolean> {
  const leave = takeTurn(file, text);
  if (leave === undefined) return false;
  try {
    if ((await lockText(file)) === text) await rm(file, { force: true });
  } finally {
    leave();
  }
  return true;
}

/**
 * Takes the turn to remove the lock reading `text`: a marker file beside it, named after it, created only
 * if none is there, naming this process as a lock does. Returns what ends the turn (removing the marker),
 * or undefined while a live run has it. A marker whose holder is gone (killed with SIGKILL in its turn:
 * by the same rules as a lock's, a marker from another container once 2 minutes old) is passed, not
 * removed: the runs that find it all go on to the marker named after the lock and it, one of them gets
 * that, and it removes the stale ones it passed once the lock it took turns for is gone. Removing a stale
 * marker instead could remove a fresh one another run made in its place. Synchronous: a stop signal's
 * handler takes it too.
 */
function takeTurn(file: string, text: string): (() => void) | undefined {
  const me = thisProcess();
  const id = randomUUID();
  const mine = `${JSON.stringify({ ...me, startedAt: new Date().toISOString(), run: id })}\n`;
  const passed: string[] = [];
  let marker = markerOf(file, text);
  for (let step = 0; step < MAX_MARKERS; step++) {
    // Marked held first, as a lock is: another run of this process that reads the marker finds it held.
    heldMarkers.add(id);
    let created: boolean;
    try {
      created = createWithSync(marker, mine);
    } catch (error) {
      heldMarkers.delete(id);
      throw error;
    }
    if (created) {
      const taken = marker;
      return () => {
        for (const done of [taken, ...passed]) rmSync(done, { force: true });
        heldMarkers.delete(id);
      };
    }
    heldMarkers.delete(id);
    const found = readOrNone(() => readFileSync(marker, "utf8"));
    // Gone meanwhile (its turn ended): tried again.
    if (found === undefined) continue;
    if (!isStaleMarker(marker, found, me)) return undefined;
    passed.push(marker);
    marker = markerOf(file, `${text}${found}`);
  }
  return undefined;
}

/** The takeover marker of the lock `file` named after `text`. */
function markerOf(file: string, text: string): string {
  return `${file}.${createHash("sha256").update(text).digest("hex").slice(0, 16)}.takeover`;
}

/**
 * Whether the takeover marker `marker`, reading `text`, was left by a run that no longer has its turn. An
 * older sync's names its process id alone; one that names no process is none a sync wrote whole, and is
 * stale once LEASE_MS old, as any older sync's is (its id may be another process's since).
 */
function isStaleMarker(marker: string, text: string, me: Omit<Holder, "startedAt">): boolean {
  const older = /^\d+\n?$/.test(text) ? Number(text) : undefined;
  const holder =
    holderIn(text) ?? (older === undefined || older <= 0 ? undefined : { pid: older, startedAt: "" });
  if (holder === undefined || holder.host === undefined) {
    if (ageOf(marker) > LEASE_MS) return true;
  }
  return holder !== undefined && isGone(holder, me, marker, heldMarkers);
}

/**
 * Removes from `folder` what runs killed outright left beside the lock this run just took: takeover
 * markers whose holder is gone (stale ones no run passed, as the lock they were for went), and
 * temporary files (createWith) older than LEASE_MS. Best effort: a file that stays only takes room.
 */
async function removeLeftovers(folder: string, me: Omit<Holder, "startedAt">): Promise<void> {
  const names = await readdir(folder).catch(() => []);
  for (const name of names) {
    if (!name.startsWith(`${RUN_LOCK_FILE}.`)) continue;
    const file = path.join(folder, name);
    const text = name.endsWith(".takeover") ? readOrNone(() => readFileSync(file, "utf8")) : undefined;
    const left =
      text === undefined ? name.endsWith(".tmp") && ageOf(file) > LEASE_MS : isStaleMarker(file, text, me);
    if (left) await rm(file, { force: true }).catch(() => undefined);
  }
}

/**
 * Removes the lock while it still reads `text`, in a turn taken as a run taking over a stale lock takes
 * one (removeStale), so that none takes it over between the read and the removal and loses its lock to
 * it. A live run's turn is waited for a while, then passed over.
 */
async function removeOwn(file: string, text: string): Promise<void> {
  for (let attempt = 0; attempt < TAKEOVER_TRIES; attempt++) {
    // No marker can be made (the folder made read-only meanwhile): removed as before, without one.
    const removed = await removeStale(file, text).catch(() => undefined);
    if (removed === undefined) break;
    if (removed) return;
    await setTimeout(TAKEOVER_WAIT_MS);
  }
  if ((await lockText(file).catch(() => undefined)) === text) await rm(file, { force: true });
}

/** Creates `file` holding `text`, whole, unless something is there: written beside it, then linked. */
async function createWith(file: string, text: string): Promise<boolean> {
  const written = `${file}.${randomUUID()}.tmp`;
  try {
    await writeFile(written, text, { flag: "wx", mode: 0o644 });
    await link(written, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    await rm(written, { force: true });
  }
}

/** createWith, synchronously: for a stop signal's handler, which cannot wait. */
function createWithSync(file: string, text: string): boolean {
  const written = `${file}.${randomUUID()}.tmp`;
  try {
    writeFileSync(written, text, { flag: "wx", mode: 0o644 });
    linkSync(written, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  } finally {
    rmSync(written, { force: true });
  }
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

/** Who a run lock names; undefined when it names no process. Fields of another type are left out. */
function holderIn(text: string): Holder | undefined {
  let read: unknown;
  try {
    read = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof read !== "object" || read === null) return undefined;
  const fields = read as Record<string, unknown>;
  const { pid } = fields;
  if (typeof pid !== "number" || !Number.isSafeInteger(pid) || pid <= 0) return undefined;
  const named = (key: keyof Holder) => (typeof fields[key] === "string" ? { [key]: fields[key] } : {});
  return {
    pid,
    startedAt: typeof fields.startedAt === "string" ? fields.startedAt : "",
    ...named("run"),
    ...named("host"),
    ...named("pidNamespace"),
    ...named("boot"),
    ...named("start"),
  };
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process runs, as another user.
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * A lock taken (`file`, holding `text`), and refreshed while it still holds `text`: removed on release, or
 * by a signal that ends the process (with the staging folder), which then ends as it would have; each time
 * only while it holds `text`, so that a lock another run took over stays that run's.
 */
function held(file: string, text: string, run: string, made: string | undefined, onStop: OnStop): RunLock {
  const ours = async () => (await lockText(file).catch(() => undefined)) === text;
  const refresh = setInterval(() => {
    void ours().then((still) => {
      const now = new Date();
      if (still) utimes(file, now, now).catch(() => undefined);
    });
  }, REFRESH_MS);
  refresh.unref();
  const onSignal = (signal: NodeJS.Signals) => {
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
    onStop.tell(signal);
    // Also as a container's PID 1 (the image's `sync`), and past src/main.ts's listener, which stands
    // aside for this one.
    endBySignal(signal);
  };
  for (const signal of STOP_SIGNALS) process.once(signal, onSignal);
  return {
    made,
    check: () => {
      // Gone (an older sync's release removed it): taken again, unless another run was quicker.
      const current = lockTextSync(file) ?? (createWithSync(file, text) ? text : lockTextSync(file));
      if (current === text) return undefined;
      return heldElsewhere(file, current === undefined ? undefined : holderIn(current), thisProcess());
    },
    release: async () => {
      clearInterval(refresh);
      for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
      // Held until removed: a run of this process that reads the lock meanwhile must not take it over.
      try {
        await removeOwn(file, text);
      } finally {
        heldRuns.delete(run);
      }
    },
  };
}
