/**
 * What a model's reference means where it names a skill, a pack or a file: a name in any case, a plugin's
 * `plugin:name`, a folder path or a `skill://` URI given in the wrong argument, and the call that reads
 * what it stands for. The tools answer mistakes with these calls instead of a bare "not found".
 */
import {
  filesInFolder,
  MANIFEST_NAME,
  normalizeFilePath,
  type Pack,
  resolvePackFile,
  type Scope,
  SelectorError,
  SKILL_DOCUMENT,
  type Skill,
  type SkillLookup,
  skillOwningPath,
  skillPath,
  unnestedSkillPath,
  withoutEdgeSlashes,
  withoutTrailingSlashes,
} from "../catalog/index.js";
import { namedInProse, quoted, quotedName } from "../shared/index.js";
import type { ToolContext } from "./context.js";
import { ToolError } from "./tool.js";

/** The longest skill reference read: a name, or pack/name, as read_skill's `skill` takes it. */
export const LONGEST_SKILL_REFERENCE = 300;

/**
 * " Did you mean: a, b?" for a `name` that names no skill: the skills of `among` with a close name (or,
 * when none is close, the name's words) that `keep` keeps, each named as the caller's scope reads it;
 * else "".
 */
export function closeNamesHint(
  context: ToolContext,
  name: string,
  among: Scope,
  keep: (skill: Skill) => boolean = () => true,
): string {
  // Searching a name costs time by its words, and a prompt's name is bounded only by the body: 60 KB of
  // them held the event loop over a second. No longer name is close to a skill's.
  if (name.length > LONGEST_SKILL_REFERENCE) return "";
  const close = context.index
    .suggest(name, among)
    .filter(keep)
    .map((skill) => namedInProse(context.scope.refOf(skill)));
  return close.length > 0 ? ` Did you mean: ${close.join(", ")}?` : "";
}

/**
 * Looks a skill up by `name` or `pack/name`, in any case, as a model wrote it (see Scope.findSkillAnyCase),
 * or as Claude Code names a plugin's skill, `plugin:name`, the way skills cite one another
 * (`superpowers:brainstorming`): the skill of that pack or group, or, when no pack or group is so named
 * (a pack named otherwise than its plugin), the skill of that name. A group's skill written as the group's
 * selector and its name (`kubernetes-operations/helm-chart-scaffolding`, `agents/kubernetes-operations/…`),
 * as list_skills(pack) shows them together, is that skill too.
 */
export function findSkillAsWritten(scope: Scope, ref: string): SkillLookup {
  const written = ref.trim();
  const lookup = scope.findSkillAnyCase(written);
  if (lookup.kind !== "missing") return lookup;
  const colon = written.lastIndexOf(":");
  if (colon > 0) {
    const plugin = written.slice(0, colon);
    const within = isSelector(scope, plugin) ? scope.narrow([plugin]) : scope;
    const named = within.findSkillAnyCase(written.slice(colon + 1));
    if (named.kind !== "missing") return named;
  }
  const slash = written.lastIndexOf("/");
  if (slash <= 0 || colon > 0) return lookup;
  // The name first: list_skills asks this of every query, and a selector that is none costs an error.
  const name = written.slice(slash + 1);
  const group = written.slice(0, slash);
  if (scope.findSkillAnyCase(name).kind === "missing" || !isSelector(scope, group)) return lookup;
  const named = scope.narrow([group]).findSkillAnyCase(name);
  return named.kind === "missing" ? lookup : named;
}

/**
 * Narrows the caller's scope by a `pack` argument, turning a bad selector into a ToolError; a skill's name
 * there gets the call that reads the skill, and a folder path or `skill://` URI the call it stands for.
 */
export function narrowByPack(callerScope: Scope, pack: string | undefined, query?: string): Scope {
  if (pack === undefined) return callerScope;
  try {
    return callerScope.narrow([pack]);
  } catch (error) {
    if (!(error instanceof SelectorError)) throw error;
    const skill = findSkillAsWritten(callerScope, pack);
    if (skill.kind === "found") {
      const ref = callerScope.refOf(skill.skill);
      throw new ToolError(
        `${quoted(pack)} is a skill, not a pack or group: ${readCall(ref, SKILL_DOCUMENT)}.`,
      );
    }
    const { selector } = error;
    const meant = meaningOfPath(callerScope, selector);
    if (meant?.kind === "file")
      throw new ToolError(`${quoted(selector)} is a path of ${meant.owner}: ${meant.call}.`);
    // A slip in a group's name (`beta/tool`) is told as such rather than searched for.
    if (meant !== undefined && (meant.words === "" || error.close.length === 0)) {
      const packs = pack
        .split(",")
        .map((item) => item.trim())
        .filter((item) => item !== "")
        .map((item) => (item === selector ? meant.selector : item));
      const words = [meant.words, query?.trim() ?? ""].filter((text) => text !== "").join(" ");
      const search = words === "" ? "" : `, query=${JSON.stringify(words)}`;
      throw new ToolError(
        `Unknown pack or group ${quoted(selector)}. Did you mean list_skills(pack="${packs.join(",")}"${search})?`,
      );
    }
    throw new ToolError(`${error.brief} Call list_packs to see them.`);
  }
}

