import { lstat, readFile, rmdir } from "node:fs/promises";
import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { ProtocolError, UnauthorizedError } from "@modelcontextprotocol/client";
import { SKILL_LIMITS, type Skill, type SkillListing } from "@modelcontextprotocol/client/ext/skills";
import { isUnsafe } from "../audit/index.js";
import { ByteBudget } from "../budget/index.js";
import { PACKAGE_VERSION } from "../package.js";
import { auditDownload, describeFinding } from "./audit.js";
import { type Connection, connect, type Era, RefusedAnswerError, type ServerAddress } from "./connection.js";
import { answeredStatus, describeError } from "./describe-error.js";
import {
  CitedFileUnreadable,
  citedFilesCurrent,
  type DownloadContext,
  downloadSkill,
  forEachInOrder,
  forEachLimited,
  PackFilesOverRoom,
  type PackRead,
  PackReads,
  readPackFile,
  skillRoot,
} from "./download.js";
import { digestOf, holdsExactly, namesIn, readFolderState, readIfSame, readLock, Staging } from "./folder.js";
import { leftOutOfExtension, packOfUri, servedByTools } from "./left-out.js";
import {
  type InstalledSkill,
  type Lock,
  type LockedSkill,
  type LockSource,
  type RefusedSkill,
  withSource,
} from "./lock.js";
import { isCurrent, type OwnedState, planSync, type RefusedEntry, type Step, servedDigest } from "./plan.js";
import type { Progress } from "./progress.js";
import { takeRunLock } from "./run-lock.js";

/** Who writes the lock, and made each refusal it records. */
const BY = `skills-mcp ${PACKAGE_VERSION}`;

export interface SyncOptions {
  readonly server: ServerAddress;
  /** Recorded in the lock: how the scope was asked for. */
  readonly scope: LockSource["scope"];
  /** The target: a skills folder a client reads (`~/.claude/skills`). */
  readonly folder: string;
  /** `dry-run` and `check` only plan: they write nothing, not even the folder. */
  readonly mode: "sync" | "dry-run" | "check";
  /** Installs skills with a high finding of the audit too. */
  readonly allowUnsafe: boolean;
  readonly era: Era;
  readonly progress: Progress;
}

export interface SyncCounts {
  readonly added: number;
  readonly updated: number;
  readonly removed: number;
  readonly skipped: number;
  readonly unchanged: number;
}

export interface SyncReport {
  /** The plan, sorted by name. */
  readonly steps: readonly Step[];
  /** What was done (a sync), or what the plan would do (dry run, check). */
  readonly counts: SyncCounts;
}

/** The server cannot be synced from as asked: the message says why and what to do. */
export class SyncError extends Error {
  override name = "SyncError";
}

/** Whether the folder lacks what a sync would bring: anything to add, update or remove. */
export function isOutOfDate(steps: readonly Step[]): boolean {
  return steps.some((step) => step.kind === "add" || step.kind === "update" || step.kind === "remove");
}

/**
 * Brings the skills the server serves (in the scope asked for) into `folder`, one folder per skill, and
 * records what it wrote in the lock file there; or, for a dry run or a check, says what it would do.
 */
export async function syncSkills(options: SyncOptions): Promise<SyncReport> {
  if (options.mode !== "sync") return syncUnlocked(options);
  const { folder } = options;
  // The progress said "fetched and verified" of skills that a stop leaves out: say what the folder holds.
  const onStop = (signal: NodeJS.Signals) => {
    options.progress.finish();
    options.progress.note(
      `skills-mcp sync: stopped by ${signal}: each skill in ${folder} is as it was or as the server serves it; the skills fetched but not yet put in place are dropped: run sync again`,
    );
  };
  const runLock = await takeRunLock(folder, onStop).catch((error: unknown) => {
    if (isSystemError(error) && NOT_WRITABLE.has(error.code ?? "")) return { unwritable: error };
    if (!isSystemError(error)) throw error;
    throw new SyncError(`cannot sync into ${folder}: ${notAFolder(error) ?? error.message}`);
  });
  // No run lock where nothing can be written: a run with nothing to write needs none, as a check does.
  if ("unwritable" in runLock) return syncUnlocked(options, runLock.unwritable);
  if ("heldBy" in runLock) {
    const where = runLock.host === undefined ? "" : ` on ${runLock.host}`;
    const who =
      runLock.heldBy === undefined ? "another sync" : `another sync (pid ${runLock.heldBy}${where})`;
    const lease =
      runLock.leaseMs === undefined
        ? ""
        : ` (taken over once left untouched for ${runLock.leaseMs / 60_000} minutes)`;
    throw new SyncError(
      `${who} is installing into ${folder}; wait for it${lease}, or remove ${runLock.file} if it is gone`,
    );
  }
  let synced = false;
  try {
    const report = await syncUnlocked(options);
    synced = true;
    return report;
  } finally {
    await runLock.release();
    if (!synced && runLock.made !== undefined) await removeEmptyFolders(folder, runLock.made);
  }
}

