import { existsSync, readFileSync } from "node:fs";
import {
  type CatalogConfig,
  type Config,
  loadCatalogConfig,
  loadConfig,
  type SettingFiles,
} from "../config/index.js";
import { examplesDir } from "../shared/index.js";

/** The settings' files as this machine has them: where the config's reads of the disk are done. */
export const DISK_FILES: SettingFiles = {
  exists: existsSync,
  readText: (fullPath) => readFileSync(fullPath, "utf8"),
  examplesDir,
};

/**
 * The config of a command started here: `env` and `argv` read as src/config reads them, relative paths
 * from `cwd`, and the files its settings name (./skills, PACK_DESCRIPTIONS, API_KEYS_FILE) from the disk.
 */
export function loadStartupConfig(
  env: Readonly<Record<string, string | undefined>>,
  argv: readonly string[] = [],
  cwd: string = process.cwd(),
): Config {
  return loadConfig(env, argv, { cwd, files: DISK_FILES });
}

/**
 * The config of a command named `command` that checks a skills folder (check-skills, audit-skills): the
 * settings of the catalog alone, read as loadStartupConfig reads them; see loadCatalogConfig.
 */
export function loadCatalogStartupConfig(
  env: Readonly<Record<string, string | undefined>>,
  command: string,
  cwd: string = process.cwd(),
): CatalogConfig & Pick<Config, "misspelledSettings" | "ignoredSettings"> {
  return loadCatalogConfig(env, command, { cwd, files: DISK_FILES });
}
