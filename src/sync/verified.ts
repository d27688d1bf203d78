/**
 * The files runs verified and kept in the staging folder (VERIFIED_DIR) for the next run from the same
 * server, which takes them from there instead of fetching them again; and when they are forgotten.
 */
import { createHash } from "node:crypto";
import { link, lstat, mkdir, readdir, rm, utimes } from "node:fs/promises";
import path from "node:path";
import { lstatOrUndefined, readIfSame } from "./folder.js";

/**
 * In the staging folder: the files of skills a run fetched, verified and staged, by digest, kept when the
 * run stops before putting them in place (Ctrl-C, SIGTERM, SIGKILL, a failure), so that the next run
 * takes them from there instead of the server (see VerifiedFiles). One folder in it per server (see
 * keptFolderName): a run from one server neither reads nor removes what a run from another kept. Removed
 * by the next run from the same server that gets as far as putting its skills in place.
 */
export const VERIFIED_DIR = "verified";

/**
 * The folder in VERIFIED_DIR of the files kept by runs from `server` (its URL as the lock records it):
 * a digest of the URL, which may hold any character, so that it is a plain name on every system.
 */
export function keptFolderName(server: string): string {
  return createHash("sha256").update(server).digest("hex").slice(0, 32);
}

/**
 * How long the files runs from a server kept (its folder in VERIFIED_DIR) may stay unused before a run
 * from another server into the folder removes them: a server no longer synced from would leave them
 * there for good. Each run from their server touches its folder (VerifiedFiles.open), or removes it
 * (Staging.clear), so its modification time is their last use; removed, they cost that server's next run
 * a fetch, no more.
 */
export const KEPT_UNUSED_DAYS = 30;

const DAY_MS = 86_400_000;

/**
 * Removes from the staging folder `stagingDir` the kept files of runs from other servers than `server`
 * left unused for KEPT_UNUSED_DAYS, by their folder's modification time. A line saying so, or undefined
 * when none went. Best effort: what cannot be removed stays, unread. For a run holding the run lock.
 */
export async function forgetUnusedKept(
  stagingDir: string,
  server: string,
  now = Date.now(),
): Promise<string | undefined> {
  const verified = path.join(stagingDir, VERIFIED_DIR);
  // Nothing followed: a symlink in the way is not a folder a run made (Staging.open removes it).
  for (const made of [path.dirname(verified), verified]) {
    if ((await lstatOrUndefined(made).catch(() => undefined))?.isDirectory() !== true) return undefined;
  }
  const own = keptFolderName(server);
  let removed = 0;
  for (const entry of await readdir(verified, { withFileTypes: true }).catch(() => [])) {
    if (!entry.isDirectory() || entry.name === own) continue;
    const kept = path.join(verified, entry.name);
    const modified = (await lstatOrUndefined(kept).catch(() => undefined))?.mtimeMs;
    if (modified === undefined || now - modified < KEPT_UNUSED_DAYS * DAY_MS) continue;
    await rm(kept, { recursive: true, force: true }).then(
      () => {
        removed += 1;
      },
      () => undefined,
    );
  }
  if (removed === 0) return undefined;
  const whose =
    removed === 1 ? "a stopped sync from another server" : `stopped syncs from ${removed} other servers`;
  return `removed from ${verified} the files ${whose} kept, unused for ${KEPT_UNUSED_DAYS} days or more (a sync from there fetches them again)`;
}

/** A digest as the Skills extension writes it, the only kind kept here, named by its hex. */
const DIGEST = /^sha256:([0-9a-f]{64})$/;

/**
 * The verified files kept by an earlier run, and those this run stages. Nothing here is trusted: a file
 * is taken only when it is a plain file with the size and SHA-256 digest that the server's entry lists
 * now, as a read from the server is checked. Keeping one is a hard link to the staged file, so it costs
 * no bytes written; where links cannot be made, nothing is kept, and the next run fetches it again.
 */
export class VerifiedFiles {
  /** The hex names of the files this run kept (or found kept): one link each. */
  readonly #kept: Set<string>;

