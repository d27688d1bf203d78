import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/**
 * The installed package: where it lies and its version. Found by looking up from this module for our
 * package.json, not by a fixed `../..`: this code runs from `src/` under tsx and from a bundle in `dist/`
 * (its entry or one of its chunks), each at its own depth.
 */

/** The name in package.json, which the server also calls itself by. */
export const PACKAGE_NAME = "skills-mcp";

/** The folder holding package.json, README.md and the bundled examples, and the version. */
interface InstalledPackage {
  readonly root: string;
  readonly version: string;
}

function findPackage(from: string): InstalledPackage {
  for (let dir = path.dirname(fileURLToPath(from)); ; dir = path.dirname(dir)) {
    const file = path.join(dir, "package.json");
    if (existsSync(file)) {
      const manifest = JSON.parse(readFileSync(file, "utf8")) as { name?: unknown; version?: unknown };
      if (manifest.name === PACKAGE_NAME && typeof manifest.version === "string") {
        return { root: dir, version: manifest.version };
      }
    }
    if (path.dirname(dir) === dir)
      throw new Error(`${PACKAGE_NAME}: no package.json of ${PACKAGE_NAME} above ${from}`);
  }
}

let installed: InstalledPackage | undefined;

/** The package found on first ask, not on import: importing this module reads nothing. */
function installedPackage(): InstalledPackage {
  installed ??= findPackage(import.meta.url);
  return installed;
}

/** The skills bundled with the package, served when no skills folder is given. */
export function examplesDir(): string {
  return path.join(installedPackage().root, "examples", "skills");
}

export function packageVersion(): string {
  return installedPackage().version;
}