/** What a folder path given as a pack stands for: a file (and the call that reads it), or a selector. */
type PathMeaning =
  | { readonly kind: "file"; readonly owner: string; readonly call: string }
  | { readonly kind: "selector"; readonly selector: string; readonly words: string };

/**
 * What a folder path or `skill://` URI given where a pack or group belongs stands for: a file of a skill
 * or of a pack (see callByPath, callBySkillName), else the pack or group it names, from up to
 * {@link FOLDERS_BEFORE_NAME} folders above (`skills/n8n`, `agents\kubernetes-operations`, `skill://n8n`);
 * past a pack, a folder no group has gives its words to search the pack with (`n8n/error-handling`).
 */
function meaningOfPath(scope: Scope, written: string): PathMeaning | undefined {
  if (!/[\\/]/.test(written)) return undefined;
  const segments = written
    .replace(/^skill:\/\//i, "")
    .replaceAll("\\", "/")
    .split("/")
    .filter((segment) => segment !== "" && segment !== ".");
  const packs = new Map(scope.packs.map((pack) => [pack.name.toLowerCase(), pack]));
  const above = segments.slice(0, FOLDERS_BEFORE_NAME + 1);
  const at = above.findIndex((segment) => packs.has(segment.toLowerCase()));
  const pack = at < 0 ? undefined : packs.get(segments[at]?.toLowerCase() ?? "");
  const rest = segments.slice(at + 1);
  const file =
    (pack && callByPath(scope, [pack.name, ...rest].join("/"), SKILL_DOCUMENT)) ??
    callBySkillName(scope, segments.join("/"), SKILL_DOCUMENT);
  if (file !== undefined) return { kind: "file", owner: file.owner, call: file.call };
  if (pack === undefined) {
    const group = above.find((segment) => isSelector(scope, segment));
    return group === undefined ? undefined : { kind: "selector", selector: group, words: "" };
  }
  const groups = new Map(pack.groups.map((group) => [group.name.toLowerCase(), group.name]));
  const group = rest.map((segment) => groups.get(segment.toLowerCase())).find((name) => name !== undefined);
  if (group !== undefined) return { kind: "selector", selector: `${pack.name}/${group}`, words: "" };
  const words = rest
    .filter((segment) => segment.toUpperCase() !== SKILL_DOCUMENT.toUpperCase())
    .join(" ")
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word !== "")
    .join(" ");
  return { kind: "selector", selector: pack.name, words };
}

/** Whether `ref` selects a pack or group of `scope` (see Scope.narrow), as a model may ask for a skill. */
export function isSelector(scope: Scope, ref: string): boolean {
  try {
    return ref.trim() !== "" && !ref.includes(",") && scope.narrow([ref]).skills.length > 0;
  } catch (error) {
    if (error instanceof SelectorError) return false;
    throw error;
  }
}

/**
 * The skill or pack, and the call that reads the file, that a path names where a skill's name belongs: a
 * `skill://` URI or a path from the pack's folder (`workflows/http/call-rest-api/references/x.md`), as
 * the Skills extension's resources name them.
 */
