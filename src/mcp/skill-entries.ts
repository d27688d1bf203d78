import type { Resource } from "@modelcontextprotocol/server";
import { type CatalogFile, type Skill, skillPath } from "../catalog/index.js";
import type { SkillEntry } from "../inspection/index.js";
import { type UriKey, uriOfKey } from "./skill-uris.js";

/** A skill the Skills extension carries, with its entry in `skills/list`. */
export interface CarriedSkill {
  readonly skill: Skill;
  readonly entry: SkillEntry;
}

/** A skill's SKILL.md as a resource: named and described by its frontmatter, as the extension asks. */
export function skillDocumentResource({ skill, entry }: CarriedSkill): Resource {
  return {
    uri: entry.uri,
    name: entry.frontmatter.name,
    description: entry.frontmatter.description,
    mimeType: "text/markdown",
    size: skill.document.size,
  };
}

/**
 * Each file of `skill` at its key, `<pack>/[<group>/]<name>/<path>`, with its digest in the entry;
 * undefined when its entry does not list exactly these files at these URIs (the SDK encodes each segment
 * as uriOfKey does).
 */
export function filesOfEntry(
  skill: Skill,
  entry: SkillEntry,
): { key: UriKey; file: CatalogFile; digest: string }[] | undefined {
  if (entry.resources === "dynamic") return undefined;
  const root = skillPath(skill);
  const listed = new Map(entry.resources.map(({ uri, digest }) => [uri, digest]));
  const files: { key: UriKey; file: CatalogFile; digest: string }[] = [];
  for (const file of [skill.document, ...skill.files.values()]) {
    const key = `${root}/${file.path}`;
    const digest = listed.get(uriOfKey(key));
    if (digest === undefined) return undefined;
    files.push({ key, file, digest });
  }
  const fits = listed.size === files.length && entry.uri === uriOfKey(`${root}/${skill.document.path}`);
  return fits ? files : undefined;
}

/**
 * The entry with each of its URIs spelled by `spell`: as entries were before they followed RFC 3986 (see
 * whatwgSpelling), or with the pack in the case a host asked (see inAskedCase).
 */
export function respelledEntry(entry: SkillEntry, spell: (uri: string) => string): SkillEntry {
  const resources =
    entry.resources === "dynamic"
      ? entry.resources
      : entry.resources.map((resource) => ({ ...resource, uri: spell(resource.uri) }));
  return { ...entry, uri: spell(entry.uri), resources };
}
