/**
 * The repin review: what a bump of skill sources changes for agents, and what looks dangerous in it,
 * as pull request material. The fetcher loads it only on `--update`, since it needs src/.
 */

import { setImmediate } from "node:timers/promises";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import type { AuditFindings, Finding } from "../../src/audit/index.js";
import type { CaseCollision, CatalogIssue, Pack, Skill } from "../../src/catalog/index.js";
import { formatPacks } from "../../src/mcp/index.js";
import { compareText } from "../../src/shared/index.js";
import type { FindingList, Review, ReviewedSource, ReviewRequest } from "../fetch-skills/review-contract.js";
import {
  type AddedDocument,
  comparePacks,
  type DocumentChange,
  KEPT_BODIES,
  keptPerPack,
  type PackChanges,
} from "./compare.js";
import { type Notable, sampleCrowds } from "./crowds.js";
import type { FileChange } from "./file-change.js";
import { KEPT_CONTENT_CHARS, keepContents } from "./file-contents.js";
import { type Folder, readFolder } from "./loaded-folder.js";
import type { SkillPair } from "./renames.js";
import { renderReview } from "./render.js";
import { NOT_AUDITED, type ReviewedFinding, type SourceReview } from "./review-content.js";
import { EMPTY_SIDE, type PackSide } from "./served.js";
import { ShownFindings } from "./shown-findings.js";

export async function reviewRepin(request: ReviewRequest): Promise<Review> {
  // The review computes for as long as the bump is large: it lets a signal's handler run between files,
  // and stops once it has.
  const between = async () => {
    await setImmediate();
    request.signal?.throwIfAborted();
  };
  const before = await readFolder(request.before);
  await between();
  const after = await readFolder(request.after);
  await between();
  const kept: KeptBodies[] = [];
  for (const source of request.sources) {
    kept.push(keptBodiesOf(await reviewSource(source, before, after, between)));
    keepBodies(kept);
  }
  // Once every pack is compared, so that each file's share counts the files of the packs after it.
  const files = await keepContents(
    kept.flatMap(({ review }) => [...review.changes.skillFiles, ...review.changes.packFiles]),
    { left: KEPT_CONTENT_CHARS },
    between,
  );
  let next = 0;
  const taken = (count: number) => {
    next += count;
    return files.slice(next - count, next);
  };
  const reviews = kept.map(({ review, added, documents }) => ({
    ...review,
    changes: {
      ...review.changes,
      skillFiles: taken(review.changes.skillFiles.length),
      packFiles: taken(review.changes.packFiles.length),
      addedDocuments: added,
      documents,
    },
  }));
  const moved = new Set(request.sources.map((source) => source.name));
  const packsBefore = [...after.packs.values()]
    .filter((pack) => !moved.has(pack.name))
    .concat([...moved].flatMap((name) => before.packs.get(name) ?? []))
    .sort((a, b) => compareText(a.name, b.name));
  const elsewhere = highFindingsOutside(after.findings, moved);
  const markdown = renderReview(
    {
      reviews,
      listPacks: {
        before: countTokens(formatPacks(packsBefore)),
        after: countTokens(formatPacks([...after.packs.values()])),
      },
      refused: after.refused,
      elsewhere,
      shared: newlyShared(packsBefore, [...after.packs.values()]),
      skipped: newlySkipped(before.skipped, after.skipped, moved),
      collisions: newlyColliding(before.collisions, after.collisions, moved),
    },
    request.budget,
  );
  return { markdown, findings: asWritten(reviews.map((review) => review.findings)) };
}

/**
 * The findings as `--findings` writes them: each list the review holds once, with the paths that show it,
 * made as it is gone through; which skill one is new to is the review's word.
 */
function asWritten(lists: readonly ShownFindings[]): Iterable<FindingList> {
  return {
    *[Symbol.iterator]() {
      for (const list of lists) {
        for (const { paths, findings } of list.lists())
          yield { paths, findings: findings.map(({ path: _, newTo: __, ...found }) => found) };
      }
    },
  };
}

/** A pack's review with the SKILL.md bodies it still keeps, dropped as the packs after it need room. */
interface KeptBodies {
  /** Without its bodies, which `added` and `documents` hold: the arrays the comparison made are dropped. */
  readonly review: Omit<SourceReview, "changes"> & {
    readonly changes: Omit<PackChanges, "addedDocuments" | "documents">;
  };
  readonly added: AddedDocument[];
  readonly documents: DocumentChange[];
  /** How many of `documents`, the first, still keep their diff. */
  changed: number;
}

function keptBodiesOf(review: SourceReview): KeptBodies {
  const { addedDocuments, documents, ...changes } = review.changes;
  return {
    review: { ...review, changes },
    added: [...addedDocuments],
    documents: [...documents],
    changed: Math.min(documents.length, KEPT_BODIES),
  };
}

