import path from "node:path";
import { resolveSkillFile, type Skill } from "../../src/catalog/index.js";
import { compareText } from "../../src/sorted.js";
import {
  compareIgnoringEndings,
  type EndingsChange,
  hashOf,
  type LineChanges,
  sameButWhitespace,
  unifiedDiff,
  withLineFeeds,
} from "./diff.js";
import { type Excerpt, excerptOf } from "./excerpt.js";
import {
  type KeyChange,
  keptKeys,
  keyChanges,
  NAMED_KEYS,
  partsOf,
  topLevelKeys,
} from "./frontmatter-keys.js";
import { rareKeyIndex } from "./rare-keys.js";
import { matchSkills, type SkillPair } from "./renames.js";
import {
  bytesOf,
  documentIn,
  documentOf,
  type PackSide,
  perSkill,
  readServed,
  type ServedFile,
  sameContent,
  servedIn,
  textOf,
} from "./served.js";

export interface FileChange {
  /** In the pack: the new path, or the old one for a removed file. */
  readonly path: string;
  /**
   * In the pack, the path a changed file had before, when its skill moved to another folder; that of a
   * renamed one (removed at this path and added at `path`, its bytes the same or, when `lines` is defined,
   * its lines at least half the same).
   */
  readonly movedFrom: string | undefined;
  readonly kind: "added" | "removed" | "changed" | "renamed";
  /** For text, line endings aside; undefined for a binary file, or one the audit did not read. */
  readonly lines: LineChanges | undefined;
  /** How its line endings changed, when a line differs by its ending alone. */
  readonly endings: EndingsChange | undefined;
  /** Whether its lines changed in whitespace alone (see sameButWhitespace), which a diff hardly shows. */
  readonly whitespaceOnly: boolean;
  /** Whether its mode now lets it run, when that changed, and whether nothing else did. */
  readonly mode: { readonly executable: boolean; readonly only: boolean } | undefined;
  /** Why the audit did not read the version `path` names (the new one, or the removed one). */
  readonly notAudited: string | undefined;
  /**
   * What the review can show of it (see {@link keepContents}): an added text file's lines, a changed one's
   * unified diff, or why not; undefined for a removed, binary (but `text to git`) or unaudited file, or one
   * whose endings alone changed.
   */
  readonly content: FileContent | undefined;
  /** Its two versions, read again only to keep its content. */
  readonly sides: { readonly before: ServedFile | undefined; readonly after: ServedFile | undefined };
  /** Why its content shows as one of its crowd's samples (see {@link sampleCrowds}), when it does. */
  readonly sample?: string;
  /**
   * Of a file renamed out of one skill into another (see {@link movedBetweenSkills}): the skill it was in,
   * and the one whose agents read it now; undefined for the pack files (outside every skill).
   */
  readonly skills?: { readonly from: Skill | undefined; readonly to: Skill | undefined };
}

/**
 * The content of an added or changed text file: no audit rule flags plain words, so a script or reference
 * a bump adds is otherwise read only upstream, through a compare link that a file:// source or many hosts
 * lack.
 */
export type FileContent =
  | { readonly kind: "text" | "diff"; readonly lines: Excerpt }
  | { readonly kind: "too different" | "too large" | "not kept" }
  /** A file of a crowd past its samples (see CROWD_SAMPLES): its crowd's line says where to read it. */
  | { readonly kind: "crowd" }
  /**
   * A file the server serves as binary, and so the review, but whose lines `git diff` shows (see
   * readServed): the review says where to read them.
   */
  | { readonly kind: "text to git" };

/**
 * The most characters of supporting and pack files' contents the review keeps, over all its packs: what
 * its widest room shows of them (see CONTENT_CHARS in file-lists.ts). Past it, files are read no more.
 */
export const KEPT_CONTENT_CHARS = 20_000;
/** A file's content is not begun with less room than this left: a few lines tell nothing. */
const MIN_CONTENT_CHARS = 200;
/** A text file larger than this is named, not diffed: its diff would be cut to a few lines anyway. */
export const CONTENT_BYTES = 1024 * 1024;

/** How many characters of file contents the review may still keep, over every pack. */
interface ContentBudget {
  left: number;
}

/**
 * A SKILL.md that a bump changes, old and new, frontmatter and all: a model reads every key of it
 * (`allowed-tools`, `metadata`, a YAML comment), not only the name and description.
 */
export interface DocumentChange {
  readonly skill: Skill;
  /** In the pack, the path it had before, when its skill moved to another folder. */
  readonly movedFrom: string | undefined;
  /** Line endings aside: the diff and counts of a file moved to CRLF or back would be every line. */
  readonly lines: LineChanges;
  /** How its line endings changed, when a line differs by its ending alone. */
  readonly endings: EndingsChange | undefined;
  /** Whether its lines changed in whitespace alone (see sameButWhitespace), which a diff hardly shows. */
  readonly whitespaceOnly: boolean;
  /** Whether the frontmatter changed (any key, comment or byte of it but line endings). */
  readonly frontmatter: boolean;
  /** A change of its execute bits, and whether it is all that changed (see FileChange). */
  readonly mode: FileChange["mode"];
  /**
   * Its top-level frontmatter keys but `name` and `description` added, removed or given another value: the
   * first KEPT_KEYS by {@link keyRank}, each cut to KEY_CHARS.
   */
  readonly keys: readonly KeyChange[];
  /** How many more there are. */
  readonly keysLeftOut: number;
  /**
   * The lines of its unified diff that the review can show; `too different` to diff, or `not kept`, past
   * the changes of its pack the review keeps (see {@link keptPerPack}).
   */
  readonly hunks: Excerpt | "too different" | "not kept";
}

