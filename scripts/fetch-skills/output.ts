import { cp, mkdir, readdir, readFile, rename, stat, writeFile } from "node:fs/promises";
import path from "node:path";
import { MakeFolderError, makeFolder, plural, quoted } from "../../src/shared/index.js";
import {
  CopyError,
  copyFromRepository,
  findSkillFolders,
  type SkippedEntry,
  SourceBudget,
  type SourceLimits,
  SourceTooLargeError,
} from "./copy.js";
import { describeWriteError, FetcherError, SourceError, withoutCredentials } from "./errors.js";
import { checkoutSource, type FetchMethod, keepCommit } from "./fetch.js";
import { isWithin, type SkillSource } from "./manifest.js";
import { makeWorkFolder, PREVIOUS, removeStaleWorkFolders, removeTree } from "./work-folder.js";

/** The file the server reads to show, in /health, which commit each pack came from. */
const SOURCES_FILE = "sources.json";

/**
 * One entry of `sources.json`. The server needs `name` and `ref`, and shows `description` to models; the
 * rest is provenance for people.
 */
export interface SourceRecord {
  readonly name: string;
  readonly description?: string;
  readonly repo: string;
  readonly ref: string;
  readonly path: string;
  readonly extras: readonly string[];
  /** Skill folders found in the pack (folders holding SKILL.md). */
  readonly skills: number;
  /** When the pack was fetched, ISO 8601 UTC. */
  readonly fetchedAt: string;
  /**
   * The symlinks not copied (leading out, into hidden folders or back up, or to a folder their link brought
   * in already), by path in the pack: the audit reports them.
   */
  readonly skipped: readonly { readonly path: string; readonly reason: string }[];
}

/** Something of the repository left out of a pack: `entry` names it in the repository, `inPack` in the pack. */
interface SkippedFile {
  readonly entry: SkippedEntry;
  readonly inPack: string;
}

export interface FetchedPack {
  readonly record: SourceRecord;
  readonly method: FetchMethod | "kept";
  readonly seconds: number;
  /** With {@link FetchPlan.fallback}: why the commit asked for failed, the pack being at its fallback. */
  readonly heldBack?: string;
  /** What the fetch left out (the log's "skipped" lines), by repository path: a repin's review lists it. */
  readonly leftOut?: readonly { readonly path: string; readonly reason: string }[];
}

export interface FetchPlan {
  /** Every source of the manifest, in its order. */
  readonly sources: readonly SkillSource[];
  /** Names to fetch; the other sources keep the pack already in `out`. Undefined fetches all. */
  readonly only: ReadonlySet<string> | undefined;
  /** Absolute path of the skills folder to (re)write. */
  readonly out: string;
  /** Absolute path of the folder of cached stores, kept between runs. */
  readonly cache: string | undefined;
  /** The most files and bytes one source may bring. */
  readonly limits: SourceLimits;
  readonly log: (line: string) => void;
  readonly now: () => Date;
  /** Stops the run: git is interrupted, and nothing is swapped in. */
  readonly signal?: AbortSignal | undefined;
  /**
   * `--update`: the commit, by source name, that a moved source is fetched at when its new one fails (its
   * path gone, a limit passed): one broken upstream must not hold back every other source's bump.
   */
  readonly fallback?: ReadonlyMap<string, string>;
  /**
   * With {@link fallback}: why the server would not serve the pack `pack` just built in the skills folder
   * `dir` at its source's new commit, or undefined when it would. A reason holds the source back at its
   * fallback as a failed fetch does, so that one upstream's unservable skills do not fail the whole repin.
   */
  readonly loadCheck?: (dir: string, pack: string) => Promise<string | undefined>;
  /** Given every pack once all are built, before the new folder is swapped in: throwing swaps nothing in. */
  readonly beforeSwap?: (packs: readonly FetchedPack[]) => Promise<void>;
}

