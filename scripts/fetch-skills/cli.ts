import { createWriteStream, existsSync } from "node:fs";
import { constants } from "node:os";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import {
  closestBySlip,
  DOLLAR_QUOTE_SHELLS,
  dollarQuoted,
  quoted,
  shellWord,
  visible,
} from "../../src/shared/index.js";
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
import { answerUsageError, type CommandLineIo, type Options, readCommandLine } from "./options.js";
import { type FetchedPack, fetchSkills } from "./output.js";
import { type HeldBack, type Repin, resolveHeads, rewriteRefs, type Unresolved } from "./repin.js";
import { type RepinReview, reviewRepins } from "./review.js";
import { type FindingList, LoadCheckError, type ReviewedFinding, shortRef } from "./review-contract.js";
import { fetchSummary, repinSummary } from "./summary.js";
import { makeWorkFolder, removeTree } from "./work-folder.js";

/** Everything the CLI touches outside the file system and git, passed in so tests can drive it. */
interface CliIo extends CommandLineIo {
  readonly now?: () => Date;
  /** The environment: `--update`'s load check takes UNSAFE_SKILLS from it, as check-skills does. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Aborted, with a {@link StoppedError} as its reason, when the run is to stop: its git is stopped. */
  readonly signal?: AbortSignal;
}

/**
 * What `--update` produced: the summary, the review's findings when it fetched, and the sources held back
 * at their pins for a new high finding, each bump for a review of its own.
 */
interface Repinned {
  readonly summary: string;
  /** Made as they are gone through (see Review). */
  readonly findings: Iterable<FindingList>;
  readonly heldForReview: readonly HeldBack[];
}

/**
 * Runs the fetcher and returns its exit status: 0 done, 2 wrong usage, 1 failed: nothing written, or,
 * as its message says, everything but the summary file; 128 + the signal when `io.signal` stopped it.
 */
export async function run(argv: readonly string[], io: CliIo): Promise<number> {
  const options = await readCommandLine(argv, io);
  return typeof options === "number" ? options : runWith(options, argv, io);
}

/** {@link run} once the command line is read: index.ts reads it before it imports this module. */
export async function runWith(options: Options, argv: readonly string[], io: CliIo): Promise<number> {
  // Each line shows upstream names as they are, but none can start a line of its own.
  const log = (line: string) => io.stderr(`${visible(line)}\n`);
  const out = options.out;
  let fetching: readonly string[] = [];
  try {
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
    const outputs: [string | undefined, string, () => Iterable<string>][] = [
      [options.summary, "summary", () => [summary]],
      [options.findings, "findings", () => findingsJson(findings, heldForReview)],
    ];
    for (const [file, what, text] of outputs) {
      if (file === undefined) continue;
      try {
        // Written as it is made, as fast as the file takes it: a million findings' JSON is some 250 MB.
        await pipeline(Readable.from(text()), createWriteStream(file));
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
      const kept = existsSync(out) ? `; ${out} is as it was` : "";
      const written =
        error instanceof ReviewError
          ? `${error.written} hold the new commits, but the review was not done`
          : `nothing written${kept}`;
      log(`fetch-skills: ${stopped.message}: ${written}`);
      return 128 + constants.signals[stopped.signal];
    }
    if (error instanceof UsageError) return answerUsageError(error, io.stderr);
    if (!(error instanceof FetcherError)) throw error;
    const lines = error instanceof ManifestError ? error.problems : [error.message];
    for (const line of lines) log(`fetch-skills: ${line}`);
    if (error instanceof ReviewError) {
      // A bug's stack as it is, for its report: each frame a line of its own.
      if (!(error.cause instanceof FetcherError) && error.cause instanceof Error)
        io.stderr(`${error.cause.stack}\n`);
      return 1;
    }
    const kept = existsSync(out) ? `; ${out} is as it was` : "";
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

/** The characters of `--findings`' JSON handed to the file at a time, rather than a list's few. */
const JSON_CHUNK = 64 * 1024;

/**
 * `--findings`' JSON: the findings the review shows, each list once with the paths that show it, and the
 * sources held back for a new high finding, by name with that finding, for the workflow to offer each bump
 * on its own. The bytes of `JSON.stringify({ findingLists, heldForReview }, null, 2)` and a line feed, made
 * a list at a time.
 */
function* findingsJson(lists: Iterable<FindingList>, held: readonly HeldBack[]): Generator<string> {
  const heldForReview = held.map(({ repin, finding }) => ({ source: repin.source.name, finding }));
  // Each value indented as deep as it is nested; JSON holds no raw line feed but between its lines.
  const nested = (value: unknown, indent: string) =>
    (JSON.stringify(value, null, 2) ?? "null").replaceAll("\n", `\n${indent}`);
  let chunk = '{\n  "findingLists": [';
  let first = true;
  for (const list of lists) {
    chunk += `${first ? "" : ","}\n    ${nested(list, "    ")}`;
    first = false;
    if (chunk.length >= JSON_CHUNK) {
      yield chunk;
      chunk = "";
    }
  }
  yield `${chunk}${first ? "]" : "\n  ]"},\n  "heldForReview": ${nested(heldForReview, "  ")}\n}\n`;
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
    review = await reviewRepins(repinned, plan, packs);
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
      review = repinned.some((r) => r.from !== r.to) ? await reviewRepins(repinned, plan, packs) : undefined;
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
    const finding = firstNewHigh(review.findings, name);
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
 * The first new high finding of the pack `name`, named for the first path that shows it: gone through until
 * it is met. The lists are in the order of their first path, and a path shows every finding of its list.
 */
function firstNewHigh(lists: Iterable<FindingList>, name: string): ReviewedFinding | undefined {
  for (const { paths, findings } of lists) {
    const [first] = paths;
    if (first === undefined || !first.startsWith(`${name}/`)) continue;
    const found = findings.find((each) => each.new && each.severity === "high");
    if (found !== undefined) return { path: first, ...found };
  }
  return undefined;
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
      // A check that cannot run stops the run, as the fetcher's own failures do: its message, no stack.
      if (error instanceof LoadCheckError) throw new FetcherError(error.message);
      if (!(error instanceof Error)) throw error;
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
