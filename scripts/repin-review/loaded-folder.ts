/** A skills folder read as the server would load it, with its audit: one side of a bump. */
import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { stat } from "node:fs/promises";
import path from "node:path";
import { AuditFindings } from "../../src/audit/index.js";
import {
  type CaseCollision,
  CatalogError,
  type CatalogFile,
  type CatalogIssue,
  caseCollisions,
  type LoadedCatalog,
  loadCatalog,
  type Pack,
  type Skill,
} from "../../src/catalog/index.js";
import { inspectCatalog } from "../../src/inspection/index.js";
import { type Digest, digestOf, type PackSide, type ServedFile } from "./served.js";

/** A skills folder as the server would load it, with its audit; empty when the server would refuse it. */
export interface Folder {
  readonly packs: ReadonlyMap<string, Pack>;
  readonly sides: ReadonlyMap<string, PackSide>;
  /**
   * Its findings, each path's made as they are gone through: a million at 4,000 copies of a file of 252
   * findings, never held at once.
   */
  readonly findings: AuditFindings;
  /** The skills a high finding makes unsafe, exactly as the server finds them at startup. */
  readonly unsafe: ReadonlySet<Skill>;
  /** Why the server would refuse the folder. */
  readonly refused: string | undefined;
  /** What the server's load leaves out (a skill, file or folder), each with why. */
  readonly skipped: readonly CatalogIssue[];
  /** The served paths that differ from another of their pack only in case. */
  readonly collisions: readonly CaseCollision[];
}

/** The folder loaded and audited by the inspection, which reads every file the server serves once. */
export async function readFolder(dir: string): Promise<Folder> {
  let loaded: LoadedCatalog;
  try {
    loaded = loadCatalog(dir);
  } catch (error) {
    if (!(error instanceof CatalogError)) throw error;
    const empty = {
      packs: new Map(),
      sides: new Map(),
      findings: new AuditFindings(new Map()),
      unsafe: new Set<Skill>(),
      skipped: [],
      collisions: [],
    };
    return { ...empty, refused: error.message };
  }
  const { catalog, frontmatters, issues } = loaded;
  // The digest of every file the server serves, by `<pack>/<path in pack>`, as the audit read it: its
  // bytes are not kept (see ServedFile).
  const digests = new Map<string, Digest>();
  // Named by its digest, a file's content is audited once however many copies of it the fetcher made (one
  // for each symlink to it): 4,000 links to a file of 252 findings were a million findings made and held.
  const { inspection, audit } = await inspectCatalog(catalog, {
    frontmatters,
    audit: {
      onRead: (served, bytes) => {
        const digest = digestOf(bytes);
        digests.set(served.path, digest);
        return `${digest.size} ${digest.sha256}`;
      },
    },
  });
  const why = new Map(audit.issues.map((issue) => [issue.path, issue.reason]));
  const sides = new Map<string, PackSide>();
  for (const pack of catalog.everything.packs) {
    const files = new Map<string, ServedFile>();
    for (const [where, file] of servedFiles(pack)) {
      const read = digests.get(`${pack.name}/${where}`);
      const executable = await isExecutable(file.source);
      files.set(
        where,
        read === undefined
          ? {
              digest: await streamedDigestOf(file.source),
              notAudited: why.get(`${pack.name}/${where}`) ?? "not audited",
              source: file.source,
              executable,
            }
          : { digest: read, notAudited: undefined, source: file.source, executable },
      );
    }
    sides.set(pack.name, { skills: pack.skills, packFiles: new Set(pack.files.keys()), files });
  }
  const packs = new Map(catalog.everything.packs.map((pack) => [pack.name, pack]));
  return {
    packs,
    sides,
    findings: audit.inOrder,
    unsafe: new Set(inspection.unsafe().map(({ skill }) => skill)),
    refused: undefined,
    skipped: issues.filter((issue) => issue.severity === "skipped"),
    collisions: catalog.everything.packs.flatMap(caseCollisions),
  };
}

/** Every file a pack serves, by path in the pack: its pack files, and each skill's SKILL.md and files. */
function servedFiles(pack: Pack): Map<string, CatalogFile> {
  const served = new Map(pack.files);
  for (const skill of pack.skills) {
    for (const file of [skill.document, ...skill.files.values()])
      served.set(path.posix.join(skill.folder, file.path), file);
  }
  return served;
}

/** Whether a file's mode lets it run, as the audit's executable-file rule reads it; false when unknown. */
async function isExecutable(file: string): Promise<boolean> {
  try {
    return ((await stat(file)).mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

/** The size and SHA-256 of a file, read in a stream (it may be far larger than the audit reads). */
async function streamedDigestOf(file: string): Promise<Digest | undefined> {
  const hash = createHash("sha256");
  let size = 0;
  try {
    for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
      hash.update(chunk);
      size += chunk.length;
    }
  } catch {
    // Unreadable: never known to be unchanged (see sameContent, served.ts), which is the safe side.
    return undefined;
  }
  return { size, sha256: hash.digest("hex") };
}
