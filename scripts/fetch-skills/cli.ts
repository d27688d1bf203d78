import {
  accessSync,
  existsSync,
  constants as fsConstants,
  lstatSync,
  readlinkSync,
  realpathSync,
  statSync,
} from "node:fs";
import { writeFile } from "node:fs/promises";
import { constants } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { describeArgsError, notWholeNumber, wholeNumberIn } from "../../src/command-line.js";
import { closestBySlip } from "../../src/edit-distance.js";
import { notAFolderOnPath } from "../../src/make-folder.js";
import { DOLLAR_QUOTE_SHELLS, dollarQuoted, quoted, shellWord, visible } from "../../src/visible.js";
import { SOURCE_LIMITS, type SourceLimits } from "./copy.js";
import {
  describeWriteError,
  FetcherError,
  ManifestError,
  oneLine,
  ReviewError,
  SourceError,
  StoppedError,
  UsageError,
} from "./errors.js";
import { type Manifest, readManifest, type SkillSource, stageManifest } from "./manifest.js";
import { type FetchedPack, fetchSkills } from "./output.js";
import { type HeldBack, type Repin, resolveHeads, rewriteRefs, type Unresolved } from "./repin.js";
import { type RepinReview, reviewRepins } from "./review.js";
import { type ReviewedFinding, shortRef } from "./review-contract.js";
import { fetchSummary, repinSummary } from "./summary.js";
import { makeWorkFolder, removeTree } from "./work-folder.js";

/** Everything the CLI touches outside the file system and git, passed in so tests can drive it. */
export interface CliIo {
  readonly cwd: string;
  readonly stdout: (text: string) => void;
  readonly stderr: (text: string) => void;
  readonly now?: () => Date;
  /** The environment: `--update`'s load check takes UNSAFE_SKILLS from it, as check-skills does. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Aborted, with a {@link StoppedError} as its reason, when the run is to stop: its git is stopped. */
  readonly signal?: AbortSignal;
}

const USAGE = `Usage: npm run fetch-skills -- [options]

Fetches the skill packs pinned in skills.toml into a skills folder, all or nothing. Progress goes to
stderr, a Markdown summary to stdout. Exits 1 when the fetch (or the repin) fails, 2 when the command line
is wrong, 128 + the signal's number when stopped by SIGINT or SIGTERM.

Options:
  --manifest FILE   the manifest (default ./skills.toml)
  --out DIR         the skills folder to write (default ./skills)
  --cache DIR       keep a bare git store per repository here; later runs fetch only what is new
  --source NAME     fetch only this source (repeat for more); the others keep what --out holds
  --max-files N     the most files (and folders, and entries left out) one source may bring,
                    symlinked copies counted (default 20000)
  --max-mib N       the most MiB one source may bring, symlinked copies counted (default 512)
  --update          repin: move each ref to the head of its branch (or the remote's HEAD), then fetch
  --no-fetch        with --update: rewrite skills.toml only
  --summary FILE    also write the Markdown summary to FILE
  --findings FILE   with --update: also write the review's audit findings as JSON, each marked new or not
  -h, --help        show this help`;

interface Options {
  readonly manifest: string;
  readonly manifestLabel: string;
  readonly out: string;
  readonly cache: string | undefined;
  readonly sources: readonly string[];
  readonly limits: SourceLimits;
  readonly update: boolean;
  readonly fetch: boolean;
  readonly summary: string | undefined;
  readonly findings: string | undefined;
  readonly help: boolean;
}

/**
 * What `--update` produced: the summary, the review's findings when it fetched, and the sources held back
 * at their pins for a new high finding, each bump for a review of its own.
 */
interface Repinned {
  readonly summary: string;
  readonly findings: readonly ReviewedFinding[];
  readonly heldForReview: readonly HeldBack[];
}

