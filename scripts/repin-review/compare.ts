import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import {
  closingLineIndex,
  compareText,
  describeBytes,
  excerpt,
  readFrontmatterFields,
  SKILL_DOCUMENT,
  type Skill,
  stripBom,
} from "../../src/catalog/index.js";
import {
  compareIgnoringEndings,
  type EndingsChange,
  type LineChanges,
  unifiedDiff,
  withLineFeeds,
} from "./diff.js";
import { type Excerpt, excerptOf } from "./excerpt.js";

/** A pack as one commit has it: its skills, and every file it serves by path in the pack. */
export interface PackSide {
  readonly skills: readonly Skill[];
  /** Pack files (outside every skill folder), by path in the pack. */
  readonly packFiles: ReadonlySet<string>;
  /** Each served file, by path in the pack. */
  readonly files: ReadonlyMap<string, ServedFile>;
}

/**
 * A served file as the review compares it: by its size and SHA-256, which tell whether it changed, its bytes
 * read again from `source` only when a line count or a diff needs them, one file (or old and new pair) at
 * a time, so that the review holds no more than that of a bump of many large files.
 */
export interface ServedFile {
  /** Undefined when the file could not be read at all. */
  readonly digest: Digest | undefined;
  /** Why the audit did not read it, as the audit says it (`not audited: larger than 16 MiB, …`). */
  readonly notAudited: string | undefined;
  /** Where its bytes are; undefined for no bytes. */
  readonly source: string | undefined;
}

export interface Digest {
  readonly size: number;
  readonly sha256: string;
}

export const EMPTY_SIDE: PackSide = {
  skills: [],
  packFiles: new Set(),
  files: new Map(),
};

