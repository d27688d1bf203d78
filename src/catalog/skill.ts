/**
 * One skill's folder read into a Skill: its files walked (and the skill folders nested in it found), its
 * SKILL.md read, and its name and description checked; or the reason it is left out.
 */
import type { Dirent } from "node:fs";
import path from "node:path";
import { excerpt, quoted, visible } from "../shared/index.js";
import { foldedFileCollisions, foldedFileIssue } from "./case-collisions.js";
import type { DocumentReader } from "./documents.js";
import { isOverfull, MAX_FOLDER_ENTRIES } from "./folders.js";
import { LONGEST_SERVED_NAME, MAX_DESCRIPTION_LENGTH, nameRuleViolation } from "./frontmatter.js";
import { type CatalogFile, type CatalogIssue, SKILL_DOCUMENT, type Skill } from "./types.js";
import { flat, resolveLink, toFileMap, walk } from "./walk.js";

/**
 * The most files a skill may hold, those of the skills nested in it counted: as many as the fetcher lets a
 * whole source bring. Each file is looked at, kept and audited at every start, and a skill of 100,000 empty
 * files took 25 s of CPU and 100 MB to start.
 */
export const MAX_SKILL_FILES = 20_000;

/** A folder holding a SKILL.md, as the walk found it. */
export interface SkillFolder {
  /** Relative to its pack, POSIX. */
  readonly folder: string;
  /** Its real path: the walk follows symlinks only into real folders inside the pack. */
  readonly real: string;
  readonly entries: readonly Dirent[];
  /** How many skill folders it lies in. */
  readonly nesting: number;
}

/** A skill as read from its folder, and the warnings to report if it is served. */
export interface ReadSkill {
  readonly skill: Skill;
  readonly warnings: readonly CatalogIssue[];
  readonly found: SkillFolder;
  /** The digest of its frontmatter as YAML read it, when its SKILL.md was parsed now. */
  readonly frontmatter: string | undefined;
  /** Of its warnings, the one saying it is named otherwise than its folder. */
  readonly namedOtherwise: CatalogIssue | undefined;
}

/**
 * A skill, unless it must be skipped (the reason goes straight to `issues`), and the skill folders nested
 * in its folder, found either way: collections nest skills (`game-development/web-games/SKILL.md`), and
 * each is a skill of its own. Its files stay files of the outer skill too, which may cite them.
 */
export function readSkill(
  pack: string,
  found: SkillFolder,
  issues: CatalogIssue[],
  documents: DocumentReader,
): { skill?: ReadSkill; nested: readonly SkillFolder[] } {
  const { folder, real: skillRoot, entries } = found;
  const where = path.posix.join(pack, folder);
  const warnings: CatalogIssue[] = [];
  const contents = skillFolderContents(found, where, warnings);
  if ("tooLarge" in contents) {
    issues.push({ severity: "skipped", path: where, reason: contents.tooLarge });
    return { nested: [] };
  }
  const { files, nested } = contents;

  const documentPath = path.join(skillRoot, SKILL_DOCUMENT);
  // A plain file needs no resolving; a symlink is followed only to a file inside the skill folder.
  const plainFile = entries.some((entry) => entry.name === SKILL_DOCUMENT && entry.isFile());
  const document = plainFile
    ? { kind: "file" as const, real: documentPath }
    : resolveLink(documentPath, skillRoot);
  // Left out, with the reason in `issues`; the skills nested in it are read all the same.
  const skipped = (reason: string) => {
    issues.push({ severity: "skipped", path: where, reason });
    return { nested };
  };
  if (document.kind !== "file") {
    return skipped(
      document.kind === "unreadable"
        ? `SKILL.md ${document.reason}`
        : "SKILL.md is not a regular file inside the skill folder",
    );
  }
  const start = documents.read(path.posix.join(where, SKILL_DOCUMENT), document.real);
  if ("problem" in start) return skipped(`SKILL.md ${start.problem}`);
  const { parsed } = start;
  if (!parsed.ok) return skipped(parsed.reason);
  const refused = nameRefusal(parsed.name);
  if (refused !== undefined) return skipped(refused);
  const warn = (reason: string): CatalogIssue => ({ severity: "warning", path: where, reason });
  const violation = nameRuleViolation(parsed.name);
  if (violation) warnings.push(warn(`name "${visible(parsed.name)}" ${violation}`));
  const namedOtherwise =
    parsed.name === (folder === "" ? pack : path.posix.basename(folder))
      ? undefined
      : warn(`name "${visible(parsed.name)}" differs from its folder`);
  if (namedOtherwise) warnings.push(namedOtherwise);
  const description = excerpt(parsed.description, MAX_DESCRIPTION_LENGTH);
  warnings.push(...descriptionWarnings(parsed, description).map(warn));
  // Served as it is, the digest covering it: the server reads past it, not every host does.
  if (parsed.bom) warnings.push(warn(BOM_WARNING));
  const skill: Skill = {
    id: flat(`${pack}/${parsed.name}`),
    name: flat(parsed.name),
    description: flat(description),
    pack,
    group: groupOf(folder, nested.length > 0),
    folder: flat(folder),
    document: {
      path: SKILL_DOCUMENT,
      size: start.size,
      mtimeMs: start.mtimeMs,
      source: flat(document.real),
      identity: start.identity,
    },
    files: toFileMap(files),
    modelInvocable: parsed.modelInvocable,
    userInvocable: parsed.userInvocable,
  };
  return { skill: { skill, warnings, found, frontmatter: start.digest, namedOtherwise }, nested };
}

