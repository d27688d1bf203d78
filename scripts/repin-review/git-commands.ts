/**
 * The `git diff` commands the review prints to say where to read upstream what it leaves out: of one
 * file, of a crowd of alike files, or of the whole pack.
 */
import path from "node:path";
import { DOLLAR_QUOTE_SHELLS, dollarQuoted, shellWord } from "../../src/shared/index.js";
import { markdownCode } from "../audit-markdown.js";
import { type ReviewedSource, shortRef } from "../fetch-skills/review-contract.js";
import type { PackChanges } from "./compare.js";
import type { Crowd } from "./crowds.js";
import type { FileChange } from "./file-change.js";
import { documentIn } from "./served.js";

/** Every path in the pack the review says the bump changes, old paths of moved files and skills included. */
export function changedPaths(changes: PackChanges): string[] {
  return [
    ...[...changes.skillFiles, ...changes.packFiles].flatMap((file) => [file.path, file.movedFrom]),
    ...changes.documents.flatMap((document) => [documentIn(document.skill), document.movedFrom]),
    ...[...changes.added, ...changes.removed].map(documentIn),
    ...changes.renamed.flatMap(({ before, after }) => [documentIn(before), documentIn(after)]),
  ].filter((file) => file !== undefined);
}

/**
 * What a `git diff` of the pack's folders shows, as far as the review knows: the paths only the old commit
 * has (removed, or where a file or skill was before it moved) and only the new one has, which git compares
 * to find renames, each once; whether the review paired any of them; and the supporting and pack files.
 */
interface PackDiffs {
  readonly sources: readonly string[];
  readonly destinations: readonly string[];
  readonly paired: boolean;
  readonly files: readonly FileChange[];
}

export function packDiffs(changes: PackChanges): PackDiffs {
  const [sources, destinations] = [new Set<string>(), new Set<string>()];
  let paired = false;
  const moved = (from: string, to: string) => {
    sources.add(from);
    destinations.add(to);
    paired = true;
  };
  const files = [...changes.skillFiles, ...changes.packFiles];
  for (const file of files) {
    if (file.kind === "removed") sources.add(file.path);
    else if (file.kind === "added") destinations.add(file.path);
    else if (file.movedFrom !== undefined) moved(file.movedFrom, file.path);
  }
  for (const { skill, movedFrom } of changes.documents)
    if (movedFrom !== undefined) moved(movedFrom, documentIn(skill));
  for (const { before, after } of changes.renamed)
    if (before.folder !== after.folder) moved(documentIn(before), documentIn(after));
  for (const skill of changes.removed) sources.add(documentIn(skill));
  for (const skill of changes.added) destinations.add(documentIn(skill));
  return { sources: [...sources], destinations: [...destinations], paired, files };
}

/** Whether `file`, a path in the pack, is one of `folders` or in one (`.` the whole pack). */
function isWithin(file: string, folders: readonly string[]): boolean {
  return folders.some((folder) => folder === "." || file === folder || file.startsWith(`${folder}/`));
}

/** The default `diff.renameLimit` of git before 2.28 (1,000 since): the review's commands raise it past this. */
const GIT_RENAME_LIMIT = 400;

/**
 * The option that lets `git diff` of `folders` pair the renames in them. Past its rename limit (when files
 * only removed times files only added, left once it paired the same bytes and unique names, pass the limit
 * squared: 1,000 since git 2.28, 400 before), git pairs no other, and shows each edited one removed and
 * added. A limit of twice the larger side leaves room for files the review does not know of, hidden ones.
 */
export function renameLimit(shown: PackDiffs, folders: readonly string[]): string[] {
  const sources = shown.sources.filter((file) => isWithin(file, folders)).length;
  const destinations = shown.destinations.filter((file) => isWithin(file, folders)).length;
  if (sources * destinations <= GIT_RENAME_LIMIT ** 2) return [];
  return [`-l${2 * Math.max(sources, destinations)}`];
}

/**
 * Whether every file the review knows a `git diff` of `folders` shows is one it shows as text (see
 * textToGit): files deeper than its pathspecs reach count too, which at worst leaves `--text` out.
 */
function allTextWithin(shown: PackDiffs, folders: readonly string[]): boolean {
  return shown.files.every(
    (file) =>
      textToGit(file) ||
      !(isWithin(file.path, folders) || (file.movedFrom !== undefined && isWithin(file.movedFrom, folders))),
  );
}

/** At most this many folders a moved crowd came from are named in its `git diff`, to keep the command short. */
const CROWD_OLD_FOLDERS = 4;

/**
 * The `git diff` that shows a crowd and no other change the review knows of: its folder when nothing else
 * changed in it; else only the files at the crowd's depth (`:(glob)data/*` for the files of `data`,
 * `:(glob)data/*\/*` for those one level down), and then only its kind of change (`--diff-filter`). The
 * parent folder of a crowd spread one level down showed the files beside it too, and those deeper. A crowd
 * renamed or moved from a few folders names them too, so to be read the same way: git pairs a file
 * with the one it was only when both paths are in its diff, and showed a crowd moved into another skill
 * as added, its whole text as new. From more, it names the folder that holds them all (see holdingFolder).
 */