/**
 * Drops the bodies past KEPT_BODIES of each kind over all the packs so far, as {@link keptPerPack} shares
 * them: a bump over many packs holds no more than one over a single pack. Each body is dropped once.
 */
function keepBodies(packs: readonly KeptBodies[]): void {
  const added = keptPerPack(
    packs.map(({ review }) => review.changes.added.length),
    KEPT_BODIES,
  );
  const changed = keptPerPack(
    packs.map(({ documents }) => documents.length),
    KEPT_BODIES,
  );
  packs.forEach((pack, index) => {
    pack.added.splice(added[index] ?? 0);
    const keep = changed[index] ?? 0;
    for (let document = keep; document < pack.changed; document++) {
      const change = pack.documents[document];
      if (change !== undefined) pack.documents[document] = { ...change, hunks: "not kept" };
    }
    pack.changed = Math.min(pack.changed, keep);
  });
}

/**
 * What the server's load of the new commits leaves out in the moved packs and did not before: a skill that
 * broke (its YAML, its name), or one a same-named skill of its pack now shadows, is otherwise only
 * "removed", or the shadowing one "renamed", with no word that upstream still holds it.
 */
function newlySkipped(
  before: readonly CatalogIssue[],
  after: readonly CatalogIssue[],
  moved: ReadonlySet<string>,
): CatalogIssue[] {
  const key = (issue: CatalogIssue) => `${issue.path}\n${issue.reason}`;
  const old = new Set(before.map(key));
  return after.filter((issue) => moved.has(packOf(issue.path)) && !old.has(key(issue)));
}

/**
 * The paths of the moved packs that the new commits make differ from another only in case, and the old
 * did not: a checkout on a case-insensitive file system holds one of the two (`skills-mcp sync` never
 * writes both into one folder). Linear: keyed by path.
 */
function newlyColliding(
  before: readonly CaseCollision[],
  after: readonly CaseCollision[],
  moved: ReadonlySet<string>,
): CaseCollision[] {
  const old = new Set(before.map(({ path }) => path));
  return after.filter(({ path }) => moved.has(packOf(path)) && !old.has(path));
}

/**
 * The skills of each bare name that two packs share after the bump and did not before, by id: a call
 * naming the skill bare (`read_skill brainstorming`) that read one skill is now refused as ambiguous, and
 * a model choosing by name sees a second skill of that name, from another pack.
 */
function newlyShared(before: readonly Pack[], after: readonly Pack[]): string[][] {
  const sharedBefore = new Set(sharedNames(before).keys());
  return [...sharedNames(after)]
    .filter(([name]) => !sharedBefore.has(name))
    .map(([, skills]) => skills.map((skill) => skill.id));
}

/** Each bare name that skills of more than one pack hold, with those skills, by name. */
function sharedNames(packs: readonly Pack[]): Map<string, Skill[]> {
  const byName = new Map<string, Skill[]>();
  for (const pack of packs) {
    for (const skill of pack.skills) {
      const skills = byName.get(skill.name) ?? [];
      skills.push(skill);
      byName.set(skill.name, skills);
    }
  }
  return new Map(
    [...byName]
      .filter(([, skills]) => new Set(skills.map((skill) => skill.pack)).size > 1)
      .sort(([a], [b]) => compareText(a, b)),
  );
}

async function reviewSource(
  source: ReviewedSource,
  before: Folder,
  after: Folder,
  between: () => Promise<void>,
): Promise<SourceReview> {
  const old = source.missing === undefined ? (before.sides.get(source.name) ?? EMPTY_SIDE) : EMPTY_SIDE;
  const now = after.sides.get(source.name) ?? EMPTY_SIDE;
  const changes = await comparePacks(old, now, between);
  const findings = reviewedFindings(source.name, before.findings, after.findings, changes);
  for (const found of [...changes.skillFiles, ...changes.packFiles].flatMap(unauditedFinding(source.name)))
    findings.add(found.path, [found]);
  const notable = notableByFindings(source.name, findings);
  return {
    source,
    changes: {
      ...changes,
      skillFiles: sampleCrowds(changes.skillFiles, notable),
      packFiles: sampleCrowds(changes.packFiles, notable),
    },
    skills: { before: old.skills.length, after: now.skills.length },
    descriptionTokens: { before: descriptionTokens(old), after: descriptionTokens(now) },
    findings,
    unsafe: now.skills.filter((skill) => after.unsafe.has(skill)).map((skill) => skill.id),
    ...servedChanges(old, now, changes.renamed, before.unsafe, after.unsafe),
  };
}

/**
 * The findings of the new commit in `pack` that the review shows, each marked new or not: those in what
 * the bump adds or changes, the high ones, and those new in a file whose bytes did not change. Compared a
 * path at a time, each path's findings made only then (see AuditFindings): the old findings of a path are
 * those of the paths its file had before (see movedWith), and no other path's can match them. Paths that
 * show the same findings share them (see ShownFindings).
 */
