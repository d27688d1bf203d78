import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { link, mkdir, readFile, rm, writeFile } from "node:fs/promises";
import path from "node:path";

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

const SIGNALS = ["SIGINT", "SIGTERM"] as const;

/**
 * Takes the run lock of `folder` (made if missing): a file created only if none is there, holding this
 * process's id and start time. A lock whose process no longer runs (a sync killed with SIGKILL, or on a
 * machine since restarted) is taken over. The lock goes on release, and on SIGINT or SIGTERM.
 */
export async function takeRunLock(folder: string): Promise<RunLock | HeldElsewhere> {
  await mkdir(folder, { recursive: true });
  const file = path.join(folder, RUN_LOCK_FILE);
  const holder = `${JSON.stringify({ pid: process.pid, startedAt: new Date().toISOString() })}\n`;
  for (let attempt = 0; attempt < 2; attempt++) {
    if (await createWith(file, holder)) return held(file);
    const heldBy = await holderOf(file);
    if (heldBy === "gone") continue;
    if (heldBy === undefined || isRunning(heldBy)) return { heldBy, file };
    await rm(file, { force: true });
  }
  return { heldBy: undefined, file };
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

/** The process id a run lock names; undefined when it names none, "gone" when the lock went meanwhile. */
async function holderOf(file: string): Promise<number | undefined | "gone"> {
  let text: string;
  try {
    text = await readFile(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "gone";
    throw error;
  }
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
    forget();
    process.kill(process.pid, signal);
  };
  const forget = () => {
    for (const signal of SIGNALS) process.off(signal, onSignal);
  };
  for (const signal of SIGNALS) process.once(signal, onSignal);
  return {
    release: async () => {
      forget();
      await rm(file, { force: true });
    },
  };
}
