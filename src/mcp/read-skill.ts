import path from "node:path";
import { z } from "zod";
import {
  filesInFolder,
  MANIFEST_NAME,
  meantFilePath,
  normalizeFilePath,
  type Pack,
  packPathCitedBySkill,
  resolvePackFile,
  resolveSkillFile,
  SKILL_DOCUMENT,
  type Skill,
  skillOwningPath,
  withoutTrailingSlashes,
} from "../catalog/index.js";
import { namedInProse, plural, quoted, quotedName } from "../shared/index.js";
import type { ToolContext } from "./context.js";
import { formatFileContent, formatManifest } from "./format.js";
import {
  callByPath,
  callBySkillName,
  closeNamesHint,
  findSkillAsWritten,
  holdersOf,
  isSelector,
  LONGEST_SKILL_REFERENCE,
  readCall,
  skillAtPath,
} from "./references.js";
import { defineTool, ToolError } from "./tool.js";

export const readSkillTool = defineTool({
  name: "read_skill",
  readsFiles: true,
  description: `Read a skill's instructions (SKILL.md), or one of its files; file="${MANIFEST_NAME}" lists them.`,
  inputSchema: {
    skill: z
      .string()
      .max(LONGEST_SKILL_REFERENCE)
      .describe("Skill name, or pack/name when several packs share it"),
    file: z
      .string()
      .max(1024)
      .default(SKILL_DOCUMENT)
      .describe(`Path inside the skill (default ${SKILL_DOCUMENT}); "${MANIFEST_NAME}" lists its files`),
  },
  run: async ({ skill: ref, file }, context) => {
    const skill = findSkill(context, ref, file);
    const name = context.scope.refOf(skill);
    if (file === MANIFEST_NAME) {
      return formatManifest(skill.files, {
        title: `Files of skill ${namedInProse(name)}`,
        empty: `Skill ${namedInProse(name)} has no files besides ${SKILL_DOCUMENT}.`,
        next: `read_skill(skill=${quotedName(name)}, file="<path>")`,
      });
    }
    if (file === SKILL_DOCUMENT || file === `./${SKILL_DOCUMENT}`)
      return formatDocument(skill, name, context);
    const found = resolveSkillFile(skill, file);
    if (found) return formatFileContent(found.path, await context.catalog.files.read(found));
    // Skills cite folders ("see references/"): their files, not the whole manifest a call later.
    const folder = filesInFolder(skill.files, file);
    if (folder) {
      return formatManifest(folder.files, {
        title: `Files of skill ${namedInProse(name)} in ${namedInProse(`${folder.folder}/`)}`,
        empty: "",
        next: `read_skill(skill=${quotedName(name)}, file="<path>")`,
      });
    }
    throw new ToolError(missingFileMessage(skill, name, file, context));
  },
});

function findSkill(context: ToolContext, ref: string, file: string): Skill {
  const lookup = findSkillAsWritten(context.scope, ref);
  if (lookup.kind === "found") return lookup.skill;
  if (lookup.kind === "ambiguous") {
    throw new ToolError(
      `Several packs have a skill ${quoted(ref)}; use one of: ${lookup.candidates.map(namedInProse).join(", ")}.`,
    );
  }
  const byPath = callByPath(context.scope, ref, file);
  if (byPath !== undefined)
    throw new ToolError(`${quoted(ref)} is a path of ${byPath.owner}: ${byPath.call}.`);
  const byName = callBySkillName(context.scope, ref, file);
  if (byName !== undefined)
    throw new ToolError(`${quoted(ref)} is a path of ${byName.owner}: ${byName.call}.`);
  if (isSelector(context.listed, ref)) {
    const pack = ref.trim();
    const packFile = callInPack(context, pack, file);
    if (packFile !== undefined) throw new ToolError(`${quoted(pack)} is a pack, not a skill: ${packFile}.`);
    throw new ToolError(
      `${quoted(pack)} is a pack or group, not a skill: list_skills(pack=${quoted(pack)}) lists its skills.`,
    );
  }
  const hint = closeNamesHint(context, ref, context.listed);
  throw new ToolError(
    `No skill ${quoted(ref)}.${hint} Call list_skills to see the skills, or list_skills(query) to search.`,
  );
}

/**
 * The call that reads `file` of a pack given where a skill's name belongs: one of its pack files, or a
 * file of one of its skills, as read_pack_file answers a skill given as a pack.
 */
function callInPack(context: ToolContext, name: string, file: string): string | undefined {
  const pack = context.scope.findPackAnyCase(name);
  if (pack === undefined || file === SKILL_DOCUMENT || file === MANIFEST_NAME) return undefined;
  const packPath = resolvePackFile(pack, file)?.path ?? meantFilePath(file, pack.files.keys());
  if (packPath !== undefined)
    return `read_pack_file(pack=${quotedName(pack.name)}, file=${quotedName(packPath)})`;
  const owner = skillOwningPath(pack, file);
  return owner && readCall(context.scope.refOf(owner.skill), owner.file);
}

/** SKILL.md as written, then one line pointing to the files it may cite. */
async function formatDocument(skill: Skill, name: string, context: ToolContext): Promise<string> {
  const body = formatFileContent(SKILL_DOCUMENT, await context.catalog.files.read(skill.document));
  const hints: string[] = [];
  if (skill.files.size > 0) {
    hints.push(
      `${plural(skill.files.size, "file")}: read_skill(skill=${quotedName(name)}, file="${MANIFEST_NAME}")`,
    );
  }
  const pack = context.scope.findPack(skill.pack);
  const packFiles = pack && packFilesCall(skill, pack);
  if (packFiles !== undefined) hints.push(`pack files it cites: ${packFiles}`);
  return hints.length > 0 ? `${body}\n\n[${hints.join("; ")}]` : body;
}

