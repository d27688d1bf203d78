/**
 * Who holds a run lock or a takeover marker (see takeover.ts), as its text names it, and whether that
 * holder is provably gone: its process looked for where its id means what it meant to the holder.
 */
import { readFileSync, readlinkSync, statSync } from "node:fs";
import { hostname } from "node:os";
import { isRunning, statOf } from "../shared/index.js";

/**
 * Who holds a run lock. `pid` and `startedAt` are all an older sync's lock holds. The rest tells one
 * process from another where process ids do not: containers (each sync is PID 1 of its own), pid
 * namespaces, a machine restarted, two machines of one host name sharing a network folder, a process id
 * used again. Linux gives `pidNamespace`, `boot` and `start`, and most Linux systems `machine`.
 */
export interface Holder {
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
  /**
   * `/etc/machine-id` (systemd, D-Bus): kept across restarts, another on another machine. Without it, a
   * lock of this host name from another boot may be this machine's before a restart or another machine's.
   */
  readonly machine?: string;
}

/** This process as a lock names it (thisProcess). */
export type ThisProcess = Omit<Holder, "startedAt" | "run"> & { readonly host: string };

/**
 * Where a holder's process cannot be looked for (a sync in another container of the same machine), a lock
 * or marker not refreshed for this long is one whose holder was killed outright; a live holder refreshes
 * its lock far more often (see run-lock.ts's REFRESH_MS).
 */
export const LEASE_MS = 120_000;

/** This process as a lock names it; what Linux's /proc does not give (elsewhere) is left out. */
export function thisProcess(): ThisProcess {
  const pidNamespace = readOrNone(() => readlinkSync("/proc/self/ns/pid"));
  const boot = readOrNone(() => readFileSync("/proc/sys/kernel/random/boot_id", "utf8").trim());
  const start = startOf("self");
  const machine = machineId();
  return {
    pid: process.pid,
    host: hostname(),
    ...(pidNamespace === undefined ? {} : { pidNamespace }),
    ...(boot === undefined ? {} : { boot }),
    ...(start === undefined ? {} : { start }),
    ...(machine === undefined ? {} : { machine }),
  };
}

/** This machine's id (systemd's, else D-Bus's); undefined where there is none, or an empty one (an image's). */
function machineId(): string | undefined {
  for (const file of ["/etc/machine-id", "/var/lib/dbus/machine-id"]) {
    const id = readOrNone(() => readFileSync(file, "utf8").trim());
    if (id !== undefined && id !== "") return id;
  }
  return undefined;
}

/** The text of a lock or marker naming the run `run` of this process `me`, taken now (read by holderIn). */
export function holderText(me: ThisProcess, run: string): string {
  return `${JSON.stringify({ ...me, startedAt: new Date().toISOString(), run })}\n`;
}

/** Who a run lock names; undefined when it names no process. Fields of another type are left out. */
export function holderIn(text: string): Holder | undefined {
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
    ...named("machine"),
  };
}

/**
 * Whether the holder of a lock (or of a takeover marker, `file`) is provably gone. Its process is looked
 * for only where its id means what it meant to the holder: on this host, in this pid namespace, since
 * this boot. One from another container of this machine is gone once `file` is not refreshed for
 * LEASE_MS; one from this machine before a restart is gone; one from another machine is held; one from
 * another boot of this host name that no machine id places (either of the last two) is gone once not
 * refreshed for LEASE_MS. `heldHere`: the run ids of what this process holds, as a file naming this
 * process may be another run's of it.
 */
export function isGone(
  holder: Holder,
  me: ThisProcess,
  file: string,
  heldHere: ReadonlySet<string>,
): boolean {
  // A lock written before these fields: the process id is all there is, read as it always was.
  if (holder.host === undefined) return !isRunning(holder.pid);
  if (anotherBoot(holder, me) && sameMachine(holder, me) === true) return true;
  if (isLeased(holder, me)) return ageOf(file) > LEASE_MS;
  if (!samePids(holder, me)) return false;
  if (holder.pid === process.pid) return holder.run === undefined || !heldHere.has(holder.run);
  if (!isRunning(holder.pid)) return true;
  // Running, but maybe another process given the id since.
  const start = startOf(holder.pid);
  return holder.start !== undefined && start !== undefined && start !== holder.start;
}

/**
 * Whether the holder's process cannot be looked for, and its lock is held while it refreshes it: it runs
 * in another container of this machine (another host name or pid namespace, the same kernel), or under
 * this host name since another boot where no machine id says whether of this machine (then gone) or of
 * another one given the same name, sharing the folder over a network (then maybe running).
 */
export function isLeased(holder: Holder, me: ThisProcess): boolean {
  if (holder.host === undefined || holder.boot === undefined) return false;
  if (holder.boot === me.boot) return !samePids(holder, me);
  return anotherBoot(holder, me) && sameMachine(holder, me) === undefined;
}

/**
 * Where the holder runs, as messages name it, when not on this machine as this process is: undefined
 * when it is (or may be: the same host name, and nothing to tell them apart).
 */
export function hostOf(holder: Holder, me: ThisProcess): string | undefined {
  if (holder.host === undefined) return undefined;
  if (holder.host !== me.host) return holder.host;
  if (!anotherBoot(holder, me)) return undefined;
  const same = sameMachine(holder, me);
  if (same === false) return `${holder.host}, another machine of that name`;
  return same === undefined
    ? `${holder.host}, another machine of that name or this one before a restart`
    : undefined;
}

/** Whether the holder's process is there and stopped (state T, or t under a debugger), as Linux says. */
export function isStopped(holder: Holder, me: ThisProcess): boolean {
  if (holder.start === undefined || !samePids(holder, me)) return false;
  const fields = statOf(holder.pid);
  // Its own start time: the id is not another process's since.
  return fields?.[19] === holder.start && (fields[0] === "T" || fields[0] === "t");
}

/** How long ago `file` was last modified (refreshed); 0 when it is gone. */
export function ageOf(file: string): number {
  try {
    return Date.now() - statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

/** What `read` reads, or undefined when it cannot (a file of /proc another system lacks, a lock gone). */
export function readOrNone(read: () => string): string | undefined {
  try {
    return read();
  } catch {
    return undefined;
  }
}

/** Whether the holder's process id means here what it meant to the holder. */
function samePids(holder: Holder, me: ThisProcess): boolean {
  const sameKernel = holder.boot !== undefined && holder.boot === me.boot;
  return (
    holder.host === me.host &&
    holder.pidNamespace === me.pidNamespace &&
    (sameKernel || me.boot === undefined) &&
    sameMachine(holder, me) !== false
  );
}

/** Whether the holder ran under this host name since another boot than this process's. */
function anotherBoot(holder: Holder, me: ThisProcess): boolean {
  return (
    holder.host === me.host && holder.boot !== undefined && me.boot !== undefined && holder.boot !== me.boot
  );
}

/** Whether the holder's machine is this one, as machine ids say; undefined where one is unknown. */
function sameMachine(holder: Holder, me: ThisProcess): boolean | undefined {
  if (holder.machine === undefined || me.machine === undefined) return undefined;
  return holder.machine === me.machine;
}

/** Field 22 of `/proc/<pid>/stat`: the process's start time. */
function startOf(pid: number | "self"): string | undefined {
  return statOf(pid)?.[19];
}