/**
 * Runs the fetcher and returns its exit status: 0 done, 2 wrong usage, 1 failed: nothing written, or,
 * as its message says, everything but the summary file; 128 + the signal when `io.signal` stopped it.
 */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  // Each line shows upstream names as they are, but none can start a line of its own.
  const log = (line: string) => io.stderr(`${visible(line)}\n`);
  let out: string | undefined;
  let fetching: readonly string[] = [];
  try {
    const options = parseOptions(argv, io.cwd);
    if (options.help) {
      io.stdout(`${USAGE}\n`);
      return 0;
    }
    out = options.out;
    const manifest = await readManifest(options.manifest, options.manifestLabel);
    const only = selectSources(manifest, options.sources);
    fetching = manifest.sources
      .map((source) => source.name)
      .filter((name) => only === undefined || only.has(name));
    const now = io.now ?? (() => new Date());
    const plan = {
      only,
      out: options.out,
      cache: options.cache,
      limits: options.limits,
      log,
      now,
      signal: io.signal,
    };
    const { summary, findings, heldForReview } = options.update
      ? await repin(manifest, options, { ...plan, loadCheck: packLoadCheck(io.env ?? {}, io.stderr) })
      : {
          summary: fetchSummary(await fetchSkills({ ...plan, sources: manifest.sources })),
          findings: [],
          heldForReview: [],
        };
    io.stdout(summary);
    const outputs: [string | undefined, string, string][] = [
      [options.summary, "summary", summary],
      [options.findings, "findings", findingsJson(findings, heldForReview)],
    ];
    for (const [file, what, text] of outputs) {
      if (file === undefined) continue;
      try {
        await writeFile(file, text);
      } catch (error) {
        // Checked before any work, so this is rare (a full disk); the skills are already in place.
        log(
          `fetch-skills: the fetch is done, but the ${what} could not be written to ${file}: ${describeWriteError(error)}`,
        );
        return 1;
      }
    }
    return 0;
  } catch (error) {
    // Whatever failed once git was stopped failed because of it; the work folder is gone by now.
    const stopped = io.signal?.aborted ? io.signal.reason : undefined;
    if (stopped instanceof StoppedError) {
      const kept = out !== undefined && existsSync(out) ? `; ${out} is as it was` : "";
      const written =
        error instanceof ReviewError
          ? `${error.written} hold the new commits, but the review was not done`
          : `nothing written${kept}`;
      log(`fetch-skills: ${stopped.message}: ${written}`);
      return 128 + constants.signals[stopped.signal];
    }
    if (error instanceof UsageError) {
      io.stderr(`fetch-skills: ${visible(error.message)}\n\n${USAGE}\n`);
      return 2;
    }
    if (!(error instanceof FetcherError)) throw error;
    const lines = error instanceof ManifestError ? error.problems : [error.message];
    for (const line of lines) log(`fetch-skills: ${line}`);
    if (error instanceof ReviewError) {
      // A bug's stack as it is, for its report: each frame a line of its own.
      if (!(error.cause instanceof FetcherError) && error.cause instanceof Error)
        io.stderr(`${error.cause.stack}\n`);
      return 1;
    }
    const kept = out !== undefined && existsSync(out) ? `; ${out} is as it was` : "";
    log(`fetch-skills: nothing written${kept}`);
    if (error instanceof SourceError) {
      const others = fetching.filter((name) => name !== error.source);
      if (others.length > 0) {
        const command = commandFor(argv, others);
        // Said before the command, which ends the line to be copied whole.
        const shell = command.some(dollarQuoted) ? `, in ${DOLLAR_QUOTE_SHELLS} (for its $'…' quoting)` : "";
        log(
          `fetch-skills: to fetch the other sources and leave ${quoted(error.source)} as it is${shell}: npm run fetch-skills -- ${command.join(" ")}`,
        );
      }
    }
    return 1;
  }
}

/**
 * `--findings`' JSON: the findings the review shows, and the sources held back for a new high finding, by
 * name with that finding, for the workflow to offer each bump on its own.
 */
