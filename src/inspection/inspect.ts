import { createHash } from "node:crypto";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { SKILL_LIMITS, type Skill as SkillEntry, skillEntry } from "@modelcontextprotocol/server/ext/skills";
import { auditFile, auditSkillMetadata, documentPath, type Finding, isUnsafe } from "../audit/index.js";
import {
  type CatalogFile,
  readCatalogBytes,
  readFrontmatterFields,
  SKILL_DOCUMENT,
  type Skill,
  stripBom,
} from "../catalog/index.js";

export type { SkillEntry };

/**
 * What one read of every file of a skill found: the entry the MCP Skills extension publishes for it (its
 * URI, its frontmatter and a SHA-256 digest and size of each file), or why the extension cannot carry it;
 * and the audit's high findings, which make the skill unsafe to serve.
 */
export interface SkillInspection {
  readonly entry: SkillEntry | undefined;
  /** Set when `entry` is not: why the extension leaves the skill out (the tools still serve it). */
  readonly leftOut: string | undefined;
  /** Sorted as the audit sorts them; empty for a skill the audit finds nothing high in. */
  readonly unsafe: readonly Finding[];
}

/**
 * A file larger than this is not read: the extension carries no skill that big, and the audit's text
 * rules do not apply to it (its size is a low finding of the audit's own).
 */
const MAX_INSPECTED_FILE_BYTES = SKILL_LIMITS.bytes;

/**
 * The path of a skill in the extension's `skill://` namespace: its pack, its group if it has one, and its
 * frontmatter name last (also when its folder is named otherwise), as the tools name it `pack/name`.
 */
export function skillPath(skill: Skill): string {
  return [skill.pack, ...(skill.group === undefined ? [] : [skill.group]), skill.name].join("/");
}

/**
 * Reads every file of `skill` once: the audit's rules run on each, and the SDK builds its entry from them
 * with its own checks.
 */
export async function inspectSkill(skill: Skill): Promise<SkillInspection> {
  const all = [skill.document, ...skill.files.values()];
  const contents: Record<string, Uint8Array> = {};
  const unsafe: Finding[] = [];
  for (const file of all) {
    if (file.size > MAX_INSPECTED_FILE_BYTES) continue;
    const bytes = await readCatalogBytes(file);
    contents[file.path] = bytes;
    unsafe.push(...auditFile(path.posix.join(skill.pack, skill.folder, file.path), bytes).filter(isUnsafe));
  }
  const document = Buffer.from(contents[SKILL_DOCUMENT] ?? new Uint8Array()).toString("utf8");
  unsafe.push(...auditSkillMetadata(documentPath(skill), skill, document).filter(isUnsafe));
  // Copied through JSON: the parsers' strings are slices of the whole SKILL.md, which they would keep
  // alive (10 KB a skill, 100 MB at 10,000 skills).
  return asJson({ ...(await entryOf(skill, all, contents, document)), unsafe }) as SkillInspection;
}

/** The extension's entry of a skill whose files hold `contents`, or why it cannot carry the skill. */
async function entryOf(
  skill: Skill,
  all: readonly CatalogFile[],
  contents: Readonly<Record<string, Uint8Array>>,
  document: string,
): Promise<Omit<SkillInspection, "unsafe">> {
  const bytes = all.reduce((sum, file) => sum + file.size, 0);
  if (all.length > SKILL_LIMITS.files || bytes > SKILL_LIMITS.bytes) {
    return leftOut(
      `${all.length} files of ${bytes} bytes: the Skills extension carries at most ` +
        `${SKILL_LIMITS.files} files and ${SKILL_LIMITS.bytes} bytes a skill`,
    );
  }
  let entry: SkillEntry;
  try {
    entry = await skillEntry(skillPath(skill), contents);
  } catch (error) {
    return leftOut(describeEntryProblems(error));
  }
  const read = readFrontmatterFields(stripBom(document));
  if (!("fields" in read) || !isDeepStrictEqual(asJson(read.fields), asJson(entry.frontmatter))) {
    return leftOut("its frontmatter reads otherwise to the Skills extension's parser than to YAML");
  }
  return { entry, leftOut: undefined };
}

/** `value` as JSON carries it, in strings of its own: what a client compares, whatever the parsers gave. */
function asJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

function leftOut(reason: string): Omit<SkillInspection, "unsafe"> {
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
