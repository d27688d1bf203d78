import { createHash, randomUUID } from "node:crypto";
import { readFileSync, readlinkSync, rmSync } from "node:fs";
import { link, readFile, rm, stat, utimes, writeFile } from "node:fs/promises";
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
   * release removed it) is taken again, when nothing else has taken it.
   */
  check(): Promise<HeldElsewhere | undefined>;
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
    if (created) return held(file, text, run, made, onStop);
    heldRuns.delete(run);
    const current = await lockText(file);
    if (current === undefined) continue;
    const holder = holderIn(current);
    found = heldElsewhere(file, holder, me);
    if (holder === undefined || !(await isGone(holder, me, file))) return found;
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
    file,
  };
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

/** Field 22 of `/proc/<pid>/stat`, counted after the name in parentheses (which may hold anything). */
function startOf(pid: number | "self"): string | undefined {
  const line = readOrNone(() => readFileSync(`/proc/${pid}/stat`, "utf8"));
  return line?.slice(line.lastIndexOf(")") + 2).split(" ")[19];
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
 * Whether the holder of a lock is provably gone. Its process is looked for only where its id means what
 * it meant to the holder: on this host, in this pid namespace, since this boot. A lock from another
 * container of this machine is gone once not refreshed for LEASE_MS; one from a host since restarted is
 * gone; one from another machine is held.
 */
async function isGone(holder: Holder, me: Omit<Holder, "startedAt">, file: string): Promise<boolean> {
  // A lock written before these fields: the process id is all there is, read as it always was.
  if (holder.host === undefined) return !isRunning(holder.pid);
  const sameKernel = holder.boot !== undefined && holder.boot === me.boot;
  if (holder.host === me.host && holder.boot !== undefined && me.boot !== undefined && !sameKernel) {
    return true;
  }
  if (isLeased(holder, me)) {
    const refreshed = await stat(file).then(
      (found) => found.mtimeMs,
      () => Date.now(),
    );
    return Date.now() - refreshed > LEASE_MS;
  }
  if (!samePids(holder, me)) return false;
  if (holder.pid === process.pid) return holder.run === undefined || !heldRuns.has(holder.run);
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

/**
 * Removes the stale lock that reads `text`, unless another run is doing so: false then. Runs that find the
 * same stale lock take turns under a marker named after it, and each reads the lock again under it, so
 * none removes a lock that another has taken meanwhile (that one reads otherwise: a new id and time).
 */
async function removeStale(file: string, text: string): Promise<boolean> {
  const marker = `${file}.${createHash("sha256").update(text).digest("hex").slice(0, 16)}.takeover`;
  if (!(await createWith(marker, `${process.pid}\n`))) return false;
  try {
    if ((await lockText(file)) === text) await rm(file, { force: true });
  } finally {
    await rm(marker, { force: true });
  }
  return true;
}

/**
 * Removes the lock while it still reads `text`, under the marker a run taking over a stale lock works under
 * (removeStale), so that none takes it over between the read and the removal and loses its lock to it. A
 * marker that stays (its run killed outright) is waited for a while, then passed over.
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

/** What the run lock holds; undefined when it went meanwhile. */
async function lockText(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
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
    // Not under the takeover marker (release's removeOwn): a handler cannot wait for one. A run that takes
    // the lock over between this read and its removal, one that found this process frozen past LEASE_MS,
    // loses its lock to it.
    const ours = readOrNone(() => readFileSync(file, "utf8")) === text;
    onStop.tidy(ours);
    if (ours) rmSync(file, { force: true });
    onStop.tell(signal);
    // Also as a container's PID 1 (the image's `sync`), and past src/main.ts's listener, which stands
    // aside for this one.
    endBySignal(signal);
  };
  for (const signal of STOP_SIGNALS) process.once(signal, onSignal);
  return {
    made,
    check: async () => {
      // Gone (an older sync's release removed it): taken again, unless another run was quicker.
      const current =
        (await lockText(file)) ?? ((await createWith(file, text)) ? text : await lockText(file));
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
