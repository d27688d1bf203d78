import path from "node:path";
import { isDeepStrictEqual } from "node:util";
import { ProtocolError } from "@modelcontextprotocol/client";
import { SKILL_LIMITS, type Skill } from "@modelcontextprotocol/client/ext/skills";
import { isUnsafe } from "../audit/index.js";
import { ByteBudget } from "../budget/index.js";
import { digestOf, SKILL_DOCUMENT } from "../catalog/index.js";
import { errorMessage, plural } from "../shared/index.js";
import { changedSinceAdopted } from "./adopt.js";
import { forEachInOrder } from "./at-once.js";
import { auditDownload, describeFinding } from "./audit.js";
import { type NoAnswer, noAnswer } from "./connect-failure.js";
import { downloadSkill } from "./download.js";
import { readIfSame } from "./folder.js";
import {
  type InstalledSkill,
  type Lock,
  type LockedSkill,
  type LockSource,
  type RefusedSkill,
  withSource,
} from "./lock.js";
import { SyncError, type SyncOptions, syncedBy } from "./options.js";
import { outOfFiles } from "./out-of-files.js";
import { PARALLEL_DOWNLOADS, withPackRoom } from "./pack-room.js";
import { ADOPTED, isOutOfDate, type Step, servedDigest } from "./plan.js";
import type { DownloadContext } from "./reads.js";
import { renameRefused } from "./rename-refused.js";
import { type MovedAside, Staging } from "./staging.js";
import { VerifiedFiles } from "./verified.js";

/** What a run holding the folder's run lock carries with it. */
export interface RunHold {
  /** The run's record of the copies it moves aside, which its stop signal's handler puts back. */
  readonly movedAside: MovedAside;
  /**
   * Throws (a SyncError saying so) when another run has taken the run lock over since. Synchronous: called
   * right before each rename that changes the folder, with nothing else of the process run in between.
   */
  stillHeld(): void;
  /** Runs the staging folder's cleanup with the files set aside for the run's end given back (RunLock.withRoom). */
  withRoom<T>(use: () => T): T;
}

export interface SyncCounts {
  readonly added: number;
  readonly updated: number;
  readonly removed: number;
  /** Folders sync did not install, holding exactly the server's copy, recorded as installed. */
  readonly adopted: number;
  readonly skipped: number;
  readonly unchanged: number;
}

/**
 * Carries out the plan. Every skill to add or update is fetched, checked and audited, and written to
 * the staging folder first; then the lock claims them (with what each replaces), each is swapped in whole,
 * the skills to remove go, and the lock is written as the folder now is. A run killed at any point
 * leaves every skill old or new, and the next run finishes the work.
 */