export function callByPath(
  scope: Scope,
  ref: string,
  file: string,
): { owner: string; call: string; skill?: Skill } | undefined {
  const written = withoutEdgeSlashes(ref.trim().replace(/^skill:\/\//i, ""));
  const slash = written.indexOf("/");
  const pack = slash > 0 ? scope.findPack(written.slice(0, slash)) : undefined;
  if (pack === undefined) return undefined;
  const inPack = written.slice(slash + 1);
  const packFile = resolvePackFile(pack, inPack);
  if (packFile !== undefined) {
    return {
      owner: `pack ${namedInProse(pack.name)}`,
      call: `read_pack_file(pack=${quotedName(pack.name)}, file=${quotedName(packFile.path)})`,
    };
  }
  const owner = skillAtPath(pack, inPack);
  if (owner === undefined) return undefined;
  const name = scope.refOf(owner.skill);
  const call = readCall(name, owner.file === SKILL_DOCUMENT ? file : owner.file);
  return { owner: `skill ${namedInProse(name)}`, call, skill: owner.skill };
}

/** How many folders may come before a skill's name in a path given as the skill (`skills/<name>/…`). */
const FOLDERS_BEFORE_NAME = 4;

/**
 * The skill, and the call that reads the file, that a path beginning with a skill's name names where a
 * skill's name belongs, as skills cite their files (`brainstorming/SKILL.md`,
 * `scientific-schematics/scripts/generate_schematic.py`), from up to {@link FOLDERS_BEFORE_NAME} folders
 * above (`skills/brainstorming/SKILL.md`): only when the rest is SKILL.md or a file or folder of it.
 */
export function callBySkillName(
  scope: Scope,
  ref: string,
  file: string,
): { owner: string; call: string } | undefined {
  const segments = normalizeFilePath(withoutEdgeSlashes(ref.trim()))?.split("/") ?? [];
  for (let at = 0; at < Math.min(segments.length, FOLDERS_BEFORE_NAME + 1); at++) {
    const lookup = scope.findSkillAnyCase(segments[at] ?? "");
    if (lookup.kind !== "found") continue;
    // The skill's folder (`brainstorming/`) stands for the skill, as its SKILL.md does.
    const rest = segments.slice(at + 1).join("/") || SKILL_DOCUMENT;
    const wanted = rest === SKILL_DOCUMENT ? file : file === SKILL_DOCUMENT ? rest : `${rest}/${file}`;
    const { skill } = lookup;
    const held =
      wanted === SKILL_DOCUMENT ||
      wanted === MANIFEST_NAME ||
      skill.files.has(wanted) ||
      filesInFolder(skill.files, wanted) !== undefined;
    if (!held) continue;
    const name = scope.refOf(skill);
    return { owner: `skill ${namedInProse(name)}`, call: readCall(name, wanted) };
  }
  return undefined;
}

/**
 * The skill of `pack` that a path in the pack names, and its file there: a path in the skill's folder, the
 * folder itself (standing for its SKILL.md), or the path its `skill://` URI gives it.
 */
export function skillAtPath(pack: Pack, inPack: string): { skill: Skill; file: string } | undefined {
  return (
    skillOwningPath(pack, inPack) ??
    skillOwningPath(pack, `${withoutTrailingSlashes(inPack)}/${SKILL_DOCUMENT}`) ??
    skillAtUriPath(pack, inPack)
  );
}

/**
 * The skill of `pack` that `inPack` names as its `skill://` URI does, by group and name (see skillPath),
 * and the file below it: the skill's folder may lie elsewhere, as `<plugin>/skills/<name>` does. A nested
 * skill's URI lies below the one it is nested in, whose file it is too: the skill of the longest path is
 * named. So is a nested skill by the path it had before its URI was nested (`pack/group/name`).
 */
function skillAtUriPath(pack: Pack, inPack: string): { skill: Skill; file: string } | undefined {
  const key = `${pack.name}/${inPack}`;
  let found: { skill: Skill; file: string; root: string } | undefined;
  for (const skill of pack.skills) {
    for (const root of new Set([skillPath(skill), unnestedSkillPath(skill)])) {
      if (found !== undefined && found.root.length >= root.length) continue;
      if (key === root) found = { skill, file: SKILL_DOCUMENT, root };
      const file = key.startsWith(`${root}/`) ? key.slice(root.length + 1) : undefined;
      if (file !== undefined && (file === SKILL_DOCUMENT || skill.files.has(file)))
        found = { skill, file, root };
    }
  }
  return found && { skill: found.skill, file: found.file };
}

/** The call that reads `file` of the skill named `name`, SKILL.md by default. */
export function readCall(name: string, file: string): string {
  return file === SKILL_DOCUMENT
    ? `read_skill(skill=${quotedName(name)})`
    : `read_skill(skill=${quotedName(name)}, file=${quotedName(file)})`;
}

/** Past this many skills holding a path, it is too common a path (`references/examples.md`) to tell anything. */
const MAX_HOLDERS = 3;

/**
 * The calls that read `file` of those of `skills` that hold it, as a sentence beginning `who`, or "" when
 * none or more than {@link MAX_HOLDERS} do. Skills cite another skill's file by its path inside that skill
 * (n8n's "see n8n-node-configuration-official `references/MERGE_NODE.md`", K-Dense's
 * `scripts/generate_schematic.py` of scientific-schematics), and the model asks the citing skill or the
 * pack for it. Each holder is named, none is picked. Only a path with a folder: a bare name (`README.md`,
 * `LICENSE.txt`) is any skill's.
 */
export function holdersOf(skills: readonly Skill[], file: string, scope: Scope, who: string): string {
  const key = normalizeFilePath(file);
  if (key === undefined || !key.includes("/")) return "";
  const calls: string[] = [];
  for (const skill of skills) {
    if (!skill.files.has(key)) continue;
    if (calls.length === MAX_HOLDERS) return "";
    calls.push(readCall(scope.refOf(skill), key));
  }
  return calls.length === 0 ? "" : ` ${who} with that path: ${calls.join(", ")}.`;
}