export function digestOf(bytes: Uint8Array): Digest {
  return { size: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") };
}

export interface FileChange {
  /** In the pack: the new path, or the old one for a removed file. */
  readonly path: string;
  readonly kind: "added" | "removed" | "changed";
  /** For text, line endings aside; undefined for a binary file, or one the audit did not read. */
  readonly lines: LineChanges | undefined;
  /** How its line endings changed, when a line differs by its ending alone. */
  readonly endings: EndingsChange | undefined;
  /** Why the audit did not read the version `path` names (the new one, or the removed one). */
  readonly notAudited: string | undefined;
}

export interface KeyChange {
  readonly key: string;
  readonly kind: "added" | "removed" | "changed";
}

export interface SkillPair {
  readonly before: Skill;
  readonly after: Skill;
}

/**
 * A SKILL.md that a bump changes, old and new, frontmatter and all: a model reads every key of it
 * (`allowed-tools`, `metadata`, a YAML comment), not only the name and description.
 */
export interface DocumentChange {
  readonly skill: Skill;
  /** Line endings aside: the diff and counts of a file moved to CRLF or back would be every line. */
  readonly lines: LineChanges;
  /** How its line endings changed, when a line differs by its ending alone. */
  readonly endings: EndingsChange | undefined;
  /** Whether the frontmatter changed (any key, comment or byte of it but line endings). */
  readonly frontmatter: boolean;
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
 * 65,536, and the review then lists at most 200 of a pack (its list limits), whose bodies it has: a bump
 * adding thousands of long SKILL.md files, in one pack or over many, costs no more than this many.
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

/**
 * The most keys of one skill the review keeps, and the characters of each: a frontmatter of 64 KiB holds
 * a thousand long keys, and a bump may add thousands of skills.
 */
export const KEPT_KEYS = 20;
const KEY_CHARS = 64;

/**
 * Keys that grant a skill what it could not do unasked (`allowed-tools`, Claude Code's `hooks`) come first;
 * those the Agent Skills specification gives as information (`license`, `metadata`, `compatibility`) last;
 * any other between, as a host may act on it.
 */
export function keyRank(key: string): number {
  if (GRANTING_KEYS.has(key)) return 0;
  return INFORMATIVE_KEYS.has(key) ? 2 : 1;
}

const GRANTING_KEYS: ReadonlySet<string> = new Set(["allowed-tools", "hooks"]);
const INFORMATIVE_KEYS: ReadonlySet<string> = new Set(["license", "metadata", "compatibility"]);

/** The first KEPT_KEYS of `keys` by {@link keyRank}, each cut to KEY_CHARS, and how many are left out. */
function keptKeys<T>(keys: readonly T[], keyOf: (item: T) => string, cut: (item: T, key: string) => T) {
  const kept = [...keys]
    .sort((a, b) => keyRank(keyOf(a)) - keyRank(keyOf(b)))
    .slice(0, KEPT_KEYS)
    .map((item) => cut(item, excerpt(keyOf(item), KEY_CHARS)));
  return { kept, leftOut: keys.length - kept.length };
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
  const compareSkillFiles = (old: Skill | undefined, now: Skill | undefined) =>
    compareFiles(
      old === undefined ? new Map() : oldFiles(old),
      now === undefined ? new Map() : newFiles(now),
      placed(now),
      placed(old),
      between,
    );
  const skillFiles: FileChange[] = [];
  const documents: DocumentChange[] = [];
  for (const { before: old, after: now } of pairs) {
    await between();
    const change = documentChange(documentOf(before, old), documentOf(after, now), now, documents.length);
    if (change !== undefined) documents.push(change);
    skillFiles.push(...(await compareSkillFiles(old, now)));
  }
  for (const skill of added) skillFiles.push(...(await compareSkillFiles(undefined, skill)));
  for (const skill of removed) skillFiles.push(...(await compareSkillFiles(skill, undefined)));
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
    skillFiles: skillFiles.sort(byPath),
    packFiles: await compareFiles(packFilesOf(before), packFilesOf(after), same, same, between),
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
): DocumentChange | undefined {
  if (sameContent(old, now)) return undefined;
  const { before, after, lines, endings } = compareIgnoringEndings(
    bytesOf(old).toString("utf8"),
    bytesOf(now).toString("utf8"),
  );
  const hunks = changed < KEPT_BODIES ? unifiedDiff(before, after) : "not kept";
  return {
    skill,
    lines,
    endings,
    frontmatter: partsOf(before).frontmatter !== partsOf(after).frontmatter,
    ...keyChanges(partsOf(before).frontmatter, partsOf(after).frontmatter),
    hunks: hunks === undefined ? "too different" : hunks === "not kept" ? hunks : excerptOf(hunks),
  };
}

/**
 * Lines a skill shares with more old skills than this name none of them as a candidate for a rename: they
 * are boilerplate, and would make every skill a candidate of every other.
 */
export const RARE_LINE_SKILLS = 8;
/** Each new skill is compared with at most this many old ones: those sharing the most rare lines with it. */
const RENAME_CANDIDATES = 8;
/**
 * The most text (SKILL.md and supporting files, in bytes) that telling renames by their lines holds: of
 * the old skills compared, together, and of each new one, compared one at a time. Lines take several times
 * the size of their text, so this is the most the audit reads of one file: the step holds about what the
 * diff of the largest pair of files does. Past it a skill is not compared for a rename, and the review
 * counts it.
 */
export const RENAME_TEXT_BYTES = 16 * 1024 * 1024;

/**
 * Pairs the skills of two commits: by folder, then by name, then by an unchanged description or SKILL.md
 * body, and last, as git finds renames, by text at least half the same (body and supporting files): a
 * skill moved and renamed whose text was edited in the same bump. Each step looks skills up by key or by
 * line, so that the work grows with the size of the pack, not with its square.
 */
function matchSkills(
  older: Commit,
  newer: Commit,
): Pick<PackChanges, "notPaired" | "pastRenameText"> & { pairs: SkillPair[] } {
  const [before, after] = [older.side, newer.side];
  const pairs: SkillPair[] = [];
  const left = new Set(before.skills);
  const right = new Set(after.skills);
  const pair = (old: Skill, now: Skill) => {
    pairs.push({ before: old, after: now });
    left.delete(old);
    right.delete(now);
  };
  const order = new Map(before.skills.map((skill, index) => [skill, index]));
  const rank = (skill: Skill) => order.get(skill) ?? 0;
  /** Pairs each new skill with the first old one left that has one of its keys (one key per way of telling). */
  const pairByKeys = (...ways: ((side: PackSide) => (skill: Skill) => string)[]) => {
    const indexes = ways.map((way) => {
      const key = way(before);
      const index = new Map<string, Queue>();
      for (const old of left) {
        const queue = index.get(key(old)) ?? { skills: [], next: 0 };
        queue.skills.push(old);
        index.set(key(old), queue);
      }
      return { key: way(after), index };
    });
    for (const now of [...right]) {
      const found = indexes
        .map(({ key, index }) => firstLeft(index.get(key(now)), left))
        .filter((old) => old !== undefined)
        .sort((a, b) => rank(a) - rank(b))[0];
      if (found !== undefined) pair(found, now);
    }
  };
  // A body is told by its SHA-256: bodies are read one at a time, not held.
  const body = (side: PackSide) =>
    perSkill((skill) =>
      createHash("sha256")
        .update(bodyOf(documentOf(side, skill)))
        .digest("hex"),
    );
  pairByKeys(() => (skill) => skill.folder);
  pairByKeys(() => (skill) => skill.name);
  pairByKeys(() => (skill) => skill.description, body);
  const olds: Unpaired[] = [];
  let held = 0;
  for (const skill of left) {
    const bytes = textBytes(skill, older);
    if (held + bytes > RENAME_TEXT_BYTES) continue;
    held += bytes;
    olds.push({ skill, lines: linesOf(skillText(skill, older)) });
  }
  const news = [...right].filter((skill) => textBytes(skill, newer) <= RENAME_TEXT_BYTES);
  const pastRenameText = { added: right.size - news.length, removed: left.size - olds.length };
  const notPaired = pairBySharedLines(olds, news, (skill) => linesOf(skillText(skill, newer)), pair);
  return { pairs, notPaired, pastRenameText };
}

/** A side of the comparison, with each skill's supporting files. */
interface Commit {
  readonly side: PackSide;
  readonly files: (skill: Skill) => Map<string, ServedFile>;
}

/** Skills of one key, in the old commit's order, and the first that may still be unpaired. */
interface Queue {
  readonly skills: Skill[];
  next: number;
}

function firstLeft(queue: Queue | undefined, left: ReadonlySet<Skill>): Skill | undefined {
  if (queue === undefined) return undefined;
  for (let skill = queue.skills[queue.next]; skill !== undefined; skill = queue.skills[++queue.next]) {
    if (left.has(skill)) return skill;
  }
  return undefined;
}

/** A skill's text as a multiset of its lines (blank ones left out: they tell no skill from another). */
interface Lines {
  readonly counts: ReadonlyMap<string, number>;
  readonly total: number;
}

interface Unpaired {
  readonly skill: Skill;
  readonly lines: Lines;
}

/**
 * Pairs each new skill with the old one whose lines it shares most, when that is at least half the lines
 * of the longer of the two: git's rename detection, by content rather than by order. Candidates are the
 * old skills sharing a rare line with it (one that at most RARE_LINE_SKILLS old skills have), the
 * RENAME_CANDIDATES sharing the most, so the work is linear in the text. Each new skill's lines are made
 * when it is compared, and dropped after. Returns the new skills left unpaired that could not be told
 * apart this way: at least half their lines are boilerplate of many old skills, too many to say which one
 * each came from.
 */
function pairBySharedLines(
  olds: readonly Unpaired[],
  news: readonly Skill[],
  linesIn: (skill: Skill) => Lines,
  pair: (old: Skill, now: Skill) => void,
): Skill[] {
  const holders = new Map<string, Unpaired[]>();
  for (const old of olds) {
    for (const line of old.lines.counts.keys()) {
      const held = holders.get(line) ?? [];
      // One past the limit is enough to know the line is boilerplate.
      if (held.length <= RARE_LINE_SKILLS) held.push(old);
      holders.set(line, held);
    }
  }
  const left = new Set(olds);
  const notPaired: Skill[] = [];
  for (const skill of news) {
    const now = { skill, lines: linesIn(skill) };
    const shared = new Map<Unpaired, number>();
    let boilerplate = 0;
    for (const [line, count] of now.lines.counts) {
      const held = holders.get(line) ?? [];
      if (held.length > RARE_LINE_SKILLS) boilerplate += count;
      else for (const old of held) if (left.has(old)) shared.set(old, (shared.get(old) ?? 0) + 1);
    }
    const best = [...shared]
      .sort(([, a], [, b]) => b - a)
      .slice(0, RENAME_CANDIDATES)
      .map(([old]) => ({ old, likeness: similarity(old.lines, now.lines) }))
      .filter(({ likeness }) => likeness >= 0.5)
      .sort((a, b) => b.likeness - a.likeness)[0];
    if (best !== undefined) {
      pair(best.old.skill, now.skill);
      left.delete(best.old);
    } else if (2 * boilerplate >= now.lines.total && boilerplate > 0) notPaired.push(now.skill);
  }
  return notPaired;
}

/** Read line by line, not split: 16 MiB of line feeds would be an array of 16 million blank lines. */
function linesOf(text: string): Lines {
  const counts = new Map<string, number>();
  let total = 0;
  for (let start = 0; start <= text.length; ) {
    const found = text.indexOf("\n", start);
    const end = found < 0 ? text.length : found;
    const line = text.slice(start, end);
    start = end + 1;
    if (line.trim() === "") continue;
    counts.set(line, (counts.get(line) ?? 0) + 1);
    total++;
  }
  return { counts, total };
}

/** The share of lines two texts have in common, of the longer one, counted by content. */
function similarity(a: Lines, b: Lines): number {
  const [fewer, more] = a.counts.size <= b.counts.size ? [a, b] : [b, a];
  let common = 0;
  for (const [line, count] of fewer.counts) common += Math.min(count, more.counts.get(line) ?? 0);
  return common / Math.max(a.total, b.total, 1);
}

/**
 * The body and the text supporting files of a skill, in path order, for telling how alike two skills are.
 * Line endings left out: a skill moved and converted to CRLF in one bump still shares its lines.
 */
function skillText(skill: Skill, { side, files }: Commit): string {
  const sorted = [...files(skill)].sort(([a], [b]) => compareText(a, b));
  const texts = sorted.map(([file, content]) => `${file}\n${withLineFeeds(textOf(content) ?? "")}`);
  return [bodyOf(documentOf(side, skill)), ...texts].join("\n");
}

/** How many bytes {@link skillText} reads: the skill's SKILL.md and the supporting files the audit read. */
function textBytes(skill: Skill, { side, files }: Commit): number {
  let bytes = documentOf(side, skill).digest?.size ?? 0;
  for (const file of files(skill).values()) {
    if (file.notAudited === undefined) bytes += file.digest?.size ?? 0;
  }
  return bytes;
}

/** `make` of each skill, made once: a skill's files are asked for when pairing and again when comparing. */
function perSkill<T>(make: (skill: Skill) => T): (skill: Skill) => T {
  const made = new Map<Skill, T>();
  return (skill) => {
    const known = made.get(skill);
    if (known !== undefined) return known;
    const value = make(skill);
    made.set(skill, value);
    return value;
  };
}

function documentIn(skill: Skill): string {
  return path.posix.join(skill.folder, SKILL_DOCUMENT);
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

const EMPTY = Buffer.alloc(0);
/** A file of no bytes: what the review takes for a served file it was not told of. */
const EMPTY_FILE: ServedFile = { digest: digestOf(EMPTY), notAudited: undefined, source: undefined };

function servedIn(side: PackSide, file: string): ServedFile {
  return side.files.get(file) ?? EMPTY_FILE;
}

/** A skill's SKILL.md as the audit read it: empty when the audit could not read it. */
function documentOf(side: PackSide, skill: Skill): ServedFile {
  const document = servedIn(side, documentIn(skill));
  return document.notAudited === undefined ? document : EMPTY_FILE;
}

/**
 * The bytes of a file the audit read, read again and checked against the digest of what it read: the
 * review shows what was audited.
 */
function bytesOf(file: ServedFile): Buffer {
  if (file.source === undefined) return EMPTY;
  const bytes = readFileSync(file.source);
  if (bytes.length !== file.digest?.size || digestOf(bytes).sha256 !== file.digest.sha256) {
    throw new Error(`${file.source} changed while the repin review read it`);
  }
  return bytes;
}

/** Whether two served files hold the same bytes, by size and SHA-256. */
function sameContent(a: ServedFile, b: ServedFile): boolean {
  // A file that could not be read is never known to be the same; one the audit read never is one it did not.
  if ((a.notAudited === undefined) !== (b.notAudited === undefined)) return false;
  return a.digest !== undefined && a.digest.size === b.digest?.size && a.digest.sha256 === b.digest.sha256;
}

/**
 * The frontmatter taken off: what a model reads after choosing the skill. Line endings are left out, as
 * everywhere the review compares text: a skill moved to CRLF is still the same skill.
 */
function bodyOf(file: ServedFile): string {
  return partsOf(withLineFeeds(bytesOf(file).toString("utf8"))).body;
}

/**
 * The top-level keys of two frontmatters whose text differs, but `name` and `description`, which the
 * review shows on their own: a host acts on some (`allowed-tools` lets a skill run tools without asking),
 * and the diff showing them is collapsed. Line endings and trailing spaces do not count.
 */
function keyChanges(before: string, after: string): Pick<DocumentChange, "keys" | "keysLeftOut"> {
  const [old, now] = [topLevelKeys(before), topLevelKeys(after)];
  const changes: KeyChange[] = [];
  for (const [key, value] of now) {
    const was = old.get(key);
    if (was === undefined) changes.push({ key, kind: "added" });
    else if (was !== value) changes.push({ key, kind: "changed" });
  }
  for (const key of old.keys()) if (!now.has(key)) changes.push({ key, kind: "removed" });
  const { kept, leftOut } = keptKeys(
    changes.filter(({ key }) => !NAMED_KEYS.has(key)),
    ({ key }) => key,
    (change, key) => ({ ...change, key }),
  );
  return { keys: kept, keysLeftOut: leftOut };
}

/** The keys the review shows on their own, in the lists of skills and of descriptions. */
const NAMED_KEYS: ReadonlySet<string> = new Set(["name", "description"]);

/**
 * Each top-level key of a frontmatter, as YAML reads it, with the text of its value: the lines from its
 * `key:` line (the key plain or quoted) to the next, or, for a key no line starts (a flow mapping,
 * `{name: x, allowed-tools: Bash}`), its value as data. A comment at the start of a line belongs to no key:
 * it changes none. A frontmatter YAML cannot read has the keys its lines start.
 */
function topLevelKeys(frontmatter: string): Map<string, string> {
  const lines = new Map<string, string>();
  let key: string | undefined;
  for (const line of frontmatter.split("\n").slice(1, -1)) {
    const text = line.trimEnd();
    if (text.startsWith("#")) continue;
    const start = /^(?:"([^"]*)"|'([^']*)'|([^\s#:'"][^:]*)):(?:\s|$)/.exec(text);
    if (start !== null) key = (start[1] ?? start[2] ?? start[3] ?? "").trimEnd();
    if (key !== undefined) lines.set(key, `${lines.get(key) ?? ""}${text}\n`);
  }
  const read = readFrontmatterFields(frontmatter);
  if ("reason" in read) return lines;
  return new Map(
    Object.entries(read.fields).map(([name, value]) => [
      name,
      lines.get(name) ?? JSON.stringify(value) ?? String(value),
    ]),
  );
}