/**
 * The most SKILL.md files, added or changed (of each kind), whose lines the review keeps to show, of all its
 * packs together. Each takes 73 characters of the review at least, so more than this never fit GitHub's
 * 65,536, and a review whose lists are cut to fit lists no more of a pack than it keeps the bodies of (see
 * keptPerPack): a bump adding thousands of long SKILL.md files, in one pack or over many, costs no more
 * than this many.
 */
export const KEPT_BODIES = 1000;

/**
 * How many bodies of each pack the review keeps, given how many SKILL.md files of one kind (added, or
 * changed) each pack has, in the review's order: at most `bound` in all. The review shows the same number
 * of each pack (its list limit), so each pack keeps its first `cap`, the largest cap within the bound;
 * every list limit that can fit a pull request body is within it. When even one of each pack is too many,
 * the first packs keep one each: the review, cut at GitHub's limit, shows the first packs' first.
 */
export function keptPerPack(counts: readonly number[], bound: number): number[] {
  const kept = (cap: number) => counts.reduce((sum, count) => sum + Math.min(count, cap), 0);
  if (kept(1) > bound) {
    let left = bound;
    return counts.map((count) => {
      const one = Math.min(count, 1, left);
      left -= one;
      return one;
    });
  }
  // The largest cap within the bound, by bisection: kept(cap) grows with cap.
  let [low, high] = [1, bound];
  while (low < high) {
    const cap = Math.ceil((low + high) / 2);
    if (kept(cap) <= bound) low = cap;
    else high = cap - 1;
  }
  return counts.map((count) => Math.min(count, low));
}

/** The SKILL.md of a skill the bump adds, as its new commit has it: the lines the review can show. */
export interface AddedDocument {
  readonly skill: Skill;
  readonly lines: Excerpt;
}

/** The top-level frontmatter keys of an added skill but `name` and `description`, kept as DocumentChange's. */
export interface AddedKeys {
  readonly skill: Skill;
  readonly keys: readonly string[];
  readonly keysLeftOut: number;
}

export interface PackChanges {
  readonly added: readonly Skill[];
  /**
   * The SKILL.md of the first added skills (KEPT_BODIES at most, fewer as the review keeps them: see
   * {@link keptPerPack}), in the order of `added`: a model reads all of it.
   */
  readonly addedDocuments: readonly AddedDocument[];
  /** Each added skill whose frontmatter has keys but `name` and `description` (`allowed-tools`), with them. */
  readonly addedKeys: readonly AddedKeys[];
  readonly removed: readonly Skill[];
  /** A new folder, a new name, or both. */
  readonly renamed: readonly SkillPair[];
  /** Added skills not compared with the removed ones for a rename (see {@link matchSkills}). */
  readonly notPaired: readonly Skill[];
  /** Skills whose text was past RENAME_TEXT_BYTES, so not compared for a rename (see {@link matchSkills}). */
  readonly pastRenameText: { readonly added: number; readonly removed: number };
  readonly descriptions: readonly SkillPair[];
  /** Every SKILL.md of a paired skill whose bytes changed. */
  readonly documents: readonly DocumentChange[];
  /** Supporting files of skills, compared within each skill's folder. */
  readonly skillFiles: readonly FileChange[];
  readonly packFiles: readonly FileChange[];
  /** Paths in the pack that the new commit adds or whose content it changes: where new findings matter. */
  readonly changedPaths: ReadonlySet<string>;
}

/**
 * What a bump changes in one pack. A skill keeps its identity through a change of name (same folder), of
 * folder (same name), or of both (see {@link matchSkills}). Awaits `between` before each file it reads
 * and compares.
 */