/**
 * The call that lists the pack files `skill` may cite, if its pack has any: those in its group's folder
 * when it holds some (wshobson/agents' plugins keep theirs in `<plugin>/agents/`, `<plugin>/commands/`,
 * and the whole pack's list is every plugin's, 391 files and 6,400 tokens, which the skill does not cite),
 * else the whole pack's.
 */
function packFilesCall(skill: Skill, pack: Pack): string | undefined {
  if (pack.files.size === 0) return undefined;
  const folder = skill.group === undefined ? undefined : filesInFolder(pack.files, skill.group);
  return folder === undefined
    ? `read_pack_file(pack=${quotedName(pack.name)})`
    : `read_pack_file(pack=${quotedName(pack.name)}, file=${quotedName(`${folder.folder}/`)})`;
}

/** The skill of `pack` with a folder at `key` (a path in the pack) holding some of its files, and that folder. */
function skillFolderAt(pack: Pack, key: string): { skill: Skill; file: string } | undefined {
  for (const skill of pack.skills) {
    const inSkill = key.startsWith(`${skill.folder}/`) ? key.slice(skill.folder.length + 1) : undefined;
    const folder = inSkill === undefined ? undefined : filesInFolder(skill.files, inSkill);
    if (folder) return { skill, file: folder.folder };
  }
  return undefined;
}

/**
 * How many folders above a pack's a path may start from: `plugins/<plugin>/skills/` is three. Each is a
 * walk of the pack's skills, which a hostile path of hundreds of segments would repeat for each.
 */
const FOLDERS_ABOVE = 4;

/** The skill of `pack` that a path names from some folder above the pack's (`skills/<folder>/<file>`). */
function skillBelowFolders(pack: Pack, file: string): { skill: Skill; file: string } | undefined {
  const segments = normalizeFilePath(file)?.split("/") ?? [];
  for (let start = 0; start < Math.min(segments.length - 1, FOLDERS_ABOVE + 1); start++) {
    const owner = skillAtPath(pack, segments.slice(start).join("/"));
    if (owner) return owner;
  }
  return undefined;
}

function missingFileMessage(skill: Skill, name: string, file: string, context: ToolContext): string {
  const pack = context.scope.findPack(skill.pack);
  const packPath = pack ? packPathCitedBySkill(skill, pack, file) : undefined;
  if (pack && packPath !== undefined) {
    return `${quoted(file)} is a file of pack ${namedInProse(pack.name)}, not of the skill: read_pack_file(pack=${quotedName(pack.name)}, file=${quotedName(packPath)}).`;
  }
  // A `skill://` URI or a path from a pack's folder, of another skill's file or a pack file: before the
  // guesses below, which would read `beta/tools/hammer/SKILL.md` as this skill's SKILL.md.
  const elsewhere = callByPath(context.scope, file, SKILL_DOCUMENT);
  if (elsewhere && elsewhere.skill !== skill)
    return `${quoted(file)} is a path of ${elsewhere.owner}: ${elsewhere.call}.`;
  // From a folder above the pack's (`skills/other-skill/scripts/x.py`): before the guesses below, which
  // would read `…/other-skill/SKILL.md` as this skill's SKILL.md.
  const above = pack && skillBelowFolders(pack, file);
  if (above && above.skill !== skill) {
    const ref = context.scope.refOf(above.skill);
    return `${quoted(file)} belongs to skill ${namedInProse(ref)}: ${readCall(ref, above.file)}.`;
  }
  const meant = meantFilePath(file, [SKILL_DOCUMENT, ...skill.files.keys()]);
  if (meant !== undefined)
    return `No file ${quoted(file)} in skill ${namedInProse(name)}: ${readCall(name, meant)}.`;
  // A skill cites another one beside it by its folder: `../other-skill/SKILL.md`, `../other-skill/references/`,
  // or from the folder holding both (agents' pptx-quality-gates runs `pptx-reference-deck-analysis/scripts/…`),
  // then with a path below the folder: a name alone (`hypothesis-generation/`) is more often something else.
  const below = withoutTrailingSlashes(file).includes("/");
  const fromParent = file.startsWith("../") ? file : below ? `../${file}` : undefined;
  const beside = fromParent && withoutTrailingSlashes(path.posix.join(skill.folder, fromParent));
  const other = pack && beside && (skillAtPath(pack, beside) ?? skillFolderAt(pack, beside));
  if (other && other.skill !== skill) {
    const ref = context.scope.refOf(other.skill);
    return `${quoted(file)} belongs to skill ${namedInProse(ref)}: ${readCall(ref, other.file)}.`;
  }
  // A pack file cited where the plugin is installed (agents' review-agent-setup copies
  // `.claude/plugins/review-agent-governance/policies/…`), the path read_pack_file takes it by.
  const fromAbove = pack && below ? meantFilePath(file, pack.files.keys()) : undefined;
  if (pack && fromAbove !== undefined) {
    return `${quoted(file)} is a file of pack ${namedInProse(pack.name)}, not of the skill: read_pack_file(pack=${quotedName(pack.name)}, file=${quotedName(fromAbove)}).`;
  }
  const size = skill.files.size;
  const others = context.listed.skills.filter((other) => other !== skill);
  const holders = holdersOf(others, file, context.scope, "Other skills");
  if (size === 0)
    return `No file ${quoted(file)} in skill ${namedInProse(name)}, which has no files besides ${SKILL_DOCUMENT}.${holders}`;
  return `No file ${quoted(file)} in skill ${namedInProse(name)} (${plural(size, "file")} besides ${SKILL_DOCUMENT}). read_skill(skill=${quotedName(name)}, file="${MANIFEST_NAME}") lists them.${holders}`;
}
