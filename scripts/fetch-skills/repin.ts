import { isDeepStrictEqual } from "node:util";
import { parse } from "smol-toml";
import { FetcherError, oneLine, SourceError } from "./errors.js";
import { gitAt } from "./git.js";
import type { Manifest, SkillSource } from "./manifest.js";

/** Where a source's tracked branch is now, next to where skills.toml pins it. */
export interface Repin {
  readonly source: SkillSource;
  /** The branch followed: `branch` from skills.toml, or HEAD (the remote's default branch). */
  readonly tracks: string;
  readonly from: string;
  readonly to: string;
}

/** Asks each source's remote where its branch (or HEAD) points now, with `git ls-remote`. */
export async function resolveHeads(
  sources: readonly SkillSource[],
  log: (line: string) => void,
): Promise<Repin[]> {
  const repins: Repin[] = [];
  for (const source of sources) {
    const tracks = source.branch ?? "HEAD";
    const wanted = source.branch === undefined ? "HEAD" : `refs/heads/${source.branch}`;
    let listing: string;
    try {
      listing = await gitAt().listRemote([source.repo, wanted]);
    } catch (error) {
      throw new SourceError(source.name, `cannot list ${source.repo}: ${oneLine(error)}`);
    }
    const to = listing
      .split("\n")
      .map((line) => line.split("\t"))
      .find(([, ref]) => ref === wanted)?.[0];
    if (to === undefined) {
      const hint = source.branch === undefined ? "; set branch in skills.toml" : "";
      throw new SourceError(source.name, `${source.repo} has no ${wanted}${hint}`);
    }
    log(
      `${source.name}: ${tracks} is at ${to.slice(0, 7)}${to === source.ref ? " (unchanged)" : ` (was ${source.ref.slice(0, 7)})`}`,
    );
    repins.push({ source, tracks, from: source.ref, to });
  }
  return repins;
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
        `${manifest.label}: cannot rewrite the ref of source "${source.name}" in place; write it as ref = "<commit>" in its [[source]] table`,
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