export async function comparePacks(
  before: PackSide,
  after: PackSide,
  between: () => Promise<void>,
): Promise<PackChanges> {
  const [oldFiles, newFiles] = [ownFilesIn(before), ownFilesIn(after)];
  const { pairs, notPaired, pastRenameText } = matchSkills(
    { side: before, files: oldFiles },
    { side: after, files: newFiles },
  );
  const paired = new Set(pairs.flatMap((pair) => [pair.before, pair.after]));
  const added = after.skills.filter((skill) => !paired.has(skill));
  const removed = before.skills.filter((skill) => !paired.has(skill));
  // A skill's supporting files on each side, compared. An added skill has none before and a removed one
  // none after, so no path is ever placed in its missing side.
  const placed = (skill: Skill | undefined) => (file: string) =>
    skill === undefined ? file : inPack(skill, file);
  // A file whose path is in both commits stays where it is, whichever skill lists it (see keptInPlace):
  // paired within a skill first, with a copy of it added or removed beside it, it was left listed as added
  // or removed under the other skill, though the bump kept it as it was.
  const moves: Pairable = (removed, added) => !after.files.has(removed.path) && !before.files.has(added.path);
  const compareSkillFiles = (old: Skill | undefined, now: Skill | undefined) =>
    compareFiles(
      old === undefined ? new Map() : oldFiles(old),
      now === undefined ? new Map() : newFiles(now),
      placed(now),
      placed(old),
      between,
      moves,
    );
  const skillFiles: FileChange[] = [];
  const documents: DocumentChange[] = [];
  // The skill of each file a skill's comparison leaves removed or added, and which skill is which after:
  // the files moved from one skill into another are paired once every skill is compared.
  const owners: Owners = { before: new Map(), after: new Map(), same: new Map() };
  const owned = (old: Skill | undefined, now: Skill | undefined, changes: readonly FileChange[]) => {
    for (const change of changes) {
      if (change.kind === "removed" && old !== undefined) owners.before.set(change.path, old);
      if (change.kind === "added" && now !== undefined) owners.after.set(change.path, now);
    }
    skillFiles.push(...changes);
  };
  for (const { before: old, after: now } of pairs) {
    await between();
    const change = documentChange(documentOf(before, old), documentOf(after, now), now, documents.length);
    const movedFrom = old.folder === now.folder ? undefined : documentIn(old);
    if (change !== undefined) documents.push({ ...change, movedFrom });
    owners.same.set(old, now);
    owned(old, now, await compareSkillFiles(old, now));
  }
  for (const skill of added) owned(undefined, skill, await compareSkillFiles(undefined, skill));
  for (const skill of removed) owned(skill, undefined, await compareSkillFiles(skill, undefined));
  const packFilesOf = (side: PackSide) =>
    new Map([...side.packFiles].map((file) => [file, servedIn(side, file)]));
  const same = (file: string) => file;
  // The files the audit read whose bytes the old commit did not have there.
  const changedPaths = new Set(
    [...after.files]
      .filter(([, now]) => now.notAudited === undefined)
      .filter(([file, now]) => {
        const old = before.files.get(file);
        return old === undefined || !sameContent(old, now);
      })
      .map(([file]) => file),
  );
  const addedDocuments: AddedDocument[] = [];
  const addedKeys: AddedKeys[] = [];
  for (const skill of added) {
    await between();
    // CRLF and CR endings left out: each line would show a `{U+000D}`.
    const text = withLineFeeds(bytesOf(documentOf(after, skill)).toString("utf8"));
    if (addedDocuments.length < KEPT_BODIES)
      addedDocuments.push({ skill, lines: excerptOf(text.replace(/\n$/, "").split("\n")) });
    const keys = [...topLevelKeys(partsOf(text).frontmatter).keys()].filter((key) => !NAMED_KEYS.has(key));
    const { kept, leftOut } = keptKeys(
      keys,
      (key) => key,
      (_, key) => key,
    );
    if (kept.length > 0) addedKeys.push({ skill, keys: kept, keysLeftOut: leftOut });
  }
  const packChanges = await compareFiles(packFilesOf(before), packFilesOf(after), same, same, between, moves);
  for (const change of packChanges) {
    if (change.kind === "removed") owners.before.set(change.path, PACK_FILES);
    if (change.kind === "added") owners.after.set(change.path, PACK_FILES);
  }
  const inPlace = await keptInPlace(skillFiles, packChanges, { before, after, removed, added }, between);
  const moved = await movedBetweenSkills(inPlace.changes, owners, between);
  // Each file listed with the files it is among now (a removed one, where it was).
  const inPackFiles = inPlace.packFiles;
  const amongPackFiles = (change: FileChange) =>
    change.skills === undefined ? inPackFiles.has(change) : change.skills.to === undefined;
  const sortedSkillFiles = crowdsLast(moved.filter((change) => !amongPackFiles(change)).sort(byPath));
  const packFiles = crowdsLast(moved.filter(amongPackFiles).sort(byPath));
  return {
    added,
    addedDocuments,
    addedKeys,
    removed,
    renamed: pairs.filter(
      (pair) => pair.before.folder !== pair.after.folder || pair.before.name !== pair.after.name,
    ),
    notPaired,
    pastRenameText,
    descriptions: pairs.filter((pair) => pair.before.description !== pair.after.description),
    documents,
    skillFiles: sortedSkillFiles,
    packFiles,
    changedPaths,
  };
}

/**
 * The change of a skill's SKILL.md, whenever a byte of it changed; undefined when none did. Of its texts,
 * old and new, only what the review can show of their diff is kept.
 */
function documentChange(
  old: ServedFile,
  now: ServedFile,
  skill: Skill,
  changed: number,
): Omit<DocumentChange, "movedFrom"> | undefined {
  const mode = old.executable === now.executable ? undefined : { executable: now.executable };
  if (sameContent(old, now)) {
    // Made executable alone, it was in no list: only an audit finding said so.
    if (mode === undefined) return undefined;
    return {
      skill,
      lines: { added: 0, removed: 0, unchanged: 0 },
      endings: undefined,
      whitespaceOnly: false,
      frontmatter: false,
      keys: [],
      keysLeftOut: 0,
      mode: { ...mode, only: true },
      hunks: excerptOf([]),
    };
  }
  const { before, after, lines, endings } = compareIgnoringEndings(
    bytesOf(old).toString("utf8"),
    bytesOf(now).toString("utf8"),
  );
  const hunks = changed < KEPT_BODIES ? unifiedDiff(before, after) : "not kept";
  return {
    skill,
    lines,
    endings,
    whitespaceOnly: before !== after && sameButWhitespace(before, after),
    frontmatter: partsOf(before).frontmatter !== partsOf(after).frontmatter,
    ...keyChanges(partsOf(before).frontmatter, partsOf(after).frontmatter),
    mode: mode === undefined ? undefined : { ...mode, only: false },
    hunks: hunks === undefined ? "too different" : hunks === "not kept" ? hunks : excerptOf(hunks),
  };
}

function inPack(skill: Skill, file: string): string {
  return path.posix.join(skill.folder, file);
}

/**
 * Each skill's supporting files on `side`, without SKILL.md and without the files of skills nested in it
 * (found by looking each folder above a file up among the skill folders, not by scanning every skill).
 */
function ownFilesIn(side: PackSide): (skill: Skill) => Map<string, ServedFile> {
  const folders = new Set(side.skills.map((skill) => skill.folder));
  return perSkill((skill) => {
    const base = skill.folder === "" ? "" : `${skill.folder}/`;
    const nested = (file: string) => {
      for (let end = file.indexOf("/"); end > 0; end = file.indexOf("/", end + 1))
        if (folders.has(base + file.slice(0, end))) return true;
      return false;
    };
    const own = new Map<string, ServedFile>();
    for (const file of skill.files.keys()) {
      if (!nested(file)) own.set(file, servedIn(side, inPack(skill, file)));
    }
    return own;
  });
}

/**
 * The changes from `before` to `after`, each file (or old and new pair) read and dropped in turn, a removed
 * and an added one paired as renamed where `pairable` allows.
 */
