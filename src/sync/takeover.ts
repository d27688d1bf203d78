/**
 * Takeover markers: the turns runs take to remove a run lock (a stale one, or their own on release), so
 * that none removes a lock another run took meanwhile. Named after the lock file and the text removed.
 */
import { createHash, randomUUID } from "node:crypto";
import { readdirSync, readFileSync, rmSync } from "node:fs";
import { readdir, rm } from "node:fs/promises";
import path from "node:path";
import { createWithSync } from "./create-whole.js";
import {
  ageOf,
  holderIn,
  holderText,
  isGone,
  LEASE_MS,
  readOrNone,
  type ThisProcess,
  thisProcess,
} from "./run-holder.js";

/**
 * The ids of the turns this process has (takeTurn). A marker naming this process and none of these was
 * left by an earlier process given the same id, and is stale: a turn keeps its id until its markers are
 * removed. Process-wide, as run-lock.ts's heldRuns is, for the same reason: a marker is judged by any run
 * of the process, and each must find the turns the others have held.
 */
const heldMarkers = new Set<string>();

/**
 * How many stale markers a run passes on the way to a turn to take a lock over before it counts the
 * markers beside the lock: each one is left by a run killed outright in the few system calls it holds one
 * for, so more are rare. Past these, it passes as many as there are (and these again): no more can be
 * stale on its way, so the work stays bounded, and no number of them blocks the lock for good.
 */
const MAX_MARKERS = 8;

/**
 * Takes the turn to remove the lock `file` reading `text`: a marker file beside it, named after it, created
 * only if none is there, naming this process as a lock does. Returns what ends the turn (removing the
 * marker), or undefined while a live run has it. A marker whose holder is gone (killed with SIGKILL in its
 * turn: by the same rules as a lock's, a marker from another container once LEASE_MS old) is passed, not
 * removed: the runs that find it all go on to the marker named after the lock and it, one of them gets
 * that, and it removes the stale ones it passed as its turn ends. Removing a stale marker instead could
 * remove a fresh one another run made in its place. Synchronous: a stop signal's handler takes it too.
 */
export function takeTurn(file: string, text: string): (() => void) | undefined {
  const me = thisProcess();
  const id = randomUUID();
  const mine = holderText(me, id);
  const passed: string[] = [];
  let marker = markerOf(file, text);
  let steps = MAX_MARKERS;
  for (let step = 0; step < steps; step++) {
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
    if (passed.length === MAX_MARKERS) steps = step + 1 + markersBeside(file);
    marker = markerOf(file, `${text}${found}`);
    // Two stale markers that read the same (an older sync's, its process id alone: pid 1 of two containers)
    // lead back to the one passed, round and round: every run that finds them goes on from its place instead.
    if (passed.includes(marker)) marker = markerOf(file, `${text}${passed.length}${found}`);
  }
  return undefined;
}

/** How many takeover markers are beside the lock `file`, live or stale. */
function markersBeside(file: string): number {
  const prefix = `${path.basename(file)}.`;
  let names: string[];
  try {
    names = readdirSync(path.dirname(file));
  } catch {
    return 0;
  }
  return names.filter((name) => name.startsWith(prefix) && name.endsWith(".takeover")).length;
}

/**
 * Removes from beside the lock `file`, which this run just took, what runs killed outright left there:
 * takeover markers whose holder is gone (stale ones no run passed, as the lock they were for went), and
 * temporary files (createWith) older than LEASE_MS. Best effort: a file that stays only takes room.
 */
export async function removeLeftovers(file: string, me: ThisProcess): Promise<void> {
  const folder = path.dirname(file);
  const prefix = `${path.basename(file)}.`;
  const names = await readdir(folder).catch(() => []);
  for (const name of names) {
    if (!name.startsWith(prefix)) continue;
    const left = path.join(folder, name);
    const text = name.endsWith(".takeover") ? readOrNone(() => readFileSync(left, "utf8")) : undefined;
    const stale =
      text === undefined ? name.endsWith(".tmp") && ageOf(left) > LEASE_MS : isStaleMarker(left, text, me);
    if (stale) await rm(left, { force: true }).catch(() => undefined);
  }
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
function isStaleMarker(marker: string, text: string, me: ThisProcess): boolean {
  const older = /^\d+\n?$/.test(text) ? Number(text) : undefined;
  const holder =
    holderIn(text) ?? (older === undefined || older <= 0 ? undefined : { pid: older, startedAt: "" });
  if (holder === undefined || holder.host === undefined) {
    if (ageOf(marker) > LEASE_MS) return true;
  }
  return holder !== undefined && isGone(holder, me, marker, heldMarkers);
}