/**
 * Removes `folder` and its parents up to `top`, while they are empty: the folders a run made for its lock
 * and then failed to write into (a server that cannot be reached), so a mistyped URL leaves nothing.
 */
async function removeEmptyFolders(folder: string, top: string): Promise<void> {
  for (let at = folder; ; at = path.dirname(at)) {
    // rmdir removes only an empty folder: one holding anything, however it came there, stays.
    const removed = await rmdir(at).then(
      () => true,
      () => false,
    );
    if (!removed || at === top || path.dirname(at) === at) return;
  }
}

/** What a file where the folder (or one above it) should be means, said without the system call's words. */
function notAFolder(error: NodeJS.ErrnoException): string | undefined {
  return error.code === "EEXIST" || error.code === "ENOTDIR"
    ? "it is a file, or a file is on its path, where a folder is needed: give a folder with --to"
    : undefined;
}

/**
 * What a server that answered a scope (`--pack`, sent as X-Skill-Pack) with HTTP 400 said of it: the
 * packs given and the server's own words, which name the valid selectors. It answered: the connection
 * worked, and "cannot connect" would send the user looking at the network.
 */
function scopeRefusal(server: ServerAddress, error: unknown, why: string): string | undefined {
  const packs = Object.entries(server.headers).find(([name]) => name.toLowerCase() === "x-skill-pack")?.[1];
  if (packs === undefined || answeredStatus(error) !== 400) return undefined;
  const said =
    error instanceof RefusedAnswerError
      ? error.said
      : why.replace(/^Error POSTing to endpoint(?: \(HTTP 400\))?: /, "");
  return `the pack asked for (${packs}): ${said}`;
}

/** Why a folder cannot be written to: its permissions, or a read-only file system. */
const NOT_WRITABLE = new Set(["EACCES", "EPERM", "EROFS"]);

/**
 * The sync itself; a run that writes holds the folder's run lock around it. `unwritable`: why the folder
 * cannot be written to, which fails the run only when it has something to write.
 */
