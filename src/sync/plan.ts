import type { Skill } from "@modelcontextprotocol/client/ext/skills";
import { digestOf, nameRuleViolation } from "../catalog/index.js";
import { compareText, portableNameProblem, visible } from "../shared/index.js";
import type { NoAnswer } from "./connect-failure.js";
import { entryProblem } from "./listed-files.js";
import type { InstalledSkill, RefusedSkill } from "./lock.js";

/** What the target folder holds under a name sync owns. */
export type OwnedState =
  /** Exactly what sync wrote: the lock's files, or the previous ones of an update a killed run left. */
  | { readonly kind: "installed"; readonly installed: InstalledSkill }
  | { readonly kind: "missing"; readonly locked: InstalledSkill }
  /** Something else: edited, replaced by a symlink, grown. Sync leaves it alone. */
  | { readonly kind: "changed"; readonly locked: InstalledSkill; readonly reason: string }
  /**
   * A copy whose record names a file this version would not write (`aux.txt`, `git~1/hooks/pre-commit`:
   * an older sync wrote it), `problem` saying why: neither read nor touched, since that name may open
   * another file on this system (a device, `.git`), nor can sync tell what it wrote from what is there.
   */
  | {
      readonly kind: "refusedPath";
      readonly locked: InstalledSkill;
      readonly path: string;
      readonly problem: string;
    };

/** One thing a sync does, or would do, to one skill. */
export type Step =
  /** `owned`: a skill sync installed whose folder is gone, installed again. */
  | { readonly kind: "add"; readonly name: string; readonly entry: Skill; readonly owned?: InstalledSkill }
  | {
      readonly kind: "update";
      readonly name: string;
      readonly entry: Skill;
      readonly installed: InstalledSkill;
    }
  | { readonly kind: "keep"; readonly name: string; readonly installed: InstalledSkill }
  /**
   * A folder sync did not install that holds exactly what it would install now (its lock file lost, or
   * the skills copied by hand): recorded in the lock as `installed`, its files left as they are.
   */
  | { readonly kind: "adopt"; readonly name: string; readonly installed: InstalledSkill }
  /** `installed` undefined: the folder is gone already, only the lock entry goes. */
  | { readonly kind: "remove"; readonly name: string; readonly installed?: InstalledSkill }
  /**
   * Left as it is; `keep` stays in the lock, and `refused` too (the last sync's refusal, still true).
   * `lockedRefusedPath`: the file the lock records for this served skill that this version refuses to
   * write or read (see OwnedState `refusedPath`). `name` is the entry's URI when it has no usable name.
   */
  | {
      readonly kind: "skip";
      readonly name: string;
      readonly reason: string;
      readonly keep?: InstalledSkill;
      readonly refused?: RefusedSkill;
      readonly lockedRefusedPath?: string;
    };

/** An entry the SDK refused (or that is not a skill sync can name). */
export interface RefusedEntry {
  readonly name: string | undefined;
  readonly uri: string | undefined;
  readonly reason: string;
}

interface PlanInput {
  /** The server's skills in scope: its listing, and those it still serves by URI though unlisted. */
  readonly listed: readonly Skill[];
  readonly refused: readonly RefusedEntry[];
  /** Every name sync owns in the folder, with what is there now. */
  readonly owned: ReadonlyMap<string, OwnedState>;
  /** Names in the folder that sync does not own (lowercase): local skills, other servers' skills, files. */
  readonly taken: ReadonlySet<string>;
  /** Names that sync installed here from another server, with that server's URL. */
  readonly ownedElsewhere: ReadonlyMap<string, string>;
  /**
   * Names in `taken` whose folder holds exactly what a sync would install now from this server (see
   * adoptable), with the record a fresh install would make; or where a file of that copy cannot be read
   * in the folder, which and why (the folder may be the copy: the check cannot tell); or, in a sync, where
   * the server did not answer for a file the skill cites, what went unanswered.
   */
  readonly adoptable: ReadonlyMap<string, InstalledSkill | UnreadableFile | AdoptionUnanswered>;
  /** Owned names the server could not be asked about, with why: nothing is removed on a guess. */
  readonly unsure: ReadonlyMap<string, NoAnswer>;
  /** Owned names the extension no longer lists but the server's tools still serve: kept, not removed. */
  readonly stillServed: ReadonlySet<string>;
  /**
   * What the last sync refused to install, by name: a skill served as it was then is skipped again, not
   * fetched. Only refusals that still hold: none with --allow-unsafe, and for a sync none another
   * version made.
   */
  readonly refusals: ReadonlyMap<string, RefusedSkill>;
  /**
   * Installed skills, served as they were, whose copy a download now would change: a pack file they hold
   * changed or gone, a file they cite served since, or one that cannot be read.
   */
  readonly citedChanged: ReadonlySet<string>;
  /** The digest of each pack file the refused skills cited, as the server serves it now (undefined: gone). */
  readonly packDigests: ReadonlyMap<string, string | undefined>;
}