export async function apply(
  options: SyncOptions,
  steps: readonly Step[],
  context: DownloadContext,
  lock: Lock | undefined,
  before: LockSource | undefined,
  packsChanged: boolean,
  hold: RunHold,
): Promise<SyncCounts> {
  const { folder, progress } = options;
  const fetches = steps.filter((step) => step.kind === "add" || step.kind === "update");
  const server = options.server.url.href;
  const staging = await Staging.open(folder, server, hold.movedAside);
  // Until the skills are put in place, a run that ends (a failure, a signal) keeps the files it verified.
  let keepVerified = true;
  // Another run took over the run lock: the staging folder is that run's too, and only this run's part goes.
  let lost = false;
  let unread = false;
  try {
    const verified = await VerifiedFiles.open(staging.parent, server, listedDigests(fetches));
    const staged = new Map<
      string,
      { dir: string; installed: InstalledSkill; replacing: InstalledSkill | undefined }
    >();
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
        prepare(step, installed, options, context, staging, verified, packRoom),
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
        const more = plural(rest.length, "more skill");
        progress.note(notAnsweredLine(gone, more));
        return false;
      }
      // An update replaces what sync installed; a skill installed again after its folder went replaces nothing.
      staged.set(step.name, { ...ready, replacing: step.kind === "update" ? step.installed : undefined });
      const fetched = Object.keys(ready.installed.files).length - ready.kept;
      const what = step.kind === "add" ? "to add" : "to update";
      const unchanged = ready.kept - ready.resumed;
      const kept = unchanged === 0 ? "" : `, ${plural(unchanged, "unchanged file")} kept`;
      const resumed =
        ready.resumed === 0 ? "" : `, ${plural(ready.resumed, "file")} verified by an earlier run reused`;
      done(
        `${what}: ${plural(fetched, "file")} fetched and verified${kept}${resumed}${ready.warning}`,
        ready.warning !== "",
      );
      return true;
    });
    const stillHeld = () => {
      try {
        hold.stillHeld();
      } catch (error) {
        lost = true;
        // Not another run's (a SyncError saying so), but a lock that could not be read (EMFILE): read
        // again once the run has room, at its end, rather than leave its staging folder to no other run.
        unread = !(error instanceof SyncError);
        throw error;
      }
    };
    // Read again, as fetching may have taken hours: a folder changed meanwhile is the user's, not adopted.
    for (const step of steps) {
      if (step.kind !== "adopt") continue;
      const changed = await changedSinceAdopted(folder, step.name, step.installed);
      if (changed === undefined) progress.note(`${step.name}: adopted: ${ADOPTED}`);
      else {
        failed.add(step.name);
        progress.note(
          `${step.name}: skipped: changed here while sync ran (${changed}): left alone, not adopted`,
        );
      }
    }
    // Fetching may take hours: the lock is checked before the first write to the folder, and again right
    // before each rename that moves a skill or the lock file (with nothing of this process run in between),
    // so that a run that lost it stops there, as if killed between two swaps (the claim below owns the
    // rest). What is left: another run taking it over between that check and the rename, a few system
    // calls, which needs this process to stand still right there past the lease (or a sync of an older
    // skills-mcp, which took over live locks); that skill is then moved, and the run stops at the next.
    stillHeld();
    let written = before;
    const record = async (skills: Record<string, LockedSkill>) => {
      const source = sourceAfter(options, before, skills, refusedSkills(steps, refused));
      if (source !== written) await staging.writeLock(withSource(lock, source), stillHeld);
      written = source;
    };
    await record(lockedSkills(steps, staged, failed, true));
    for (const [name, { dir, replacing }] of staged) {
      try {
        await staging.swapIn(name, dir, replacing, stillHeld);
      } catch (error) {
        if (lost) throw error;
        failed.add(name);
        staged.delete(name);
        progress.note(`${name}: skipped: cannot be put in place: ${whyNotMoved(error)}`);
      }
    }
    // Put in place: what is left kept are the files of skills fetched past one the server stopped
    // answering for, which the next run takes from there.
    const putInPlace = [...staged.values()].flatMap(({ installed }) => Object.values(installed.files));
    keepVerified = !(await verified.forget(putInPlace));
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
        await staging.remove(step.name, step.installed, stillHeld);
        progress.note(`${step.name}: removed (${why})`);
      } catch (error) {
        if (lost) throw error;
        failed.add(step.name);
        progress.note(`${step.name}: skipped: cannot be removed: ${whyNotMoved(error)}`);
      }
    }
    await record(lockedSkills(steps, staged, failed, false));
    return countDone(steps, failed);
  } finally {
    progress.finish();
    // Ended first: its connections, which under a low limit hold every file the cleanup would open, close,
    // and the reads of a skill abandoned when another of its reads failed open none (see connect). The
    // files set aside make the cleanup's room, done synchronously, so that nothing else of the process
    // takes them first. One that fails to close opens nothing more either: the cleanup goes on.
    await context.client.close().catch(() => undefined);
    const leftOver = hold.withRoom(() => {
      if (unread) lost = !stillOurs(hold);
      // What was installed is in place either way: a leftover only takes room, and no client reads it.
      return lost ? staging.removeOwn() : staging.close(keepVerified);
    });
    if (leftOver !== undefined) progress.note(leftOver);
  }
}

/**
 * Why a skill's folder could not be moved (swapped or removed), and, where the system refused the rename
 * (EPERM, EBUSY), what to do: the system's words do not say.
 */
function whyNotMoved(error: unknown): string {
  const { message } = error as Error;
  const advice = renameRefused(error, "a file in it");
  return advice === undefined ? message : `${message}; ${advice}`;
}

/** Whether the run lock still names this run, as `hold` reads it now. */
function stillOurs(hold: RunHold): boolean {
  try {
    hold.stillHeld();
    return true;
  } catch {
    return false;
  }
}

/**
 * What a run that gets no answer (`gone`) says of the `more` skills it does not fetch: a connection it
 * could not open for want of a file descriptor is no sign of the server; one through the environment's
 * proxy names the proxy, which may be the one that stopped, and what to check.
 */
function notAnsweredLine(gone: NoAnswer, more: string): string {
  const out = outOfFiles(gone.why);
  if (out !== undefined) {
    return `${out.who}, not the server (${gone.why}): ${more} not fetched; ${out.fix} and run sync again`;
  }
  return gone.through === ""
    ? `the server stopped answering (${gone.why}): ${more} not fetched; run sync again when it is back`
    : `no answer came${gone.through} (${gone.why}): ${more} not fetched${gone.hint}, then run sync again`;
}

/**
 * Why the server does not answer a request for the skill at `uri` (a small one, in every protocol era),
 * or undefined when it answers: an error it sends is an answer.
 */
async function notAnswering(context: DownloadContext, uri: string): Promise<NoAnswer | undefined> {
  try {
    await context.skills.get(uri);
    return undefined;
  } catch (error) {
    return error instanceof ProtocolError ? undefined : noAnswer(context.server, error);
  }
}

/**
 * Whether carrying out `steps` writes anything: a skill to fetch or remove, or a lock that would not say
 * what `before` says. A run that writes nothing needs neither the staging folder nor write access.
 */
export function writesAnything(
  options: SyncOptions,
  steps: readonly Step[],
  before: LockSource | undefined,
): boolean {
  return isOutOfDate(steps) || lockChangeAlone(options, steps, before) !== undefined;
}

/**
 * Why a sync would rewrite the lock's record of this server though it would change no skill's folder
 * (records of skills it no longer manages dropped, the scope asked for), or undefined when it would not.
 * A lock committed with the skills (--project) would change: a check tells it apart from up to date.
 */
