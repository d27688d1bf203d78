/**
 * The settings: the environment and command line read once, at startup, into a frozen Config. Pure
 * parsing: the files a setting names are read through the SettingFiles its caller gives (src/startup).
 */
export { blockedPortWarning } from "./blocked-ports.js";
export {
  type CatalogConfig,
  type Config,
  ConfigError,
  type HttpSettings,
  loadCatalogConfig,
  loadConfig,
} from "./load.js";
export { SAVED_INDEX_NAME } from "./options.js";
export { SETTINGS, type Setting, type SettingFiles, SHUTDOWN_GRACE_MS } from "./settings.js";
export { USAGE } from "./usage.js";
