/**
 * The skills folder itself, before any pack is read: its real path, and the refusals of what cannot be one
 * (no folder, the root of the file system, the kernel's own file systems).
 */
import { realpathSync, type Stats, statfsSync, statSync } from "node:fs";
import path from "node:path";
import { entryKindOf, notAFolderOnPath } from "../shared/index.js";
import { type CatalogIssue, SKILL_DOCUMENT } from "./types.js";

/** The skills folder cannot be served: the server must not start. */
export class CatalogError extends Error {
  override name = "CatalogError";
  /** What the load found when it found no skill to serve: the message names only the first three. */
  readonly issues: readonly CatalogIssue[];

  constructor(message: string, issues: readonly CatalogIssue[] = []) {
    super(message);
    this.issues = issues;
  }
}

/**
 * The real path of the skills folder `dir`, or a CatalogError saying why it cannot be one. The root of the
 * file system and the kernel's own file systems are refused before any walk: `SKILLS_DIR=/proc/self` walked
 * the whole machine (its `root` leads to /) for half a minute, each process's files and every container's
 * layers with it, to fail writing there; `SKILLS_DIR=/` served whatever SKILL.md lay anywhere.
 */
export function realSkillsFolder(dir: string, hint: string | undefined): string {
  let real: string;
  let stat: Stats;
  try {
    real = realpathSync(dir);
    stat = statSync(real);
  } catch {
    // Said with the path as the operator gave it.
    const throughFile = notAFolderOnPath(dir);
    if (throughFile !== undefined) throw new CatalogError(`Skills folder ${dir}: ${throughFile}`);
    throw new CatalogError(
      `Skills folder ${dir} does not exist or is not a folder${hint === undefined ? "" : `: ${hint}`}`,
    );
  }
  if (!stat.isDirectory())
    throw new CatalogError(`Skills folder ${dir} is ${entryKindOf(stat)}, not a folder`);
  const shown = real === dir ? dir : `${dir} (${real})`;
  if (real === path.parse(real).root) {
    throw new CatalogError(
      `Skills folder ${shown} is the root of the file system: give the folder that holds the packs, as in <folder>/<pack>/<skill>/${SKILL_DOCUMENT}`,
    );
  }
  const kernel = kernelFileSystem(real);
  if (kernel !== undefined) {
    throw new CatalogError(
      `Skills folder ${shown} is in ${kernel}, not a folder of skills: give the folder that holds the packs, as in <folder>/<pack>/<skill>/${SKILL_DOCUMENT}`,
    );
  }
  return real;
}

/**
 * The kernel's file systems by their statfs magic numbers (Linux's magic.h): views of processes and devices
 * that hold no skills, whose files are endless or change as they are read, and whose links lead back to /.
 */
const KERNEL_FILE_SYSTEMS: ReadonlyMap<number, string> = new Map([
  [0x9fa0, "/proc, the kernel's view of its processes"],
  [0x62656572, "/sys, the kernel's view of its devices"],
]);

/** What kernel file system `real` lies in, if it lies in one; undefined where that cannot be told. */
export function kernelFileSystem(real: string): string | undefined {
  try {
    return KERNEL_FILE_SYSTEMS.get(statfsSync(real).type);
  } catch {
    return undefined;
  }
}
