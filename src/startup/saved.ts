import { statSync } from "node:fs";
import path from "node:path";
import type { Logger } from "pino";
import {
  type Catalog,
  catalogFingerprint,
  type DocumentRecord,
  describeFsError,
  documentsToBytes,
  KnownDocuments,
  readFileBeside,
  type Skill,
} from "../catalog/index.js";
import type { Inspection } from "../inspection/index.js";
import { type LoadedTerms, type TermFrequencies, termsFromPart, termsToPart } from "../preview/index.js";
import {
  type CatalogFingerprint,
  readSavedIndex,
  type SavedIndex,
  savedIndexBytes,
  writeSavedIndexFile,
} from "../saved/index.js";
import { indexFromPart, indexToPart, type LoadedIndex, type SearchIndex } from "../search/index.js";
import { errorMessage, problemInWords, type SystemProblems } from "../shared/index.js";

/**
 * The parts of the saved index, each written and read by its owner: what each SKILL.md says (the catalog,
 * used for each file whose stamp holds), the inspection of each skill (used for each skill whose files'
 * stamps hold), and the search index and the previews' tally of terms (each used whole, when the catalog
 * is the one the file was saved from).
 */
const DOCUMENTS = "documents";
const SEARCH = "search";
const INSPECTION = "inspection";
const TERMS = "terms";

/**
 * The largest saved index read: 50,000 skills save 83 MiB. One larger is not read at all (a sparse file of
 * 1.9 GB was read whole, taking 2 GB of memory), and the start works out what it would hold.
 */
const MAX_SAVED_INDEX_BYTES = 256 * 1024 * 1024;