function findingsJson(findings: readonly ReviewedFinding[], held: readonly HeldBack[]): string {
  const heldForReview = held.map(({ repin, finding }) => ({ source: repin.source.name, finding }));
  return `${JSON.stringify({ findings, heldForReview }, null, 2)}\n`;
}

const OPTIONS = {
  manifest: { type: "string" },
  out: { type: "string" },
  cache: { type: "string" },
  source: { type: "string", multiple: true },
  "max-files": { type: "string" },
  "max-mib": { type: "string" },
  update: { type: "boolean" },
  "no-fetch": { type: "boolean" },
  summary: { type: "string" },
  findings: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;

function parseOptions(argv: readonly string[], cwd: string): Options {
  let values: {
    manifest?: string;
    out?: string;
    cache?: string;
    source?: string[];
    "max-files"?: string;
    "max-mib"?: string;
    update?: boolean;
    "no-fetch"?: boolean;
    summary?: string;
    findings?: string;
    help?: boolean;
  };
  try {
    values = parseArgs({ args: [...argv], options: OPTIONS, strict: true, allowPositionals: false }).values;
  } catch (error) {
    throw new UsageError(describeArgsError(error, OPTIONS));
  }
  for (const key of ["manifest", "out", "cache", "summary", "findings"] as const) {
    if (values[key]?.trim() === "") throw new UsageError(`--${key} needs a path`);
  }
  if (values["no-fetch"] && !values.update) throw new UsageError("--no-fetch only goes with --update");
  if (values.findings !== undefined && (!values.update || values["no-fetch"])) {
    throw new UsageError("--findings only goes with --update, which fetches (not with --no-fetch)");
  }
  const resolve = (value: string | undefined) => (value === undefined ? undefined : path.resolve(cwd, value));
  const summary = resolve(values.summary);
  const findings = resolve(values.findings);
  const given = path.resolve(cwd, values.out ?? "skills");
  const out = followLink(given);
  const cache = resolve(values.cache);
  // Each run builds a new --out and throws the old one away: a store kept there was fetched anew every time.
  // Through a symlinked --out too (`skills/.cache` with `skills` leading to the folder replaced).
  const inOut = (folder: string) => cache === folder || cache?.startsWith(`${folder}${path.sep}`) === true;
  if (inOut(given) || inOut(out)) {
    throw new UsageError(
      `--cache ${values.cache} is inside --out ${values.out ?? "skills"}, which each run replaces: keep it elsewhere`,
    );
  }
  for (const [option, file] of [
    ["--summary", summary],
    ["--findings", findings],
  ] as const) {
    if (file !== undefined && !values.help) checkOutputFile(option, file, out);
  }
  return {
    manifest: path.resolve(cwd, values.manifest ?? "skills.toml"),
    manifestLabel: values.manifest ?? "skills.toml",
    out,
    cache,
    sources: values.source ?? [],
    limits: {
      files: wholeNumber("--max-files", values["max-files"]) ?? SOURCE_LIMITS.files,
      bytes: (wholeNumber("--max-mib", values["max-mib"]) ?? SOURCE_LIMITS.bytes / MIB) * MIB,
    },
    update: values.update === true,
    fetch: values["no-fetch"] !== true,
    summary,
    findings,
    help: values.help === true,
  };
}

/**
 * `--summary` and `--findings` are written after the skills are in place, so their folders are checked
 * before any work; a folder inside `--out` is written by the fetch itself.
 */
function checkOutputFile(option: string, file: string, out: string): void {
  const folder = path.dirname(file);
  if (folder === out || folder.startsWith(`${out}${path.sep}`)) return;
  const throughFile = notAFolderOnPath(folder);
  if (throughFile !== undefined)
    throw new UsageError(`${option} ${file}: ${throughFile}; give another ${option}`);
  try {
    if (!statSync(folder).isDirectory()) throw new UsageError(`${option}: ${folder} is not a folder`);
    accessSync(folder, fsConstants.W_OK);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const problem =
      (error as NodeJS.ErrnoException).code === "ENOENT"
        ? "does not exist"
        : `cannot be written to: ${describeWriteError(error)}`;
    throw new UsageError(`${option}: the folder ${folder} ${problem}`);
  }
  if (existsSync(file) && statSync(file).isDirectory()) {
    throw new UsageError(`${option}: ${file} is a folder; give a file name`);
  }
}

/**
 * `--out` as the folder a symlink there leads to: the new folder replaces that one, where the server reads
 * it, and not the symlink (which was swapped for a folder, leaving its target as it was).
 */
function followLink(folder: string): string {
  try {
    if (!lstatSync(folder).isSymbolicLink()) return folder;
  } catch {
    // Missing: the fetch says what it cannot write.
    return folder;
  }
  try {
    return realpathSync(folder);
  } catch {
    // Dangling: its folder is missing (a run killed while it swapped the new one in left it beside), and is
    // written where the link leads all the same.
    return path.resolve(path.dirname(folder), readlinkSync(folder));
  }
}

const MIB = 1024 * 1024;

function wholeNumber(option: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const number = wholeNumberIn(value);
  if (number === undefined) throw new UsageError(notWholeNumber(option, value));
  return number;
}

/**
 * The words of `npm run fetch-skills -- …`, quoted for a shell, past its `--`: the options of `argv`, its
 * `--source`s replaced by `sources`.
 */
function commandFor(argv: readonly string[], sources: readonly string[]): string[] {
  const kept: string[] = [];
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index] ?? "";
    if (arg === "--source") index++;
    else if (!arg.startsWith("--source=")) kept.push(arg);
  }
  const args = [...kept, ...sources.flatMap((name) => ["--source", name])];
  return args.map(shellWord);
}

