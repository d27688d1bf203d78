/**
 * Checking an entry before anything is read: the files it lists, each a plain path below the skill,
 * within the extension's limits, no two of them one file.
 */

import { SKILL_LIMITS, type Skill } from "@modelcontextprotocol/client/ext/skills";
import { clashingPaths, pathBelow } from "./paths.js";

const CLASH =
  "cannot both be written: one name on a case-insensitive system, or a file where a folder must be";

/** The folder URI of a skill (its SKILL.md URI without `/SKILL.md`), in canonical form. */
export function skillRoot(entry: Skill): string {
  return new URL(entry.uri).href.replace(/\/SKILL\.md$/, "");
}

/**
 * Why sync cannot write `entry` as it lists its files, or undefined: a dynamic skill, a path that is not a
 * plain name below the skill, more than the extension's limits, two paths one file. Told from the entry
 * alone, so that a check or a dry run foresees it as the sync does.
 */
export function entryProblem(entry: Skill): string | undefined {
  const listed = listedFiles(entry, skillRoot(entry));
  return "refused" in listed ? listed.refused : undefined;
}

interface ListedFile {
  readonly path: string;
  readonly uri: string;
  readonly size: number;
  readonly digest: string;
}

export function listedFiles(entry: Skill, root: string): ListedFile[] | { readonly refused: string } {
  if (entry.resources === "dynamic") {
    return { refused: "its files are generated (resources: dynamic), so no digest can be checked" };
  }
  const listed: ListedFile[] = [];
  for (const resource of entry.resources) {
    const below = pathBelow(root, resource.uri);
    if ("problem" in below) return { refused: below.problem };
    listed.push({ path: below.path, uri: resource.uri, size: resource.size, digest: resource.digest });
  }
  const total = listed.reduce((sum, file) => sum + file.size, 0);
  if (listed.length > SKILL_LIMITS.files || total > SKILL_LIMITS.bytes) {
    return {
      refused: `${listed.length} files, ${total} bytes: over the extension's limits (${SKILL_LIMITS.files} files, ${SKILL_LIMITS.bytes} bytes)`,
    };
  }
  const clash = clashingPaths(listed.map((file) => file.path));
  return clash ? { refused: `${clash[0]} and ${clash[1]} ${CLASH}` } : listed;
}