/**
 * Builds the whole skills folder in a temporary folder beside `out` and swaps it in only when every
 * source succeeded, so a failure leaves the previous skills folder exactly as it was.
 */
export async function fetchSkills(plan: FetchPlan): Promise<FetchedPack[]> {
  const unwritable = (error: unknown) =>
    new FetcherError(
      notAFolder(error, "--out", plan.out) ??
        `--out ${plan.out}: cannot write in ${path.dirname(plan.out)}, where the new folder is built before it is swapped in${reasonOf(error)}`,
    );
  // Before any fetch: a --cache that cannot be made failed each source in turn, as if git had.
  if (plan.cache !== undefined) {
    const cache = plan.cache;
    await makeFolder(cache).catch((error: unknown) => {
      throw new FetcherError(
        notAFolder(error, "--cache", cache) ?? `--cache ${cache}: cannot make the folder${reasonOf(error)}`,
      );
    });
  }
  try {
    await makeFolder(path.dirname(plan.out));
    // Before `out` is read: a run killed mid-swap left it in its work folder.
    await removeStaleWorkFolders(plan.out, plan.log);
  } catch (error) {
    throw unwritable(error);
  }
  const previous = await readPreviousOutput(plan.out);
  let temp: string;
  try {
    temp = await makeWorkFolder(plan.out);
  } catch (error) {
    throw unwritable(error);
  }
  try {
    const build = path.join(temp, "out");
    await mkdir(build);
    const stores = plan.cache ?? path.join(temp, "stores");
    const packs: FetchedPack[] = [];
    for (const source of plan.sources) {
      if (plan.only === undefined || plan.only.has(source.name)) {
        const pack = await fetchOrFallBack(source, build, stores, path.join(temp, "work"), plan);
        await keepCommit({ ...source, ref: pack.record.ref }, stores, plan.signal);
        packs.push(pack);
        continue;
      }
      const kept = await keepPack(source, previous, build, plan);
      if (kept) packs.push(kept);
    }
    const records = packs.map((pack) => pack.record);
    await writeSources(build, records);
    // Told to stop while it copied, with no git left to interrupt: the old folder stays.
    plan.signal?.throwIfAborted();
    await plan.beforeSwap?.(packs);
    await swapIn(build, plan.out, path.join(temp, PREVIOUS));
    return packs;
  } finally {
    await removeTree(temp);
  }
}

/**
 * The pack of `source`, at its {@link FetchPlan.fallback} commit when it has one and its own ref fails the
 * fetch, or fails the {@link FetchPlan.loadCheck} where the fallback passes it (a pack the server serves at
 * neither commit, or whose fallback fails the fetch, is no better served old).
 */
async function fetchOrFallBack(
  source: SkillSource,
  build: string,
  stores: string,
  work: string,
  plan: FetchPlan,
): Promise<FetchedPack> {
  const fallback = plan.fallback?.get(source.name);
  // The checkout's own path is kept short: a source's deepest files must stay within PATH_MAX there.
  const fetchInto = (ref: string, folder: string) =>
    fetchPack(
      { ...source, ref },
      folder,
      stores,
      path.join(work, ref === fallback ? `${source.name}.held` : source.name),
      plan,
    );
  if (fallback === undefined) return fetchInto(source.ref, build);
  const heldBack = (reason: string) =>
    plan.log(
      `${source.name}: held back at ${fallback.slice(0, 7)}: its new commit ${source.ref.slice(0, 7)} fails: ${reason}`,
    );
  let pack: FetchedPack;
  try {
    pack = await fetchInto(source.ref, build);
  } catch (error) {
    // A run told to stop fails its git: that is no fault of the commit.
    if (!(error instanceof SourceError) || plan.signal?.aborted) throw error;
    heldBack(error.reason);
    await removeTree(path.join(build, source.name));
    return { ...(await fetchInto(fallback, build)), heldBack: error.reason };
  }
  const refused = await plan.loadCheck?.(build, source.name);
  if (refused === undefined) return pack;
  // The pin's pack is built aside (a name with a dot is no source's) and checked there first.
  const aside = path.join(work, `${source.name}.pin`);
  let pinned: FetchedPack | undefined;
  try {
    pinned = await fetchInto(fallback, aside);
  } catch (error) {
    if (!(error instanceof SourceError) || plan.signal?.aborted) throw error;
  }
  if (pinned === undefined || (await plan.loadCheck?.(aside, source.name)) !== undefined) {
    plan.log(
      `${source.name}: warning: its new commit ${source.ref.slice(0, 7)} fails the load check, and its pin ${fallback.slice(0, 7)} serves no better, so it is repinned all the same: ${refused}`,
    );
    await removeTree(aside);
    return pack;
  }
  heldBack(refused);
  await removeTree(path.join(build, source.name));
  await rename(path.join(aside, source.name), path.join(build, source.name));
  return { ...pinned, heldBack: refused };
}