function reviewedFindings(
  pack: string,
  before: AuditFindings,
  after: AuditFindings,
  changes: PackChanges,
): ShownFindings {
  const files = [...changes.skillFiles, ...changes.packFiles];
  const movedTo = movedWith(pack, changes.renamed, files);
  const oldPaths = new Map<string, string[]>();
  for (const where of before.paths()) {
    if (packOf(where) !== pack) continue;
    const now = movedTo(where);
    const paths = oldPaths.get(now);
    if (paths === undefined) oldPaths.set(now, [where]);
    else paths.push(where);
  }
  const movedInto = skillMovedInto(pack, files);
  const shown = new ShownFindings();
  const listNumbers = numberedLists();
  // The findings shown of each path, by all the review reads of the path but its name (see
  // AuditFindings.listsOf): the copies of one file, a thousand paths, show one list, made once.
  const shownFor = new Map<string, readonly ReviewedFinding[]>();
  for (const where of after.paths()) {
    if (packOf(where) !== pack) continue;
    const wasAt = oldPaths.get(where) ?? [];
    const changed = changes.changedPaths.has(where.slice(pack.length + 1));
    const into = movedInto(where);
    const inputs = [
      listNumbers(after.listsOf(where)),
      wasAt.map((was) => listNumbers(before.listsOf(was))).join("/"),
      changed,
      // Last: a skill's id may hold any character.
      into === undefined ? "" : `into ${into.skill}`,
    ].join(";");
    const made = shownFor.get(inputs);
    if (made !== undefined) {
      shown.add(where, made);
      continue;
    }
    const old = wasAt.flatMap((was) => before.of(was));
    const shownHere: ReviewedFinding[] = [];
    for (const found of markNew(old, after.of(where))) {
      const reviewed = found.new || into === undefined ? found : { ...found, new: true, newTo: into };
      // New in a file whose bytes did not change: its mode made it executable, or it is a symlink now.
      if (changed || reviewed.severity === "high" || reviewed.new) shownHere.push(reviewed);
    }
    shownFor.set(inputs, shownHere);
    shown.add(where, shownHere);
  }
  return shown;
}

/** Names lists of findings by which they are, not what they hold: each list a number, given as first met. */
function numberedLists(): (lists: readonly (readonly Finding[])[]) => string {
  const numbers = new Map<readonly Finding[], number>();
  return (lists) =>
    lists
      .map((list) => {
        const known = numbers.get(list);
        if (known !== undefined) return known;
        numbers.set(list, numbers.size);
        return numbers.size - 1;
      })
      .join(",");
}

/** The high findings of the packs the bump does not move, in order. */
function highFindingsOutside(findings: AuditFindings, moved: ReadonlySet<string>): Finding[] {
  const high: Finding[] = [];
  for (const where of findings.paths()) {
    if (moved.has(packOf(where))) continue;
    for (const found of findings.of(where)) if (found.severity === "high") high.push(found);
  }
  return high;
}

/**
 * The skills of both commits (paired as the comparison pairs them: at the same folder, or renamed) that
 * the server served before the bump and leaves out after it, a high finding making them unsafe, and the
 * reverse: a bump that silently stops serving a skill, or starts serving one. An added or removed skill
 * is in neither: it is not served on one side at all.
 */
function servedChanges(
  old: PackSide,
  now: PackSide,
  renamed: readonly SkillPair[],
  unsafeBefore: ReadonlySet<Skill>,
  unsafeAfter: ReadonlySet<Skill>,
): Pick<SourceReview, "newlyUnsafe" | "newlySafe"> {
  const renamedFrom = new Map(renamed.map((pair) => [pair.after, pair.before]));
  // Folders are unique within a pack, and the comparison pairs skills at the same folder first.
  const atFolder = new Map(old.skills.map((skill) => [skill.folder, skill]));
  const newlyUnsafe: string[] = [];
  const newlySafe: string[] = [];
  for (const skill of now.skills) {
    const was = renamedFrom.get(skill) ?? atFolder.get(skill.folder);
    if (was === undefined || unsafeBefore.has(was) === unsafeAfter.has(skill)) continue;
    (unsafeAfter.has(skill) ? newlyUnsafe : newlySafe).push(skill.id);
  }
  return { newlyUnsafe, newlySafe };
}

/**
 * Each file's worst finding, as a reason to show it among its crowd's samples: a new one before one the old
 * commit had, then by severity.
 */
