export { runSyncCli } from "./cli.js";
export type { SyncOptions } from "./options.js";
export { syncSkills } from "./sync.js";
