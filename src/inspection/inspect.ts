import { createHash } from "node:crypto";
import { isDeepStrictEqual } from "node:util";
import { SKILL_LIMITS, type Skill as SkillEntry, skillEntry } from "@modelcontextprotocol/server/ext/skills";
import {
  type CatalogFile,
  type FileReader,
  readFrontmatterFields,
  SKILL_DOCUMENT,
  type Skill,
  stripBom,
} from "../catalog/index.js";

export type { SkillEntry };

/**
 * What one read of every file of a skill found: the entry the MCP Skills extension publishes for it (its
 * URI, its frontmatter and a SHA-256 digest and size of each file), or why the extension cannot carry it.
 */
export interface SkillInspection {
  readonly entry: SkillEntry | undefined;
  /** Set when `entry` is not: why the extension leaves the skill out (the tools still serve it). */
  readonly leftOut: string | undefined;
}

/**
 * The path of a skill in the extension's `skill://` namespace: its pack, its group if it has one, and its
 * frontmatter name last (also when its folder is named otherwise), as the tools name it `pack/name`.
 */
export function skillPath(skill: Skill): string {
  return [skill.pack, ...(skill.group === undefined ? [] : [skill.group]), skill.name].join("/");
}

/** Reads every file of `skill` and builds its entry with the SDK's own checks. */
export async function inspectSkill(skill: Skill, files: FileReader): Promise<SkillInspection> {
  const all = [skill.document, ...skill.files.values()];
  const bytes = all.reduce((sum, file) => sum + file.size, 0);
  if (all.length > SKILL_LIMITS.files || bytes > SKILL_LIMITS.bytes) {
    return leftOut(
      `${all.length} files of ${bytes} bytes: the Skills extension carries at most ` +
        `${SKILL_LIMITS.files} files and ${SKILL_LIMITS.bytes} bytes a skill`,
    );
  }
  const contents: Record<string, Uint8Array> = {};
  for (const file of all) contents[file.path] = await files.readBytes(file);
  let entry: SkillEntry;
  try {
    entry = await skillEntry(skillPath(skill), contents);
  } catch (error) {
    return leftOut(describeEntryProblems(error));
  }
  const document = contents[SKILL_DOCUMENT] ?? new Uint8Array();
  const read = readFrontmatterFields(stripBom(Buffer.from(document).toString("utf8")));
  if (!("fields" in read) || !isDeepStrictEqual(asJson(read.fields), asJson(entry.frontmatter))) {
    return leftOut("its frontmatter reads otherwise to the Skills extension's parser than to YAML");
  }
  return { entry, leftOut: undefined };
}

/** `value` as JSON carries it: what a client compares, whatever prototypes the two parsers gave. */
function asJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

function leftOut(reason: string): SkillInspection {
  return { entry: undefined, leftOut: reason };
}

/** The SDK's problems with an entry (a SkillCatalogError lists them) in one line. */
function describeEntryProblems(error: unknown): string {
  const problems = (error as { problems?: readonly { message: string }[] }).problems;
  if (Array.isArray(problems) && problems.length > 0)
    return problems.map(({ message }) => message).join("; ");
  return error instanceof Error ? error.message : String(error);
}

/**
 * What the files of a skill were when it was inspected: a saved inspection is used again only while
 * every file keeps its path, size and modification time (whole seconds, as image layers keep them), and
 * while the skill keeps its place and name, which its entry's URIs are made of.
 */
export function skillFingerprint(skill: Skill): string {
  const hash = createHash("sha256").update(skillPath(skill)).update("\n");
  for (const file of [skill.document, ...skill.files.values()]) hash.update(fileLine(file));
  return hash.digest("base64url");
}

function fileLine(file: CatalogFile): string {
  return `${JSON.stringify(file.path)} ${file.size} ${Math.floor(file.mtimeMs / 1000)}\n`;
}