/**
 * Why the server could not say whether it still serves a skill sync installed: through the environment's
 * proxy, the proxy named, which may be the one that failed (its hint follows, as in the other lines).
 */
export function servingUnsaid(unsure: NoAnswer): string {
  return unsure.through === ""
    ? `the server could not say whether it still serves it (${unsure.why})`
    : `no answer came${unsure.through} to whether the server still serves it (${unsure.why})`;
}

/** The digest of an entry's files as listed (URIs and digests): what the lock compares to see a change. */
export function servedDigest(entry: Skill): string {
  const lines =
    entry.resources === "dynamic" ? ["dynamic"] : entry.resources.map((r) => `${r.uri} ${r.digest}`);
  return digestOf(Buffer.from(lines.sort().join("\n")));
}

/**
 * What a sync does, skill by skill, sorted by name: adds what the server serves and the folder lacks,
 * updates what changed on the server, removes what sync installed that the server no longer serves,
 * adopts a folder it did not install that holds exactly the server's copy, and leaves everything else as
 * it is: other folders it did not install, skills changed locally, names the server serves twice or badly.
 */
export function planSync(input: PlanInput): Step[] {
  const steps: Step[] = [];
  const byName = new Map<string, Skill[]>();
  for (const entry of input.listed) {
    const name = entry.frontmatter.name;
    const same = byName.get(name);
    if (same === undefined) byName.set(name, [entry]);
    else same.push(entry);
  }
  for (const [name, entries] of byName) steps.push(stepFor(name, entries, input));
  for (const refused of input.refused) {
    const owned =
      refused.name === undefined || byName.has(refused.name) ? undefined : input.owned.get(refused.name);
    const label =
      refused.name !== undefined && owned !== undefined ? refused.name : (refused.uri ?? "an entry");
    steps.push(skip(label, `the server's entry is refused: ${refused.reason}`, owned));
  }
  const handled = new Set([...byName.keys(), ...input.refused.flatMap((refused) => refused.name ?? [])]);
  for (const [name, owned] of input.owned) {
    if (handled.has(name)) continue;
    const unsure = input.unsure.get(name);
    if (unsure !== undefined) {
      steps.push(skip(name, `${servingUnsaid(unsure)}: left alone${unsure.hint}`, owned));
    } else if (input.stillServed.has(name)) {
      steps.push(
        skip(
          name,
          "the server's tools still serve it, but its Skills extension now leaves it out (see above): left as it is",
          owned,
        ),
      );
    } else if (owned.kind === "changed") {
      // Dropped from the lock: sync will not touch it again, and will not report it every run either.
      steps.push(
        skip(
          name,
          `no longer served, but changed here since sync installed it (${owned.reason}): left in place, no longer managed by sync`,
        ),
      );
    } else if (owned.kind === "refusedPath") {
      // Dropped from the lock as a changed copy is: the folder stays, the user's to review.
      steps.push(
        skip(
          name,
          `no longer served, and ${recordedRefused(owned)}: left in place, unread, no longer managed by sync; look at what it holds, then delete it`,
        ),
      );
    } else {
      steps.push({
        kind: "remove",
        name,
        ...(owned.kind === "installed" ? { installed: owned.installed } : {}),
      });
    }
  }
  return steps.sort((a, b) => compareText(a.name, b.name));
}