async function fetchPack(
  source: SkillSource,
  build: string,
  stores: string,
  workDir: string,
  plan: FetchPlan,
): Promise<FetchedPack> {
  const started = performance.now();
  const short = source.ref.slice(0, 7);
  const packDir = path.join(build, source.name);
  const { method, skipped } = await fetchSourceInto(source, stores, workDir, packDir, plan);
  const skillFolders = await findSkillFolders(packDir);
  for (const { entry } of skipped) plan.log(`${source.name}: skipped ${entry.path}: ${entry.reason}`);
  for (const folder of skillFolders) {
    const extra = source.extras.find((item) => isWithin(item, folder));
    if (extra !== undefined) {
      plan.log(
        `${source.name}: warning: extra ${quoted(extra)} holds ${folder}/SKILL.md; the server will serve it as a skill`,
      );
    }
  }
  if (skillFolders.length === 0) {
    plan.log(
      `${source.name}: warning: no SKILL.md under ${quoted(source.path)}; the server will not serve this pack`,
    );
  }
  const seconds = (performance.now() - started) / 1000;
  plan.log(
    `${source.name}: ${short} ${describeMethod(method)}, ${plural(skillFolders.length, "skill")}, ${seconds.toFixed(1)} s`,
  );
  const record: SourceRecord = {
    name: source.name,
    ...(source.description === undefined ? {} : { description: source.description }),
    // The record ships in the image and is shown by /health: a token in the URL must not.
    repo: withoutCredentials(source.repo),
    ref: source.ref,
    path: source.path,
    extras: source.extras,
    skills: skillFolders.length,
    fetchedAt: plan.now().toISOString(),
    skipped: skippedRecords(skipped),
  };
  return {
    record,
    method,
    seconds,
    leftOut: skipped.map(({ entry }) => ({ path: entry.path, reason: entry.reason })),
  };
}

/**
 * Checks `source` out at its ref (through the store in `stores`, in `workDir`) and copies it into
 * `packDir` as its pack, within `limits` (its git stopped when `signal` aborts); the checkout is removed
 * either way. Says how it was fetched and what was left out.
 */
export async function fetchSourceInto(
  source: SkillSource,
  stores: string,
  workDir: string,
  packDir: string,
  { limits, signal }: Pick<FetchPlan, "limits" | "signal">,
): Promise<{ method: FetchMethod; skipped: SkippedFile[] }> {
  const checkout = await checkoutSource(source, stores, workDir, signal, limits);
  try {
    const skipped = await copySource(source, checkout.dir, packDir, new SourceBudget(limits));
    return {
      method: checkout.method,
      skipped: [...skipped, ...submoduleEntries(source, checkout.submodules)],
    };
  } finally {
    await checkout.remove();
  }
}

/**
 * Writes `sources.json` into the skills folder `dir`: the server reads `name`, `ref` and `description` of
 * each record, the audit `skipped`.
 */