  private constructor(
    /** Undefined where no folder of its own could be had: nothing is kept then. */
    private readonly dir: string | undefined,
    /**
     * The hex names an earlier run kept, found at open: only those are looked for, so an empty store costs
     * nothing, and a run fetches what it fetched before it was stopped, not what it kept itself.
     */
    private readonly earlier: Set<string>,
  ) {
    this.#kept = new Set(earlier);
  }

  /**
   * The store of runs from `server` in `stagingDir`, with every file whose digest is not in `wanted`
   * (those of the files this run may fetch) removed: what it keeps never outgrows one run's fetches.
   * Another server's runs keep theirs beside it, untouched: each is read and cleared by its own runs.
   * Best effort: where it cannot be made or cleared (a folder made read-only), what cannot go stays
   * unread, and the run goes on.
   */
  static async open(stagingDir: string, server: string, wanted: ReadonlySet<string>): Promise<VerifiedFiles> {
    const top = path.join(stagingDir, VERIFIED_DIR);
    const dir = path.join(top, keptFolderName(server));
    for (const folder of [top, dir]) {
      if (!(await madeFolder(folder))) return new VerifiedFiles(undefined, new Set());
    }
    // Used now: a run from another server removes a server's kept files only once unused for long
    // (forgetUnusedKept), and a run that reuses them all may add or remove none.
    const now = new Date();
    await utimes(dir, now, now).catch(() => undefined);
    const wantedHex = new Set([...wanted].flatMap((digest) => DIGEST.exec(digest)?.[1] ?? []));
    const present = new Set<string>();
    for (const name of await readdir(dir).catch(() => [])) {
      if (wantedHex.has(name)) present.add(name);
      else await rm(path.join(dir, name), { recursive: true, force: true }).catch(() => undefined);
    }
    return new VerifiedFiles(dir, present);
  }

  /** The bytes kept for a file of `size` bytes and `digest`, checked again; undefined when none match. */
  async find(size: number, digest: string): Promise<Uint8Array | undefined> {
    const hex = DIGEST.exec(digest)?.[1];
    if (hex === undefined || this.dir === undefined || !this.earlier.has(hex)) return undefined;
    const file = path.join(this.dir, hex);
    const bytes = await readIfSame(file, size, digest);
    if (bytes === undefined) {
      // Changed since it was kept: gone, so that this run may keep the bytes it fetches instead.
      this.earlier.delete(hex);
      this.#kept.delete(hex);
      await rm(file, { recursive: true, force: true }).catch(() => undefined);
    }
    return bytes;
  }

  /**
   * Keeps `file` (a staged file, written from bytes that matched `digest`) for a run stopped before it is
   * put in place. Best effort: a file system without hard links, or one full, only loses the shortcut.
   */
  async keep(file: string, digest: string): Promise<void> {
    const hex = DIGEST.exec(digest)?.[1];
    if (hex === undefined || this.dir === undefined || this.#kept.has(hex)) return;
    // EEXIST: another skill kept the same bytes.
    await link(file, path.join(this.dir, hex)).then(
      () => this.#kept.add(hex),
      () => undefined,
    );
  }

  /**
   * Lets go of the files of `digests` (those of the skills put in place, which no run needs from here).
   * True when nothing is left kept: the store may go with the staging folder.
   */
  async forget(digests: Iterable<string>): Promise<boolean> {
    for (const digest of digests) {
      const hex = DIGEST.exec(digest)?.[1];
      if (hex === undefined || this.dir === undefined || !this.#kept.has(hex)) continue;
      await rm(path.join(this.dir, hex), { force: true }).then(
        () => this.#kept.delete(hex),
        () => undefined,
      );
    }
    return this.#kept.size === 0;
  }
}

/** Whether `folder` is a folder (made if missing): a symlink or a file there is removed, nothing followed. */
async function madeFolder(folder: string): Promise<boolean> {
  const found = await lstat(folder).catch(() => undefined);
  if (found !== undefined && !found.isDirectory()) await rm(folder, { force: true }).catch(() => undefined);
  await mkdir(folder).catch(() => undefined);
  return (await lstat(folder).catch(() => undefined))?.isDirectory() === true;
}
