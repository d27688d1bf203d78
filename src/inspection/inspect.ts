import { hash } from "node:crypto";
import { SKILL_LIMITS, type Skill as SkillEntry, skillEntry } from "@modelcontextprotocol/server/ext/skills";
import { type CatalogAudit, type Finding, isUnsafe, type ServedFile, servedFileOf } from "../audit/index.js";
import type { ByteBudget } from "../budget/index.js";
import {
  type CatalogFile,
  ChangedFileError,
  describeFsError,
  fileStamp,
  formatSize,
  frontmatterDigest,
  readCatalogBytes,
  readFrontmatterFields,
  SKILL_DOCUMENT,
  type Skill,
  skillPath,
  stripBom,
} from "../catalog/index.js";
import { compareText, errorMessage } from "../shared/index.js";

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
  /**
   * The first {@link KEPT_FINDINGS} of them, in the order the skill's files were read; empty for a skill
   * the audit finds nothing high in. The first says why the skill is unsafe.
   */
  readonly unsafe: readonly Finding[];
  /** How many high findings the skill holds, all told (saved with the inspection, as the first few are). */
  readonly unsafeCount: number;
}

/**
 * How many of a skill's high findings an inspection keeps: the first says why it is unsafe, and the
 * rest are the audit's to list. All of them, each named for its path, held links × findings (4,000
 * symlinks to a file of 84 high findings: 336,000, copied once more through JSON).
 */
export const KEPT_FINDINGS = 10;

/**
 * A file larger than this is not read: the extension carries no skill that big, and the audit's text
 * rules do not apply to it (its size is a low finding of the audit's own).
 */
export const MAX_INSPECTED_FILE_BYTES = SKILL_LIMITS.bytes;

/**
 * The largest entry the extension publishes, as JSON: half a `skills/list` page. An entry holds the
 * frontmatter and every file's URI; 512 files nested to the path limit made one of 2 MB, sent whole in
 * every `skills/get` and `skills/list` answer naming the skill.
 */
export const MAX_ENTRY_BYTES = 256 * 1024;

/**
 * Reads every file of `skill` once: the audit's rules run on each (through `audit`, which remembers the
 * findings of a file that nested skills share), and the SDK builds its entry from them with its own checks.
 * The bytes it holds are taken from `budget` before they are read, and given back once no longer held: a
 * skill the extension can carry (its files' sizes, taken at load, say so before any is read) is read whole
 * for its entry, any other one file at a time, for the audit alone. `frontmatter` is the digest of the
 * frontmatter as the catalog's YAML read it, when the catalog parsed it at this start.
 */
export async function inspectSkill(
  skill: Skill,
  budget: ByteBudget,
  audit: CatalogAudit,
  options: { readonly frontmatter?: string; readonly modes?: boolean } = {},
): Promise<SkillInspection> {
  const all = [skill.document, ...skill.files.values()];
  const tooLarge = extensionLimitProblem(all);
  let found: Pick<SkillInspection, "entry" | "leftOut">;
  const read: SkillRead = {
    skill,
    audit,
    modes: options.modes === true,
    unsafe: [],
    unsafeCount: 0,
    problems: [],
  };
  if (tooLarge === undefined) {
    const release = await budget.take(all.reduce((sum, file) => sum + file.size, 0));
    try {
      const contents: Record<string, Uint8Array> = {};
      for (const file of all) {
        const bytes = await readAndAudit(file, read);
        if (bytes !== undefined) contents[file.path] = bytes;
      }
      found =
        read.problems.length > 0
          ? leftOut(read.problems.join("; "))
          : await entryOf(skill, contents, options.frontmatter);
    } finally {
      release();
    }
  } else {
    for (const file of all) {
      if (file.size > MAX_INSPECTED_FILE_BYTES) {
        audit.notAudited(servedFileOf(skill, file.path), TOO_LARGE);
        continue;
      }
      // A file a symlink leads to, audited already under another path, is not read again. SKILL.md is
      // read all the same: its name and description are placed on its lines.
      const served = servedFileOf(skill, file.path);
      const known = file === skill.document ? undefined : audit.auditedAs(served, file.identity);
      if (known !== undefined) {
        noteUnsafe(read, known, served.path);
        continue;
      }
      const release = await budget.take(file.size);
      try {
        await readAndAudit(file, read);
      } finally {
        release();
      }
    }
    found = leftOut(tooLarge);
  }
  // Copied through JSON (the entry in entryOf, once): the parsers' strings are slices of the whole
  // SKILL.md, which they would keep alive (10 KB a skill, 100 MB at 10,000 skills).
  const rest = asJson({ leftOut: found.leftOut, unsafe: read.unsafe }) as Pick<
    SkillInspection,
    "leftOut" | "unsafe"
  >;
  return { entry: found.entry, ...rest, unsafeCount: read.unsafeCount };
}

