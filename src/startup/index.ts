export { loadCatalogStartupConfig, loadStartupConfig } from "./config.js";
export { mcpDepsFor, serverInfo } from "./deps.js";
export { type Prepared, prepare, prepareAudit, refusal } from "./prepare.js";
export { SavedIndexError, saveIndex } from "./saved.js";