function notableByFindings(pack: string, findings: ShownFindings): (file: FileChange) => Notable | undefined {
  const severities = ["high", "medium", "low"];
  const worst = new Map<string, Notable>();
  // A list's worst once, for every path that shows it.
  for (const list of findings.lists()) {
    let listWorst: Notable | undefined;
    for (const found of list.findings) {
      const rank = (found.new ? 0 : severities.length) + severities.indexOf(found.severity);
      if (listWorst !== undefined && listWorst.rank <= rank) continue;
      listWorst = { rank, why: `${found.new ? "a new" : "a"} ${found.severity} finding` };
    }
    if (listWorst === undefined) continue;
    for (const where of list.paths) {
      const held = worst.get(where);
      if (held === undefined || listWorst.rank < held.rank) worst.set(where, listWorst);
    }
  }
  return (file) => worst.get(`${pack}/${file.path}`);
}

/**
 * The path an old finding's file has after the bump, when the file was renamed as it was or its skill
 * moved to another folder: a file or skill moved as it was brings nothing new, and its old findings vouch
 * for the same ones at its new path.
 */
function movedWith(
  pack: string,
  renamed: readonly SkillPair[],
  files: readonly FileChange[],
): (where: string) => string {
  const renamedFiles = new Map<string, string>(
    files.flatMap((file) =>
      file.kind === "renamed" && file.movedFrom !== undefined
        ? [[`${pack}/${file.movedFrom}`, `${pack}/${file.path}`] as [string, string]]
        : [],
    ),
  );
  const folders = renamed
    .filter(({ before, after }) => before.folder !== after.folder)
    .map(({ before, after }) => ({ from: `${pack}/${before.folder}/`, to: `${pack}/${after.folder}/` }))
    // The deepest first: a skill's folder may hold another skill's.
    .sort((a, b) => b.from.length - a.from.length);
  return (where) => {
    const file = renamedFiles.get(where);
    if (file !== undefined) return file;
    const folder = folders.find(({ from }) => where.startsWith(from));
    return folder === undefined ? where : folder.to + where.slice(folder.from.length);
  };
}

/**
 * Of a file moved out of one skill into another (or between a skill and the pack files), by its path (`<pack>/…`),
 * the skill it moved into (undefined for the pack files): the findings the old commit had in it are new to
 * that skill, whose agents read the file now, so a high one makes it unsafe where it was not, and must fail
 * the review's status and hold the bump back as any new high finding does. The file's line still shows it
 * as a move; the finding says which skill it is new to. Within one skill, a moved file's findings stay old.
 */
function skillMovedInto(
  pack: string,
  files: readonly FileChange[],
): (where: string) => ReviewedFinding["newTo"] {
  const into = new Map<string, ReviewedFinding["newTo"]>(
    files.flatMap(({ path: where, skills }) =>
      skills === undefined ? [] : [[`${pack}/${where}`, { skill: skills.to?.id }]],
    ),
  );
  return (where) => into.get(where);
}

/**
 * Each finding of the new commit in one file, new unless the old commit had a finding of the same rule and
 * detail in that file (at its path then) left to match it: one old finding vouches for one, not for every
 * later one that reads the same (a second word split by the same invisible character). Those on the same
 * line are matched first.
 */
function markNew(old: readonly Finding[], now: readonly Finding[]): ReviewedFinding[] {
  const kind = (found: Finding) => `${found.rule}\n${found.detail}`;
  const at = (found: Finding) => `${kind(found)}\n${found.line}`;
  const left = countBy(old, kind);
  const leftAt = countBy(old, at);
  const take = (counts: Map<string, number>, key: string): boolean => {
    const count = counts.get(key) ?? 0;
    if (count > 0) counts.set(key, count - 1);
    return count > 0;
  };
  const sameLine = now.map((found) => take(leftAt, at(found)) && take(left, kind(found)));
  return now.map((found, index) => ({
    ...found,
    new: !(sameLine[index] === true || take(left, kind(found))),
  }));
}

function countBy<T>(items: readonly T[], key: (item: T) => string): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(key(item), (counts.get(key(item)) ?? 0) + 1);
  return counts;
}

/**
 * A served file the bump adds or changes that the audit did not read is a new high finding of the review's
 * own: nothing vouches for it, the server serves it all the same, and the workflow's status must fail until
 * someone has read it.
 */
function unauditedFinding(pack: string): (file: FileChange) => ReviewedFinding[] {
  return (file) =>
    file.kind === "removed" || file.notAudited === undefined
      ? []
      : [
          {
            path: `${pack}/${file.path}`,
            line: 0,
            rule: NOT_AUDITED,
            severity: "high",
            detail: `${file.kind} by this bump and served, but ${file.notAudited}`,
            new: true,
          },
        ];
}

/** What the pack's `name: description` lines cost a model that lists them. */
function descriptionTokens(side: PackSide): number {
  return countTokens(side.skills.map((skill) => `${skill.name}: ${skill.description}`).join("\n"));
}

function packOf(findingPath: string): string {
  return findingPath.split("/", 1)[0] ?? "";
}
