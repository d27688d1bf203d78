import { pino } from "pino";

/** Bytes of lines held for a reader that does not take them; lines past it are dropped, and counted. */
export const MAX_HELD_BYTES = 16 * 1024 * 1024;

/**
 * The log's JSON lines on stdout, or on stderr where stdout carries something else, and how the process
 * exits without hanging on them.
 */
export class LogOutput {
  readonly destination: ReturnType<typeof pino.destination>;
  /** Whether its reader closed the pipe: pino then drops every line, and none is left to wait for. */
  #closed = false;
  /** Lines dropped since its reader last took one. */
  #dropped = 0;

  /**
   * Lines written as the event loop allows, unless `sync` (the one-shot commands write theirs at once);
   * `onDropped` is told how many were dropped while its reader took nothing, once it takes one again.
   */
  constructor(fd: 1 | 2, sync: boolean, onDropped: (lines: number) => void) {
    // Held without bound, the lines a stalled reader did not take grew the server's memory by the size of
    // each refused request's line (330 MiB after 30,000 requests with a URL of 7 KB).
    this.destination = pino.destination({ dest: fd, sync, maxLength: MAX_HELD_BYTES });
    this.destination.on("drop", () => {
      this.#dropped++;
    });
    this.destination.on("write", () => {
      if (this.#dropped === 0) return;
      const dropped = this.#dropped;
      this.#dropped = 0;
      // Said once the write under way is done with.
      setImmediate(() => onDropped(dropped));
    });
    const onError = (error: NodeJS.ErrnoException) => {
      if (error.code === "EPIPE") {
        this.#closed = true;
        return;
      }
      // Any other error ends the process, as an error event that nothing listens to does.
      this.destination.off("error", onError);
      throw error;
    };
    this.destination.on("error", onError);
  }

  /**
   * Resolves once the lines written so far have left, or cannot (its reader closed the pipe), or `ms` later
   * (a reader that takes nothing), and drops what is left: exiting with lines queued, pino writes them in a
   * loop that retries a closed or full pipe forever, so that a SIGTERM during the start of
   * `skills-mcp | head -0` never ended, nor did a second signal.
   */
  async end(ms: number): Promise<void> {
    const { destination } = this;
    if (!this.#closed) {
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          destination.off("drain", done).off("error", done);
          resolve();
        };
        const timer = setTimeout(done, ms);
        destination.once("drain", done).once("error", done);
        // Its drain comes once the lines before it have left.
        destination.write("");
      });
    }
    if (!this.#closed) destination.destroy();
  }
}
