/** The settings: the environment and command line read once, at startup, into a frozen Config. */
export { blockedPortWarning } from "./blocked-ports.js";
export { type Config, ConfigError, type HttpSettings, loadConfig, type Transport } from "./load.js";
export { SAVED_INDEX_NAME } from "./options.js";
export { examplesDir, SETTINGS, type Setting, SHUTDOWN_GRACE_MS } from "./settings.js";
export { USAGE } from "./usage.js";