async function syncUnlocked(options: SyncOptions, unwritable?: NodeJS.ErrnoException): Promise<SyncReport> {
  const { folder } = options;
  const lock = await readLock(folder).catch((error: unknown) => {
    if (!isSystemError(error)) throw error;
    throw new SyncError(`cannot read ${folder}: ${notAFolder(error) ?? error.message}`);
  });
  const server = options.server.url.href;
  let connection: Connection;
  try {
    connection = await connect(options.server, options.era, PACKAGE_VERSION, (seconds, status) =>
      options.progress.note(`the server asks to wait ${seconds} s (HTTP ${status}): waiting`),
    );
  } catch (error) {
    const why = describeError(error);
    const refusedScope = scopeRefusal(options.server, error, why);
    if (refusedScope !== undefined) throw new SyncError(`${server} refused ${refusedScope}`);
    const refused = error instanceof UnauthorizedError || /\b401\b/.test(why);
    // A key given (--api-key-file, or --header Authorization) and refused is a wrong key, not a missing one.
    const keyGiven =
      options.server.apiKey !== undefined ||
      Object.keys(options.server.headers).some((name) => name.toLowerCase() === "authorization");
    // An https URL to a server that speaks plain HTTP fails in TLS, with OpenSSL's words only.
    const plain =
      options.server.url.protocol === "https:" && /wrong version number|ERR_SSL_WRONG_VERSION/i.test(why);
    const hint = plain
      ? `; the server may speak plain HTTP: try http://${options.server.url.host}${options.server.url.pathname}`
      : !refused
        ? ""
        : keyGiven
          ? "; the server refused the API key given: check it"
          : "; give its API key with --api-key-file";
    throw new SyncError(`cannot connect to ${server}: ${why}${hint}`);
  }
  try {
    if (!connection.skills.supported) {
      throw new SyncError(
        `${server} does not serve the MCP Skills extension (io.modelcontextprotocol/skills), which sync reads; give the URL of a skills-mcp server's MCP endpoint (…/mcp)`,
      );
    }
    const listing = await connection.skills.list().catch((error: unknown) => {
      throw new SyncError(`cannot list the skills of ${server}: ${describeError(error)}`);
    });
    // Otherwise a user would find fewer skills installed than list_skills shows, and not know why.
    const leftOut = await leftOutOfExtension(connection.client, listing);
    if (leftOut !== undefined) options.progress.note(leftOut.note);
    const context: DownloadContext = {
      client: connection.client,
      skills: connection.skills,
      skillRoots: new Set(listing.skills.map(skillRoot)),
      packReads: new PackReads(),
    };
    const source = lock?.sources.find((item) => item.server === server);
    const steps = await plan(options, listing, context, lock, source, leftOut?.named ?? new Set());
    const packsBefore = source?.scope.packs;
    const movedFrom = packsBefore !== undefined && !samePacks(packsBefore, options.scope.packs);
    if (movedFrom && steps.some((step) => step.kind === "remove")) {
      // Two commands with different --pack into one folder undo each other: say so, once.
      options.progress.note(
        `the packs asked for changed since the last sync from ${server} (${packList(packsBefore)}, now ${packList(options.scope.packs)}): the skills they no longer select are removed; give every --pack in one command to keep them all`,
      );
    }
    if (options.mode !== "sync") return { steps, counts: countDone(steps, new Set()) };
    const { progress } = options;
    for (const step of steps) {
      if (step.kind === "skip") progress.note(`${step.name}: skipped: ${step.reason}`);
    }
    if (!writesAnything(options, steps, source)) {
      progress.finish();
      // Only a run holding the run lock may touch the staging folder: another run may be staging there.
      const leftOver = unwritable === undefined ? await Staging.clear(folder) : undefined;
      if (leftOver !== undefined) progress.note(leftOver);
      return { steps, counts: countDone(steps, new Set()) };
    }
    if (unwritable !== undefined) throw new SyncError(`cannot sync into ${folder}: ${unwritable.message}`);
    return { steps, counts: await apply(options, steps, context, lock, source, movedFrom) };
  } catch (error) {
    // The folder cannot be read or written (EACCES, ENOTDIR, ENOSPC): say which, without a stack.
    if (isSystemError(error)) throw new SyncError(`cannot sync into ${folder}: ${error.message}`);
    throw error;
  } finally {
    await connection.close();
  }
}

/**
 * Why the server does not answer a request for the skill at `uri` (a small one, in every protocol era),
 * or undefined when it answers: an error it sends is an answer.
 */
async function notAnswering(context: DownloadContext, uri: string): Promise<string | undefined> {
  try {
    await context.skills.get(uri);
    return undefined;
  } catch (error) {
    return error instanceof ProtocolError ? undefined : describeError(error);
  }
}

function samePacks(a: readonly string[], b: readonly string[]): boolean {
  return isDeepStrictEqual([...a].sort(), [...b].sort());
}

function packList(packs: readonly string[]): string {
  return packs.length === 0 ? "every pack" : `--pack ${packs.join(" --pack ")}`;
}

function isSystemError(error: unknown): error is NodeJS.ErrnoException {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).syscall === "string";
}

