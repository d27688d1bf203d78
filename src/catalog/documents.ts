import { accessSync, closeSync, constants, fstatSync, readSync, statSync } from "node:fs";
import { describeFsError } from "./folders.js";
import { closesFrontmatter, type ParsedFrontmatter, readSkillFrontmatter, stripBom } from "./frontmatter.js";
import { openListedFileSync } from "./open.js";
import { fileIdentity, fileStamp } from "./stamps.js";

/**
 * What the catalog read from one SKILL.md, as saved for the next start: the file's stamp (see fileStamp),
 * and its name and description or why it cannot be served.
 */
export interface DocumentRecord {
  /** Relative to the skills folder, POSIX. */
  readonly path: string;
  readonly stamp: string;
  readonly parsed: ParsedFrontmatter;
}

/**
 * The SKILL.md files read when the catalog was loaded before (saved with the search index), so that a
 * start on the same skills reads no frontmatter again: each is used while its file keeps its size and
 * modification time. Parsing 10,000 frontmatters took most of a start on a saved index.
 */
export class KnownDocuments {
  readonly #byPath: ReadonlyMap<string, DocumentRecord>;

  private constructor(byPath: ReadonlyMap<string, DocumentRecord>) {
    this.#byPath = byPath;
  }

  /** What `saved` (see {@link documentsToBytes}) holds; none when it is not such a record. */
  static fromBytes(saved: Uint8Array | undefined): KnownDocuments {
    const byPath = new Map<string, DocumentRecord>();
    try {
      const data: unknown = saved === undefined ? {} : JSON.parse(Buffer.from(saved).toString("utf8"));
      const { format, rows } = (data ?? {}) as { format?: unknown; rows?: unknown };
      // Read by another reading of frontmatters (or saved before formats were named): each is read anew.
      if (format !== DOCUMENTS_FORMAT_VERSION) return new KnownDocuments(byPath);
      for (const row of Array.isArray(rows) ? rows : []) {
        const record = recordOf(row);
        if (record !== undefined) byPath.set(record.path, record);
      }
    } catch {
      // Not JSON: every SKILL.md is read anew.
    }
    return new KnownDocuments(byPath);
  }

  /** Whether it knows no document at all (nothing was saved, or nothing could be read). */
  get empty(): boolean {
    return this.#byPath.size === 0;
  }

  /** What `path` held when it had this stamp, if it was read then. */
  get(path: string, stamp: string): ParsedFrontmatter | undefined {
    const known = this.#byPath.get(path);
    return known !== undefined && known.stamp === stamp ? known.parsed : undefined;
  }
}

/**
 * The version of how a SKILL.md's frontmatter is read and saved: bump it when the reading changes (what is
 * refused, a reason's words, a field kept), so that a saved index made by an earlier build, kept across an
 * upgrade, does not serve that build's readings for files whose stamps still hold.
 */
const DOCUMENTS_FORMAT_VERSION = 4;

/** In a saved row, the flags of a skill that a model, or a person, may not start. */
const NOT_BY_MODEL = 1;
const NOT_BY_USER = 2;
/** And of one whose unquoted description ends at a YAML comment, or whose file begins with a BOM. */
const DESCRIPTION_COMMENT = 4;
const BOM = 8;

/**
 * The saved form of `records`: their format, and one row each, `[path, stamp, name or null, description or
 * reason, flags]` (rows of another form are read anew).
 */
export function documentsToBytes(records: readonly DocumentRecord[]): Uint8Array {
  const rows = records.map(({ path, stamp, parsed }) =>
    parsed.ok
      ? [
          path,
          stamp,
          parsed.name,
          parsed.description,
          (parsed.modelInvocable ? 0 : NOT_BY_MODEL) |
            (parsed.userInvocable ? 0 : NOT_BY_USER) |
            (parsed.descriptionComment ? DESCRIPTION_COMMENT : 0) |
            (parsed.bom ? BOM : 0),
        ]
      : [path, stamp, null, parsed.reason, 0],
  );
  return Buffer.from(JSON.stringify({ format: DOCUMENTS_FORMAT_VERSION, rows }));
}

function recordOf(row: unknown): DocumentRecord | undefined {
  if (!Array.isArray(row) || row.length !== 5) return undefined;
  const [path, stamp, name, text, flags] = row as unknown[];
  if (typeof path !== "string" || typeof stamp !== "string") return undefined;
  if (typeof text !== "string" || (name !== null && typeof name !== "string")) return undefined;
  if (typeof flags !== "number") return undefined;
  const parsed: ParsedFrontmatter =
    name === null
      ? { ok: false, reason: text }
      : {
          ok: true,
          name,
          description: text,
          modelInvocable: (flags & NOT_BY_MODEL) === 0,
          userInvocable: (flags & NOT_BY_USER) === 0,
          ...((flags & DESCRIPTION_COMMENT) === 0 ? {} : { descriptionComment: true }),
          ...((flags & BOM) === 0 ? {} : { bom: true }),
        };
  return { path, stamp, parsed };
}