export function lockChangeAlone(
  options: SyncOptions,
  steps: readonly Step[],
  before: LockSource | undefined,
): string | undefined {
  if (isOutOfDate(steps)) return undefined;
  const skills = lockedSkills(steps, new Map(), new Set(), false);
  const after = sourceAfter(options, before, skills, refusedSkills(steps, new Map()));
  if (after === before) return undefined;
  if (before === undefined) return "it would record this server, which it does not yet";
  const dropped = Object.keys(before.skills).filter((name) => !(name in after.skills));
  const adopted = steps.flatMap((step) => (step.kind === "adopt" ? [step.name] : []));
  const why = [
    ...(adopted.length === 0 ? [] : [`it would record ${adopted.join(", ")} as installed from this server`]),
    ...(dropped.length === 0 ? [] : [`it would no longer record ${dropped.join(", ")}`]),
    ...(isDeepStrictEqual(before.scope, after.scope) ? [] : ["it would record the scope asked for now"]),
    ...(isDeepStrictEqual(before.refused ?? {}, after.refused ?? {})
      ? []
      : ["it would record the audit's refusals as they stand now"]),
  ];
  return why.length === 0 ? "it would rewrite its record of this server" : why.join("; ");
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
    by: syncedBy(),
    skills,
    ...(Object.keys(refused).length === 0 ? {} : { refused }),
  };
  const same =
    before !== undefined &&
    isDeepStrictEqual({ ...before, syncedAt: "", by: "" }, { ...source, syncedAt: "", by: "" });
  return same ? before : source;
}

/** The digests of the files the skills of `steps` list: those a run may fetch. */
function listedDigests(steps: readonly { readonly entry: Skill }[]): Set<string> {
  const digests = new Set<string>();
  for (const { entry } of steps) {
    if (entry.resources !== "dynamic") for (const file of entry.resources) digests.add(file.digest);
  }
  return digests;
}

/** The bytes of the files `entry` lists: what its download holds until it is staged, besides pack files. */
function listedBytes(entry: Skill): number {
  return entry.resources === "dynamic" ? 0 : entry.resources.reduce((sum, file) => sum + file.size, 0);
}

/**
 * Fetches, audits and stages one skill, or says why it is not installed. `before`: the copy an update
 * replaces, whose files the entry lists unchanged are taken from the folder, not fetched again; so are
 * those an earlier run verified and kept (`resumed`). Its staged files are kept in their turn.
 */
async function prepare(
  { entry, name }: { readonly entry: Skill; readonly name: string },
  before: InstalledSkill | undefined,
  { folder, allowUnsafe }: SyncOptions,
  context: DownloadContext,
  staging: Staging,
  verified: VerifiedFiles,
  packRoom: number,
): Promise<
  | { dir: string; installed: InstalledSkill; warning: string; kept: number; resumed: number }
  | { refused: string; audit?: RefusedSkill }
> {
  let resumed = 0;
  // Only a file the lock says sync wrote with these bytes, or one a stopped run verified; each read
  // again and checked against the entry, as it may have changed since.
  const fileOnDisk = async (file: string, size: number, digest: string) => {
    const here =
      before?.files[file] === digest
        ? await readIfSame(path.join(folder, name, ...file.split("/")), size, digest)
        : undefined;
    if (here !== undefined) return here;
    const kept = await verified.find(size, digest);
    if (kept !== undefined) resumed += 1;
    return kept;
  };
  const download = await downloadSkill(entry, context, fileOnDisk, packRoom);
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
      audit: { uri: entry.uri, served: servedDigest(entry), packFiles, reason, by: syncedBy() },
    };
  }
  let dir: string;
  try {
    dir = await staging.stage(name, files);
  } catch (error) {
    return { refused: `cannot be written: ${errorMessage(error)}` };
  }
  const written: Record<string, string> = {};
  for (const [file, bytes] of files) written[file] = digestOf(bytes);
  // Kept by the digest the entry lists, which a next run checks them against (not SKILL.md: always read).
  const listed = new Set(entry.resources === "dynamic" ? [] : entry.resources.map((file) => file.digest));
  for (const [file, digest] of Object.entries(written)) {
    if (file !== SKILL_DOCUMENT && listed.has(digest))
      await verified.keep(path.join(dir, ...file.split("/")), digest);
  }
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
    resumed,
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
      case "adopt":
        if (!failed.has(step.name)) skills[step.name] = step.installed;
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

export function countDone(steps: readonly Step[], failed: ReadonlySet<string>): SyncCounts {
  const counts = { added: 0, updated: 0, removed: 0, adopted: 0, skipped: 0, unchanged: 0 };
  for (const step of steps) {
    if (step.kind === "skip" || failed.has(step.name)) counts.skipped += 1;
    else if (step.kind === "add") counts.added += 1;
    else if (step.kind === "update") counts.updated += 1;
    else if (step.kind === "remove") counts.removed += 1;
    else if (step.kind === "adopt") counts.adopted += 1;
    else counts.unchanged += 1;
  }
  return counts;
}
