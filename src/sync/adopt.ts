/**
 * Adopting a folder sync did not install that holds exactly what it would install now: one it installed
 * before its lock file was lost, or one the user copied from the server by hand. Skipped as not its own,
 * such a folder would never be updated again; recorded as installed, it is, and its files stay as they are.
 */
import { lstat, open, readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { SKILL_LIMITS, type Skill } from "@modelcontextprotocol/client/ext/skills";
import { isUnsafe } from "../audit/index.js";
import { ByteBudget } from "../budget/index.js";
import { digestOf, foldedName, nameRuleViolation, SKILL_DOCUMENT } from "../catalog/index.js";
import { portableNameProblem, systemProblem } from "../shared/index.js";
import { forEachLimited } from "./at-once.js";
import { auditDownload } from "./audit.js";
import { holdsExactly, MAX_COPY_BYTES, readFolderState, readIfSame } from "./folder.js";
import { listedFiles, skillRoot } from "./listed-files.js";
import type { InstalledSkill } from "./lock.js";
import { MAX_CITATIONS, withPackFiles } from "./pack-files.js";
import { withPackRoom } from "./pack-room.js";
import { oneOfCopies, servedDigest, type UnreadableFile } from "./plan.js";
import { CitedFileUnreadable, type DownloadContext, readPackFile } from "./reads.js";

/** Folders checked for adoption at once; their reads share PackReads' bound on requests, as checks' do. */
const PARALLEL_ADOPTIONS = 8;

/**
 * The entries whose name a folder sync does not own holds (`taken`), by the entry planSync would pick:
 * one of a single name, served as one skill, that may be a folder. Another server's skills are never
 * adopted: that URL owns them.
 */
export function adoptionCandidates(
  listed: readonly Skill[],
  owned: ReadonlySet<string>,
  ownedElsewhere: ReadonlySet<string>,
  taken: ReadonlySet<string>,
): Skill[] {
  const byName = new Map<string, Skill[]>();
  for (const entry of listed) {
    const name = entry.frontmatter.name;
    if (owned.has(name) || ownedElsewhere.has(name) || !taken.has(name)) continue;
    byName.set(name, [...(byName.get(name) ?? []), entry]);
  }
  return [...byName].flatMap(([name, entries]) => {
    const [entry, ...others] = oneOfCopies(entries, undefined);
    const plain = nameRuleViolation(name) === undefined && portableNameProblem(name) === undefined;
    return entry !== undefined && others.length === 0 && plain ? [entry] : [];
  });
}

/**
 * Of `candidates`, each whose folder holds exactly what a sync would install now, with the record a
 * fresh install would make; or, where a file the skill cites could not be read from the server, that error
 * (a check cannot tell then); or, where a file the server's copy holds cannot be read in the folder, which
 * and why. The others are left out: they stay skipped as not sync's. Checked
 * PARALLEL_ADOPTIONS at a time, each holding its listed bytes and a share for pack files in a budget of
 * one skill's limit, as the checks of installed skills do.
 */
export async function readAdoptable(
  candidates: readonly Skill[],
  folder: string,
  allowUnsafe: boolean,
  context: DownloadContext,
): Promise<Map<string, InstalledSkill | UnreadableFile | CitedFileUnreadable>> {
  const found = new Map<string, InstalledSkill | UnreadableFile | CitedFileUnreadable>();
  if (candidates.length === 0) return found;
  const spelled = await exactlySpelled(folder);
  const held = new ByteBudget(SKILL_LIMITS.bytes);
  await forEachLimited(candidates, PARALLEL_ADOPTIONS, async (entry) => {
    const name = entry.frontmatter.name;
    if (!spelled.has(name)) return;
    const copy = await servedCopyIn(folder, entry, allowUnsafe, context, held).catch((error: unknown) =>
      error instanceof CitedFileUnreadable ? error : undefined,
    );
    if (copy !== undefined) found.set(name, copy);
  });
  return found;
}

/**
 * Why `<folder>/<name>` no longer holds exactly `installed` (changed since the plan read it: fetching
 * the other skills may take hours), or undefined when it still does: read again right before the lock
 * records it, as a copy to replace is read again right before it is moved aside.
 */
export async function changedSinceAdopted(
  folder: string,
  name: string,
  installed: InstalledSkill,
): Promise<string | undefined> {
  const maxFiles = Object.keys(installed.files).length;
  const state = await readFolderState(folder, name, { maxFiles, maxBytes: MAX_COPY_BYTES });
  if (holdsExactly(state, installed.files)) return undefined;
  return state.kind === "other" ? state.reason : "its files differ from the server's copy";
}

/**
 * The names at the top of `folder` spelled as a skill's name and no other entry folds to: a folder a
 * case-insensitive system takes for the skill's (`Write-Docs`, or two of them) is not adopted under a
 * name it is not written as.
 */
async function exactlySpelled(folder: string): Promise<Set<string>> {
  const entries = await readdir(folder).catch(() => []);
  const folds = new Map<string, number>();
  for (const entry of entries) folds.set(foldedName(entry), (folds.get(foldedName(entry)) ?? 0) + 1);
  return new Set(entries.filter((entry) => foldedName(entry) === entry && folds.get(entry) === 1));
}

/**
 * The record of a fresh install of `entry` when `<folder>/<name>` holds exactly what it would write: the
 * entry's files, each with its listed digest read from the disk, the pack files its text cites as the
 * server serves them now, SKILL.md with the note on files left out where a download adds one, and no
 * other file (a file manager's aside, as holdsExactly passes them over); and when the audit lets it be
 * installed. When it does not, the first of those files sync cannot read there, if any, and why; else
 * undefined. Rejects with {@link CitedFileUnreadable} when the server does not answer for a cited file.
 */
async function servedCopyIn(
  folder: string,
  entry: Skill,
  allowUnsafe: boolean,
  context: DownloadContext,
  held: ByteBudget,
): Promise<InstalledSkill | UnreadableFile | undefined> {
  const name = entry.frontmatter.name;
  const listed = listedFiles(entry, skillRoot(entry));
  if ("refused" in listed) return undefined;
  const skillFolder = path.join(folder, name);
  const document = listed.find((file) => file.path === SKILL_DOCUMENT);
  // Most folders that are not the server's copy differ in SKILL.md: told before the folder is read whole.
  if (document === undefined) return undefined;
  if ((await servedDocument(skillFolder, document)) === undefined)
    return firstUnreadable(skillFolder, [SKILL_DOCUMENT]);
  const state = await readFolderState(folder, name, {
    maxFiles: listed.length + MAX_CITATIONS,
    maxBytes: MAX_COPY_BYTES,
  });
  // A file it could not read is told below, once the files of the server's copy are known, cited ones too.
  if (state.kind === "missing" || (state.kind === "other" && state.unreadable !== true)) return undefined;
  const total = listed.reduce((sum, file) => sum + file.size, 0);
  return withPackRoom(held, total, 0, async (packRoom) => {
    const files = new Map<string, Uint8Array>();
    for (const file of listed) {
      const bytes =
        file === document
          ? await servedDocument(skillFolder, file)
          : await readIfSame(path.join(skillFolder, ...file.path.split("/")), file.size, file.digest);
      if (bytes === undefined) return firstUnreadable(skillFolder, [file.path]);
      files.set(file.path, bytes);
    }
    const read = (uri: string, room: number) => readPackFile(uri, room, context);
    const download = await withPackFiles(
      entry,
      skillRoot(entry),
      files,
      total,
      context.skillRoots,
      read,
      packRoom,
    );
    const written: Record<string, string> = {};
    for (const [file, bytes] of download.files) written[file] = digestOf(bytes);
    if (!holdsExactly(state, written)) return firstUnreadable(skillFolder, Object.keys(written));
    if (!allowUnsafe && auditDownload(name, download.files, entry.frontmatter).some(isUnsafe))
      return undefined;
    return { uri: entry.uri, served: servedDigest(entry), files: written, packFiles: download.packFiles };
  });
}

/**
 * The first of `files` (paths in `skillFolder`) that sync cannot read there: a folder in a file's place,
 * or one it may not read, or may not reach through a folder above it. Undefined when each can be read,
 * or is missing or another kind of entry (a symlink): a difference, told as any other.
 */
async function firstUnreadable(
  skillFolder: string,
  files: readonly string[],
): Promise<UnreadableFile | undefined> {
  for (const file of files) {
    const problem = await unreadableProblem(path.join(skillFolder, ...file.split("/")));
    if (problem !== undefined) return { unreadable: file, ...problem };
  }
  return undefined;
}

async function unreadableProblem(file: string): Promise<Omit<UnreadableFile, "unreadable"> | undefined> {
  try {
    const stats = await lstat(file);
    if (stats.isDirectory())
      return { cause: "folder", problem: "it is a folder, where the server's copy has a file" };
    if (!stats.isFile()) return undefined;
    await (await open(file, "r")).close();
    return undefined;
  } catch (error) {
    const { code } = error as NodeJS.ErrnoException;
    return code === "EACCES" || code === "EPERM"
      ? { cause: "denied", problem: systemProblem(error) }
      : undefined;
  }
}

/**
 * The served bytes of SKILL.md from the copy in `skillFolder`: its listed size and digest, followed by
 * nothing or the note a download adds on the files left out (compared whole later). Undefined when it
 * does not start so, or is not a plain file.
 */
async function servedDocument(
  skillFolder: string,
  document: { readonly size: number; readonly digest: string },
): Promise<Uint8Array | undefined> {
  const file = path.join(skillFolder, SKILL_DOCUMENT);
  const stats = await lstat(file).catch(() => undefined);
  if (stats === undefined || !stats.isFile() || stats.size < document.size || stats.size > MAX_COPY_BYTES)
    return undefined;
  const bytes = (await readFile(file).catch(() => undefined))?.subarray(0, document.size);
  return bytes !== undefined && digestOf(bytes) === document.digest ? bytes : undefined;
}
