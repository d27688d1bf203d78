import { SETTINGS } from "../src/config/index.js";

/**
 * Every setting at production's default, those without one empty (which the server reads as unset). A
 * server a bench or the soak starts inherits the user's environment, and a setting exported there would change what is
 * measured: `SHED_RSS_MB` or `SHED_EVENT_LOOP_UTILIZATION` shed requests as cheap 503s, `CATALOG_PREVIEW`
 * changes the answers and their tokens, `SKILL_PACKS` the catalog, `API_KEYS` or `RATE_LIMIT_PER_MINUTE`
 * refuse the load, `LOG_LEVEL=debug` logs every request. Taken from the settings' table, so they follow it.
 */
export const PRODUCTION_SETTINGS: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(SETTINGS).map(([name, setting]) => [
    name,
    setting.default === undefined ? "" : String(setting.default),
  ]),
);