async function compareFiles(
  before: ReadonlyMap<string, ServedFile>,
  after: ReadonlyMap<string, ServedFile>,
  afterPath: (file: string) => string,
  beforePath: (file: string) => string,
  between: () => Promise<void>,
  pairable: Pairable = anyPair,
): Promise<FileChange[]> {
  const changes: FileChange[] = [];
  for (const [file, now] of after) {
    const old = before.get(file);
    const unchanged = old !== undefined && sameContent(old, now);
    // Its mode alone: a script made executable is one an agent may now run as it is.
    if (unchanged && old.executable === now.executable) continue;
    await between();
    const change: FileChange = unchanged
      ? {
          path: afterPath(file),
          movedFrom: undefined,
          kind: "changed",
          lines: undefined,
          endings: undefined,
          whitespaceOnly: false,
          mode: { executable: now.executable, only: true },
          notAudited: now.notAudited,
          content: undefined,
          sides: { before: old, after: now },
        }
      : fileChange(afterPath(file), old === undefined ? "added" : "changed", old, now);
    const from = beforePath(file);
    changes.push(old !== undefined && from !== change.path ? { ...change, movedFrom: from } : change);
  }
  for (const [file, old] of before) {
    if (after.has(file)) continue;
    await between();
    changes.push(fileChange(beforePath(file), "removed", old, undefined));
  }
  return (await editedRenames(renamedFiles(changes, pairable), between, pairable)).sort(byPath);
}

/**
 * `skillFiles` and `packChanges` with each file removed and added at the same path in the pack compared
 * as the one file it is, and which of them are among the pack files now. The catalog serves a nested
 * skill's files as files of the skill around it too, while the review lists each under its innermost
 * skill alone: a nested skill deleted, or one added around files, leaves them where they were, removed
 * from one skill's list and added to another's. Its path the same, it is no move, and the skills that
 * served it still do. So is a nested SKILL.md that stops being a skill's (its frontmatter gone), now a file
 * of the skill around it, or a file of it that starts to be one: it is in no list of files on the side
 * where it is a skill's SKILL.md, and showed as added (or removed), its whole text new.
 */
async function keptInPlace(
  skillFiles: readonly FileChange[],
  packChanges: readonly FileChange[],
  skills: {
    readonly before: PackSide;
    readonly after: PackSide;
    readonly removed: readonly Skill[];
    readonly added: readonly Skill[];
  },
  between: () => Promise<void>,
): Promise<{ changes: FileChange[]; packFiles: Set<FileChange> }> {
  const { before, after } = skills;
  const all = [...skillFiles, ...packChanges];
  const removedAt = new Map(
    all.filter((change) => change.kind === "removed").map((change) => [change.path, change]),
  );
  const addedAt = new Map(
    all.filter((change) => change.kind === "added").map((change) => [change.path, change]),
  );
  const replaced = new Set<FileChange>();
  const compared: FileChange[] = [];
  const pairs: [ServedFile | undefined, ServedFile | undefined, string][] = [];
  for (const change of all) {
    const removed = change.kind === "added" ? removedAt.get(change.path) : undefined;
    if (removed === undefined) continue;
    replaced.add(change).add(removed);
    pairs.push([removed.sides.before, change.sides.after, change.path]);
  }
  for (const skill of skills.removed) {
    const change = addedAt.get(documentIn(skill));
    if (change === undefined || replaced.has(change)) continue;
    replaced.add(change);
    pairs.push([before.files.get(change.path), change.sides.after, change.path]);
  }
  for (const skill of skills.added) {
    const change = removedAt.get(documentIn(skill));
    if (change === undefined || replaced.has(change)) continue;
    replaced.add(change);
    pairs.push([change.sides.before, after.files.get(change.path), change.path]);
  }
  for (const [old, now, file] of pairs) {
    const at = (served: ServedFile | undefined) => new Map(served === undefined ? [] : [[file, served]]);
    const same = (inPack: string) => inPack;
    compared.push(...(await compareFiles(at(old), at(now), same, same, between)));
  }
  const kept = all.filter((change) => !replaced.has(change));
  const packFiles = new Set([
    ...packChanges.filter((change) => !replaced.has(change)),
    ...compared.filter((change) => after.packFiles.has(change.path)),
  ]);
  return { changes: [...kept, ...compared], packFiles };
}

/** Whether a removed file and an added one may be paired as one renamed file. */
type Pairable = (removed: FileChange, added: FileChange) => boolean;

const anyPair: Pairable = () => true;

/** Where a pack file is: in no skill. */
const PACK_FILES = "pack files";

/**
 * The skill of each supporting file its skill's comparison left removed (by old path) or added (by new
 * path), or PACK_FILES for a pack file, and each paired skill's new self by its old one.
 */
interface Owners {
  readonly before: Map<string, Skill | typeof PACK_FILES>;
  readonly after: Map<string, Skill | typeof PACK_FILES>;
  readonly same: Map<Skill, Skill>;
}

/**
 * `changes` (a pack's supporting files, each skill's compared on its own, and its pack files) with each
 * file removed from one skill, or the pack files, and added to another skill, or the pack files, paired as
 * one renamed file, by the rules that pair them within a skill (its bytes, else its content at least half
 * the same), naming both: a reference moved to another skill showed as removed and added, its whole text
 * as new. The skill it moved into reads it now, which the review says. Files paired within their skill, or
 * among the pack files, are not paired again.
 */