async function plan(
  options: SyncOptions,
  listing: SkillListing,
  context: DownloadContext,
  lock: Lock | undefined,
  source: LockSource | undefined,
  leftOut: ReadonlySet<string>,
): Promise<Step[]> {
  const server = options.server.url.href;
  const owned = await ownedStates(options.folder, source?.skills ?? {});
  const taken = new Set([...(await namesIn(options.folder))].filter((name) => !owned.has(name)));
  const ownedElsewhere = new Map<string, string>();
  for (const other of lock?.sources ?? []) {
    if (other.server === server) continue;
    for (const name of Object.keys(other.skills)) ownedElsewhere.set(name, other.server);
  }
  const refused: RefusedEntry[] = listing.invalid.map((invalid) => ({
    name: invalid.uri === undefined ? undefined : nameOfUri(invalid.uri),
    uri: invalid.uri,
    reason: invalid.reason,
  }));
  const known = new Set([
    ...listing.skills.map((entry) => entry.frontmatter.name),
    ...refused.flatMap((item) => item.name ?? []),
  ]);
  const unlisted = [...owned].filter(([name]) => !known.has(name));
  const { served, unsure } = await askUnlisted(context, unlisted);
  const answered = new Set(served.map((skill) => skill.frontmatter.name));
  // Unlisted, but still served by the tools (grown past the extension's limits, say): not gone. The
  // warning names only some of those (20 packs at most); read_skill tells of each of the others.
  const stillServed = new Set<string>();
  for (const [name, state] of unlisted) {
    if (answered.has(name) || unsure.has(name)) continue;
    const ref = `${packOfUri(state.kind === "installed" ? state.installed.uri : state.locked.uri)}/${name}`;
    const byTools = leftOut.has(ref) || (await servedByTools(context.client, ref));
    if (byTools === true) stillServed.add(name);
    else if (byTools !== false) unsure.set(name, byTools.failed);
  }
  // Not with --allow-unsafe. Another version's audit may judge otherwise: a sync audits the skill again,
  // while a check takes its word, lest one pinned in CI call a lock another version wrote out of date.
  const refusals = new Map(
    Object.entries(source?.refused ?? {}).filter(
      ([, refused]) => !options.allowUnsafe && (options.mode !== "sync" || refused.by === BY),
    ),
  );
  const listed = [...listing.skills, ...served];
  // By URI, the first of each: an installed skill is current only with the entry of its own URI.
  const byUri = new Map<string, Skill>();
  for (const item of listed) if (!byUri.has(item.uri)) byUri.set(item.uri, item);
  const checks: CitedCheck[] = [];
  for (const [name, state] of owned) {
    if (state.kind !== "installed") continue;
    const entry = byUri.get(state.installed.uri);
    if (entry !== undefined && isCurrent(state.installed, entry))
      checks.push({ name, entry, installed: state.installed });
  }
  const citedChanged = await citedFilesChanged(checks, options, context);
  const packDigests = await readPackDigests([...refusals], context, options.mode);
  return planSync({
    listed,
    refused,
    owned,
    taken,
    ownedElsewhere,
    unsure,
    stillServed,
    refusals,
    citedChanged,
    packDigests,
  });
}

/** An installed skill served as it was installed: whether the files it cites changed is still to see. */
interface CitedCheck {
  readonly name: string;
  readonly entry: Skill;
  readonly installed: InstalledSkill;
}

/** Skills whose cited files are checked at once; their reads share PackReads' bound on requests. */
const PARALLEL_CHECKS = 8;
/** Skills fetched at once; their reads share PackReads' bounds on requests and on the bytes of answers. */
const PARALLEL_DOWNLOADS = 8;
/**
 * What the pack files a skill cites may hold while it is fetched or checked with others: half of a
 * skill's share of the budget, the other half its own files, so that 8 skills of up to 1 MiB are still
 * fetched (or checked) at once.
 */
const PACK_FILES_SHARE = SKILL_LIMITS.bytes / (2 * PARALLEL_DOWNLOADS);

/**
 * `work` on a skill, holding in `budget` its `bytes` (pack files among them: `packBytes`) and
 * PACK_FILES_SHARE more, its pack files given that room; when they need more ({@link PackFilesOverRoom}),
 * `work` again, holding a skill's whole limit, so alone, its pack files bounded only by the download's own limits.
 * It never waits for more room while holding some, so two skills cannot wait on each other.
 */
async function withPackRoom<T>(
  budget: ByteBudget,
  bytes: number,
  packBytes: number,
  work: (packRoom: number) => Promise<T>,
): Promise<T> {
  const holding = async (held: number, packRoom: number) => {
    const giveBack = await budget.take(held);
    try {
      return await work(packRoom);
    } finally {
      giveBack();
    }
  };
  try {
    return await holding(bytes + PACK_FILES_SHARE, packBytes + PACK_FILES_SHARE);
  } catch (error) {
    if (!(error instanceof PackFilesOverRoom)) throw error;
  }
  return holding(SKILL_LIMITS.bytes, Number.POSITIVE_INFINITY);
}

/**
 * The skills of `checks` whose copy a download now would change (see citedFilesCurrent), checked
 * PARALLEL_CHECKS at a time: a run with nothing to change costs a few round trips, not one or more a
 * skill. Each check holds the bytes of the copy here, and PACK_FILES_SHARE more for pack files the server
 * now serves larger, in a budget of one skill's limit; one whose pack files need more is checked again,
 * holding the whole limit, so alone. A check or a dry run that cannot read a file starts no more checks,
 * and names the first such skill in the lock's order of those checked, whichever failed first: the same
 * skill every run against the same failures.
 */
