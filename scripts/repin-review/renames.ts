import { createHash } from "node:crypto";
import type { Skill } from "../../src/catalog/index.js";
import { compareText } from "../../src/shared/index.js";
import { withLineFeeds } from "./diff.js";
import { partsOf } from "./frontmatter-keys.js";
import { rareKeyIndex } from "./rare-keys.js";
import { bytesOf, documentOf, type PackSide, perSkill, type ServedFile, textOf } from "./served.js";

export interface SkillPair {
  readonly before: Skill;
  readonly after: Skill;
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
export function matchSkills(
  older: Commit,
  newer: Commit,
): {
  pairs: SkillPair[];
  /** Added skills not compared with the removed ones for a rename: their lines are mostly boilerplate. */
  notPaired: Skill[];
  /** Skills whose text was past RENAME_TEXT_BYTES, so not compared for a rename. */
  pastRenameText: { readonly added: number; readonly removed: number };
} {
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
  const sharedLines = rareKeyIndex(olds, (old) => old.lines.counts.keys(), RARE_LINE_SKILLS);
  const left = new Set(olds);
  const notPaired: Skill[] = [];
  for (const skill of news) {
    const now = { skill, lines: linesIn(skill) };
    let boilerplate = 0;
    const shared = sharedLines(now.lines.counts.keys(), (line) => {
      boilerplate += now.lines.counts.get(line) ?? 0;
    });
    // Skills paired already are left out before the best are taken; on a tie, the first met in the text.
    const best = [...shared]
      .flatMap(([index, count]) => {
        const old = olds[index];
        return old !== undefined && left.has(old) ? [[old, count] as const] : [];
      })
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

/**
 * The frontmatter taken off: what a model reads after choosing the skill. Line endings are left out, as
 * everywhere the review compares text: a skill moved to CRLF is still the same skill.
 */
function bodyOf(file: ServedFile): string {
  return partsOf(withLineFeeds(bytesOf(file).toString("utf8"))).body;
}