function stepFor(name: string, entries: readonly Skill[], input: PlanInput): Step {
  const owned = input.owned.get(name);
  const [entry, ...others] = oneOfCopies(entries, owned);
  if (entry === undefined || others.length > 0) {
    const uris = entries.map((item) => item.uri).join(", ");
    return skip(
      name,
      `the server serves ${entries.length} skills of that name (${uris}); narrow the scope with --pack`,
      owned,
    );
  }
  const violation = nameRuleViolation(name);
  if (violation !== undefined) return skip(entry.uri, `its name ${violation}`, owned);
  const folderProblem = portableNameProblem(name);
  // One an older sync installed is skipped under its name, which the lock keeps it by.
  if (folderProblem !== undefined)
    return skip(
      owned === undefined ? entry.uri : name,
      `its name cannot be a folder: ${folderProblem}`,
      owned,
    );
  if (owned === undefined) {
    const other = input.ownedElsewhere.get(name);
    // Also while its folder is gone (deleted, or a run killed between the two renames of a swap): the
    // other server's next run installs it again, and would find this one's copy in its place.
    if (other !== undefined) {
      const gone = input.taken.has(name)
        ? ""
        : `; its folder is gone: a sync from ${other} installs it again, or drops it from the lock if that server no longer serves it`;
      return skip(
        name,
        `sync installed it here from another server URL, ${other}, which owns it: left alone${gone}`,
      );
    }
    if (!input.taken.has(name)) return unlessRefused({ kind: "add", name, entry }, input);
    const adopted = input.adoptable.get(name);
    if (adopted === undefined) return skip(name, NOT_INSTALLED);
    if ("unreadable" in adopted) return skip(name, notInstalledUnreadable(name, adopted));
    if ("unanswered" in adopted) return skip(name, notInstalledUnanswered(name, adopted));
    return { kind: "adopt", name, installed: adopted };
  }
  switch (owned.kind) {
    case "missing":
      return unlessRefused({ kind: "add", name, entry, owned: owned.locked }, input, owned);
    case "changed":
      return skip(
        name,
        `changed here since sync installed it (${owned.reason}): left alone; delete its folder to get the server's copy`,
        owned,
      );
    case "refusedPath":
      return {
        ...skip(
          name,
          `${recordedRefused(owned)}: left alone, unread; look at what its folder holds, then delete it to get the server's copy`,
          owned,
        ),
        lockedRefusedPath: owned.path,
      };
    case "installed":
      return isCurrent(owned.installed, entry) && !input.citedChanged.has(name)
        ? { kind: "keep", name, installed: owned.installed }
        : unlessRefused({ kind: "update", name, entry, installed: owned.installed }, input, owned);
  }
}

/**
 * `step`, or a skip when sync refuses the entry: from the entry alone (as every run would), or as the
 * last sync refused it, served the same since. Either is no work a check says is left to do.
 */
function unlessRefused(
  step: Extract<Step, { kind: "add" | "update" }>,
  input: PlanInput,
  owned?: OwnedState,
): Step {
  const problem = entryProblem(step.entry);
  if (problem !== undefined) return skip(step.name, problem, owned);
  const refused = input.refusals.get(step.name);
  const packsSame = Object.values(refused?.packFiles ?? {}).every(
    (file) => input.packDigests.get(file.uri) === file.digest,
  );
  if (refused === undefined || !isCurrent(refused, step.entry) || !packsSame) return step;
  const reason = `${refused.reason}; refused by the last sync, and served the same since`;
  return skip(step.name, reason, owned, refused);
}

/**
 * A skill copied into several packs, file for file the same, as one entry: the copy installed before, or
 * the first by URI (a catalog gathered from several repositories holds many such copies). Entries that
 * differ in any file stay apart.
 */
export function oneOfCopies(entries: readonly Skill[], owned: OwnedState | undefined): readonly Skill[] {
  const [first, ...rest] = entries;
  if (first === undefined || rest.length === 0) return entries;
  const files = filesOf(first);
  if (files === undefined || rest.some((entry) => filesOf(entry) !== files)) return entries;
  const before =
    owned === undefined ? undefined : owned.kind === "installed" ? owned.installed : owned.locked;
  const copy =
    entries.find((entry) => entry.uri === before?.uri) ??
    [...entries].sort((a, b) => compareText(a.uri, b.uri))[0];
  return copy === undefined ? entries : [copy];
}

/** An entry's files by their paths in the skill, with their digests; undefined for a dynamic one. */
function filesOf(entry: Skill): string | undefined {
  if (entry.resources === "dynamic") return undefined;
  const root = entry.uri.slice(0, entry.uri.lastIndexOf("/") + 1);
  return entry.resources
    .map((file) => `${file.uri.startsWith(root) ? file.uri.slice(root.length) : file.uri} ${file.digest}`)
    .sort()
    .join("\n");
}