function selectSources(manifest: Manifest, names: readonly string[]): ReadonlySet<string> | undefined {
  if (names.length === 0) return undefined;
  const known = manifest.sources.map((source) => source.name);
  for (const name of names) {
    if (!known.includes(name)) {
      const close = closestBySlip(name, known).slice(0, 3);
      const hint =
        close.length > 0 ? `: did you mean ${close.map((meant) => quoted(meant)).join(" or ")}?` : "";
      throw new UsageError(
        `--source ${quoted(name)} is not in ${manifest.label} (sources: ${known.join(", ")})${hint}`,
      );
    }
  }
  return new Set(names);
}

/**
 * `--update`: resolves the new heads, fetches them (all or nothing) unless `--no-fetch`, and only then
 * rewrites the refs in skills.toml, so a failed fetch leaves both the manifest and the skills folder as
 * they were. A moved source whose new commit fails the fetch is held back at its pin, and the others are
 * repinned without it, as is one whose new commit the server would not serve where its pin would (the load
 * check check-skills runs, on its pack alone). After a fetch, the review says what the bump changes for agents;
 * while other sources moved too, one whose bump brings a new high finding is then put back at its pin as
 * well (see heldForReview), and the review made again without it.
 */
async function repin(
  manifest: Manifest,
  options: Options,
  plan: Omit<Parameters<typeof fetchSkills>[0], "sources">,
): Promise<Repinned> {
  const selected = manifest.sources.filter((source) => plan.only === undefined || plan.only.has(source.name));
  const { repins, unresolved } = await resolveHeads(selected, plan.log, plan.signal);
  // A stopped ls-remote reads as a source that cannot be repinned: the others must not be written alone.
  plan.signal?.throwIfAborted();
  const moved = repins.filter((r) => r.from !== r.to);
  const updates = new Map(moved.map((r) => [r.source.name, r.to]));
  // With nothing else to bump, a source that cannot be repinned fails the run: no pull request would say so.
  if (updates.size === 0 && unresolved.length > 0) throw cannotRepin(unresolved);
  if (updates.size === 0) {
    plan.log("nothing moved");
    return { summary: repinSummary(repins, unresolved), findings: [], heldForReview: [] };
  }
  const staged = await stageManifest(options.manifest, rewriteRefs(manifest, updates), options.manifestLabel);
  if (!options.fetch) {
    await staged.commit();
    return { summary: repinSummary(repins, unresolved), findings: [], heldForReview: [] };
  }
  // Without --cache, one store per repository for the run all the same: the review's old commits are
  // fetched as the difference from the new ones, not again from nothing into stores of their own. Where
  // no folder can be made beside --out, the fetch says why, as it did before.
  const runStores =
    plan.cache === undefined ? await makeWorkFolder(plan.out).catch(() => undefined) : undefined;
  try {
    const stores = runStores === undefined ? plan : { ...plan, cache: runStores };
    return await fetchRepins(manifest, options, stores, { repins, unresolved, moved, updates, staged });
  } finally {
    if (runStores !== undefined) await removeTree(runStores);
  }
}