/** Whether `dir` is a folder (not missing, nor a file, nor one this process may not look at). */
function isFolder(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** What a start takes from the saved index, part by part; nothing when there is none it can use. */
export class SavedStart {
  static readonly NOTHING = new SavedStart(undefined, 0);

  readonly #saved: SavedIndex | undefined;
  /** The fingerprint of the skills served, worked out once for the parts that ask it (tens of ms at 10k). */
  #served: { readonly skills: readonly Skill[]; readonly problem: string | undefined } | undefined;
  /** The size of the file read. */
  readonly bytes: number;

  private constructor(saved: SavedIndex | undefined, bytes: number) {
    this.#saved = saved;
    this.bytes = bytes;
  }

  /** The saved index in `file`; nothing when there is none or it cannot be used, and the log says why. */
  static read(file: string, logger: Logger): SavedStart {
    let bytes: Uint8Array;
    try {
      bytes = readFileBeside(file, MAX_SAVED_INDEX_BYTES);
    } catch (error) {
      // A skills folder that is not there, or is a file, is the load's to report, in one line: nothing is
      // built, and a warning about the index in it would only come first.
      if (!isFolder(path.dirname(file))) return SavedStart.NOTHING;
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT") {
        logger.info(
          { file },
          "no saved index: building the index and inspecting every skill (--build-index saves them)",
        );
      } else {
        logger.warn(
          { file, code, problem: describeFsError(error) },
          "saved index cannot be read: building the index",
        );
      }
      return SavedStart.NOTHING;
    }
    const read = readSavedIndex(bytes);
    if (read.ok) return new SavedStart(read.index, bytes.length);
    logger[read.outdated ? "info" : "warn"](
      { file, problem: read.problem },
      `saved index not used, building the index and inspecting every skill: ${read.problem}`,
    );
    return SavedStart.NOTHING;
  }

  /** The SKILL.md files read before. */
  documents(): KnownDocuments {
    return KnownDocuments.fromBytes(this.#saved?.parts.get(DOCUMENTS)?.[0]);
  }

  /** The saved inspection of every skill. */
  inspection(): Uint8Array | undefined {
    return this.#saved?.parts.get(INSPECTION)?.[0];
  }

  /**
   * The saved search index of `skills`, the skills served (in this order): undefined when nothing was saved,
   * else the index when the file was saved from exactly these skills and its part is whole, or why not.
   */
  search(skills: readonly Skill[]): LoadedIndex | undefined {
    if (this.#saved === undefined) return undefined;
    const problem = this.#otherCatalog(this.#saved, skills);
    if (problem !== undefined) return { ok: false, problem, outdated: true };
    return indexFromPart(this.#saved.parts.get(SEARCH) ?? [], skills);
  }

  /**
   * The saved tally of `listed`, the listed skills of `skills` (those served): undefined when there is no
   * saved index or it has no tally (saved by an older build), else the tally when the file was saved from
   * exactly these skills by this format, or why not; `onUnfit` is told if its part, read later, does not
   * hold together.
   */
  terms(
    skills: readonly Skill[],
    listed: readonly Skill[],
    onUnfit: (problem: string) => void,
  ): LoadedTerms | undefined {
    const part = this.#saved?.parts.get(TERMS);
    if (this.#saved === undefined || part === undefined) return undefined;
    const problem = this.#otherCatalog(this.#saved, skills);
    if (problem !== undefined) return { ok: false, problem, outdated: true };
    return termsFromPart(part, listed, onUnfit);
  }

  #otherCatalog(saved: SavedIndex, skills: readonly Skill[]): string | undefined {
    if (this.#served?.skills !== skills) {
      this.#served = { skills, problem: otherCatalog(saved.fingerprint, catalogFingerprint(skills)) };
    }
    return this.#served.problem;
  }
}

/** How the catalog a file was saved from differs from `now`, if it does. */
function otherCatalog(saved: CatalogFingerprint, now: CatalogFingerprint): string | undefined {
  if (saved.skills !== now.skills) {
    return `built from another catalog: ${saved.skills} skills, where ${now.skills} are loaded`;
  }
  if (!Buffer.from(saved.digest).equals(now.digest)) {
    return (
      "built from another catalog: a skill's id, pack, group or description, or the size or modification " +
      "time of its SKILL.md, differs"
    );
  }
  return undefined;
}

/** What `--build-index` saves (a Prepared has it): each owner's part, and the catalog served. */
interface ToSave {
  readonly catalog: Catalog;
  readonly loaded: { readonly documents: readonly DocumentRecord[] };
  readonly index: SearchIndex;
  readonly inspection: Inspection;
  readonly terms: TermFrequencies;
}

/**
 * `--build-index`: writes the saved index of `what` to `file`, whole or not at all (written aside, then
 * renamed), removing what an earlier run killed before its rename left aside.
 */
export function saveIndex(what: ToSave, file: string, logger: Logger): void {
  const started = performance.now();
  const parts: [string, Uint8Array[]][] = [
    [DOCUMENTS, [documentsToBytes(what.loaded.documents)]],
    [SEARCH, indexToPart(what.index)],
    [INSPECTION, [what.inspection.toBytes()]],
    [TERMS, termsToPart(what.terms)],
  ];
  const bytes = savedIndexBytes({
    fingerprint: catalogFingerprint(what.catalog.everything.skills),
    parts: new Map(parts),
  });
  let removed: string[];
  try {
    removed = writeSavedIndexFile(file, bytes);
  } catch (error) {
    throw new SavedIndexError(`Cannot save the index to ${file}: ${unwritable(error)}`);
  }
  if (removed.length > 0) {
    logger.info({ removed }, "removed the temporary files of an earlier --build-index that did not finish");
  }
  logger.info(
    {
      file,
      bytes: bytes.length,
      skills: what.catalog.everything.skills.length,
      parts: parts.map(([name]) => name),
      ms: Math.round(performance.now() - started),
    },
    "index saved",
  );
}

/** What the errors of writing the saved index mean there, where more than their general words, and what to do. */
const UNWRITABLE: SystemProblems = {
  EROFS: {
    what: "the skills folder's file system is read-only",
    fix: "build the index before it is mounted read-only (the image builds it at build time)",
  },
  EACCES: { fix: "run --build-index as a user who may write in the skills folder" },
  EPERM: { fix: "run --build-index as a user who may write in the skills folder" },
  EISDIR: { what: "a folder of that name is in the way", fix: "remove it" },
  ENOENT: { what: "the skills folder takes no new file (it was removed, or its file system takes none)" },
};

/** Why the saved index could not be written, in words and the system's code; else the error's own words. */
function unwritable(error: unknown): string {
  return problemInWords(error, UNWRITABLE) ?? errorMessage(error);
}

/** `--build-index` could not write its file: the message says where and why. */
export class SavedIndexError extends Error {
  override name = "SavedIndexError";
}