export function crowdDiff(
  source: ReviewedSource,
  crowd: Crowd,
  members: readonly FileChange[],
  changed: readonly string[],
  shown: PackDiffs,
  pack: string,
): string {
  const spread = crowd.folder === "*" || crowd.folder.endsWith("/*");
  const base = crowd.folder.replace(/\/?\*$/, "");
  // A crowd at the top of the pack is of the pack's own folders, extras among them: the pack's diff.
  if (base === "." || base === "") return pack;
  const own = new Set(members.flatMap((file) => [file.path, file.movedFrom]));
  const othersIn = (folder: string) =>
    changed.filter((file) => !own.has(file) && file.startsWith(`${folder}/`));
  // The folder itself when nothing else changed in it, else the files at the crowd's depth.
  const scope = (folder: string, others: readonly string[]) => {
    const inRepository = repositoryPath(source, folder);
    if (others.length === 0) return inRepository;
    return `:(glob)${inRepository.replace(/[*?[\]\\]/g, "\\$&")}/*${spread ? "/*" : ""}`;
  };
  const others = othersIn(base);
  const kind = members[0]?.kind;
  const olds = new Set(
    members.flatMap(({ movedFrom }) =>
      movedFrom === undefined ? [] : [path.posix.dirname(spread ? path.posix.dirname(movedFrom) : movedFrom)],
    ),
  );
  // A file renamed, or changed in a skill moved to another folder, git shows by both paths, or as added at
  // its new one, which no filter on the crowd's own kind keeps: then the files at its depth, and where
  // they were.
  if (olds.size > 0) {
    const holder = olds.size > CROWD_OLD_FOLDERS || olds.has(".") ? holdingFolder([...olds]) : undefined;
    // From the top of the pack: the pack's folders. A folder holding them all is named whole, as is the
    // crowd's own folder when it is not inside it.
    if (holder === ".") return pack;
    const named =
      holder === undefined
        ? [base, ...olds].filter((folder, index) => index === 0 || folder !== base)
        : [...(isWithin(base, [holder]) ? [] : [base]), holder];
    const specs = named.map((folder) =>
      folder === holder ? repositoryPath(source, folder) : scope(folder, othersIn(folder)),
    );
    return gitDiff(source, renameLimit(shown, named), specs, true, allTextWithin(shown, named));
  }
  const text = allTextWithin(shown, [base]);
  if (others.length === 0) return gitDiff(source, [], [scope(base, others)], true, text);
  const depth = (file: string) => file.slice(base.length + 1).split("/").length;
  const atDepth = others.filter((file) => depth(file) === (spread ? 2 : 1));
  if (atDepth.length === 0 || kind === undefined || kind === "renamed")
    return gitDiff(source, [], [scope(base, others)], true, text);
  const letter = { added: "A", removed: "D", changed: "M" }[kind];
  // Without renames, an added file of the crowd that git would pair with another stays added.
  return gitDiff(source, ["--no-renames", `--diff-filter=${letter}`], [scope(base, others)], true, text);
}

/**
 * The folder holding every folder a moved crowd's files were in (`.` for the top of the pack): named when
 * they are too many to name each (past CROWD_OLD_FOLDERS), so that the command stays short and git still
 * pairs each file with the one it was. Named alone, the crowd's new folder showed every file added.
 */
function holdingFolder(folders: readonly string[]): string {
  const parts = folders.map((folder) => (folder === "." ? [] : folder.split("/")));
  const first = parts[0] ?? [];
  let shared = 0;
  while (shared < first.length && parts.every((each) => each[shared] === first[shared])) shared++;
  return shared === 0 ? "." : first.slice(0, shared).join("/");
}

/**
 * Where to read what the review leaves out: `git diff` of the two commits in a clone of the source, for
 * one file by its `paths` in the pack (a file moved with its skill by both, so that git shows it as the
 * rename it is), each path quoted for a shell.
 */
export function readUpstream(
  source: ReviewedSource,
  paths: readonly (string | undefined)[],
  text: boolean,
): string {
  const inRepository = paths.flatMap((inPack) =>
    inPack === undefined ? [] : [repositoryPath(source, inPack)],
  );
  return gitDiff(source, [], inRepository, false, text);
}

/**
 * `git diff` of the source's two commits with `options`, of `pathspecs` (quoted here for a shell). git
 * reads attributes from the reviewer's checkout, which upstream writes: `*.md binary` made it say `Binary
 * files differ` of the text the review diffs, unless `text` (every file it shows is text to the review)
 * adds `--text`; and `*.md diff=x` runs the reviewer's own `diff.x.command` or `textconv` on upstream's
 * bytes, and shows what it prints rather than them, unless told not to.
 */
export function gitDiff(
  source: ReviewedSource,
  options: readonly string[],
  pathspecs: readonly string[],
  them: boolean,
  text: boolean,
): string {
  const words = pathspecs.map(shellWord);
  const command = [
    "git diff",
    ...(text ? ["--text"] : []),
    "--no-ext-diff",
    "--no-textconv",
    ...options,
    shortRef(source.from),
    shortRef(source.to),
    "--",
    ...words,
  ].join(" ");
  // A path's hidden characters are written as their bytes in `$'…'`, which not every sh reads.
  const shell = words.some(dollarQuoted) ? `, in ${DOLLAR_QUOTE_SHELLS} (for its \`$'…'\` quoting)` : "";
  return `read ${them ? "them" : "it"} upstream: ${markdownCode(command)} in a clone of ${markdownCode(source.repo)}${shell}`;
}

/**
 * Whether `git diff --text` shows the file as the review reads it: one whose lines the review counts, or
 * that git would diff as text anyway. A binary one it would print byte for byte.
 */
export function textToGit(file: FileChange): boolean {
  return file.lines !== undefined || file.content?.kind === "text to git";
}

/** A path in the pack as the source's repository has it: an extra keeps its path, the rest is under `path`. */
function repositoryPath(source: ReviewedSource, inPack: string): string {
  const extra = source.extras.some((folder) => inPack === folder || inPack.startsWith(`${folder}/`));
  return extra ? inPack : path.posix.join(source.path, inPack);
}
