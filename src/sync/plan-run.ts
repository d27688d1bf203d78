import { lstat, readFile } from "node:fs/promises";
import path from "node:path";
import { ProtocolError } from "@modelcontextprotocol/client";
import { SKILL_LIMITS, type Skill, type SkillListing } from "@modelcontextprotocol/client/ext/skills";
import { ByteBudget } from "../budget/index.js";
import { digestOf } from "../catalog/index.js";
import { adoptionCandidates, readAdoptable } from "./adopt.js";
import { forEachLimited } from "./at-once.js";
import { type NoAnswer, noAnswer, readFailure } from "./connect-failure.js";
import { MAX_ANSWER_BYTES } from "./connection.js";
import { citedFilesCurrent } from "./download.js";
import { holdsExactly, lstatOrUndefined, MAX_COPY_BYTES, namesIn, readFolderState } from "./folder.js";
import { packOfUri, servedByTools } from "./left-out.js";
import type { InstalledSkill, Lock, LockedSkill, LockSource } from "./lock.js";
import { SyncError, type SyncOptions, syncedBy } from "./options.js";
import { withPackRoom } from "./pack-room.js";
import { relativePathProblem } from "./paths.js";
import {
  type AdoptionUnanswered,
  isCurrent,
  type OwnedState,
  planSync,
  type RefusedEntry,
  type Step,
  servingUnsaid,
  type UnreadableFile,
} from "./plan.js";
import { CitedFileUnreadable, type DownloadContext, type PackLookup, readPackFile } from "./reads.js";

/**
 * The plan of this run: what the folder holds under each name the lock gives this server, what the
 * server answers for the skills it no longer lists, and which installed skills' cited files changed;
 * planSync decides from these.
 */