/**
 * The files of a skill's folder, its SKILL.md aside, and the skill folders nearest inside it; or why the
 * skill is not served, when its folder is too large to. What the walk warns of goes to `warnings`.
 */
function skillFolderContents(
  found: SkillFolder,
  where: string,
  warnings: CatalogIssue[],
): { readonly files: CatalogFile[]; readonly nested: SkillFolder[] } | { readonly tooLarge: string } {
  const { folder, real: skillRoot, entries } = found;
  const files: CatalogFile[] = [];
  // Only the nearest nested skills: each finds those nested in it in turn. The walk is depth first.
  const nested: SkillFolder[] = [];
  let lastNested: string | undefined;
  const noteNested = (relative: string, real: string, children: readonly Dirent[]) => {
    const inside = lastNested !== undefined && relative.startsWith(`${lastNested}/`);
    if (!inside && children.some((entry) => entry.name === SKILL_DOCUMENT)) {
      nested.push({
        folder: path.posix.join(folder, relative),
        real,
        entries: children,
        nesting: found.nesting + 1,
      });
      lastNested = relative;
    }
    return false;
  };
  walk(
    skillRoot,
    "",
    new Set([skillRoot]),
    files,
    {
      boundary: skillRoot,
      issues: warnings,
      report: (relative) => path.posix.join(where, relative),
      stopAt: noteNested,
      maxFiles: MAX_SKILL_FILES - 1,
      maxEntries: MAX_FOLDER_ENTRIES,
    },
    entries.filter((entry) => entry.name !== SKILL_DOCUMENT),
  );
  if (files.length >= MAX_SKILL_FILES) {
    return {
      tooLarge:
        `holds more than ${MAX_SKILL_FILES.toLocaleString("en-US")} files (its SKILL.md and those of the ` +
        "skills nested in it counted): neither it nor the skills inside it are served",
    };
  }
  const overfull = warnings.find(isOverfull);
  if (overfull !== undefined) {
    return {
      tooLarge:
        `its folder ${overfull.path} holds more than ${MAX_FOLDER_ENTRIES.toLocaleString("en-US")} entries: ` +
        "neither it nor the skills inside it are served",
    };
  }
  // SKILL.md is listed with the files, and kept (isKeptBefore) over a `skill.md` beside it.
  const { leftOut, collisions } = foldedFileCollisions([SKILL_DOCUMENT, ...files.map((file) => file.path)]);
  warnings.push(
    ...collisions.map((collision) => foldedFileIssue(collision, (at) => path.posix.join(where, at))),
  );
  return { files: files.filter((file) => !leftOut.has(file.path)), nested };
}

/**
 * Why a skill of this name cannot be served, if it cannot: the tools name a skill `pack/name`, so a slash
 * would make it another's, and a skill is named as its folder, which no system lets be `.`, `..` or that
 * long: a host writing each skill to a folder of its name would write `..` into the folder above.
 */
function nameRefusal(name: string): string | undefined {
  if (name.includes("/"))
    return `name ${quoted(name, 64)} holds a slash: skills are named pack/name, so a name cannot hold one`;
  if (name === "." || name === "..") {
    return (
      `name ${quoted(name)} is a step of a path, not a name: a skill is named as its folder, and no ` +
      `folder is named "." or ".."`
    );
  }
  if (name.length <= LONGEST_SERVED_NAME) return undefined;
  return (
    `name ${quoted(name, 64)} is ${name.length} characters long: a skill is named as ` +
    `its folder, and no folder's name is longer than ${LONGEST_SERVED_NAME}`
  );
}

const BOM_WARNING =
  "SKILL.md begins with a byte order mark: hosts that look for --- at its first byte find no " +
  "frontmatter there; save it as UTF-8 without one";

/** What is off in a served skill's description, `served` being what listings carry of it. */
function descriptionWarnings(
  parsed: {
    readonly description: string;
    readonly descriptionComment?: true;
    readonly yamlDescriptionLength?: number;
  },
  served: string,
): string[] {
  const warnings: string[] = [];
  if (parsed.descriptionComment) {
    warnings.push(
      'description ends where YAML reads " #" as the start of a comment, so what follows is not part of ' +
        'it: put the description in quotes to keep it (description: "… #42 …")',
    );
  }
  if (served !== parsed.description) {
    warnings.push(
      `description is longer than ${MAX_DESCRIPTION_LENGTH} characters (the Agent Skills limit): ` +
        `listings, searches and prompts carry its first ${MAX_DESCRIPTION_LENGTH}`,
    );
  } else if (parsed.yamlDescriptionLength !== undefined) {
    // Blank lines in a `>` or `|` block, and the line break ending one: YAML keeps them, listings join them.
    const carried = [...parsed.description].length.toLocaleString("en-US");
    warnings.push(
      `description is ${parsed.yamlDescriptionLength.toLocaleString("en-US")} characters as YAML reads it, ` +
        "its line breaks counted (each blank line in a > or | block is one, and so is the end of the block " +
        `unless written >- or |-), over the Agent Skills limit of ${MAX_DESCRIPTION_LENGTH.toLocaleString("en-US")}: ` +
        `the Skills extension leaves the skill out, while listings here, which join runs of whitespace, carry ` +
        `its ${carried}: remove the blank lines (or write >-)`,
    );
  }
  return warnings;
}

/**
 * The first folder under the pack, for a skill below the top of its pack. A skill at the top that holds
 * others is in their group too, so that selecting the group selects them all.
 */
function groupOf(folder: string, holdsSkills: boolean): string | undefined {
  const slash = folder.indexOf("/");
  if (slash > 0) return flat(folder.slice(0, slash));
  return holdsSkills && folder !== "" ? flat(folder) : undefined;
}