async function citedFilesChanged(
  checks: readonly CitedCheck[],
  options: SyncOptions,
  context: DownloadContext,
): Promise<Set<string>> {
  const outcomes = new Map<string, boolean | CitedFileUnreadable>();
  const held = new ByteBudget(SKILL_LIMITS.bytes);
  let cannot = false;
  const check = async ({ name, entry, installed }: CitedCheck) => {
    if (cannot) return;
    const skillFolder = path.join(options.folder, name);
    const readInstalled = (file: string) =>
      readFile(path.join(skillFolder, ...file.split("/"))).catch(() => undefined);
    const copy = await installedBytes(skillFolder, installed);
    const outcome = await withPackRoom(held, copy.bytes, copy.packBytes, (packRoom) =>
      citedFilesCurrent(entry, installed, readInstalled, context, packRoom),
    ).catch((error: unknown) => (error instanceof CitedFileUnreadable ? error : false));
    if (outcome instanceof CitedFileUnreadable && options.mode !== "sync") cannot = true;
    outcomes.set(name, outcome);
  };
  await forEachLimited(checks, PARALLEL_CHECKS, check);
  const changed = new Set<string>();
  for (const { name } of checks) {
    const outcome = outcomes.get(name);
    if (outcome instanceof CitedFileUnreadable && options.mode !== "sync") throw cannotTell(name, outcome);
    if (outcome !== true) changed.add(name);
  }
  return changed;
}

/**
 * The bytes of the copy installed in `skillFolder`, which a check reads, and of the pack files among
 * them, in whose place it holds the pack files the server serves now.
 */
async function installedBytes(
  skillFolder: string,
  installed: InstalledSkill,
): Promise<{ readonly bytes: number; readonly packBytes: number }> {
  let bytes = 0;
  let packBytes = 0;
  for (const file of Object.keys(installed.files)) {
    const size = (await lstat(path.join(skillFolder, ...file.split("/"))).catch(() => undefined))?.size ?? 0;
    bytes += size;
    if (Object.hasOwn(installed.packFiles, file)) packBytes += size;
  }
  return { bytes, packBytes };
}

/** What the folder holds under each name the lock gives this server. */
async function ownedStates(
  folder: string,
  skills: Readonly<Record<string, LockedSkill>>,
): Promise<Map<string, OwnedState>> {
  const states = new Map<string, OwnedState>();
  for (const [name, locked] of Object.entries(skills)) {
    const { previous, ...current } = locked;
    const maxFiles = Math.max(Object.keys(current.files).length, Object.keys(previous?.files ?? {}).length);
    // The installed copy holds the skill's files, its pack files and a note: at most a little over the limit.
    const state = await readFolderState(folder, name, { maxFiles, maxBytes: SKILL_LIMITS.bytes + 65_536 });
    if (holdsExactly(state, current.files)) states.set(name, { kind: "installed", installed: current });
    else if (previous !== undefined && holdsExactly(state, previous.files)) {
      states.set(name, { kind: "installed", installed: previous });
    } else if (state.kind === "missing") states.set(name, { kind: "missing", locked: current });
    else {
      const reason = state.kind === "other" ? state.reason : "its files differ from what sync wrote";
      states.set(name, { kind: "changed", locked: current, reason });
    }
  }
  return states;
}

/**
 * Owned skills the listing does not hold, asked for by URI: a listing may be partial, so a skill goes
 * only when the server says it serves nothing there; any other failure leaves it alone.
 */
async function askUnlisted(
  context: DownloadContext,
  unlisted: readonly (readonly [string, OwnedState])[],
): Promise<{ served: Skill[]; unsure: Map<string, string> }> {
  const served: Skill[] = [];
  const unsure = new Map<string, string>();
  for (const [name, state] of unlisted) {
    const uri = state.kind === "installed" ? state.installed.uri : state.locked.uri;
    try {
      const { skill } = await context.skills.get(uri);
      if (skill.frontmatter.name === name) served.push(skill);
      else unsure.set(name, `${uri} is now named ${skill.frontmatter.name}`);
    } catch (error) {
      if (!(error instanceof ProtocolError))
        unsure.set(name, error instanceof Error ? error.message : String(error));
    }
  }
  return { served, unsure };
}

/**
 * Each pack file a refused skill cited, read again: a changed one (or one that cannot be read) has it
 * fetched and audited again; a check or a dry run that cannot read one cannot tell, and names the first
 * such skill in the lock's order, whichever read failed first. The reads go at once, through PackReads'
 * bounds on requests and bytes, as the checks' do.
 */