/**
 * The rest of {@link repin} once skills.toml is staged with the moved sources' new commits (`updates`,
 * which it changes as it holds sources back): the fetch, the review and what they hold back.
 */
async function fetchRepins(
  manifest: Manifest,
  options: Options,
  plan: Omit<Parameters<typeof fetchSkills>[0], "sources">,
  repinning: {
    readonly repins: readonly Repin[];
    readonly unresolved: readonly Unresolved[];
    readonly moved: readonly Repin[];
    readonly updates: Map<string, string>;
    readonly staged: Awaited<ReturnType<typeof stageManifest>>;
  },
): Promise<Repinned> {
  const { repins, unresolved, moved, updates } = repinning;
  let staged = repinning.staged;
  const sources: SkillSource[] = manifest.sources.map((source) => ({
    ...source,
    ref: updates.get(source.name) ?? source.ref,
  }));
  const heldBack: HeldBack[] = [];
  // Once every pack is built: the held back keep their pins in skills.toml too, or nothing is swapped in.
  const beforeSwap = async (packs: readonly FetchedPack[]) => {
    for (const pack of packs) {
      const repin = moved.find((r) => r.source.name === pack.record.name);
      if (repin !== undefined && pack.heldBack !== undefined) heldBack.push({ repin, reason: pack.heldBack });
    }
    if (heldBack.length === 0) return;
    for (const { repin } of heldBack) updates.delete(repin.source.name);
    await staged.discard();
    if (updates.size === 0) {
      throw cannotRepin([
        ...unresolved,
        ...heldBack.map(({ repin, reason }) => ({
          source: repin.source,
          reason: `its new commit ${shortRef(repin.to)} fails: ${reason}`,
        })),
      ]);
    }
    staged = await stageManifest(options.manifest, rewriteRefs(manifest, updates), options.manifestLabel);
  };
  let packs: FetchedPack[];
  try {
    const fallback = new Map(moved.map((r) => [r.source.name, r.from]));
    packs = await fetchSkills({ ...plan, sources, fallback, beforeSwap });
  } catch (error) {
    await staged.discard();
    throw error;
  }
  await staged.commit();
  const held = new Set(heldBack.map(({ repin }) => repin));
  let repinned = repins.filter((r) => !held.has(r));
  let review: RepinReview | undefined;
  let forReview: HeldBack[] = [];
  try {
    review = await reviewRepins(repinned, plan);
    forReview = heldForReview(repinned, review, plan.log);
    if (forReview.length > 0) {
      const names = new Set(forReview.map(({ repin }) => repin.source.name));
      for (const name of names) updates.delete(name);
      // Their pins go back into the skills folder, every other pack kept as just fetched, all or nothing.
      staged = await stageManifest(options.manifest, rewriteRefs(manifest, updates), options.manifestLabel);
      let pinned: FetchedPack[];
      try {
        pinned = await fetchSkills({
          ...plan,
          only: names,
          sources: manifest.sources.map((source) => ({
            ...source,
            ref: updates.get(source.name) ?? source.ref,
          })),
        });
      } catch (error) {
        await staged.discard();
        throw error;
      }
      await staged.commit();
      const reasons = new Map(forReview.map(({ repin, reason }) => [repin.source.name, reason]));
      packs = pinned.map((pack) => {
        const reason = reasons.get(pack.record.name);
        return reason === undefined
          ? (packs.find((fetched) => fetched.record.name === pack.record.name) ?? pack)
          : { ...pack, heldBack: reason };
      });
      heldBack.push(...forReview);
      repinned = repinned.filter((r) => !names.has(r.source.name));
      // The review of what the pull request now merges: the held back sources' findings are no longer in it.
      review = repinned.some((r) => r.from !== r.to) ? await reviewRepins(repinned, plan) : undefined;
    }
  } catch (error) {
    throw new ReviewError(`${options.manifestLabel} and ${plan.out}`, error);
  }
  const summary = repinSummary(repinned, unresolved, heldBack);
  return {
    summary: `${summary}\n${review === undefined ? "" : `${review.markdown}\n`}${fetchSummary(packs)}`,
    findings: review?.findings ?? [],
    heldForReview: forReview,
  };
}