async function movedBetweenSkills(
  changes: readonly FileChange[],
  owners: Owners,
  between: () => Promise<void>,
): Promise<FileChange[]> {
  // Pack files were paired among themselves already.
  const across: Pairable = (removed, added) => {
    const [from, to] = [owners.before.get(removed.path), owners.after.get(added.path)];
    // A file whose path stays is no move, whichever skill the review lists it under (see keptInPlace).
    if (from === undefined || to === undefined || removed.path === added.path) return false;
    return from === PACK_FILES ? to !== PACK_FILES : owners.same.get(from) !== to;
  };
  const given = new Set(changes);
  const paired = await editedRenames(renamedFiles(changes, across), between, across, sharingRarePieces);
  const skillOf = (owner: Skill | typeof PACK_FILES) => (owner === PACK_FILES ? undefined : owner);
  const wasBefore = new Map([...owners.same].map(([old, now]) => [now, old]));
  return paired.map((change) => {
    if (given.has(change)) return change;
    const from = owners.before.get(change.movedFrom ?? "");
    const to = owners.after.get(change.path);
    if (from === undefined || to === undefined) return change;
    // The catalog serves a nested skill's files as the skill around it's too: one that held the file
    // before, where it is in its folder now, gains nothing by the move (its folder moved with it).
    if (to !== PACK_FILES && servedBy(wasBefore.get(to), inSkill(to, change.path))) return change;
    return { ...change, skills: { from: skillOf(from), to: skillOf(to) } };
  });
}

/** `file` (in the pack, in the folder of `skill`) in that folder. */
function inSkill(skill: Skill, file: string): string {
  return skill.folder === "" ? file : file.slice(skill.folder.length + 1);
}

/** Whether the catalog has `skill` serve `file` (in its folder), as one of its files. */
function servedBy(skill: Skill | undefined, file: string): boolean {
  return skill !== undefined && resolveSkillFile(skill, file) !== undefined;
}

/**
 * `changes` with each added file that has the bytes of a removed one, and the removed one, as one renamed
 * file (one of the same name first): a reference moved within its skill was listed as removed and added,
 * its whole text shown as new. An empty file is not paired: two of them say nothing of each other.
 */
function renamedFiles(changes: readonly FileChange[], pairable: Pairable = anyPair): FileChange[] {
  const keyOf = (file: ServedFile | undefined) =>
    file?.digest === undefined || file.digest.size === 0 || file.notAudited !== undefined
      ? undefined
      : `${file.digest.size} ${file.digest.sha256}`;
  const removed = new Map<string, FileChange[]>();
  for (const change of changes) {
    const key = change.kind === "removed" ? keyOf(change.sides.before) : undefined;
    if (key === undefined) continue;
    const same = removed.get(key) ?? [];
    same.push(change);
    removed.set(key, same);
  }
  const paired = new Set<FileChange>();
  const renamed: FileChange[] = [];
  for (const change of changes) {
    const key = change.kind === "added" ? keyOf(change.sides.after) : undefined;
    const candidates = (key === undefined ? undefined : removed.get(key))?.filter(
      (old) => !paired.has(old) && pairable(old, change),
    );
    const name = path.posix.basename(change.path);
    const old = candidates?.find((file) => path.posix.basename(file.path) === name) ?? candidates?.[0];
    if (old === undefined) continue;
    paired.add(old).add(change);
    const [before, after] = [old.sides.before, change.sides.after];
    renamed.push({
      ...change,
      kind: "renamed",
      movedFrom: old.path,
      lines: undefined,
      endings: undefined,
      whitespaceOnly: false,
      mode:
        before !== undefined && after !== undefined && before.executable !== after.executable
          ? { executable: after.executable, only: false }
          : undefined,
      // Its bytes the same: nothing to read of it upstream.
      content: undefined,
      sides: { before, after },
    });
  }
  return [...changes.filter((change) => !paired.has(change)), ...renamed];
}

/**
 * An added and a removed file are one renamed file when at least this share of the longer is in the other:
 * of a text file's lines (blank ones left out, in any order), of a binary file's bytes (see
 * {@link binaryPieces}). It is what git's `-M` takes for a rename by default, so that the review's pairs are
 * the ones `git diff` shows.
 */
const RENAME_SIMILARITY = 0.5;
/**
 * The most bytes of removed files whose pieces are held, as hashes, to pair with added ones (16 MiB, as
 * telling renamed skills holds), and the most piece comparisons one list may cost: past them, files are
 * left removed and added, as they were before edited renames were told.
 */
const RENAME_FILE_TEXT_BYTES = 16 * 1024 * 1024;
const RENAME_FILE_COMPARISONS = 64 * 1024 * 1024;

/**
 * Pieces that more removed files than this hold name none of them as a candidate for a file moved into
 * another skill, and each added file is compared with at most MOVE_CANDIDATES removed ones, those sharing
 * the most pieces with it: a pack's files are compared across all its skills. Compared with every removed
 * one, 10,000 files moved among 2,000 skills took 15.0 s, and found 109 of them before the bound on
 * comparisons; so, 6.2 s and all of them, 6.0 s when moves were not told (`bench/repin-review-moves.ts`).
 */
const RARE_PIECE_FILES = 8;
const MOVE_CANDIDATES = 8;

/**
 * A file as edited renames are told: the hashes of its pieces, sorted, each piece's weight, and their total.
 * A text file's pieces are its lines but blank ones, each of weight one (`weights` undefined, a line there
 * as often as the file has it); a binary file's are its bytes in git's pieces, each hash once, of the
 * bytes its pieces hold.
 */
interface Pieces {
  readonly binary: boolean;
  readonly hashes: Int32Array;
  readonly weights: Int32Array | undefined;
  readonly total: number;
}

/**
 * `changes` with each added file whose content is at least RENAME_SIMILARITY that of a removed one, and
 * that removed one, as one renamed file: a text file with the diff of its edit (a reference renamed and
 * edited in one bump showed as removed and added, its whole text shown as new and its old findings as new
 * ones), a binary one with its sizes. Each added file, in path order, takes the removed one most like it
 * (of the same name on a tie, then the first by path) of the same kind, text or binary, that `pairable`
 * allows; files over CONTENT_BYTES or unaudited are not paired. Pieces are compared by a hash with a fixed
 * seed, so that the pairs are the same on every run.
 */