/** Which file of a {@link OwnedState} `refusedPath` this version refuses, and why, in words. */
function recordedRefused(owned: Extract<OwnedState, { kind: "refusedPath" }>): string {
  return `the lock file records its file ${JSON.stringify(visible(owned.path))}, which an older sync wrote and this one no longer writes or reads (${owned.problem})`;
}

/** Whether `entry` lists the files `installed` was made from (its pack files aside). */
export function isCurrent(installed: Pick<InstalledSkill, "uri" | "served">, entry: Skill): boolean {
  return installed.uri === entry.uri && installed.served === servedDigest(entry);
}

/** How the reasons of a skill whose folder is there but not in the lock start. */
export const NOT_INSTALLED_THERE = "a folder or file of that name that sync did not install is there";

/** Why a skill whose folder is there but not in the lock is skipped. */
export const NOT_INSTALLED = `${NOT_INSTALLED_THERE}: left alone; move it away to get the server's copy`;

/**
 * Why such a skill is skipped when a file of the server's copy cannot be read in its folder: the folder
 * may be the copy (its lock file lost), so what is wrong is said, and how to have it adopted when it can be.
 */
function notInstalledUnreadable(name: string, { unreadable, cause, problem }: UnreadableFile): string {
  const cannot = `${NOT_INSTALLED_THERE}, and sync cannot read ${name}/${unreadable} in it: ${problem}; left alone`;
  return cause === "folder"
    ? `${cannot}: move ${name} away to get the server's copy`
    : `${cannot}: let the user sync runs as read it (sync then adopts the folder if it holds the server's copy), ` +
        `or move ${name} away to get the server's copy`;
}

/**
 * A file the server's copy holds that the folder has at its path but sync cannot read there (permission
 * denied, a folder in its place): the folder may be that copy, but the check cannot tell.
 */
export interface UnreadableFile {
  /** Its path in the skill's folder. */
  readonly unreadable: string;
  /** `folder`: a folder is in its place; `denied`: sync may not read it, or a folder above it. */
  readonly cause: "folder" | "denied";
  /** What is wrong, in words (`permission denied (EACCES)`). */
  readonly problem: string;
}

/**
 * A folder sync did not install, checked for adoption by a sync while the server did not answer for a file
 * the skill cites: what went unanswered, in words, and what to do (`…; try again when the server answers`).
 */
export interface AdoptionUnanswered {
  readonly unanswered: string;
}

/**
 * Why such a skill is skipped when the server did not answer for a file it cites: the folder may well be
 * the server's copy, which the next sync adopts once the server answers, so moving it away is no advice.
 */
function notInstalledUnanswered(name: string, { unanswered }: AdoptionUnanswered): string {
  return `${NOT_INSTALLED_THERE}: left alone; sync cannot tell whether ${name} holds the server's copy (which it would adopt): ${unanswered}`;
}

/** Why a folder sync did not install is adopted: as the plan and the progress say it. */
export const ADOPTED = "it holds exactly the server's copy";

/** A skip, keeping in the lock what sync owns under that name, if anything, and a refusal still true. */
function skip(
  name: string,
  reason: string,
  owned?: OwnedState,
  refused?: RefusedSkill,
): Extract<Step, { kind: "skip" }> {
  const keep = owned === undefined ? undefined : owned.kind === "installed" ? owned.installed : owned.locked;
  return {
    kind: "skip",
    name,
    reason,
    ...(keep === undefined ? {} : { keep }),
    ...(refused === undefined ? {} : { refused }),
  };
}

/** Whether the folder lacks what a sync would bring: anything to add, update or remove. */
export function isOutOfDate(steps: readonly Step[]): boolean {
  return steps.some((step) => step.kind === "add" || step.kind === "update" || step.kind === "remove");
}

/**
 * The served skills whose lock record names a file this version refuses (an older sync wrote it): a sync
 * skips them every run, never bringing them in step with the server, until the user deletes the folder. A
 * check counts them out of date, unlike a refusal of the audit, which waits on the server, not the user.
 */
export function lockedRefusedPaths(steps: readonly Step[]): number {
  return steps.filter((step) => step.kind === "skip" && step.lockedRefusedPath !== undefined).length;
}
