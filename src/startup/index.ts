export { mcpDepsFor, SERVER_INFO } from "./deps.js";
export { type Prepared, type PrepareOptions, prepare, refusal, type UnsafeSkills } from "./prepare.js";
export { SavedIndexError, saveIndex } from "./saved.js";