/** Why a served file is not read: the most the inspection reads of one file, as the audit says it. */
const TOO_LARGE = `larger than ${MAX_INSPECTED_FILE_BYTES / 1024 / 1024} MiB, the most the audit reads`;

/** The reading of one skill's files: where findings go, and what it found so far. */
interface SkillRead {
  readonly skill: Skill;
  readonly audit: CatalogAudit;
  /** Whether each file's mode is read too (executables are a finding of the whole audit). */
  readonly modes: boolean;
  /** The audit's first high findings (see SkillInspection.unsafe). */
  readonly unsafe: Finding[];
  /** How many high findings were met. */
  unsafeCount: number;
  /** The files that could not be read. */
  readonly problems: string[];
}

/**
 * One file's bytes, its high findings (and for SKILL.md those of the skill's name and description) added
 * to `read`; undefined, and the problem noted, when it cannot be read.
 */
async function readAndAudit(file: CatalogFile, read: SkillRead): Promise<Uint8Array | undefined> {
  const { skill, audit } = read;
  const document = file === skill.document;
  let bytes: Uint8Array;
  let executable: boolean;
  try {
    ({ bytes, executable } = await readCatalogBytes(file, read.modes));
  } catch (error) {
    const why = unreadReason(error);
    read.problems.push(`${file.path} ${why}`);
    audit.notAudited(servedFileOf(skill, file.path), why);
    // The name and description are the catalog's: audited all the same, placed on line 1.
    if (document) noteUnsafe(read, audit.metadata(skill));
    return undefined;
  }
  const served = servedFileOf(skill, file.path);
  noteUnsafe(read, audit.file(served, bytes, { executable }, file.identity), served.path);
  if (document) noteUnsafe(read, audit.metadata(skill, bytes));
  return bytes;
}

/**
 * Counts the high ones of `findings` in `read`, keeping the first few, named for `where` when given: the
 * findings of a file met under another path are named for the path they were made under.
 */
function noteUnsafe(read: SkillRead, findings: readonly Finding[], where?: string): void {
  for (const found of findings) {
    if (!isUnsafe(found)) continue;
    read.unsafeCount++;
    if (read.unsafe.length < KEPT_FINDINGS) {
      read.unsafe.push(where === undefined || found.path === where ? found : { ...found, path: where });
    }
  }
}

/** Why a served file could not be read, as the audit and the log say it. */
function unreadReason(error: unknown): string {
  return error instanceof ChangedFileError ? "changed since the catalog was loaded" : describeFsError(error);
}

/** Reads and audits a pack file (outside every skill), holding its bytes from `budget` meanwhile. */
export async function auditPackFile(
  served: ServedFile,
  file: CatalogFile,
  budget: ByteBudget,
  audit: CatalogAudit,
): Promise<void> {
  if (file.size > MAX_INSPECTED_FILE_BYTES) {
    audit.notAudited(served, TOO_LARGE);
    return;
  }
  if (audit.auditedAs(served, file.identity) !== undefined) return;
  const release = await budget.take(file.size);
  try {
    const { bytes, executable } = await readCatalogBytes(file, true);
    audit.file(served, bytes, { executable }, file.identity);
  } catch (error) {
    audit.notAudited(served, unreadReason(error));
  } finally {
    release();
  }
}

/** Why the extension cannot carry a skill of `all` these files, told by their sizes before any is read. */
function extensionLimitProblem(all: readonly CatalogFile[]): string | undefined {
  const bytes = all.reduce((sum, file) => sum + file.size, 0);
  if (all.length <= SKILL_LIMITS.files && bytes <= SKILL_LIMITS.bytes) return undefined;
  return (
    `${all.length} files of ${bytes} bytes: the Skills extension carries at most ` +
    `${SKILL_LIMITS.files} files and ${SKILL_LIMITS.bytes} bytes a skill`
  );
}