async function readPackDigests(
  refusals: readonly (readonly [string, Pick<InstalledSkill, "packFiles">])[],
  context: DownloadContext,
  mode: SyncOptions["mode"],
): Promise<Map<string, string | undefined>> {
  const reads = new Map<string, Promise<PackRead | CitedFileUnreadable | undefined>>();
  for (const [, refused] of refusals) {
    for (const { uri } of Object.values(refused.packFiles)) {
      if (reads.has(uri)) continue;
      const read = readPackFile(uri, context).catch((error: unknown) =>
        error instanceof CitedFileUnreadable ? error : undefined,
      );
      reads.set(uri, read);
    }
  }
  const outcomes = new Map<string, PackRead | CitedFileUnreadable | undefined>();
  for (const [uri, read] of reads) outcomes.set(uri, await read);
  const digests = new Map<string, string | undefined>();
  for (const [name, refused] of refusals) {
    for (const { uri } of Object.values(refused.packFiles)) {
      const outcome = outcomes.get(uri);
      if (mode !== "sync" && outcome instanceof CitedFileUnreadable) throw cannotTell(name, outcome);
      digests.set(uri, outcome !== undefined && "bytes" in outcome ? digestOf(outcome.bytes) : undefined);
    }
  }
  return digests;
}

/**
 * A check or a dry run cannot say whether `name` is up to date: a file it cites went unanswered (a cut
 * connection, a proxy's 502, a timeout), which says nothing of what the server serves; a plan saying
 * `update` would claim a change no one saw. A sync tries the update instead.
 */
function cannotTell(name: string, error: CitedFileUnreadable): SyncError {
  return new SyncError(
    `cannot tell whether ${name} is up to date: ${describeError(error)}; try again when the server answers`,
  );
}

/**
 * Carries out the plan. Every skill to add or update is fetched, checked and audited, and written to
 * the staging folder first; then the lock claims them (with what each replaces), each is swapped in whole,
 * the skills to remove go, and the lock is written as the folder now is. A run killed at any point
 * leaves every skill old or new, and the next run finishes the work.
 */
async function apply(
  options: SyncOptions,
  steps: readonly Step[],
  context: DownloadContext,
  lock: Lock | undefined,
  before: LockSource | undefined,
  packsChanged: boolean,
): Promise<SyncCounts> {
  const { folder, progress } = options;
  const staging = await Staging.open(folder);
  try {
    const fetches = steps.filter((step) => step.kind === "add" || step.kind === "update");
    const staged = new Map<string, { dir: string; installed: InstalledSkill; replacing: boolean }>();
    const failed = new Set<string>();
    const refused = new Map<string, RefusedSkill>();
    const held = new ByteBudget(SKILL_LIMITS.bytes);
    // Fetched PARALLEL_DOWNLOADS at a time, each while its listed bytes and its share of the budget for
    // the pack files it cites fit in `held`; one whose pack files need more is fetched again, holding
    // the skill's whole limit, so alone. Told in the plan's order, so that the lines, the lock and what
    // is put in place come out as one after another would.
    const fetch = async (step: (typeof fetches)[number]) => {
      const installed = step.kind === "update" ? step.installed : undefined;
      return withPackRoom(held, listedBytes(step.entry), 0, (packRoom) =>
        prepare(step, installed, options, context, staging, packRoom),
      );
    };
    await forEachInOrder(fetches, PARALLEL_DOWNLOADS, fetch, async (ready, step, index) => {
      const done = (outcome: string, lasting: boolean) =>
        progress.skill(index + 1, fetches.length, step.name, outcome, lasting);
      if ("refused" in ready) {
        failed.add(step.name);
        if (ready.audit !== undefined) {
          // Refused again for the same reason: the record stays as it was, so a committed lock does too.
          const earlier = before?.refused?.[step.name];
          const same =
            earlier !== undefined && isDeepStrictEqual({ ...earlier, by: "" }, { ...ready.audit, by: "" });
          refused.set(step.name, same ? earlier : ready.audit);
        }
        done(`skipped: ${ready.refused}`, true);
        const rest = fetches.slice(index + 1);
        // A server gone mid-run fails every skill left, each only after the request timeout: ask it once.
        const gone = rest.length === 0 ? undefined : await notAnswering(context, step.entry.uri);
        if (gone === undefined) return true;
        for (const later of rest) failed.add(later.name);
        const more = rest.length === 1 ? "1 more skill" : `${rest.length} more skills`;
        progress.note(
          `the server stopped answering (${gone}): ${more} not fetched; run sync again when it is back`,
        );
        return false;
      }
      // An update replaces what sync installed; a skill installed again after its folder went replaces nothing.
      staged.set(step.name, { ...ready, replacing: step.kind === "update" });
      const fetched = Object.keys(ready.installed.files).length - ready.kept;
      const what = step.kind === "add" ? "to add" : "to update";
      const kept =
        ready.kept === 0 ? "" : `, ${ready.kept} unchanged ${ready.kept === 1 ? "file" : "files"} kept`;
      done(
        `${what}: ${filesCount(fetched)} fetched and verified${kept}${ready.warning}`,
        ready.warning !== "",
      );
      return true;
    });
    let written = before;
    const record = async (skills: Record<string, LockedSkill>) => {
      const source = sourceAfter(options, before, skills, refusedSkills(steps, refused));
      if (source !== written) await staging.writeLock(withSource(lock, source));
      written = source;
    };
    await record(lockedSkills(steps, staged, failed, true));
    for (const [name, { dir, replacing }] of staged) {
      try {
        await staging.swapIn(name, dir, replacing);
      } catch (error) {
        failed.add(name);
        staged.delete(name);
        progress.note(`${name}: skipped: cannot be put in place: ${(error as Error).message}`);
      }
    }
    // With --pack, a skill moved to a pack outside the scope is still served, only not there.
    const why =
      packsChanged || options.scope.packs.length > 0
        ? "not served in the packs asked for"
        : "no longer served";
    for (const step of steps) {
      if (step.kind !== "remove") continue;
      if (step.installed === undefined) {
        // Counted as removed like the others, so named like them.
        progress.note(`${step.name}: removed (${why}; its folder was already gone)`);
        continue;
      }
      try {
        await staging.remove(step.name);
        progress.note(`${step.name}: removed (${why})`);
      } catch (error) {
        failed.add(step.name);
        progress.note(`${step.name}: skipped: cannot be removed: ${(error as Error).message}`);
      }
    }
    await record(lockedSkills(steps, staged, failed, false));
    return countDone(steps, failed);
  } finally {
    progress.finish();
    // What was installed is in place either way: a leftover only takes room, and no client reads it.
    const leftOver = await staging.close();
    if (leftOver !== undefined) progress.note(leftOver);
  }
}

