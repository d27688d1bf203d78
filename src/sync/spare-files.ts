/**
 * File descriptors a run sets aside while it holds the run lock, for the cleanup that ends it. A run that
 * fails for want of them (EMFILE under a low `ulimit -n`) has every one taken, mostly by its connections
 * to the server; its cleanup opens files too (the run lock read before it is removed, its takeover marker,
 * the staging folder listed), and failed there, leaving the lock and the staging folder behind. Its
 * connections are closed before that cleanup and open no more (see connection.ts), but whatever else the
 * process runs at its next turn of the event loop may take what they gave back (fetch's shared pool did,
 * connecting a socket for each read the closed connection aborted). Given back right before each step of
 * the cleanup, the spares make its room; so each step runs synchronously, within `lend`.
 */
import { closeSync, openSync } from "node:fs";
import { devNull } from "node:os";

/**
 * How many: the cleanup opens one file at a time, synchronously (rmSync lists a folder and closes it
 * before it goes into the folders in it), so two leave it one to spare. Out of the 1,024 of a usual limit (256 on
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
   * Gives them back, runs `use` (synchronous: nothing else of the process takes them meanwhile), and sets
   * them aside again, for the cleanup after it. What `use` opens it has closed by then, so they are had
   * again; `use` throwing, too.
   */
  lend<T>(use: () => T): T {
    this.giveBack();
    try {
      return use();
    } finally {
      this.#open = SpareFiles.take().#open;
    }
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