export async function writeSources(
  dir: string,
  records: readonly Pick<SourceRecord, "name" | "ref" | "skipped" | "description">[],
): Promise<void> {
  await writeFile(path.join(dir, SOURCES_FILE), `${JSON.stringify({ sources: records }, null, 2)}\n`);
}

/** What sources.json says of the symlinks left out of a pack (the rest left out is only warned about). */
export function skippedRecords(skipped: readonly SkippedFile[]): SourceRecord["skipped"] {
  return skipped
    .filter(({ entry }) => entry.symlink)
    .map(({ inPack, entry }) => ({ path: inPack, reason: entry.reason }));
}

/**
 * Copies a checked-out source into `packDir` as its pack: `path` to the pack folder, each extra beside the
 * skills. Returns what was left out.
 */
async function copySource(
  source: SkillSource,
  repoRoot: string,
  packDir: string,
  budget: SourceBudget,
): Promise<SkippedFile[]> {
  const skipped: SkippedFile[] = [];
  const inPath = (entry: SkippedEntry) => ({ entry, inPack: path.posix.relative(source.path, entry.path) });
  for (const entry of await copyPart(source, repoRoot, source.path, packDir, "path", budget))
    skipped.push(inPath(entry));
  for (const extra of source.extras) {
    const destination = path.join(packDir, extra);
    if (await exists(destination)) {
      throw new SourceError(
        source.name,
        `extra ${quoted(extra)} would overwrite ${quoted(path.posix.join(source.path, extra))} copied from path`,
      );
    }
    // An extra keeps its repository path in the pack.
    for (const entry of await copyPart(source, repoRoot, extra, destination, "extra", budget)) {
      skipped.push({ entry, inPack: entry.path });
    }
  }
  return skipped;
}

/**
 * The submodules a pack would have held, each left an empty folder: the fetcher fetches one repository
 * per source, so a skill kept in a submodule is missing unless its repository is a source of its own.
 */
function submoduleEntries(source: SkillSource, submodules: readonly string[]): SkippedFile[] {
  const reason = "a git submodule, which is not fetched: pin its repository as a source of its own";
  const found: SkippedFile[] = [];
  for (const submodule of submodules) {
    const extra = source.extras.find((item) => isWithin(item, submodule));
    const part = extra ?? source.path;
    // Inside a hidden folder of its part it would not have been copied anyway.
    const inPart = part === "." ? submodule : submodule.slice(part.length + 1);
    if (inPart.split("/").some((segment) => segment.startsWith("."))) continue;
    const entry = { path: submodule, reason, symlink: false };
    found.push({
      entry,
      inPack: extra === undefined ? path.posix.relative(source.path, submodule) : submodule,
    });
  }
  return found;
}

async function copyPart(
  source: SkillSource,
  repoRoot: string,
  relative: string,
  destination: string,
  key: "path" | "extra",
  budget: SourceBudget,
): Promise<SkippedEntry[]> {
  try {
    return await copyFromRepository(repoRoot, relative, destination, { allowFile: key === "extra", budget });
  } catch (error) {
    if (error instanceof CopyError)
      throw new SourceError(source.name, `${key} ${error.message} (${source.ref})`);
    if (error instanceof SourceTooLargeError)
      throw new SourceError(source.name, `${error.message} (${source.ref})`);
    throw error;
  }
}

function describeMethod(method: FetchMethod): string {
  if (method === "cached") return "from the cache";
  if (method === "shallow") return "shallow fetch";
  return "full fetch (the server refused a shallow fetch of the commit)";
}

interface PreviousOutput {
  readonly records: ReadonlyMap<string, SourceRecord>;
}

/**
 * What the skills folder holds now. A folder that exists, is not empty and has no sources.json was not
 * written by this fetcher: replacing it could destroy someone's work, so that is refused.
 */