/**
 * Whether carrying out `steps` writes anything: a skill to fetch or remove, or a lock that would not say
 * what `before` says. A run that writes nothing needs neither the staging folder nor write access.
 */
function writesAnything(
  options: SyncOptions,
  steps: readonly Step[],
  before: LockSource | undefined,
): boolean {
  if (isOutOfDate(steps)) return true;
  const skills = lockedSkills(steps, new Map(), new Set(), false);
  return sourceAfter(options, before, skills, refusedSkills(steps, new Map())) !== before;
}

/**
 * The lock's record of this server after a run: `before` itself when the run changed nothing in it, so
 * that a lock committed with the skills (--project) stays as it is.
 */
function sourceAfter(
  options: SyncOptions,
  before: LockSource | undefined,
  skills: Record<string, LockedSkill>,
  refused: Record<string, RefusedSkill>,
): LockSource {
  const source = {
    server: options.server.url.href,
    scope: options.scope,
    syncedAt: new Date().toISOString(),
    by: BY,
    skills,
    ...(Object.keys(refused).length === 0 ? {} : { refused }),
  };
  const same =
    before !== undefined &&
    isDeepStrictEqual({ ...before, syncedAt: "", by: "" }, { ...source, syncedAt: "", by: "" });
  return same ? before : source;
}

/** The bytes of the files `entry` lists: what its download holds until it is staged, besides pack files. */
function listedBytes(entry: Skill): number {
  return entry.resources === "dynamic" ? 0 : entry.resources.reduce((sum, file) => sum + file.size, 0);
}

function filesCount(count: number): string {
  return count === 1 ? "1 file" : `${count} files`;
}

/**
 * Fetches, audits and stages one skill, or says why it is not installed. `before`: the copy an update
 * replaces, whose files the entry lists unchanged are taken from the folder, not fetched again.
 */
async function prepare(
  { entry, name }: { readonly entry: Skill; readonly name: string },
  before: InstalledSkill | undefined,
  { folder, allowUnsafe }: SyncOptions,
  context: DownloadContext,
  staging: Staging,
  packRoom: number,
): Promise<
  | { dir: string; installed: InstalledSkill; warning: string; kept: number }
  | { refused: string; audit?: RefusedSkill }
