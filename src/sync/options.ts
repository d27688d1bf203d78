import { packageVersion } from "../shared/index.js";
import type { Era, ServerAddress } from "./connection.js";
import type { LockSource } from "./lock.js";
import type { Progress } from "./progress.js";

/** Who writes the lock, and made each refusal it records. */
export function syncedBy(): string {
  return `skills-mcp ${packageVersion()}`;
}

export interface SyncOptions {
  readonly server: ServerAddress;
  /** Recorded in the lock: how the scope was asked for. */
  readonly scope: LockSource["scope"];
  /** The target: a skills folder a client reads (`~/.claude/skills`). */
  readonly folder: string;
  /** `dry-run` and `check` only plan: they write nothing, not even the folder. */
  readonly mode: "sync" | "dry-run" | "check";
  /** Installs skills with a high finding of the audit too. */
  readonly allowUnsafe: boolean;
  readonly era: Era;
  readonly progress: Progress;
  /**
   * How long a sync waits for another that holds the folder's run lock before it fails (0: fails at
   * once); 60 s when not given (RUN_LOCK_WAIT_MS in sync.ts).
   */
  readonly lockWaitMs?: number;
}

/** The server cannot be synced from as asked: the message says why and what to do. */
export class SyncError extends Error {
  override name = "SyncError";
}