/** What a SKILL.md says; `digest` when its frontmatter was parsed now (see readSkillFrontmatter). */
interface DocumentRead {
  readonly parsed: ParsedFrontmatter;
  readonly digest?: string;
  readonly size: number;
  readonly mtimeMs: number;
  /** See CatalogFile.identity. */
  readonly identity: string;
}

/** Bounds the memory one runaway SKILL.md can take; real ones are a few KiB. */
const MAX_SKILL_DOCUMENT_BYTES = 1024 * 1024;

/**
 * Reads what each SKILL.md says: from the documents read at the start before while the file keeps its
 * stamp, else from disk, and records each for the next start.
 */
export class DocumentReader {
  readonly #known: KnownDocuments;
  readonly #records: DocumentRecord[] = [];

  constructor(known: KnownDocuments) {
    this.#known = known;
  }

  /** What was read, to be saved for the next start (see documentsToBytes). */
  get records(): readonly DocumentRecord[] {
    return this.#records;
  }

  /**
   * What the SKILL.md at `real` says (`where`: its path in the skills folder). A file that cannot be read,
   * or is too large to serve, gives the problem instead (to follow `SKILL.md`), and is not recorded.
   */
  read(where: string, real: string): DocumentRead | { problem: string } {
    let read: DocumentRead;
    try {
      read = this.#known.empty ? fromDisk(real) : fromKnown(where, real, this.#known);
    } catch (error) {
      return { problem: describeFsError(error) };
    }
    if (read.size > MAX_SKILL_DOCUMENT_BYTES) {
      return { problem: `is larger than ${MAX_SKILL_DOCUMENT_BYTES / 1024 / 1024} MiB` };
    }
    this.#records.push({ path: where, stamp: fileStamp(read), parsed: read.parsed });
    return read;
  }
}

function fromKnown(where: string, real: string, known: KnownDocuments): DocumentRead {
  const stats = statSync(real);
  // What was read before says nothing of whether the file can still be read.
  accessSync(real, constants.R_OK);
  const { size, mtimeMs } = stats;
  const parsed = known.get(where, fileStamp({ size, mtimeMs }));
  return parsed === undefined
    ? fromDisk(real)
    : { parsed, size, mtimeMs, identity: fileIdentity(stats, real) };
}

function fromDisk(real: string): DocumentRead {
  const start = readDocumentStart(real);
  const text = stripBom(start.text);
  const { parsed, digest } = readSkillFrontmatter(text);
  const bom = parsed.ok && text !== start.text;
  const { size, mtimeMs, identity } = start;
  return { parsed: bom ? { ...parsed, bom } : parsed, digest, size, mtimeMs, identity };
}

/**
 * How much of SKILL.md is read first: real frontmatters take a few hundred bytes (2 KB at most in
 * shared/bench), and Node serves buffers this small from its pool instead of allocating each.
 */
const DOCUMENT_START_BYTES = 2048;

/**
 * The start of SKILL.md (a byte order mark kept), in whole lines, up to the end of its frontmatter (the
 * body is read when a client asks for it), and the file's size and modification time. Reads on, a larger
 * piece at a time, while the frontmatter is still open; a file over the size limit is not read at all.
 */
function readDocumentStart(file: string): {
  text: string;
  size: number;
  mtimeMs: number;
  identity: string;
} {
  const handle = openListedFileSync(file);
  try {
    const stats = fstatSync(handle);
    const { size, mtimeMs } = stats;
    const identity = fileIdentity(stats, file);
    if (size > MAX_SKILL_DOCUMENT_BYTES) return { text: "", size, mtimeMs, identity };
    for (let want = Math.min(size, DOCUMENT_START_BYTES); ; want = Math.min(size, want * 8)) {
      const buffer = Buffer.allocUnsafe(want);
      const read = readSync(handle, buffer, 0, want, 0);
      if (read < want || read >= size) {
        return { text: buffer.toString("utf8", 0, read), size, mtimeMs, identity };
      }
      // Whole lines only: a line cut in two could pass for the closing ---.
      const text = buffer.toString("utf8", 0, buffer.lastIndexOf(0x0a, read - 1) + 1);
      if (closesFrontmatter(stripBom(text))) return { text, size, mtimeMs, identity };
    }
  } finally {
    closeSync(handle);
  }
}
