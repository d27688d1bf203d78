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
 * skipped. Returns what was left out.
 */
export async function copyFromRepository(
  repoRoot: string,
  relative: string,
  destination: string,
  options: { allowFile: boolean },
): Promise<SkippedEntry[]> {
  const root = await realpath(repoRoot);
  const skipped: SkippedEntry[] = [];
  let real: string;
  try {
    real = await realpath(path.join(root, relative));
  } catch {
    throw new CopyError(`"${relative}" does not exist in the repository at this commit`);
  }
  const problem = containmentProblem(root, real);
  if (problem) throw new CopyError(`"${relative}" ${problem}`);
  const info = await stat(real);
  if (info.isFile() && options.allowFile) {
    await mkdir(path.dirname(destination), { recursive: true });
    await copyFile(real, destination);
  } else if (info.isDirectory()) {
    await copyFolder(root, real, relative, destination, new Set([real]), skipped);
  } else {
    throw new CopyError(`"${relative}" is not a folder`);
  }
  return skipped;
}

/** Why `real` may not be copied from the repository at `root`, or undefined when it may. */
function containmentProblem(root: string, real: string): string | undefined {
  if (real !== root && !real.startsWith(root + path.sep))
    return "is a symlink pointing outside the repository";
  if (
    path
      .relative(root, real)
      .split(path.sep)
      .some((segment) => segment.startsWith("."))
  ) {
    return "leads into a hidden folder";
  }
  return undefined;
}

async function copyFolder(
  root: string,
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
    const target = await resolveEntry(root, real, entry);
    const into = path.join(destination, entry.name);
    if ("skip" in target) skipped.push({ path: childRelative, reason: target.skip });
    else if (target.kind === "file") await copyFile(target.real, into);
    else if (ancestors.has(target.real))
      skipped.push({ path: childRelative, reason: "symlink loops back to a parent folder" });
    else
      await copyFolder(root, target.real, childRelative, into, new Set([...ancestors, target.real]), skipped);
  }
}

type Target = { readonly kind: "file" | "folder"; readonly real: string } | { readonly skip: string };

async function resolveEntry(root: string, parent: string, entry: Dirent): Promise<Target> {
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
  const problem = containmentProblem(root, real);
  if (problem) return { skip: problem.replace(/^is a /, "") };
  const info = await stat(real);
  if (info.isFile()) return { kind: "file", real };
  if (info.isDirectory()) return { kind: "folder", real };
  return { skip: "symlink to something that is not a regular file or folder" };
}

/**
 * The skill folders under `dir` (relative POSIX paths), found the way the server finds them: a visible
 * folder holding SKILL.md is a skill, and nothing below it is searched.
 */
export async function findSkillFolders(dir: string, relative = ""): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  if (entries.some((entry) => entry.name === SKILL_DOCUMENT && entry.isFile())) return [relative];
  const found: string[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name.startsWith(".")) continue;
    const child = relative === "" ? entry.name : `${relative}/${entry.name}`;
    found.push(...(await findSkillFolders(path.join(dir, entry.name), child)));
  }
  return found.sort();
}
