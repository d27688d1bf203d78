import { constants } from "node:os";

/** The signals that stop skills-mcp: SIGTERM (`docker stop`, Kubernetes) and SIGINT (Ctrl-C). */
export const STOP_SIGNALS = ["SIGTERM", "SIGINT"] as const;

/**
 * The signals that stop a sync's run cleanly (its run lock and staging folder removed): the stop signals,
 * and SIGHUP, which a terminal closed or an ssh session dropped sends. Its default action ends the process
 * as SIGKILL would, leaving both behind. Node resets a SIGHUP ignored by `nohup` to that default anyway.
 */
export const RUN_STOP_SIGNALS = [...STOP_SIGNALS, "SIGHUP"] as const;

/**
 * Ends the process as `signal` does by default: by the signal, or, as a container's PID 1 (which the kernel
 * spares a signal's default action), with the status a shell reports for it (128 + its number).
 */
export function endBySignal(signal: NodeJS.Signals): never {
  // With no listener left, Node gives the signal back its default action.
  process.removeAllListeners(signal);
  try {
    process.kill(process.pid, signal);
  } catch {
    // Windows sends only SIGINT, SIGTERM and SIGKILL (ENOSYS for SIGHUP, which a console closed raises):
    // the status below says which signal ended it.
  }
  process.exit(128 + constants.signals[signal]);
}

/**
 * Gives the stop signals their default action also as a container's PID 1, whenever no other code of the
 * process listens for one (code that does, such as the server once it has its settings, handles it).
 */
export function endOnStopSignals(): void {
  for (const signal of STOP_SIGNALS) {
    process.on(signal, () => {
      if (process.listenerCount(signal) === 1) endBySignal(signal);
    });
  }
}