async function editedRenames(
  changes: readonly FileChange[],
  between: () => Promise<void>,
  pairable: Pairable = anyPair,
  candidates: Candidates = everyOne,
): Promise<FileChange[]> {
  const fits = (file: ServedFile | undefined) =>
    file !== undefined &&
    file.notAudited === undefined &&
    file.digest !== undefined &&
    file.digest.size > 0 &&
    file.digest.size <= CONTENT_BYTES;
  // With no added file to pair, the removed ones are not read.
  if (!changes.some((change) => change.kind === "added" && fits(change.sides.after))) return [...changes];
  const removed: Held[] = [];
  let held = 0;
  for (const change of changes) {
    const old = change.sides.before;
    if (change.kind !== "removed" || !fits(old) || old === undefined) continue;
    const size = old.digest?.size ?? 0;
    if (held + size > RENAME_FILE_TEXT_BYTES) continue;
    await between();
    const pieces = piecesOf(old);
    if (pieces === undefined) continue;
    held += size;
    removed.push({ change, pieces });
  }
  if (removed.length === 0) return [...changes];
  const candidatesOf = candidates(removed);
  const paired = new Set<FileChange>();
  const renamed: FileChange[] = [];
  let comparisons = 0;
  for (const change of changes) {
    if (change.kind !== "added" || !fits(change.sides.after) || change.sides.after === undefined) continue;
    await between();
    const pieces = piecesOf(change.sides.after);
    if (pieces === undefined) continue;
    const name = path.posix.basename(change.path);
    let best: { change: FileChange; score: number } | undefined;
    const open = (old: Held) =>
      !paired.has(old.change) && old.pieces.binary === pieces.binary && pairable(old.change, change);
    for (const old of candidatesOf(pieces, open)) {
      const longest = Math.max(pieces.total, old.pieces.total);
      // Too unlike in length to reach the share, whatever their content.
      if (Math.min(pieces.total, old.pieces.total) < RENAME_SIMILARITY * longest) continue;
      comparisons += pieces.hashes.length + old.pieces.hashes.length;
      if (comparisons > RENAME_FILE_COMPARISONS) break;
      const score = sharedWeight(pieces, old.pieces) / longest;
      if (score < RENAME_SIMILARITY) continue;
      const better =
        best === undefined ||
        score > best.score ||
        (score === best.score &&
          path.posix.basename(old.change.path) === name &&
          path.posix.basename(best.change.path) !== name);
      if (better) best = { change: old.change, score };
    }
    if (best === undefined) continue;
    paired.add(best.change).add(change);
    renamed.push({
      ...fileChange(change.path, "renamed", best.change.sides.before, change.sides.after),
      movedFrom: best.change.path,
    });
  }
  return [...changes.filter((change) => !paired.has(change)), ...renamed];
}

/** A removed file, and its pieces. */
interface Held {
  readonly change: FileChange;
  readonly pieces: Pieces;
}

/** The removed files each added one, by its pieces, is compared with, in their order, of those `open`. */
type Candidates = (
  removed: readonly Held[],
) => (pieces: Pieces, open: (old: Held) => boolean) => readonly Held[];

/** Every removed file open: within one skill or list, which holds few. */
const everyOne: Candidates = (removed) => (_pieces, open) => removed.filter(open);

/**
 * The MOVE_CANDIDATES open removed files sharing the most rare pieces with an added one (held by at most
 * RARE_PIECE_FILES removed files, see {@link rareKeyIndex}), the first ones on a tie, in their order.
 * Those paired already are left out before the cut: after it, ten files alike moved into ten skills
 * found eight moves, the last two added files left with eight candidates all taken.
 */
const sharingRarePieces: Candidates = (removed) => {
  const shared = rareKeyIndex(removed, ({ pieces }) => distinct(pieces.hashes), RARE_PIECE_FILES);
  return (pieces, open) =>
    [...shared(distinct(pieces.hashes))]
      .filter(([index]) => {
        const old = removed[index];
        return old !== undefined && open(old);
      })
      .sort(([a, countA], [b, countB]) => countB - countA || a - b)
      .slice(0, MOVE_CANDIDATES)
      .map(([index]) => index)
      .sort((a, b) => a - b)
      .flatMap((index) => removed[index] ?? []);
};

/** Each value of sorted `hashes` once. */
function* distinct(hashes: Int32Array): Generator<number> {
  for (let index = 0; index < hashes.length; index++)
    if (index === 0 || hashes[index] !== hashes[index - 1]) yield hashes[index] ?? 0;
}

/** A file's pieces (see {@link Pieces}); undefined for a text of blank lines alone. */
function piecesOf(file: ServedFile): Pieces | undefined {
  const text = textOf(file);
  if (text === undefined) return binaryPieces(bytesOf(file));
  const hashes = lineHashes(text);
  return hashes === undefined
    ? undefined
    : { binary: false, hashes, weights: undefined, total: hashes.length };
}

/**
 * A binary file cut as git's `-M` cuts it to tell renames: a piece ends at each line feed, or after 64
 * bytes; two files share the bytes of the pieces both hold. Each piece is hashed as its bytes' Latin-1
 * characters, which stand for one byte each.
 */
function binaryPieces(bytes: Buffer): Pieces {
  const weights = new Map<number, number>();
  for (let start = 0; start < bytes.length; ) {
    const feed = bytes.indexOf(0x0a, start);
    const end = Math.min(feed < 0 ? bytes.length : feed + 1, start + 64, bytes.length);
    const hash = hashOf(bytes.toString("latin1", start, end), 0, end - start, 0);
    weights.set(hash, (weights.get(hash) ?? 0) + end - start);
    start = end;
  }
  const hashes = Int32Array.from(weights.keys()).sort();
  return {
    binary: true,
    hashes,
    weights: Int32Array.from(hashes, (hash) => weights.get(hash) ?? 0),
    total: bytes.length,
  };
}

