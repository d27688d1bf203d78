import { z } from "zod";
import { nameRuleViolation } from "../catalog/index.js";
import { compareText, errorMessage } from "../shared/index.js";
import { pathShapeProblem } from "./paths.js";

/** In the target folder: what sync installed there, from which server. A file, so no client takes it for a skill. */
export const LOCK_FILE = ".skills-mcp-sync.json";
const LOCK_VERSION = 1;

/** A file a skill cites from its pack, copied into the skill's folder. */
export interface PackFileRecord {
  readonly uri: string;
  readonly digest: string;
}

/** One skill as sync wrote it. */
export interface InstalledSkill {
  /** Its SKILL.md on the server. */
  readonly uri: string;
  /** The digest of its entry's files as the server listed them: a change there is an update. */
  readonly served: string;
  /** Every file written, by its path in the skill's folder, with the digest of the bytes written. */
  readonly files: Readonly<Record<string, string>>;
  /** The pack files among them, by the same path, with where they came from. */
  readonly packFiles: Readonly<Record<string, PackFileRecord>>;
}

/**
 * A skill sync owns. `previous` is there only while an update is being swapped in: a sync killed then
 * leaves the folder as either, and the next run takes it for whichever it finds.
 */
export interface LockedSkill extends InstalledSkill {
  readonly previous?: InstalledSkill;
}

/**
 * A skill the last sync would not install as the server served it (a high finding of the audit), and
 * why: a check or a dry run reports it skipped while the server serves it the same, not as work to do.
 */
export interface RefusedSkill {
  readonly uri: string;
  /** The digest of its entry as listed, as {@link InstalledSkill.served}. */
  readonly served: string;
  /** The pack files it cited, with their digests: a change there may change the audit's finding. */
  readonly packFiles: Readonly<Record<string, PackFileRecord>>;
  readonly reason: string;
  /** The sync that refused it: one of another version audits it again (a check takes its word). */
  readonly by: string;
}

/** What sync installed in the folder from one server. */
export interface LockSource {
  readonly server: string;
  /** How the scope was asked for: the packs, and the names (never the values) of the other headers. */
  readonly scope: { readonly packs: readonly string[]; readonly headers: readonly string[] };
  readonly syncedAt: string;
  readonly by: string;
  readonly skills: Readonly<Record<string, LockedSkill>>;
  /** Absent when none (and in a lock an older sync wrote), so that such a lock stays as it was. */
  readonly refused?: Readonly<Record<string, RefusedSkill>>;
}

export interface Lock {
  readonly version: typeof LOCK_VERSION;
  readonly sources: readonly LockSource[];
  /**
   * Each of {@link sources}, at the same place, as the file held it: with the keys of a newer sync this
   * version ignores (see {@link withSource}).
   */
  readonly sourcesAsRead: readonly unknown[];
}

/** A lock as written: the sources this run did not touch as the file held them (see {@link withSource}). */
export interface LockToWrite {
  readonly version: typeof LOCK_VERSION;
  readonly sources: readonly unknown[];
}

const DIGEST = z.string().regex(/^sha256:[0-9a-f]{64}$/);
// A path an older sync wrote may be one this version refuses to write (`aux.txt`): read, so that the
// skill alone is left alone (plan-run's ownedStates), not the whole lock refused.
const RELATIVE_PATH = z.string().refine((path) => pathShapeProblem(path) === undefined, {
  message: "is not a plain relative path",
});
// Objects are read as far as this version knows them: a key a newer sync added is ignored, not refused,
// so that a lock it wrote stays readable here. A newer sync must keep the meaning of the keys it did not
// add, and read a lock without its own (as an older sync writes it); a change that cannot is a new version.
const INSTALLED = z.object({
  uri: z.string(),
  served: DIGEST,
  files: z.record(RELATIVE_PATH, DIGEST),
  packFiles: z.record(RELATIVE_PATH, z.object({ uri: z.string(), digest: DIGEST })),
});
const LOCKED = INSTALLED.extend({ previous: INSTALLED.optional() });
const REFUSED = INSTALLED.omit({ files: true }).extend({ reason: z.string(), by: z.string() });
const SKILL_NAME = z.string().refine((name) => nameRuleViolation(name) === undefined, {
  message: "is not a skill name",
});
const LOCK = z.object({
  version: z.literal(LOCK_VERSION),
  sources: z.array(
    z.object({
      server: z.string(),
      scope: z.object({ packs: z.array(z.string()), headers: z.array(z.string()) }),
      syncedAt: z.string(),
      by: z.string(),
      skills: z.record(SKILL_NAME, LOCKED),
      refused: z.record(SKILL_NAME, REFUSED).optional(),
    }),
  ),
});

/** The lock file holds something sync never wrote: nothing is done on its word. */
export class LockError extends Error {
  override name = "LockError";
}

/**
 * The lock in `text` (the content of the lock file at `where`), checked: every name a skill name and
 * every path a plain relative path, so that no entry of it can make sync touch anything else. A path
 * this version would not write (see pathShapeProblem) is read; the skill recording it is not touched.
 */
export function parseLock(text: string, where: string): Lock {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new LockError(`${where} is not JSON (${errorMessage(error)}); move it away to start over`);
  }
  const version = z.object({ version: z.number() }).safeParse(json);
  if (version.success && version.data.version > LOCK_VERSION) {
    throw new LockError(
      `${where} was written by a newer version of skills-mcp sync (lock version ${version.data.version}); update skills-mcp, or move it away to start over`,
    );
  }
  const parsed = LOCK.safeParse(json);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    const at = issue?.path.join(".") ?? "";
    throw new LockError(
      `${where} is not a lock file this version of sync wrote (${at}: ${issue?.message}); move it away to start over`,
    );
  }
  const { sources } = z.object({ sources: z.array(z.unknown()) }).parse(json);
  return { ...parsed.data, sourcesAsRead: sources };
}

export function lockText(lock: LockToWrite): string {
  return `${JSON.stringify(lock, null, 2)}\n`;
}

/**
 * `lock` with `source` in place of the one for the same server (or added), sources sorted by server.
 * The other servers' sources are written back as the file held them, keys this version does not know
 * included: this run touched none of their skills, so what those keys say still holds. The source it
 * replaces (unless it is left as it was), and keys beside the sources, lose such keys: this version cannot
 * tell whether what it changed makes them false, and a newer sync reads their absence as in a lock an
 * older sync wrote.
 */
export function withSource(lock: Lock | undefined, source: LockSource): LockToWrite {
  const others = (lock?.sources ?? []).filter((item) => item.server !== source.server);
  const sources = [...others, source].sort((a, b) => compareText(a.server, b.server));
  return { version: LOCK_VERSION, sources: sources.map((item) => asRead(lock, item)) };
}

/** `source` as the file held it, if it is one `lock` read; else `source` itself, which this run made. */
function asRead(lock: Lock | undefined, source: LockSource): unknown {
  const at = lock?.sources.indexOf(source) ?? -1;
  return at < 0 ? source : lock?.sourcesAsRead[at];
}