/**
 * A SKILL.md's frontmatter, its `---` lines included ("" when it has none), and its body: the whole text
 * when the frontmatter is missing or never closed.
 */
function partsOf(text: string): { frontmatter: string; body: string } {
  const lines = stripBom(text).split("\n");
  if (lines[0]?.trimEnd() !== "---") return { frontmatter: "", body: text };
  const end = closingLineIndex(lines);
  if (end < 0) return { frontmatter: lines.join("\n"), body: text };
  return { frontmatter: lines.slice(0, end + 1).join("\n"), body: lines.slice(end + 1).join("\n") };
}

/** The changes from `before` to `after`, each file (or old and new pair) read and dropped in turn. */
async function compareFiles(
  before: ReadonlyMap<string, ServedFile>,
  after: ReadonlyMap<string, ServedFile>,
  afterPath: (file: string) => string,
  beforePath: (file: string) => string,
  between: () => Promise<void>,
): Promise<FileChange[]> {
  const changes: FileChange[] = [];
  for (const [file, now] of after) {
    const old = before.get(file);
    if (old !== undefined && sameContent(old, now)) continue;
    await between();
    changes.push(fileChange(afterPath(file), old === undefined ? "added" : "changed", old, now));
  }
  for (const [file, old] of before) {
    if (after.has(file)) continue;
    await between();
    changes.push(fileChange(beforePath(file), "removed", old, undefined));
  }
  return changes.sort(byPath);
}

function fileChange(
  where: string,
  kind: FileChange["kind"],
  before: ServedFile | undefined,
  after: ServedFile | undefined,
): FileChange {
  const named = kind === "removed" ? before : after;
  const [old, now] = [textOf(before), textOf(after)];
  const compared = old === undefined || now === undefined ? undefined : compareIgnoringEndings(old, now);
  return {
    path: where,
    kind,
    lines: compared?.lines,
    endings: compared?.endings,
    notAudited: named?.notAudited,
  };
}

/** The text of a file the server serves as text; undefined for a binary one, or one the audit did not read. */
function textOf(content: ServedFile | undefined): string | undefined {
  if (content === undefined) return "";
  if (content.notAudited !== undefined) return undefined;
  const bytes = bytesOf(content);
  const described = describeBytes(bytes, bytes.length, "");
  return described.kind === "text" ? described.text : undefined;
}

function byPath(a: FileChange, b: FileChange): number {
  return compareText(a.path, b.path);
}