/** The hashes of a text's lines but blank ones, line endings aside, sorted; undefined for no text. */
function lineHashes(text: string): Int32Array | undefined {
  const lines = withLineFeeds(text)
    .split("\n")
    .filter((line) => line.trim() !== "");
  if (lines.length === 0) return undefined;
  return Int32Array.from(lines, (line) => hashOf(line, 0, line.length, 0)).sort();
}

/**
 * How much two files' pieces share: of sorted hashes, each item of one matching at most one of the other,
 * each counted for its weight (the lesser of the two).
 */
function sharedWeight(a: Pieces, b: Pieces): number {
  let [i, j, shared] = [0, 0, 0];
  while (i < a.hashes.length && j < b.hashes.length) {
    const [x, y] = [a.hashes[i] ?? 0, b.hashes[j] ?? 0];
    if (x === y) {
      shared += Math.min(a.weights?.[i] ?? 1, b.weights?.[j] ?? 1);
      i++;
      j++;
    } else if (x < y) i++;
    else j++;
  }
  return shared;
}

/** Whether `file` was renamed with its bytes as they were (its mode aside). */
export function renamedAsItWas({ kind, sides }: FileChange): boolean {
  return (
    kind === "renamed" &&
    sides.before !== undefined &&
    sides.after !== undefined &&
    sameContent(sides.before, sides.after)
  );
}

function fileChange(
  where: string,
  kind: FileChange["kind"],
  before: ServedFile | undefined,
  after: ServedFile | undefined,
): FileChange {
  const named = kind === "removed" ? before : after;
  const [old, now] = [readServed(before), readServed(after)];
  const compared =
    old.text === undefined || now.text === undefined ? undefined : compareIgnoringEndings(old.text, now.text);
  return {
    path: where,
    movedFrom: undefined,
    kind,
    lines: compared?.lines,
    endings: compared?.endings,
    // Of a changed or renamed file: an added one of blank lines is not a change of whitespace.
    whitespaceOnly:
      (kind === "changed" || kind === "renamed") &&
      compared !== undefined &&
      compared.before !== compared.after &&
      sameButWhitespace(compared.before, compared.after),
    mode:
      before !== undefined && after !== undefined && before.executable !== after.executable
        ? { executable: after.executable, only: false }
        : undefined,
    notAudited: named?.notAudited,
    // The review shows no removed file's content, and git a binary one's no more than the review.
    content:
      kind !== "removed" && compared === undefined && old.gitText && now.gitText
        ? { kind: "text to git" }
        : undefined,
    sides: { before, after },
  };
}

/**
 * Past this many files of one kind (added, removed, changed, renamed, moved from one skill into another,
 * and change of mode) in one folder, or one level down in the folders of one folder, they are a crowd: a
 * data set, generated pages. A bump changing 3,000 rows of one listed its files by path alone, and the
 * list, cut to fit, and the room for contents were all rows: a reference removed or a script added beside
 * them was in neither. A crowd's files come after the rest, and a list cut short names it in one line.
 */
const CROWD_FILES = 20;

/** The files of a crowd have the same `key`; `folder` holds them (`data/rows`), or its folders (`data/*`). */
export interface Crowd {
  readonly key: string;
  readonly folder: string;
}

/** The crowd of each file of `files`; undefined for one in none. */
export function crowdsIn(files: readonly FileChange[]): (file: FileChange) => Crowd | undefined {
  const placesOf = (file: FileChange): Crowd[] => {
    // One the audit did not read is a high finding of its own, always named.
    if (file.notAudited !== undefined) return [];
    const moved =
      file.skills === undefined ? "" : `\n${file.skills.from?.folder ?? ""}\n${file.skills.to?.folder ?? ""}`;
    const kind = `${file.kind}\n${file.mode?.executable} ${file.mode?.only}${moved}`;
    const folder = path.posix.dirname(file.path);
    const parent = path.posix.dirname(folder);
    const places = [{ key: `${kind}\n${folder}`, folder }];
    if (folder !== ".") {
      const below = parent === "." ? "*" : `${parent}/*`;
      places.push({ key: `${kind}\n${below}`, folder: below });
    }
    return places;
  };
  const places = new Map<FileChange, Crowd[]>();
  const sizes = new Map<string, number>();
  for (const file of files) {
    const held = placesOf(file);
    places.set(file, held);
    for (const { key } of held) sizes.set(key, (sizes.get(key) ?? 0) + 1);
  }
  // Each file's crowd found once: the review asks for every file's, for each list, in each render it tries.
  const crowds = new Map<FileChange, Crowd | undefined>();
  for (const [file, held] of places)
    crowds.set(
      file,
      held.find(({ key }) => (sizes.get(key) ?? 0) > CROWD_FILES),
    );
  return (file) =>
    crowds.has(file)
      ? crowds.get(file)
      : placesOf(file).find(({ key }) => (sizes.get(key) ?? 0) > CROWD_FILES);
}

/**
 * How many files of a crowd show their contents. A crowd's files are alike (3,000 rows of a data set): one
 * of them given a share of the room for contents each, a bump of 3,000 rows showed some 130 row diffs,
 * and every other file only its least share.
 */
export const CROWD_SAMPLES = 2;

/** Why a file is worth showing before others of its crowd: `rank` lower first, `why` said in the review. */
export interface Notable {
  readonly rank: number;
  readonly why: string;
}

