export { processIo, runSyncCli, SYNC_USAGE, type SyncIo } from "./cli.js";
export { CLIENT_FOLDERS, type ClientName } from "./clients.js";
export type { Era, ServerAddress } from "./connection.js";
export { STAGING_DIR } from "./folder.js";
export { LOCK_FILE, type Lock, LockError } from "./lock.js";
export type { Step } from "./plan.js";
export { type Progress, progressOn } from "./progress.js";
export { RUN_LOCK_FILE } from "./run-lock.js";
export {
  isOutOfDate,
  type SyncCounts,
  SyncError,
  type SyncOptions,
  type SyncReport,
  syncSkills,
} from "./sync.js";
