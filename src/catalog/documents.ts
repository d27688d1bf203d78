import type { SkillDocument } from "./frontmatter.js";

/**
 * What the catalog read from one SKILL.md: the file's stamp (see fileStamp), and its name and description
 * or why it cannot be served.
 */
export interface DocumentReading {
  /** Relative to the skills folder, POSIX. */
  readonly path: string;
  readonly stamp: string;
  readonly parsed: SkillDocument;
}

/**
 * The SKILL.md files read when the catalog was loaded before (saved with the search index), so that a
 * start on the same skills reads no frontmatter again: each is used while its file keeps its size and
 * modification time. Parsing 10,000 frontmatters took most of a start on a saved index.
 */
export class KnownDocuments {
  readonly #byPath: ReadonlyMap<string, DocumentReading>;

  private constructor(byPath: ReadonlyMap<string, DocumentReading>) {
    this.#byPath = byPath;
  }

  /** What `saved` (see {@link documentsToBytes}) holds; none when it is not such a record. */
  static fromBytes(saved: Uint8Array | undefined): KnownDocuments {
    const byPath = new Map<string, DocumentReading>();
    try {
      const rows: unknown = saved === undefined ? [] : JSON.parse(Buffer.from(saved).toString("utf8"));
      for (const row of Array.isArray(rows) ? rows : []) {
        const reading = readingOf(row);
        if (reading !== undefined) byPath.set(reading.path, reading);
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
  get(path: string, stamp: string): SkillDocument | undefined {
    const known = this.#byPath.get(path);
    return known !== undefined && known.stamp === stamp ? known.parsed : undefined;
  }
}

/** In a saved row, the flags of a skill that a model, or a person, may not start. */
const NOT_BY_MODEL = 1;
const NOT_BY_USER = 2;

/**
 * The saved form of `readings`: one row each, `[path, stamp, name or null, description or reason, flags]`
 * (rows of another form are read anew).
 */
export function documentsToBytes(readings: readonly DocumentReading[]): Uint8Array {
  const rows = readings.map(({ path, stamp, parsed }) =>
    parsed.ok
      ? [
          path,
          stamp,
          parsed.name,
          parsed.description,
          (parsed.modelInvocable ? 0 : NOT_BY_MODEL) | (parsed.userInvocable ? 0 : NOT_BY_USER),
        ]
      : [path, stamp, null, parsed.reason, 0],
  );
  return Buffer.from(JSON.stringify(rows));
}

function readingOf(row: unknown): DocumentReading | undefined {
  if (!Array.isArray(row) || row.length !== 5) return undefined;
  const [path, stamp, name, text, flags] = row as unknown[];
  if (typeof path !== "string" || typeof stamp !== "string") return undefined;
  if (typeof text !== "string" || (name !== null && typeof name !== "string")) return undefined;
  if (typeof flags !== "number") return undefined;
  const parsed: SkillDocument =
    name === null
      ? { ok: false, reason: text }
      : {
          ok: true,
          name,
          description: text,
          modelInvocable: (flags & NOT_BY_MODEL) === 0,
          userInvocable: (flags & NOT_BY_USER) === 0,
        };
  return { path, stamp, parsed };
}