/**
 * The moved sources whose new commit brings a new high finding, each held back at its pin with its first
 * one, so that the other sources' bumps need not wait on its review: the workflow offers each such bump
 * on its own (`--update --source NAME`). Only while another source moved too: a bump alone holds up no
 * other, and goes through, its finding failing the pull request's status. Nor is one whose pin the review
 * could not fetch, which the server could not be given either: it goes through, with a warning.
 */
function heldForReview(
  repinned: readonly Repin[],
  review: RepinReview,
  log: (line: string) => void,
): HeldBack[] {
  const moved = repinned.filter((r) => r.from !== r.to);
  if (moved.length < 2) return [];
  const held: HeldBack[] = [];
  for (const repin of moved) {
    const { name } = repin.source;
    const finding = review.findings.find(
      (found) => found.new && found.severity === "high" && found.path.startsWith(`${name}/`),
    );
    if (finding === undefined) continue;
    const reason = `a new high finding of the audit (${finding.path}:${finding.line}: ${finding.rule})`;
    if (review.pinGone.has(name)) {
      log(
        `${name}: warning: its new commit ${shortRef(repin.to)} brings ${reason}, and its pin ${shortRef(repin.from)} cannot be fetched, so it is repinned all the same`,
      );
      continue;
    }
    log(
      `${name}: held back at ${shortRef(repin.from)}: its new commit ${shortRef(repin.to)} fails: ${reason}`,
    );
    held.push({ repin, reason, finding });
  }
  return held;
}

/**
 * `--update`'s load check (scripts/repin-review/pack-check.ts), loaded only when it runs, not imported at
 * the top: it needs the server's startup (src/), which the image's skills stage, which only fetches, has
 * not. A load that throws holds its source back too, since it would stop check-skills and the server
 * alike; its stack goes to stderr as it is, for a bug report.
 */
function packLoadCheck(
  env: Readonly<Record<string, string | undefined>>,
  stderr: (text: string) => void,
): (dir: string, pack: string) => Promise<string | undefined> {
  return async (dir, pack) => {
    const { packRefusal } = await import("../repin-review/pack-check.js");
    try {
      return await packRefusal(dir, pack, env);
    } catch (error) {
      if (error instanceof FetcherError || !(error instanceof Error)) throw error;
      stderr(`${error.stack}\n`);
      return `the server's load fails: ${oneLine(error)}`;
    }
  };
}

/** The error of a run with nothing to repin but the sources that cannot be: each named, with why. */
function cannotRepin(stuck: readonly Unresolved[]): FetcherError {
  const [first, ...more] = stuck;
  if (first !== undefined && more.length === 0) return new SourceError(first.source.name, first.reason);
  return new FetcherError(
    `${stuck.length} sources cannot be repinned: ${stuck.map(({ source, reason }) => `${quoted(source.name)}: ${reason}`).join("; ")}`,
  );
}
