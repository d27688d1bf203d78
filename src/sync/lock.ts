import { z } from "zod";
import { nameRuleViolation } from "../catalog/index.js";
import { relativePathProblem } from "./paths.js";

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
}

const DIGEST = z.string().regex(/^sha256:[0-9a-f]{64}$/);
const RELATIVE_PATH = z.string().refine((path) => relativePathProblem(path) === undefined, {
  message: "is not a plain relative path",
});
const INSTALLED = z.strictObject({
  uri: z.string(),
  served: DIGEST,
  files: z.record(RELATIVE_PATH, DIGEST),
  packFiles: z.record(RELATIVE_PATH, z.strictObject({ uri: z.string(), digest: DIGEST })),
});
const LOCKED = INSTALLED.extend({ previous: INSTALLED.optional() });
const REFUSED = INSTALLED.omit({ files: true }).extend({ reason: z.string(), by: z.string() });
const SKILL_NAME = z.string().refine((name) => nameRuleViolation(name) === undefined, {
  message: "is not a skill name",
});
const LOCK = z.strictObject({
  version: z.literal(LOCK_VERSION),
  sources: z.array(
    z.strictObject({
      server: z.string(),
      scope: z.strictObject({ packs: z.array(z.string()), headers: z.array(z.string()) }),
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
 * every path a plain relative path, so that no entry of it can make sync touch anything else.
 */
export function parseLock(text: string, where: string): Lock {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new LockError(`${where} is not JSON (${(error as Error).message}); move it away to start over`);
  }
  const parsed = LOCK.safeParse(json);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    const at = issue?.path.join(".") ?? "";
    throw new LockError(
      `${where} is not a lock file this version of sync wrote (${at}: ${issue?.message}); move it away to start over`,
    );
  }
  return parsed.data;
}

export function lockText(lock: Lock): string {
  return `${JSON.stringify(lock, null, 2)}\n`;
}

/** `lock` with `source` in place of the one for the same server (or added), sources sorted by server. */
export function withSource(lock: Lock | undefined, source: LockSource): Lock {
  const others = (lock?.sources ?? []).filter((item) => item.server !== source.server);
  const sources = [...others, source].sort((a, b) =>
    a.server < b.server ? -1 : a.server > b.server ? 1 : 0,
  );
  return { version: LOCK_VERSION, sources };
}