export async function planRun(
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
    else if (byTools !== false) unsure.set(name, noAnswer(context.server, byTools.failed));
  }
  // A check or a dry run would call the folder up to date, or plan nothing for it, while the server may
  // no longer serve it (a sync would remove it once the server answers): it cannot tell, as for a cited
  // file unanswered. A sync leaves the skill alone, and says why.
  const [firstUnsure] = unsure;
  if (firstUnsure !== undefined && options.mode !== "sync") {
    const [name, unsaid] = firstUnsure;
    throw new SyncError(
      `cannot tell whether ${name} is up to date: ${servingUnsaid(unsaid)}${tryAgain(unsaid.hint)}`,
    );
  }
  // Not with --allow-unsafe. Another version's audit may judge otherwise: a sync audits the skill again,
  // while a check takes its word, lest one pinned in CI call a lock another version wrote out of date.
  const refusals = new Map(
    Object.entries(source?.refused ?? {}).filter(
      ([, refused]) => !options.allowUnsafe && (options.mode !== "sync" || refused.by === syncedBy()),
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
  const adoptable = await adoptableSkills(listed, owned, ownedElsewhere, taken, options, context);
  return planSync({
    listed,
    refused,
    owned,
    taken,
    ownedElsewhere,
    adoptable,
    unsure,
    stillServed,
    refusals,
    citedChanged,
    packDigests,
  });
}

/**
 * The folders sync does not own that hold exactly what it would install now from this server, with the
 * record each would get. A check or a dry run that cannot read a file one cites cannot tell whether a sync
 * would adopt it, and names the first such skill by name, whichever read failed first; a sync leaves it
 * skipped, and tries again next run.
 */
async function adoptableSkills(
  listed: readonly Skill[],
  owned: ReadonlyMap<string, OwnedState>,
  ownedElsewhere: ReadonlyMap<string, string>,
  taken: ReadonlySet<string>,
  options: SyncOptions,
  context: DownloadContext,
): Promise<Map<string, InstalledSkill | UnreadableFile | AdoptionUnanswered>> {
  const candidates = adoptionCandidates(listed, new Set(owned.keys()), new Set(ownedElsewhere.keys()), taken);
  const outcomes = await readAdoptable(candidates, options.folder, options.allowUnsafe, context);
  const adoptable = new Map<string, InstalledSkill | UnreadableFile | AdoptionUnanswered>();
  for (const [name, outcome] of [...outcomes].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    if (!(outcome instanceof CitedFileUnreadable)) adoptable.set(name, outcome);
    else if (options.mode !== "sync") throw cannotTell(name, outcome, context.server);
    else adoptable.set(name, { unanswered: unanswered(outcome, context.server) });
  }
  return adoptable;
}

/** An installed skill served as it was installed: whether the files it cites changed is still to see. */
interface CitedCheck {
  readonly name: string;
  readonly entry: Skill;
  readonly installed: InstalledSkill;
}

/** Skills whose cited files are checked at once; their reads share PackReads' bound on requests. */
const PARALLEL_CHECKS = 8;

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
    if (outcome instanceof CitedFileUnreadable && options.mode !== "sync")
      throw cannotTell(name, outcome, context.server);
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
    const refused = refusedFile(current);
    if (refused !== undefined) {
      // Not read: whether it is there is all sync looks at, by the skill's name, which the lock checked.
      const there = await lstatOrUndefined(path.join(folder, name));
      states.set(
        name,
        there === undefined
          ? { kind: "missing", locked: current }
          : { kind: "refusedPath", locked: current, ...refused },
      );
      continue;
    }
    const maxFiles = Math.max(Object.keys(current.files).length, Object.keys(previous?.files ?? {}).length);
    const state = await readFolderState(folder, name, { maxFiles, maxBytes: MAX_COPY_BYTES });
    if (holdsExactly(state, current.files)) states.set(name, { kind: "installed", installed: current });
    // A previous copy of such files is none this run takes the folder for: a run that installed this copy
    // where that one's folder was gone claimed it as previous, and was stopped before the lock dropped it.
    else if (
      previous !== undefined &&
      refusedFile(previous) === undefined &&
      holdsExactly(state, previous.files)
    ) {
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
 * The first file of `installed` whose path this version would not write (an older sync's: `aux.txt`), with
 * why, or undefined.
 */
function refusedFile(installed: InstalledSkill): { path: string; problem: string } | undefined {
  for (const file of Object.keys(installed.files)) {
    const problem = relativePathProblem(file);
    if (problem !== undefined) return { path: file, problem };
  }
  return undefined;
}

/**
 * Owned skills the listing does not hold, asked for by URI: a listing may be partial, so a skill goes
 * only when the server says it serves nothing there; any other failure leaves it alone.
 */
async function askUnlisted(
  context: DownloadContext,
  unlisted: readonly (readonly [string, OwnedState])[],
): Promise<{ served: Skill[]; unsure: Map<string, NoAnswer> }> {
  const served: Skill[] = [];
  const unsure = new Map<string, NoAnswer>();
  for (const [name, state] of unlisted) {
    const uri = state.kind === "installed" ? state.installed.uri : state.locked.uri;
    try {
      const { skill } = await context.skills.get(uri);
      if (skill.frontmatter.name === name) served.push(skill);
      else unsure.set(name, { why: `${uri} is now named ${skill.frontmatter.name}`, through: "", hint: "" });
    } catch (error) {
      if (!(error instanceof ProtocolError)) unsure.set(name, noAnswer(context.server, error));
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
  const reads = new Map<string, Promise<PackLookup | CitedFileUnreadable | undefined>>();
  for (const [, refused] of refusals) {
    for (const { uri } of Object.values(refused.packFiles)) {
      if (reads.has(uri)) continue;
      // Read whole, as a download would: a digest of part of it would say it changed.
      const read = readPackFile(uri, MAX_ANSWER_BYTES, context).catch((error: unknown) =>
        error instanceof CitedFileUnreadable ? error : undefined,
      );
      reads.set(uri, read);
    }
  }
  const outcomes = new Map<string, PackLookup | CitedFileUnreadable | undefined>();
  for (const [uri, read] of reads) outcomes.set(uri, await read);
  const digests = new Map<string, string | undefined>();
  for (const [name, refused] of refusals) {
    for (const { uri } of Object.values(refused.packFiles)) {
      const outcome = outcomes.get(uri);
      if (mode !== "sync" && outcome instanceof CitedFileUnreadable)
        throw cannotTell(name, outcome, context.server);
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
function cannotTell(name: string, error: CitedFileUnreadable, server: URL): SyncError {
  return new SyncError(`cannot tell whether ${name} is up to date: ${unanswered(error, server)}`);
}

/** What went unanswered of a cited file, and what to do about it. */
function unanswered(error: CitedFileUnreadable, server: URL): string {
  const { said, hint } = readFailure(error, server);
  return `${said}${tryAgain(hint)}`;
}

/** What a check that cannot tell says to do: try again, once what `hint` says to check of the proxy is done. */
function tryAgain(hint: string): string {
  return hint === "" ? "; try again when the server answers" : `${hint}, then try again`;
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