/** The extension's entry of a skill whose files hold `contents`, or why it cannot carry the skill. */
async function entryOf(
  skill: Skill,
  contents: Readonly<Record<string, Uint8Array>>,
  frontmatter: string | undefined,
): Promise<Pick<SkillInspection, "entry" | "leftOut">> {
  let entry: SkillEntry;
  try {
    entry = inRfc3986(await skillEntry(skillPath(skill), contents));
  } catch (error) {
    return leftOut(describeEntryProblems(error, contents[SKILL_DOCUMENT]));
  }
  const yaml = frontmatter ?? yamlDigest(Buffer.from(contents[SKILL_DOCUMENT] ?? []).toString("utf8"));
  if (yaml !== frontmatterDigest(entry.frontmatter)) {
    return leftOut("its frontmatter reads otherwise to the Skills extension's parser than to YAML");
  }
  const inexact = fieldHolding(entry.frontmatter, isInexactInteger);
  if (inexact !== undefined) {
    return leftOut(
      `its frontmatter's ${JSON.stringify(inexact)} is an integer past 2^53, which JSON does not carry exactly ` +
        "to every host: quote it",
    );
  }
  const unpaired = fieldHolding(entry.frontmatter, holdsLoneSurrogate);
  if (unpaired !== undefined) {
    return leftOut(
      `its frontmatter's ${JSON.stringify(unpaired)} holds a lone surrogate (a YAML escape such as "\\ud800"), ` +
        "no character at all, which UTF-8 does not carry: write the character itself",
    );
  }
  const json = JSON.stringify(entry);
  const bytes = Buffer.byteLength(json);
  if (bytes > MAX_ENTRY_BYTES) {
    return leftOut(
      `its entry (its frontmatter and its files' URIs, digests and sizes) takes ${formatSize(bytes)} of JSON, ` +
        `over the ${formatSize(MAX_ENTRY_BYTES)} the Skills extension publishes for a skill`,
    );
  }
  return { entry: JSON.parse(json) as SkillEntry, leftOut: undefined };
}

/**
 * The entry with its URIs as RFC 3986 spells them. The SDK writes `[`, `]` and `|` raw in a path, as a
 * WHATWG URL serializes it, which a strict URI parser refuses or encodes into another URI than the one
 * listed. It encodes every other character a path may not hold, `%` included, so encoding these three
 * keeps each file its own URI. Sorted again by URI, as the SDK sorts them.
 */
function inRfc3986(entry: SkillEntry): SkillEntry {
  const strict = (uri: string) => uri.replace(/[[\]|]/g, (character) => encodeURIComponent(character));
  if (entry.resources === "dynamic") return { ...entry, uri: strict(entry.uri) };
  const resources = entry.resources.map((resource) => ({ ...resource, uri: strict(resource.uri) }));
  resources.sort((a, b) => compareText(a.uri, b.uri));
  return { ...entry, uri: strict(entry.uri), resources };
}

/**
 * The first top-level field of `frontmatter` holding, at any depth, a key or value that `test` picks out;
 * undefined when none does. Walked without recursion: YAML nests as deep as a frontmatter is long.
 */
function fieldHolding(
  frontmatter: Readonly<Record<string, unknown>>,
  test: (value: unknown) => boolean,
): string | undefined {
  for (const [field, value] of Object.entries(frontmatter)) {
    if (test(field)) return field;
    const pending: unknown[] = [value];
    while (pending.length > 0) {
      const next = pending.pop();
      if (test(next)) return field;
      if (next !== null && typeof next === "object") {
        for (const [key, inner] of Object.entries(next)) {
          if (test(key)) return field;
          pending.push(inner);
        }
      }
    }
  }
  return undefined;
}

/**
 * An integer past 2^53: YAML read it rounded, and the entry would publish it so, while a host whose YAML
 * keeps such integers (Python's, Go's) compares the file's with the entry's, as the extension asks, and
 * finds them apart.
 */
function isInexactInteger(value: unknown): boolean {
  return typeof value === "number" && Number.isInteger(value) && !Number.isSafeInteger(value);
}