async function readPreviousOutput(out: string): Promise<PreviousOutput> {
  let names: string[];
  try {
    names = await readdir(out);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { records: new Map() };
    if (code === "ENOTDIR") {
      throw new FetcherError(`--out ${out} is a file, not a folder: remove it, or give another --out`);
    }
    throw new FetcherError(`--out ${out} cannot be read: ${describeWriteError(error)}`);
  }
  if (names.length === 0) return { records: new Map() };
  if (!names.includes(SOURCES_FILE)) {
    throw new FetcherError(
      `--out ${out} is not empty and has no ${SOURCES_FILE}, so it was not written by fetch-skills; remove it or choose another folder`,
    );
  }
  return { records: parseRecords(await readFile(path.join(out, SOURCES_FILE), "utf8")) };
}

/** The records of a previous sources.json; anything unreadable counts as absent. */
function parseRecords(text: string): ReadonlyMap<string, SourceRecord> {
  try {
    const list = (JSON.parse(text) as { sources?: unknown }).sources;
    if (!Array.isArray(list)) return new Map();
    const records = list.filter(
      (item): item is SourceRecord => typeof item?.name === "string" && typeof item?.ref === "string",
    );
    return new Map(records.map((record) => [record.name, record]));
  } catch {
    return new Map();
  }
}

/** A source not selected by `--source` keeps the pack the previous run fetched, when there is one. */
async function keepPack(source: SkillSource, previous: PreviousOutput, build: string, plan: FetchPlan) {
  const record = previous.records.get(source.name);
  const folder = path.join(plan.out, source.name);
  if (record === undefined || !(await exists(folder))) {
    plan.log(`${source.name}: warning: not selected by --source and not in ${plan.out} yet, so not served`);
    return undefined;
  }
  await cp(folder, path.join(build, source.name), { recursive: true });
  const note = record.ref === source.ref ? "" : `; skills.toml pins ${source.ref.slice(0, 7)}`;
  plan.log(`${source.name}: kept as fetched before (${record.ref.slice(0, 7)}${note})`);
  // The description is the manifest's own, not a copy of what it said when the pack was fetched.
  const { description: _fetched, ...provenance } = record;
  const described = source.description === undefined ? {} : { description: source.description };
  const kept: FetchedPack = { record: { ...provenance, ...described }, method: "kept", seconds: 0 };
  return kept;
}

async function swapIn(build: string, out: string, previous: string): Promise<void> {
  const hadPrevious = await exists(out);
  try {
    if (hadPrevious) await rename(out, previous);
  } catch (error) {
    // A volume's mount point (a container's /skills) cannot be renamed, so the new folder cannot replace it.
    const why =
      (error as NodeJS.ErrnoException).code === "EBUSY"
        ? " (EBUSY): it is a mount point; give a folder inside it"
        : `: ${describeWriteError(error)}`;
    throw new FetcherError(`--out ${out} cannot be replaced by the new folder${why}`);
  }
  try {
    await rename(build, out);
  } catch (error) {
    if (hadPrevious) await rename(previous, out);
    throw new FetcherError(`--out ${out} cannot be replaced by the new folder: ${describeWriteError(error)}`);
  }
}

/** A folder option's path that leads through a file (`--out /dev/null/x`): which part, and what to give. */
function notAFolder(error: unknown, option: string, folder: string): string | undefined {
  if (!(error instanceof MakeFolderError) || error.code !== "ENOTDIR") return undefined;
  return `${option} ${folder}: ${error.message}; give another ${option}`;
}

/** Why a folder cannot be made, after its words: a folder's own words where its code would mislead. */
function reasonOf(error: unknown): string {
  if (error instanceof MakeFolderError) return ` (${error.message})`;
  // mkdtemp in a folder that is there: the bare code was all it said (`--out /proc/x`).
  if ((error as NodeJS.ErrnoException).code === "ENOENT") {
    return ": no folder can be made in it (ENOENT, no such file or directory, though it is a folder): its file system takes none (as /proc), or it was deleted while in use";
  }
  return `: ${describeWriteError(error)}`;
}

async function exists(file: string): Promise<boolean> {
  return stat(file).then(
    () => true,
    () => false,
  );
}
