import { z } from "zod";
import {
  filesInFolder,
  MANIFEST_NAME,
  meantFilePath,
  type Pack,
  resolvePackFile,
  type Scope,
  SKILL_DOCUMENT,
  withoutEdgeSlashes,
} from "../catalog/index.js";
import { namedInProse, quoted, quotedName } from "../shared/index.js";
import type { ToolContext } from "./context.js";
import { formatFileContent, formatManifest } from "./format.js";
import { callByPath, findSkillAsWritten, holdersOf, isSelector, skillAtPath } from "./references.js";
import { defineTool, ToolError } from "./tool.js";

export const readPackFileTool = defineTool({
  name: "read_pack_file",
  readsFiles: true,
  description: "Read a pack-level file that skills cite (shared docs outside any skill folder).",
  inputSchema: {
    pack: z.string().max(300).describe("Pack name from list_packs"),
    file: z
      .string()
      .max(1024)
      .default(MANIFEST_NAME)
      .describe(`Path in the pack; "${MANIFEST_NAME}" (default) lists files`),
  },
  run: async ({ pack: name, file }, context) => {
    const pack = findPack(context, name, file);
    if (file === MANIFEST_NAME) {
      return formatManifest(pack.files, {
        title: `Pack files of ${namedInProse(pack.name)}`,
        empty: `Pack ${namedInProse(pack.name)} has no pack-level files; its skills' files are read with read_skill.`,
        next: `read_pack_file(pack=${quotedName(pack.name)}, file="<path>")`,
      });
    }
    const found = resolvePackFile(pack, file);
    if (found) return formatFileContent(found.path, await context.catalog.files.read(found));
    const owner = skillAtPath(pack, file);
    if (owner) {
      const name = context.scope.refOf(owner.skill);
      throw new ToolError(
        `${quoted(file)} belongs to skill ${namedInProse(name)}: read_skill(skill=${quotedName(name)}, file=${quotedName(owner.file)}).`,
      );
    }
    const folder = filesInFolder(pack.files, file);
    if (folder) {
      return formatManifest(folder.files, {
        title: `Pack files of ${namedInProse(pack.name)} in ${namedInProse(`${folder.folder}/`)}`,
        empty: "",
        next: `read_pack_file(pack=${quotedName(pack.name)}, file="<path>")`,
      });
    }
    const meant = meantFilePath(file, pack.files.keys());
    if (meant !== undefined) {
      throw new ToolError(
        `No pack file ${quoted(file)} in ${namedInProse(pack.name)}: read_pack_file(pack=${quotedName(pack.name)}, file=${quotedName(meant)}).`,
      );
    }
    // A `skill://` URI or a path from the packs' folder, of a skill's file.
    const elsewhere = callByPath(context.scope, file, SKILL_DOCUMENT);
    if (elsewhere) throw new ToolError(`${quoted(file)} is a path of ${elsewhere.owner}: ${elsewhere.call}.`);
    const listed = context.listed.findPack(pack.name)?.skills ?? [];
    const holders = holdersOf(listed, file, context.scope, `Skills of ${namedInProse(pack.name)}`);
    throw new ToolError(
      pack.files.size === 0
        ? `No pack file ${quoted(file)} in ${namedInProse(pack.name)}, which has no pack-level files; its skills' files are read with read_skill.${holders}`
        : `No pack file ${quoted(file)} in ${namedInProse(pack.name)}. read_pack_file(pack=${quotedName(pack.name)}) lists its files.${holders}`,
    );
  },
});

/**
 * The pack named `name`; a skill's name there gets the call that reads `file` of the skill, and a path or
 * `skill://` URI the call that reads what it names.
 */
function findPack(context: ToolContext, name: string, file: string): Pack {
  const pack = context.scope.findPackAnyCase(name.trim());
  if (pack) return pack;
  const skill = findSkillAsWritten(context.listed, name);
  if (skill.kind === "found") {
    const ref = context.scope.refOf(skill.skill);
    throw new ToolError(
      `${quoted(name)} is a skill, not a pack: read_skill(skill=${quotedName(ref)}, file=${quotedName(file)}).`,
    );
  }
  const byPath = callByPath(context.listed, name, file === MANIFEST_NAME ? SKILL_DOCUMENT : file);
  if (byPath !== undefined)
    throw new ToolError(`${quoted(name)} is a path of ${byPath.owner}: ${byPath.call}.`);
  const packPath = callByPackPath(context.scope, name, file);
  if (packPath !== undefined)
    throw new ToolError(
      `${quoted(name)} is a path of pack ${namedInProse(packPath.pack)}: ${packPath.call}.`,
    );
  // list_packs shows each group under its pack, and a folder read gives its skill:// URI: a model may take
  // either for a pack. The URI was answered "No pack", where the group's plain name got its pack.
  const group = withoutEdgeSlashes(name.trim().replace(/^skill:\/\//i, ""));
  const [owner, ...others] = isSelector(context.scope, group) ? context.scope.narrow([group]).packs : [];
  if (owner !== undefined && others.length === 0) {
    const whole = context.scope.findPack(owner.name);
    const isGroup = `${quoted(name.trim())} is a group of pack ${namedInProse(owner.name)}`;
    throw new ToolError(
      whole === undefined || whole.files.size === 0
        ? `${isGroup}, which has no pack-level files; its skills' files are read with read_skill.`
        : `${isGroup}; pack files are a pack's: read_pack_file(pack=${quotedName(owner.name)}) lists them.`,
    );
  }
  const packs = context.scope.packs.map((candidate) => namedInProse(candidate.name)).join(", ");
  throw new ToolError(`No pack ${quoted(name)}. Packs: ${packs}. Call list_packs for details.`);
}

/**
 * The call that reads what a path or `skill://` URI given as the pack names: the pack's own folder
 * (`skill://design`, as a folder read lists it, or `design/`), or a folder of its pack files with `file`
 * in it (`design/shared`). Each was answered "No pack", beside a list of every pack in scope.
 */
function callByPackPath(
  scope: Scope,
  name: string,
  file: string,
): { pack: string; call: string } | undefined {
  const written = withoutEdgeSlashes(name.trim().replace(/^skill:\/\//i, ""));
  const slash = written.indexOf("/");
  const pack = scope.findPackAnyCase(slash < 0 ? written : written.slice(0, slash));
  if (pack === undefined) return undefined;
  const call = (path: string) => ({
    pack: pack.name,
    call: `read_pack_file(pack=${quotedName(pack.name)}${path === MANIFEST_NAME ? "" : `, file=${quotedName(path)}`})`,
  });
  if (slash < 0) return call(file);
  const folder = written.slice(slash + 1);
  if (file === MANIFEST_NAME) return filesInFolder(pack.files, folder) ? call(`${folder}/`) : undefined;
  const found = resolvePackFile(pack, `${folder}/${file}`);
  return found === undefined ? undefined : call(found.path);
}
