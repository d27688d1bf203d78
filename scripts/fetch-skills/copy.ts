import type { Dirent } from "node:fs";
import { copyFile, mkdir, readdir, realpath, stat } from "node:fs/promises";
import path from "node:path";

/** Something of the repository that was not copied, and why: reported as a warning. */
export interface SkippedEntry {
  /** Repository-relative POSIX path. */
  readonly path: string;
  readonly reason: string;
}

/** Thrown when the folder to copy itself cannot be copied (missing, or a symlink leading out). */
export class CopyError extends Error {
  override name = "CopyError";
}

const SKILL_DOCUMENT = "SKILL.md";

/**
 * Copies `relative` (a folder, or for extras possibly a file) of the checked-out repository `repoRoot` to
 * `destination`. Symlinks are followed, and their targets copied as plain files, only when they resolve
 * inside the repository and outside its hidden folders: a hostile upstream must not be able to pull files
 * of the build machine (or the git store) into the image. Hidden files and folders, `.git` among them, are
 * skipped; `relative` itself may lie in a hidden folder (`.claude/skills`) when the manifest says so.
 * Returns what was left out.
 */
export async function copyFromRepository(
  repoRoot: string,
  relative: string,
  destination: string,
  options: { allowFile: boolean },
): Promise<SkippedEntry[]> {
  const root = await realpath(repoRoot);
  let base: string;
  try {
    base = await realpath(path.join(root, relative));
  } catch {
    throw new CopyError(`"${relative}" does not exist in the repository at this commit`);
  }
  if (!isInside(root, base))
    throw new CopyError(`"${relative}" is a symlink pointing outside the repository`);
  if (isHidden(path.relative(root, base)) && !isHidden(relative)) {
    throw new CopyError(`"${relative}" is a symlink leading into a hidden folder`);
  }
  const info = await stat(base);
  const skipped: SkippedEntry[] = [];
  if (info.isFile() && options.allowFile) {
    await mkdir(path.dirname(destination), { recursive: true });
    await copyFile(base, destination);
  } else if (info.isDirectory()) {
    const bounds = { root, base };
    await copyFolder(bounds, base, relative, destination, new Set([base]), skipped);
  } else {
    throw new CopyError(`"${relative}" is not a folder`);
  }
  return skipped;
}

/** The repository, and the folder being copied from it (which may itself be hidden). */
interface Bounds {
  readonly root: string;
  readonly base: string;
}

function isInside(folder: string, target: string): boolean {
  return target === folder || target.startsWith(folder + path.sep);
}

/** Whether a relative path (either separator) passes through a hidden file or folder. */
function isHidden(relative: string): boolean {
  return relative.split(/[\\/]/).some((segment) => segment.startsWith(".") && segment !== ".");
}

/** Why the symlink target `real` may not be copied, or undefined when it may. */
function symlinkProblem({ root, base }: Bounds, real: string): string | undefined {
  if (!isInside(root, real)) return "symlink pointing outside the repository";
  const from = isInside(base, real) ? base : root;
  return isHidden(path.relative(from, real)) ? "symlink leading into a hidden folder" : undefined;
}

async function copyFolder(
  bounds: Bounds,
  real: string,
  relative: string,
  destination: string,
  ancestors: ReadonlySet<string>,
  skipped: SkippedEntry[],
): Promise<void> {
  await mkdir(destination, { recursive: true });
  const entries = await readdir(real, { withFileTypes: true });
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (entry.name.startsWith(".")) continue;
    const childRelative = relative === "." ? entry.name : `${relative}/${entry.name}`;
    const target = await resolveEntry(bounds, real, entry);
    const into = path.join(destination, entry.name);
    if ("skip" in target) skipped.push({ path: childRelative, reason: target.skip });
    else if (target.kind === "file") await copyFile(target.real, into);
    else if (ancestors.has(target.real)) {
      skipped.push({ path: childRelative, reason: "symlink loops back to a parent folder" });
    } else {
      const inner = new Set([...ancestors, target.real]);
      await copyFolder(bounds, target.real, childRelative, into, inner, skipped);
    }
  }
}

type Target = { readonly kind: "file" | "folder"; readonly real: string } | { readonly skip: string };

async function resolveEntry(bounds: Bounds, parent: string, entry: Dirent): Promise<Target> {
  const full = path.join(parent, entry.name);
  if (entry.isFile()) return { kind: "file", real: full };
  if (entry.isDirectory()) return { kind: "folder", real: full };
  if (!entry.isSymbolicLink()) return { skip: "not a regular file or folder" };
  let real: string;
  try {
    real = await realpath(full);
  } catch {
    return { skip: "dangling symlink" };
  }
  const problem = symlinkProblem(bounds, real);
  if (problem) return { skip: problem };
  const info = await stat(real);
  if (info.isFile()) return { kind: "file", real };
  if (info.isDirectory()) return { kind: "folder", real };
  return { skip: "symlink to something that is not a regular file or folder" };
}

/**
 * The skill folders under `dir` (relative POSIX paths), found the way the server finds them: a visible
 * folder holding SKILL.md is a skill, and so is one nested below it.
 */
export async function findSkillFolders(dir: string, relative = ""): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const isSkill = entries.some((entry) => entry.name === SKILL_DOCUMENT && entry.isFile());
  const found: string[] = isSkill ? [relative] : [];
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
    found.push(...(await findSkillFolders(path.join(dir, entry.name), child)));
  }
  return found.sort();
}