/** A surrogate with no partner: in a regular expression with the u flag, a pair is one code point. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * A string holding a lone surrogate, which only a YAML escape (`"\ud800"`) puts there: the entry carried it
 * to `skills/list` and `resources/list`, where a host decoding the answer as UTF-8 fails on it or reads
 * U+FFFD, another frontmatter than the digest it compares. Linear: one scan a string.
 */
function holdsLoneSurrogate(value: unknown): boolean {
  return typeof value === "string" && LONE_SURROGATE.test(value);
}

/** The digest of the frontmatter of `document` as YAML reads it; undefined when YAML cannot read it. */
function yamlDigest(document: string): string | undefined {
  const read = readFrontmatterFields(stripBom(document));
  return "fields" in read ? frontmatterDigest(read.fields) : undefined;
}

/** `value` as JSON carries it, in strings of its own: what a client compares, whatever the parsers gave. */
function asJson(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value));
}

function leftOut(reason: string): Pick<SkillInspection, "entry" | "leftOut"> {
  return { entry: undefined, leftOut: reason };
}

/**
 * The SDK's problems with an entry (a SkillCatalogError lists them) in one line; its problem with
 * `metadata` completed from `document`, the SKILL.md, with the values that are not strings.
 */
function describeEntryProblems(error: unknown, document: Uint8Array | undefined): string {
  const problems = (error as { problems?: readonly { message: string }[] }).problems;
  if (Array.isArray(problems) && problems.length > 0)
    return problems
      .map(({ message }) => (message === METADATA_PROBLEM ? message + metadataDetail(document) : message))
      .join("; ");
  return errorMessage(error);
}

const METADATA_PROBLEM = "frontmatter metadata must map strings to strings";
const METADATA_DETAIL_BYTES = 8 * 1024;

/**
 * Which `metadata` values are not strings, and how to make them so: YAML reads `version: 1.0` as a
 * number and `internal: true` as a boolean, which the extension refuses, and the SDK's words alone do
 * not say which key is at fault.
 */
function metadataDetail(document: Uint8Array | undefined): string {
  if (document === undefined) return "";
  // Parsed again only within a bound (real frontmatters take a few hundred bytes): the catalog's own
  // parse, once a start, is what a hostile frontmatter's cost is bounded by.
  const start = Buffer.from(document.subarray(0, METADATA_DETAIL_BYTES)).toString("utf8");
  const read = readFrontmatterFields(stripBom(start));
  if (!("fields" in read)) return "";
  const metadata = read.fields.metadata;
  if (metadata === null || typeof metadata !== "object" || Array.isArray(metadata)) {
    return ` (it is ${yamlKindOf(metadata)}: write it as keys with quoted values)`;
  }
  const odd = Object.entries(metadata).filter(([, value]) => typeof value !== "string");
  const shown = odd.slice(0, 5).map(([key, value]) => `${JSON.stringify(key)} is ${yamlKindOf(value)}`);
  if (odd.length > shown.length) shown.push(`${odd.length - shown.length} more`);
  const nested = odd.some(([, value]) => value !== null && typeof value === "object");
  const advice = [
    ...(odd.some(([, value]) => value === null || typeof value !== "object")
      ? ['put a number, boolean or empty value in quotes (version: "1.0")']
      : []),
    ...(nested ? ['write a list or mapping as one string (tags: "a, b")'] : []),
  ];
  return ` (${shown.join(", ")}: ${advice.join("; ")})`;
}

/** What YAML read a value as, in words. */
function yamlKindOf(value: unknown): string {
  if (value === null) return "empty";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "a mapping";
  return `a ${typeof value}`;
}

/**
 * What the files of a skill were when it was inspected: a saved inspection is used again only while every
 * file keeps its path and stamp (see fileStamp), and while the skill keeps its place and name, which its
 * entry's URIs are made of.
 */
export function skillStamp(skill: Skill): string {
  let text = `${skillPath(skill)}\n`;
  for (const file of [skill.document, ...skill.files.values()]) {
    text += `${JSON.stringify(file.path)} ${fileStamp(file)}\n`;
  }
  // One call, not a Hash object fed line by line: a start on a saved index stamps every skill.
  return hash("sha256", text, "base64url");
}