> {
  // Only a file the lock says sync wrote with these bytes; read again, as it may have changed since.
  const installedFile = (file: string, size: number, digest: string) =>
    before?.files[file] === digest
      ? readIfSame(path.join(folder, name, ...file.split("/")), size, digest)
      : Promise.resolve(undefined);
  const download = await downloadSkill(entry, context, installedFile, packRoom);
  if ("refused" in download) return download;
  const { files, packFiles, leftOut } = download.skill;
  const high = auditDownload(name, files, entry.frontmatter).filter(isUnsafe);
  const [first] = high;
  const findings =
    first === undefined
      ? ""
      : `${describeFinding(first)}${high.length > 1 ? ` and ${high.length - 1} more` : ""}`;
  if (first !== undefined && !allowUnsafe) {
    const reason = `a high finding of the audit: ${findings} (--allow-unsafe installs it anyway)`;
    // The same files audit the same: recorded, so that the next runs skip it until the server changes it.
    return {
      refused: reason,
      audit: { uri: entry.uri, served: servedDigest(entry), packFiles, reason, by: BY },
    };
  }
  let dir: string;
  try {
    dir = await staging.stage(name, files);
  } catch (error) {
    return { refused: `cannot be written: ${(error as Error).message}` };
  }
  const written: Record<string, string> = {};
  for (const [file, bytes] of files) written[file] = digestOf(bytes);
  const warnings = [
    ...(first === undefined
      ? []
      : [`installed despite a high finding of the audit (--allow-unsafe): ${findings}`]),
    ...(leftOut.length === 0
      ? []
      : [`left out ${leftOut.length} file(s) it cites, as its SKILL.md now says`]),
  ];
  return {
    dir,
    installed: { uri: entry.uri, served: servedDigest(entry), files: written, packFiles },
    warning: warnings.map((warning) => `; ${warning}`).join(""),
    kept: download.kept,
  };
}

/**
 * The lock's skills after the plan: what each step leaves. `claiming`: before the swaps, each staged
 * skill is claimed with the copy it replaces as `previous`, so that a run killed between two swaps
 * still owns every folder it may have written.
 */
function lockedSkills(
  steps: readonly Step[],
  staged: ReadonlyMap<string, { installed: InstalledSkill }>,
  failed: ReadonlySet<string>,
  claiming: boolean,
): Record<string, LockedSkill> {
  const skills: Record<string, LockedSkill> = {};
  for (const step of steps) {
    const fresh = staged.get(step.name)?.installed;
    switch (step.kind) {
      case "add":
      case "update": {
        const old = step.kind === "add" ? step.owned : step.installed;
        if (fresh === undefined) {
          if (old !== undefined) skills[step.name] = old;
        } else {
          skills[step.name] = claiming && old !== undefined ? { ...fresh, previous: old } : fresh;
        }
        break;
      }
      case "keep":
        skills[step.name] = step.installed;
        break;
      case "remove":
        if (claiming || failed.has(step.name)) {
          if (step.installed !== undefined) skills[step.name] = step.installed;
        }
        break;
      case "skip":
        if (step.keep !== undefined) skills[step.name] = step.keep;
        break;
    }
  }
  return skills;
}

/** The refusals the lock records after the plan: those still true, and those of this run. */
function refusedSkills(
  steps: readonly Step[],
  refusedNow: ReadonlyMap<string, RefusedSkill>,
): Record<string, RefusedSkill> {
  const refused: Record<string, RefusedSkill> = {};
  for (const step of steps) {
    const record = step.kind === "skip" ? step.refused : refusedNow.get(step.name);
    if (record !== undefined) refused[step.name] = record;
  }
  return refused;
}

function countDone(steps: readonly Step[], failed: ReadonlySet<string>): SyncCounts {
  const counts = { added: 0, updated: 0, removed: 0, skipped: 0, unchanged: 0 };
  for (const step of steps) {
    if (step.kind === "skip" || failed.has(step.name)) counts.skipped += 1;
    else if (step.kind === "add") counts.added += 1;
    else if (step.kind === "update") counts.updated += 1;
    else if (step.kind === "remove") counts.removed += 1;
    else counts.unchanged += 1;
  }
  return counts;
}

/** The skill name a SKILL.md URI ends in, decoded; undefined when it is not such a URI. */
function nameOfUri(uri: string): string | undefined {
  const suffix = "/SKILL.md";
  if (!uri.endsWith(suffix)) return undefined;
  const root = uri.slice(0, -suffix.length);
  try {
    return decodeURIComponent(root.slice(root.lastIndexOf("/") + 1));
  } catch {
    return undefined;
  }
}
