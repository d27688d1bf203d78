import { pino } from "pino";

/**
 * The log's JSON lines on stdout, or on stderr where stdout carries something else, and how the process
 * exits without hanging on them.
 */
export class LogOutput {
  readonly destination: ReturnType<typeof pino.destination>;
  /** Whether its reader closed the pipe: pino then drops every line, and none is left to wait for. */
  #closed = false;

  /** Lines written as the event loop allows, unless `sync` (the one-shot commands write theirs at once). */
  constructor(fd: 1 | 2, sync: boolean) {
    this.destination = pino.destination({ dest: fd, sync });
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
