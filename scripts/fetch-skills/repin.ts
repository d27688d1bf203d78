import { isDeepStrictEqual } from "node:util";
import { parse } from "smol-toml";
import { quoted } from "../../src/shared/index.js";
import { FetcherError, oneLine, withoutCredentials } from "./errors.js";
import { gitAt } from "./git.js";
import type { Manifest, SkillSource } from "./manifest.js";
import type { ReviewedFinding } from "./review-contract.js";

/** Where a source's tracked branch is now, next to where skills.toml pins it. */
export interface Repin {
  readonly source: SkillSource;
  /** The branch followed: `branch` from skills.toml, or HEAD (the remote's default branch). */
  readonly tracks: string;
  readonly from: string;
  readonly to: string;
}

/** A source whose branch could not be resolved (its repository or branch gone, no access): it keeps its pin. */
export interface Unresolved {
  readonly source: SkillSource;
  /** git's words, on one line. */
  readonly reason: string;
}

/**
 * A source whose branch moved to a commit that failed the fetch (its path gone, a limit passed), or the
 * load check where its pin passes it, or that brings a new high finding of the audit while other sources
 * moved too: it keeps its pin, and the others are repinned without it.
 */
export interface HeldBack {
  readonly repin: Repin;
  /** What failed, as the fetch said it. */
  readonly reason: string;
  /** Held back for its review: the first new high finding its new commit brings. */
  readonly finding?: ReviewedFinding;
}

/** Where each source's branch points now, and the sources that could not tell. */
interface Heads {
  readonly repins: readonly Repin[];
  readonly unresolved: readonly Unresolved[];
}

/**
 * Asks each source's remote where its branch (or HEAD) points now, with `git ls-remote`. A source that
 * cannot answer is set apart, not thrown: one vanished branch must not hold back every other source's bump.
 */
export async function resolveHeads(
  sources: readonly SkillSource[],
  log: (line: string) => void,
  signal: AbortSignal | undefined,
): Promise<Heads> {
  const repins: Repin[] = [];
  const unresolved: Unresolved[] = [];
  for (const source of sources) {
    const head = await headOf(source, signal);
    if ("reason" in head) {
      log(`${source.name}: cannot repin, ${head.reason}; stays at ${source.ref.slice(0, 7)}`);
      unresolved.push({ source, reason: head.reason });
      continue;
    }
    const { tracks, to } = head;
    log(
      `${source.name}: ${tracks} is at ${to.slice(0, 7)}${to === source.ref ? " (unchanged)" : ` (was ${source.ref.slice(0, 7)})`}`,
    );
    repins.push({ source, tracks, from: source.ref, to });
  }
  return { repins, unresolved };
}

async function headOf(
  source: SkillSource,
  signal: AbortSignal | undefined,
): Promise<{ tracks: string; to: string } | { reason: string }> {
  const tracks = source.branch ?? "HEAD";
  const wanted = source.branch === undefined ? "HEAD" : `refs/heads/${source.branch}`;
  let listing: string;
  try {
    listing = await gitAt(undefined, signal).listRemote([source.repo, wanted]);
  } catch (error) {
    return { reason: withoutCredentials(`cannot list ${source.repo}: ${oneLine(error)}`) };
  }
  const to = listing
    .split("\n")
    .map((line) => line.split("\t"))
    .find(([, ref]) => ref === wanted)?.[0];
  if (to === undefined) {
    const hint = source.branch === undefined ? "; set branch in skills.toml" : "";
    return { reason: withoutCredentials(`${source.repo} has no ${wanted}${hint}`) };
  }
  return { tracks, to };
}

/**
 * skills.toml with the `ref` of each source in `updates` (name → commit) replaced, and every other byte
 * (comments, blank lines, key order, spacing, quote style) as it was. Refuses, rather than guesses,
 * when a ref is not written as a plain quoted string in its [[source]] table.
 */
export function rewriteRefs(manifest: Manifest, updates: ReadonlyMap<string, string>): string {
  const edits: { start: number; end: number; ref: string }[] = [];
  manifest.sources.forEach((source, index) => {
    const to = updates.get(source.name);
    if (to === undefined || to === source.ref) return;
    const span = manifest.layout?.sources[index]?.keys.get("ref");
    const written = span === undefined ? undefined : manifest.text.slice(span.start, span.end);
    const quote = written?.[0];
    if (
      span === undefined ||
      (quote !== '"' && quote !== "'") ||
      written !== `${quote}${source.ref}${quote}`
    ) {
      throw new FetcherError(
        `${manifest.label}: cannot rewrite the ref of source ${quoted(source.name)} in place; write it as ref = "<commit>" in its [[source]] table`,
      );
    }
    edits.push({ start: span.start + 1, end: span.end - 1, ref: to });
  });
  let text = manifest.text;
  for (const edit of edits.sort((a, b) => b.start - a.start)) {
    text = text.slice(0, edit.start) + edit.ref + text.slice(edit.end);
  }
  assertOnlyRefsChanged(manifest, text, updates);
  return text;
}

/** The rewritten file must mean exactly the old one with the new refs: anything else is a bug, not a repin. */
function assertOnlyRefsChanged(manifest: Manifest, text: string, updates: ReadonlyMap<string, string>): void {
  const expected = parse(manifest.text);
  // parseManifest has checked that `source` is a list of tables with string names.
  for (const table of expected.source as Record<string, unknown>[]) {
    const to = updates.get(String(table.name));
    if (to !== undefined) table.ref = to;
  }
  if (!isDeepStrictEqual(parse(text), expected)) {
    throw new FetcherError(
      `${manifest.label}: rewriting the refs would change more than the refs; nothing written`,
    );
  }
}
