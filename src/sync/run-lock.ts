import { createHash, randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { link, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";
import { setTimeout } from "node:timers/promises";
import { endBySignal, STOP_SIGNALS } from "../stop-signals.js";

/**
 * In the target folder while a sync installs there: which process does. A second sync into the folder
 * would clear the first's staging folder and write the lock from a stale plan, so it waits its turn.
 */
export const RUN_LOCK_FILE = ".skills-mcp-sync.lock";

/** The run lock of a folder, held by this process until released. */
export interface RunLock {
  release(): Promise<void>;
}

/** Another process holds the folder's run lock, or a run lock there cannot be read. */
export interface HeldElsewhere {
  readonly heldBy: number | undefined;
  readonly file: string;
}

/** How often a run that finds another run taking over a stale lock looks again, and how long it waits. */
const TAKEOVER_TRIES = 20;
const TAKEOVER_WAIT_MS = 25;

/**
 * Takes the run lock of `folder` (made if missing): a file created only if none is there, holding this
 * process's id and start time. A lock whose process no longer runs (a sync killed with SIGKILL, or on a
 * machine since restarted) is taken over, by one run when several find it. The lock goes on release, and
 * on SIGINT or SIGTERM.
 */
export async function takeRunLock(folder: string): Promise<RunLock | HeldElsewhere> {
  await mkdir(folder, { recursive: true });
  const file = path.join(folder, RUN_LOCK_FILE);
  const holder = `${JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() })}\n`;
  let heldBy: number | undefined;
  for (let attempt = 0; attempt < TAKEOVER_TRIES; attempt++) {
    if (await createWith(file, holder)) return held(file);
    const text = await lockText(file);
    if (text === undefined) continue;
    heldBy = holderIn(text);
    if (heldBy === undefined || isRunning(heldBy)) return { heldBy, file };
    if (!(await removeStale(file, text))) await setTimeout(TAKEOVER_WAIT_MS);
  }
  return { heldBy, file };
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

/** The process id a run lock names; undefined when it names none. */
function holderIn(text: string): number | undefined {
  try {
    const { pid } = JSON.parse(text) as { pid?: unknown };
    return Number.isSafeInteger(pid) && typeof pid === "number" && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
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

/** A lock taken: removed on release, or by a signal that ends the process, which then ends as it would have. */
function held(file: string): RunLock {
  const onSignal = (signal: NodeJS.Signals) => {
    rmSync(file, { force: true });
    // Also as a container's PID 1 (the image's `sync`), and past src/main.ts's listener, which stands
    // aside for this one.
    endBySignal(signal);
  };
  const forget = () => {
    for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
  };
  for (const signal of STOP_SIGNALS) process.once(signal, onSignal);
  return {
    release: async () => {
      forget();
      await rm(file, { force: true });
    },
  };
}