/**
 * `files` (one list: a pack's supporting files, or its pack files) with the content of each crowd's files
 * past its CROWD_SAMPLES samples whose content would show marked `crowd`: they take no room for contents.
 * The samples are those that tell the reviewer most: the `notable` ones first (a file with a finding), then
 * the largest changes, then the first by path; each says why it was chosen. The first two by path showed a
 * row changed in one line beside the one row of 3,000 a bump rewrote, or that brought a finding.
 */
export function sampleCrowds(
  files: readonly FileChange[],
  notable: (file: FileChange) => Notable | undefined,
): FileChange[] {
  const crowdOf = crowdsIn(files);
  const members = new Map<string, { file: FileChange; index: number; notable: Notable | undefined }[]>();
  files.forEach((file, index) => {
    const crowd = crowdOf(file);
    if (crowd === undefined || !showsContent(file)) return;
    const held = members.get(crowd.key) ?? [];
    held.push({ file, index, notable: notable(file) });
    members.set(crowd.key, held);
  });
  const size = (file: FileChange) => (file.lines?.added ?? 0) + (file.lines?.removed ?? 0);
  const samples = new Map<number, string>();
  for (const crowd of members.values()) {
    const chosen = crowd
      .sort(
        (a, b) =>
          (a.notable?.rank ?? Number.POSITIVE_INFINITY) - (b.notable?.rank ?? Number.POSITIVE_INFINITY) ||
          size(b.file) - size(a.file) ||
          a.index - b.index,
      )
      .slice(0, CROWD_SAMPLES);
    let largest = 0;
    for (const { index, notable: worth } of chosen)
      samples.set(index, worth?.why ?? (largest++ === 0 ? "the largest change" : "the next largest change"));
  }
  return files.map((file, index) => {
    if (crowdOf(file) === undefined || !showsContent(file)) return file;
    const why = samples.get(index);
    return why === undefined ? { ...file, content: { kind: "crowd" } } : { ...file, sample: why };
  });
}

/**
 * Whether the review shows `file`'s content: an added or changed text file, changed in more than its mode
 * or line endings, not yet marked otherwise.
 */
function showsContent(file: FileChange): boolean {
  return (
    file.content === undefined &&
    file.kind !== "removed" &&
    file.notAudited === undefined &&
    file.lines !== undefined &&
    file.endings?.only !== true &&
    file.mode?.only !== true
  );
}

/** `files`, in their order, with the files of each crowd after the others. */
function crowdsLast(files: readonly FileChange[]): FileChange[] {
  const crowd = crowdsIn(files);
  return [
    ...files.filter((file) => crowd(file) === undefined),
    ...files.filter((file) => crowd(file) !== undefined),
  ];
}

/**
 * `files` (every pack's, in the order the review lists them) with the content of each added or changed
 * text file, read again one at a time, while `budget` has room: past it, `not kept`. Each keeps at most
 * its fair share of what is left (see {@link contentShare}), so that one large file does not leave the
 * files after it, in its pack or the next, unshown. Each costs linear work in its size (a diff within
 * UNIFIED_LIMITS).
 */
export async function keepContents(
  files: readonly FileChange[],
  budget: ContentBudget,
  between: () => Promise<void>,
): Promise<FileChange[]> {
  const kept: FileChange[] = [];
  let toKeep = files.filter(showsContent).length;
  for (const file of files) {
    if (!showsContent(file)) {
      kept.push(file);
      continue;
    }
    const share = contentShare(budget.left, toKeep);
    toKeep -= 1;
    if (share === 0) {
      kept.push({ ...file, content: { kind: "not kept" } });
      continue;
    }
    await between();
    const content = contentOf(file.sides.before, file.sides.after);
    if (!("lines" in content)) {
      kept.push({ ...file, content });
      continue;
    }
    const lines = firstLines(content.lines.lines, share);
    budget.left -= sum(lines.map((line) => line.length + 1));
    kept.push({ ...file, content: { ...content, lines: { lines, total: content.lines.total } } });
  }
  return kept;
}

/**
 * The characters of contents one file may take of `left`, with `files` (it included) still to show: an
 * even share, but at least MIN_CONTENT_CHARS (a few lines tell nothing), and none once less than that
 * is left. What a file does not use of its share goes to the files after it.
 */
export function contentShare(left: number, files: number): number {
  if (left < MIN_CONTENT_CHARS) return 0;
  return Math.min(left, Math.max(MIN_CONTENT_CHARS, Math.floor(left / Math.max(1, files))));
}

/**
 * The first `lines` that fit in `chars`, a newline after each; a first line longer than that is cut to
 * fit and ends in `…`, so that a one-line (minified) file shows its start, and shows it cut.
 */
function firstLines(lines: readonly string[], chars: number): string[] {
  const shown: string[] = [];
  let size = 0;
  for (const line of lines) {
    if (size + line.length + 1 > chars) {
      if (shown.length === 0) shown.push(`${[...line].slice(0, chars - 2).join("")}…`);
      break;
    }
    shown.push(line);
    size += line.length + 1;
  }
  return shown;
}

function contentOf(before: ServedFile | undefined, after: ServedFile | undefined): FileContent {
  const size = Math.max(before?.digest?.size ?? 0, after?.digest?.size ?? 0);
  if (size > CONTENT_BYTES) return { kind: "too large" };
  const now = withLineFeeds(textOf(after) ?? "");
  if (before === undefined)
    return { kind: "text", lines: excerptOf(now === "" ? [] : now.replace(/\n$/, "").split("\n")) };
  const hunks = unifiedDiff(withLineFeeds(textOf(before) ?? ""), now);
  return hunks === undefined ? { kind: "too different" } : { kind: "diff", lines: excerptOf(hunks) };
}

function sum(values: readonly number[]): number {
  return values.reduce((total, value) => total + value, 0);
}

function byPath(a: FileChange, b: FileChange): number {
  return compareText(a.path, b.path);
}
