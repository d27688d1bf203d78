import { type CatalogFile, formatSize, type Scope, type Skill, skillPath } from "../catalog/index.js";
import type { SkillEntry } from "../inspection/index.js";
import { MAX_READ_BYTES } from "./resource-read.js";
import { type CarriedSkill, filesOfEntry } from "./skill-entries.js";
import { keyOf, parentOfKey, type UriKey, uriOfKey } from "./skill-uris.js";

/**
 * What a `skill://` URI names: a file of the skills the extension carries (of a nested skill, and of each
 * skill it is nested in), with the digest their entries give it, or a pack file.
 */
export type Target =
  | {
      readonly kind: "skill-file";
      readonly skills: Skill[];
      readonly file: CatalogFile;
      readonly digest: string;
    }
  | { readonly kind: "pack-file"; readonly pack: string; readonly file: CatalogFile };

/** A pack file as `resources/list` names it. */
export interface ListedPackFile {
  readonly uri: string;
  readonly target: Target & { readonly kind: "pack-file" };
}

/** Something about the catalog the extension cannot serve as it is, said once at startup. */
export interface ResourceWarning {
  readonly skill: Skill | undefined;
  readonly reason: string;
}

/** The `skill://` namespace of a catalog: what each URI names. */
interface Namespace {
  /** The skills the extension carries. */
  readonly carried: readonly CarriedSkill[];
  readonly targets: ReadonlyMap<UriKey, Target>;
  readonly packFiles: readonly ListedPackFile[];
}

/** The namespace of `everything`, as SkillResources.build makes it (see there). */
export function namespaceOf(
  everything: Scope,
  entryOf: (skill: Skill) => SkillEntry | undefined,
  warn: (warning: ResourceWarning) => void,
): Namespace {
  const targets = new Map<UriKey, Target>();
  const carried: CarriedSkill[] = [];
  for (const skill of everything.skills) {
    const entry = entryOf(skill);
    if (entry === undefined) continue;
    const files = filesOfEntry(skill, entry);
    const problem =
      files === undefined ? "its entry lists a file it does not hold" : carryProblem(files, targets);
    if (files === undefined || problem !== undefined) {
      warn({ skill, reason: `left out of the Skills extension: ${problem}` });
      continue;
    }
    for (const { key, file, digest } of files) {
      const shared = targets.get(key);
      if (shared?.kind === "skill-file") shared.skills.push(skill);
      else targets.set(key, { kind: "skill-file", skills: [skill], file, digest });
    }
    carried.push({ skill, entry });
  }
  // Keyed before they are resources: a skill's folder holding a pack file is crowded too.
  const packKeys = new Map(
    everything.packs.map((pack) => [
      pack,
      [...pack.files].map(([path, file]) => ({ path, file, key: keyOf(pack.name, path.split("/")) })),
    ]),
  );
  const crowded = crowdedSkills(carried, targets, [...packKeys.values()].flat());
  for (const [skill, key] of crowded) {
    warn({
      skill,
      reason: `left out of the Skills extension: its folder ${uriOfKey(skillPath(skill))} also holds ${uriOfKey(key)}, which is not its file`,
    });
  }
  if (crowded.size > 0) {
    for (const [key, target] of targets) {
      if (target.kind !== "skill-file") continue;
      const kept = target.skills.filter((skill) => !crowded.has(skill));
      if (kept.length === 0) targets.delete(key);
      else if (kept.length < target.skills.length) targets.set(key, { ...target, skills: kept });
    }
  }
  const packFiles: ListedPackFile[] = [];
  for (const [pack, keyed] of packKeys) {
    for (const { path, file, key } of keyed) {
      if (targets.has(key)) {
        warn({
          skill: undefined,
          reason: `pack file ${pack.name}/${path} is not a resource: a skill file has its URI`,
        });
        continue;
      }
      const target = { kind: "pack-file", pack: pack.name, file } as const;
      targets.set(key, target);
      packFiles.push({ uri: uriOfKey(key), target });
    }
  }
  const kept = carried.filter(({ skill }) => !crowded.has(skill));
  return { carried: kept, targets, packFiles };
}

/**
 * Why the extension cannot carry a skill of these files, if it cannot: another skill holds one of their
 * URIs as another file (a skill nested in another shares its files, at the same URIs), or one is larger
 * than a read carries, which a host could then never check against its digest.
 */
function carryProblem(
  files: readonly { key: UriKey; file: CatalogFile }[],
  targets: ReadonlyMap<UriKey, Target>,
): string | undefined {
  const taken = files.find(({ key, file }) => {
    const target = targets.get(key);
    return target !== undefined && (target.kind !== "skill-file" || target.file.source !== file.source);
  });
  if (taken !== undefined) return `${uriOfKey(taken.key)} is already a file of another skill`;
  const large = files.find(({ file }) => file.size > MAX_READ_BYTES);
  if (large === undefined) return undefined;
  return `${uriOfKey(large.key)} is ${formatSize(large.file.size)}, over the ${formatSize(MAX_READ_BYTES)} a resource read carries`;
}

/**
 * The skills whose folder in the `skill://` namespace holds a file that is not theirs (another skill's, of
 * a group named as the skill, or a pack file in a folder of its name), each with the first such key. A host
 * takes every URI below a skill's folder for a file of the skill: a folder read of it lists that file,
 * which the skill's manifest, complete by the extension's rule, does not, and a skill below it reads as
 * nested in it, whose files that manifest lacks.
 */
function crowdedSkills(
  carried: readonly CarriedSkill[],
  targets: ReadonlyMap<UriKey, Target>,
  packFiles: readonly { key: UriKey }[],
): Map<Skill, UriKey> {
  const roots = new Map(carried.map(({ skill }) => [skillPath(skill), skill]));
  const crowded = new Map<Skill, UriKey>();
  const check = (key: UriKey, owners: readonly Skill[]) => {
    for (let folder = parentOfKey(key); folder !== undefined; folder = parentOfKey(folder)) {
      const skill = roots.get(folder);
      if (skill !== undefined && !owners.includes(skill) && !crowded.has(skill)) crowded.set(skill, key);
    }
  };
  for (const [key, target] of targets) check(key, target.kind === "skill-file" ? target.skills : []);
  for (const { key } of packFiles) check(key, []);
  return crowded;
}

export function isVisible(target: Target, scope: Scope): boolean {
  if (target.kind === "skill-file") return target.skills.some((skill) => scope.has(skill));
  return scope.findPack(target.pack)?.files.get(target.file.path) === target.file;
}
