import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describeBytes, isTextToGit, SKILL_DOCUMENT, type Skill } from "../../src/catalog/index.js";

/** A pack as one commit has it: its skills, and every file it serves by path in the pack. */
export interface PackSide {
  readonly skills: readonly Skill[];
  /** Pack files (outside every skill folder), by path in the pack. */
  readonly packFiles: ReadonlySet<string>;
  /** Each served file, by path in the pack. */
  readonly files: ReadonlyMap<string, ServedFile>;
}

/**
 * A served file as the review compares it: by its size and SHA-256, which tell whether it changed, its bytes
 * read again from `source` only when a line count or a diff needs them, one file (or old and new pair) at
 * a time, so that the review holds no more than that of a bump of many large files.
 */
export interface ServedFile {
  /** Undefined when the file could not be read at all. */
  readonly digest: Digest | undefined;
  /** Why the audit did not read it, as the audit says it (`not audited: larger than 16 MiB, …`). */
  readonly notAudited: string | undefined;
  /** Where its bytes are; undefined for no bytes. */
  readonly source: string | undefined;
  /** Whether its mode lets it run (any execute bit): a bump may change that alone. */
  readonly executable: boolean;
}

export interface Digest {
  readonly size: number;
  readonly sha256: string;
}

export const EMPTY_SIDE: PackSide = {
  skills: [],
  packFiles: new Set(),
  files: new Map(),
};

export function digestOf(bytes: Uint8Array): Digest {
  return { size: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") };
}

const EMPTY = Buffer.alloc(0);
/** A file of no bytes: what the review takes for a served file it was not told of. */
const EMPTY_FILE: ServedFile = {
  digest: digestOf(EMPTY),
  notAudited: undefined,
  source: undefined,
  executable: false,
};

export function servedIn(side: PackSide, file: string): ServedFile {
  return side.files.get(file) ?? EMPTY_FILE;
}

/** A skill's SKILL.md as the audit read it: empty when the audit could not read it. */
export function documentOf(side: PackSide, skill: Skill): ServedFile {
  const document = servedIn(side, documentIn(skill));
  return document.notAudited === undefined ? document : EMPTY_FILE;
}

/**
 * The bytes of a file the audit read, read again and checked against the digest of what it read: the
 * review shows what was audited.
 */
export function bytesOf(file: ServedFile): Buffer {
  if (file.source === undefined) return EMPTY;
  const bytes = readFileSync(file.source);
  if (bytes.length !== file.digest?.size || digestOf(bytes).sha256 !== file.digest.sha256) {
    throw new Error(`${file.source} changed while the repin review read it`);
  }
  return bytes;
}

/** Whether two served files hold the same bytes, by size and SHA-256. */
export function sameContent(a: ServedFile, b: ServedFile): boolean {
  // A file that could not be read is never known to be the same; one the audit read never is one it did not.
  if ((a.notAudited === undefined) !== (b.notAudited === undefined)) return false;
  return a.digest !== undefined && a.digest.size === b.digest?.size && a.digest.sha256 === b.digest.sha256;
}

/** The text of a file the server serves as text; undefined for a binary one, or one the audit did not read. */
export function textOf(content: ServedFile | undefined): string | undefined {
  return readServed(content).text;
}

/**
 * A file's text as {@link textOf} has it, and whether `git diff` shows it as text: git does for a file
 * with no NUL in its first 8,000 bytes, so it shows the lines of one the server serves as binary for not
 * being UTF-8 (a Latin-1 script), for a NUL past them, or for its many control characters. One the
 * audit did not read, git's view of it is not known.
 */
export function readServed(content: ServedFile | undefined): {
  readonly text: string | undefined;
  readonly gitText: boolean;
} {
  if (content === undefined) return { text: "", gitText: true };
  if (content.notAudited !== undefined) return { text: undefined, gitText: false };
  const bytes = bytesOf(content);
  const described = describeBytes(bytes, bytes.length, "");
  if (described.kind === "text") return { text: described.text, gitText: true };
  return { text: undefined, gitText: isTextToGit(bytes) };
}

/** `make` of each skill, made once: a skill's files are asked for when pairing and again when comparing. */
export function perSkill<T>(make: (skill: Skill) => T): (skill: Skill) => T {
  const made = new Map<Skill, T>();
  return (skill) => {
    const known = made.get(skill);
    if (known !== undefined) return known;
    const value = make(skill);
    made.set(skill, value);
    return value;
  };
}

/** A skill's SKILL.md by path in its pack. */
export function documentIn(skill: Skill): string {
  return path.posix.join(skill.folder, SKILL_DOCUMENT);
}
