/**
 * File descriptors a run sets aside while it holds the run lock, for the cleanup that ends it. A run that
 * fails for want of them (EMFILE under a low `ulimit -n`) has every one taken, mostly by the sockets that
 * fetch keeps open to the server, idle, in a pool of its own that nothing closes before the process ends;
 * its cleanup opens files too (the run lock read before it is removed, its takeover marker, the staging
 * folder listed), and failed there, leaving the lock and the staging folder behind. Given back right
 * before that cleanup, once the run's connection is closed and opens no more sockets, they make its room.
 */
import { closeSync, openSync } from "node:fs";
import { devNull } from "node:os";

/**
 * How many: the cleanup opens one file at a time (and Node's rm one per folder level of a staged skill,
 * retried while one is in use), so two leave it one to spare. Out of the 1,024 of a usual limit (256 on
 * macOS), what a run misses is nothing.
 */
const SPARE_COUNT = 2;

export class SpareFiles {
  #open: number[];

  private constructor(open: number[]) {
    this.#open = open;
  }

  /** Sets aside as many as can be had, up to SPARE_COUNT: a run already short of them goes on with fewer. */
  static take(): SpareFiles {
    const open: number[] = [];
    try {
      while (open.length < SPARE_COUNT) open.push(openSync(devNull, "r"));
    } catch {
      // None left: the run fails for want of them soon, and its cleanup has what it had.
    }
    return new SpareFiles(open);
  }

  /**
   * Gives them back to the system, once: synchronous, for a stop signal's handler too, which goes on to
   * its cleanup whatever a close says.
   */
  giveBack(): void {
    const open = this.#open;
    this.#open = [];
    for (const fd of open) {
      try {
        closeSync(fd);
      } catch {
        // Closed already (EBADF): given back all the same.
      }
    }
  }
}
