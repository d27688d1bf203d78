import { createHash } from "node:crypto";
import { access, readFile, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { GitError, type SimpleGit } from "simple-git";
import { makeFolder } from "../../src/shared/index.js";
import type { SourceLimits } from "./copy.js";
import { oneLine, SourceError, withoutCredentials } from "./errors.js";
import { BOUNDED_FETCH_CONFIG, boundedFetch, FetchTooLargeError } from "./fetch-bound.js";
import { gitAt, gitCheckingOut, gitRecords } from "./git.js";
import { isWithin, type SkillSource } from "./manifest.js";
import { removeTree } from "./work-folder.js";

/** How a pinned commit reached the store. */
export type FetchMethod = "cached" | "shallow" | "full";

interface Checkout {
  /** The work tree, at exactly the pinned commit. */
  readonly dir: string;
  readonly method: FetchMethod;
  /** The submodules in the source's path and extras (repository paths): each is checked out as an empty folder. */
  readonly submodules: readonly string[];
  /** Removes the work tree (and, for a linked work tree, its record in the store). */
  remove(): Promise<void>;
}

/** What git says when a server will not hand out a commit that no branch or tag points at directly. */
const REFUSED_UNADVERTISED = /not our ref|does not allow request for unadvertised object/i;

/**
 * The bare repository that keeps a source's objects: one per repository URL, so sources sharing a
 * repository share its objects and a cached store is found again whatever the source is called.
 */
function storeFolder(storesDir: string, repo: string): string {
  const hash = createHash("sha256").update(repo).digest("hex").slice(0, 12);
  // Named without the URL's credentials, since git's messages name the folder; hashed with them.
  const readable = withoutCredentials(repo)
    .replace(/^[a-z+]+:\/\//i, "")
    .replace(/\.git$/, "")
    .replace(/[^A-Za-z0-9._-]+/g, "-")
    .slice(-60)
    .replace(/^[.-]+/, "");
  return path.join(storesDir, `${readable}-${hash}.git`);
}

/**
 * How many times a source's limits the checkout of its whole repository may write. Git writes every file of
 * the pinned commit before a byte is copied and counted, and a file of a gigabyte of zeros takes a megabyte
 * of the repository: a small repository filled the build machine's disk whatever `--max-mib` said.
 */
const CHECKOUT_FACTOR = 4;

/**
 * Brings `source.ref` into the store (from the store itself when already there, else by a shallow fetch
 * of that exact commit, else by a full fetch when the server refuses that) and checks it out in `workDir`.
 */
export async function checkoutSource(
  source: SkillSource,
  storesDir: string,
  workDir: string,
  signal: AbortSignal | undefined,
  limits: SourceLimits,
): Promise<Checkout> {
  const store = storeFolder(storesDir, source.repo);
  const guard = <T>(what: string, step: () => Promise<T>) => withGitMessage(source.name, what, step);
  const { storeGit, created } = await guard("cannot prepare its git store", () => openStore(store, signal));
  const most = { files: CHECKOUT_FACTOR * limits.files, bytes: CHECKOUT_FACTOR * limits.bytes };
  const fetching = { store, created, signal, most: most.bytes };
  const { method, commit } = await fetchCommit(storeGit, source, fetching, guard);
  const size = await guard("cannot list its files", () => checkoutSize(store, source, signal, most));
  if (size.files > most.files || size.bytes > most.bytes) {
    // Counted up to the first file past a limit: "at least" that many.
    throw new SourceError(
      source.name,
      `its checkout would write at least ${count(size.files)} files of ${count(mib(size.bytes))} MiB, where a ` +
        `checkout of the whole repository may write ${count(most.files)} files and ${count(mib(most.bytes))} ` +
        `MiB, ${CHECKOUT_FACTOR} times what one source may bring (--max-files and --max-mib set them) (${source.ref})`,
    );
  }
  if (commit !== source.ref) {
    const remove = await checkOutWorkTree(storeGit, source, workDir, signal, guard);
    return { dir: workDir, method, submodules: size.submodules, remove };
  }
  // Into a work tree of the store's objects and an index of its own: one git, where a linked work tree took
  // four (its `worktree add` ran a `reset` too, and `rev-parse` and `worktree remove` followed). The index
  // is kept in the work tree's `.git`, a folder git writes nothing of a commit's into: there is a `.git` in
  // the work tree as a linked work tree has its `.git` file, so the copy meets the same hidden entry (a
  // symlink to `.git` is left out as leading into a hidden folder).
  await guard(`cannot check out ${source.ref}`, async () => {
    const index = path.join(workDir, ".git", "index");
    await makeFolder(path.dirname(index));
    await gitCheckingOut(store, index, signal).raw([
      "--work-tree",
      workDir,
      "read-tree",
      "--reset",
      "-u",
      "--no-recurse-submodules",
      source.ref,
    ]);
  });
  return { dir: workDir, method, submodules: size.submodules, remove: () => removeTree(workDir) };
}

/**
 * Points `refs/sources/<name>` in the source's store at `source.ref`, the commit its pack was built from: the
 * ref keeps that commit in a cached store (a `git gc` prunes what no ref holds, and the next build would
 * fetch it again), and lets the next shallow fetch send only what is new. Not part of the checkout: a commit
 * checked out only to compare with (the review's old commits) or to try (a pin fetched aside) moved the ref
 * off the commit served.
 */
export async function keepCommit(
  source: SkillSource,
  storesDir: string,
  signal: AbortSignal | undefined,
): Promise<void> {
  const store = storeFolder(storesDir, source.repo);
  await withGitMessage(source.name, "cannot record the fetched commit", () =>
    gitAt(store, signal).raw(["update-ref", `refs/sources/${source.name}`, source.ref]),
  );
}

/**
 * Checks `source.ref` out as a linked work tree of the store, for a pin the store does not hold as a
 * commit: an annotated tag's id checks out the commit it tags, which is refused as not the pin, and what
 * checks out as no commit (a tree's id) is refused in git's words.
 */
async function checkOutWorkTree(
  storeGit: SimpleGit,
  source: SkillSource,
  workDir: string,
  signal: AbortSignal | undefined,
  guard: Guard,
): Promise<() => Promise<void>> {
  await guard(`cannot check out ${source.ref}`, () =>
    storeGit.raw(["worktree", "add", "--detach", "--quiet", workDir, source.ref]),
  );
  const remove = async () => {
    try {
      await storeGit.raw(["worktree", "remove", "--force", workDir]);
    } catch {
      // Git removes a work tree by whole paths, which a checkout nested past PATH_MAX defeats.
      await removeTree(workDir);
      await storeGit.raw(["worktree", "prune"]);
    }
  };
  const head = (await guard("cannot read HEAD", () => gitAt(workDir, signal).revparse(["HEAD"]))).trim();
  if (head !== source.ref) {
    await remove();
    throw new SourceError(source.name, await notThePin(storeGit, source.ref, head));
  }
  return remove;
}

/**
 * The files (blobs, and submodules, each an empty folder) a checkout of `source.ref` writes and their
 * bytes, as the store's tree says before any is written, counted no further than `most`, and the
 * submodules (gitlinks) in the source's path and extras: the listing is read as git writes it, never held
 * (a repository of kilobytes whose folders each hold the next ten times lists a million paths, which took
 * 420 MB).
 */
async function checkoutSize(
  store: string,
  source: SkillSource,
  signal: AbortSignal | undefined,
  most: SourceLimits,
): Promise<{ files: number; bytes: number; submodules: string[] }> {
  let files = 0;
  let bytes = 0;
  const submodules: string[] = [];
  const folders = [source.path, ...source.extras];
  // Each entry: mode, type, object, size (padded), a tab, the path; NUL-ended. Only what precedes the path
  // is split (an object id of SHA-256 is 64 characters).
  const args = ["ls-tree", "-r", "-l", "-z", "--full-tree", source.ref];
  await gitRecords(store, args, signal, listingLimits(most.files), (entry) => {
    const tab = Math.max(entry.indexOf("\t"), 0);
    const [, type, , size] = entry.slice(0, tab).split(/ +/);
    if (type === "tree") return true;
    files++;
    if (type === "blob") bytes += Number(size);
    else if (type === "commit" && folders.some((folder) => isWithin(folder, entry.slice(tab + 1)))) {
      submodules.push(entry.slice(tab + 1));
    }
    return files <= most.files && bytes <= most.bytes;
  });
  return { files, bytes, submodules };
}

function mib(bytes: number): number {
  return Math.ceil(bytes / (1024 * 1024));
}

function count(value: number): string {
  return value.toLocaleString("en-US");
}

/**
 * What reading a listing of `files` entries may take: each entry's first `keep` bytes, and no more than
 * such entries of paths as long as a system takes (PATH_MAX, 4,096 bytes) can be.
 */
function listingLimits(files: number): { keep: number; maxBytes: number } {
  const keep = 128 + 4096;
  return { keep, maxBytes: (files + 1) * keep };
}

/**
 * Why the work tree is at `head` and not at the pinned `ref`: an annotated tag's id checks out the commit
 * it tags, and skills.toml pins commits.
 */
async function notThePin(storeGit: SimpleGit, ref: string, head: string): Promise<string> {
  const type = await storeGit.raw(["cat-file", "-t", ref]).catch(() => "");
  return type.trim() === "tag"
    ? `ref ${ref} is the id of an annotated tag, not of a commit: pin the commit it tags, ${head}`
    : `checked out ${head}, not the pinned ${ref}`;
}

/**
 * The store's git, and whether the store was made just now (then it holds no commit yet). The store names
 * no remote: each fetch names the source's URL, the one the store is kept for. A `remote.origin.url` was a
 * git process of every new store of its own, one more when a run stopped before it, and wrote a URL's
 * credentials into the store's config, in the build cache. (A store made before still names one, unread.)
 */
async function openStore(
  store: string,
  signal: AbortSignal | undefined,
): Promise<{ storeGit: SimpleGit; created: boolean }> {
  const exists = await access(path.join(store, "HEAD")).then(
    () => true,
    () => false,
  );
  await makeFolder(store);
  const storeGit = gitAt(store, signal);
  if (!exists) await storeGit.init(true);
  await keepBlobsAsTheyAre(store);
  // Work trees left behind by an interrupted run would block nothing, but they pile up (in `worktrees`).
  if (exists && (await isFolder(path.join(store, "worktrees")))) await storeGit.raw(["worktree", "prune"]);
  return { storeGit, created: !exists };
}

/**
 * Attributes that override any the repository's `.gitattributes` set (`info/attributes` comes first), so
 * that a checkout writes each file as its blob holds it: the size check counts blobs, and `ident` makes
 * each 4-byte `$Id$` 47 bytes, `eol=crlf` doubles a file of line breaks, `working-tree-encoding` re-encodes
 * it, and `filter` runs on upstream's files whatever the build machine configures for that name (git-lfs'
 * smudge downloads from the URL a repository's `.lfsconfig` names). The pack serves the repository's bytes.
 */
const BLOBS_AS_THEY_ARE = "* -text -ident -filter -working-tree-encoding !eol\n";

/** Writes {@link BLOBS_AS_THEY_ARE} as the store's `info/attributes`, which its linked work trees share. */
async function keepBlobsAsTheyAre(store: string): Promise<void> {
  await makeFolder(path.join(store, "info"));
  await writeFile(path.join(store, "info", "attributes"), BLOBS_AS_THEY_ARE);
}

async function isFolder(folder: string): Promise<boolean> {
  return stat(folder).then(
    (info) => info.isDirectory(),
    () => false,
  );
}

type Guard = <T>(what: string, step: () => Promise<T>) => Promise<T>;

/**
 * A fetch into the store, stopped once it brings more than `most` bytes (and what it brought removed), or
 * once `signal` aborts: git has no limit of its own on what a fetch receives, and 40 files of 95 MB of
 * random bytes filled the build machine's disk before the checkout's limit was checked.
 */
interface Fetching {
  readonly store: string;
  /** The store was made by this run: it holds nothing a fetch could find, and what {@link fetchWithin} says. */
  readonly created: boolean;
  readonly signal: AbortSignal | undefined;
  readonly most: number;
}

/**
 * Brings `source.ref` into the store, and says how and which commit it leads to (the pin itself, or for an
 * annotated tag's id the commit it tags; undefined when it leads to none).
 */
async function fetchCommit(
  storeGit: SimpleGit,
  source: SkillSource,
  fetching: Fetching,
  guard: Guard,
): Promise<{ method: FetchMethod; commit: string | undefined }> {
  const cached = fetching.created ? undefined : await commitOf(storeGit, source.ref);
  if (cached !== undefined) return { method: "cached", commit: cached };
  try {
    // A commit's id, with no `:<ref>` to write, from a URL (no remote's `fetch` refspec): it moves no ref.
    await fetchWithin(fetching, source, false, ["--no-tags", "--depth=1", source.repo, source.ref]);
  } catch (error) {
    if (error instanceof SourceError) throw error;
    if (!(error instanceof GitError) || !REFUSED_UNADVERTISED.test(error.message)) {
      throw new SourceError(source.name, `cannot fetch ${source.repo}: ${oneLine(error)}`);
    }
    await guard(`cannot list the branches and tags of ${source.repo}`, () =>
      refuseManyRefs(fetching, source),
    );
    const shallow = (await storeGit.revparse(["--is-shallow-repository"])).trim() === "true";
    await guard(`cannot fetch ${source.repo}`, () =>
      fetchWithin(fetching, source, true, [
        ...(shallow ? ["--unshallow"] : []),
        // A branch or tag gone upstream is gone here too: one renamed `x` to `x/y` (or back) made every later
        // full fetch into a cached store fail ("cannot lock ref … 'refs/tags/x' exists"), for good.
        "--prune",
        source.repo,
        "+refs/heads/*:refs/remotes/origin/*",
        "+refs/tags/*:refs/tags/*",
      ]),
    );
    // One file for them all: git writes each ref it fetches as a file of its own, and the bound above
    // counts refs, not the files of a --cache store that outlives the run.
    await guard("cannot pack its refs", () => storeGit.raw(["pack-refs", "--all"]));
    const commit = await commitOf(storeGit, source.ref);
    // Git's refusal of the direct fetch ("not our ref", twice) only restates this.
    if (commit === undefined) {
      throw new SourceError(
        source.name,
        `commit ${source.ref} is not in ${source.repo}: no branch or tag holds it. Check the source's ` +
          "ref (a mistyped id, or a commit force-pushed away) and that its repo is the repository meant",
      );
    }
    return { method: "full", commit };
  }
  return { method: "shallow", commit: await shallowCommit(storeGit, fetching.store, source.ref) };
}

/**
 * The commit a shallow fetch of `ref` led to. The fetch lists each commit it cut from its parents in the
 * store's `shallow` file, which lists commits and nothing else (gitrepository-layout(5)): `ref` found there
 * is a commit, the pin itself, known without a git process, where a `rev-parse` was one of the seven each
 * fetched source ran. What is not listed (a root commit, an annotated tag's id, a tree's) is asked of git.
 */
async function shallowCommit(storeGit: SimpleGit, store: string, ref: string): Promise<string | undefined> {
  const shallow = await readFile(path.join(store, "shallow"), "utf8").catch(() => "");
  return shallow.split("\n").includes(ref) ? ref : commitOf(storeGit, ref);
}

/**
 * The most branches and tags a full fetch may write. Git writes each as a file of the store and holds them
 * all while it fetches: an upstream of 30,000 tags took 16.7 s, 90 MB and left 30,023 files in the
 * `--cache` store for one skill. Large real repositories advertise a few thousand.
 */
const MAX_FULL_FETCH_REFS = 10_000;

/**
 * Refuses the source when its repository advertises more than {@link MAX_FULL_FETCH_REFS} branches and
 * tags, as counted from `ls-remote`'s listing as git writes it, read no further than one past the bound.
 */
async function refuseManyRefs(fetching: Fetching, source: SkillSource): Promise<void> {
  let refs = 0;
  // A line: an object id (64 characters for SHA-256), a tab and the ref's name, which git bounds by PATH_MAX.
  const keep = 80 + 4096;
  const limits = { keep, maxBytes: (MAX_FULL_FETCH_REFS + 1) * keep, separator: "\n" as const };
  const args = ["ls-remote", "--refs", "--heads", "--tags", source.repo];
  await gitRecords(fetching.store, args, fetching.signal, limits, () => {
    refs++;
    return refs <= MAX_FULL_FETCH_REFS;
  });
  if (refs <= MAX_FULL_FETCH_REFS) return;
  throw new SourceError(
    source.name,
    `the server refused to fetch commit ${source.ref} directly, and ${source.repo} has more than ` +
      `${count(MAX_FULL_FETCH_REFS)} branches and tags (at least ${count(refs)}), the most a full fetch may ` +
      "write: pin a commit at a branch's or tag's tip, or fetch from a server that hands out any commit " +
      "(protocol v2, or uploadpack.allowReachableSHA1InWant)",
  );
}

/**
 * `git fetch --quiet <args>` into the store, within {@link Fetching}'s bound; `movesRefs` when `args` name
 * refs it writes, which a fetch stopped at its bound must put back.
 */
async function fetchWithin(
  fetching: Fetching,
  source: SkillSource,
  movesRefs: boolean,
  args: readonly string[],
): Promise<void> {
  const { store, created, signal, most } = fetching;
  try {
    await boundedFetch(store, most, movesRefs, signal, (bounded) =>
      gitAt(store, bounded).raw([...BOUNDED_FETCH_CONFIG, "fetch", "--quiet", ...args]),
    );
    // A store this run made holds at most two packs (a shallow fetch's, a full one's) and no loose object
    // (each fetch writes a pack), far from the 50 packs or 6,700 loose objects gc --auto acts on: it would
    // be a git process of every uncached source for nothing. A kept store's next fetch runs it.
    if (created) return;
    // The gc a fetch would run, once what it brought is kept; not in the background, where its repack
    // would count as brought by the next fetch into this store, and lose its new pack to that one's removal.
    // As within git's fetch, one that fails leaves the store as it was and fails nothing.
    await gitAt(store, signal)
      .raw(["-c", "gc.autoDetach=false", "gc", "--auto", "--quiet"])
      .catch(() => undefined);
  } catch (error) {
    if (!(error instanceof FetchTooLargeError)) throw error;
    throw new SourceError(
      source.name,
      `fetching ${source.repo} brought more than ${count(mib(most))} MiB, the most a fetch of one source may ` +
        `bring, as its checkout may write (${CHECKOUT_FACTOR} times what one source may bring; --max-mib ` +
        `sets it): stopped, and what it brought removed from the store (${source.ref})`,
    );
  }
}

/** The commit the store holds at `ref` (for an annotated tag's id, the commit it tags), if it holds one. */
async function commitOf(storeGit: SimpleGit, ref: string): Promise<string | undefined> {
  try {
    // Not `--quiet`: simple-git takes a git that fails without a word for one that succeeded.
    const commit = (await storeGit.revparse(["--verify", `${ref}^{commit}`])).trim();
    return commit === "" ? undefined : commit;
  } catch {
    return undefined;
  }
}

async function withGitMessage<T>(source: string, what: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (error) {
    if (error instanceof SourceError) throw error;
    throw new SourceError(source, `${what}: ${oneLine(error)}`);
  }
}
