/** What a bump changes in one pack: its skills paired, and their SKILL.md and other files compared. */
import path from "node:path";
import { resolveSkillFile, type Skill } from "../../src/catalog/index.js";
import { compareText } from "../../src/shared/index.js";
import { crowdsLast } from "./crowds.js";
import {
  compareIgnoringEndings,
  type EndingsChange,
  type LineChanges,
  sameButWhitespace,
  unifiedDiff,
  withLineFeeds,
} from "./diff.js";
import { type Excerpt, excerptOf } from "./excerpt.js";
import { type FileChange, fileChange } from "./file-change.js";
import { anyPair, editedRenames, type Pairable, renamedFiles, sharingRarePieces } from "./file-renames.js";
import { type KeyChange, keyChanges, partsOf } from "./frontmatter-keys.js";
import { matchSkills, type SkillPair } from "./renames.js";
import {
  bytesOf,
  documentIn,
  documentOf,
  type PackSide,
  perSkill,
  type ServedFile,
  sameContent,
  servedIn,
} from "./served.js";

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
interface AddedKeys {
  readonly skill: Skill;
  readonly keys: readonly KeyChange[];
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
    // Every key is added, from no frontmatter: a granting one with what it grants.
    const { keys, keysLeftOut } = keyChanges("", partsOf(text).frontmatter);
    if (keys.length > 0) addedKeys.push({ skill, keys, keysLeftOut });
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

function byPath(a: FileChange, b: FileChange): number {
  return compareText(a.path, b.path);
}
