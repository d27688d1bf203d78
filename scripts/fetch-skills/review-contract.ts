/**
 * What the fetcher hands the repin review and gets back: the one module both sides import, so that the
 * review (loaded only by --update, for it needs src/) and the fetcher depend on it and not on each other.
 */

/** A moved source as the review compares it: its pack before (`from`) and after (`to`). */
export interface ReviewedSource {
  readonly name: string;
  readonly repo: string;
  /**
   * Where the pack's files are in the repository, for the `git diff` that shows what the review leaves
   * out: `path` holds the pack's skills, and each of `extras` keeps its repository path in the pack.
   */
  readonly path: string;
  readonly extras: readonly string[];
  readonly from: string;
  readonly to: string;
  /** Why the pack at `from` could not be had (the commit is gone upstream, say); everything then counts as new. */
  readonly missing?: string;
  /**
   * What the fetcher left out of the pack at `to` (a name not every system holds, a symlink out of the
   * repository, a Git LFS pointer, a submodule), and whether it did at `from` too; none when not told.
   */
  readonly leftOut?: readonly LeftOutFile[];
}

/** Something of the repository the fetcher did not copy into a pack, by its repository path, with why. */
export interface LeftOutFile {
  readonly path: string;
  readonly reason: string;
  /** Not left out so at the old commit: the bump brings it. */
  readonly new: boolean;
}

export interface ReviewRequest {
  /** A skills folder holding the packs of the moved sources at their old commits, and their sources.json. */
  readonly before: string;
  /** The skills folder the fetch just wrote: every pack at its new commit. */
  readonly after: string;
  readonly sources: readonly ReviewedSource[];
  /** At most this many characters of Markdown. */
  readonly budget: number;
  /** Stops the review between files, rejecting with its reason. */
  readonly signal?: AbortSignal | undefined;
}

/** An audit finding the review shows, and whether the old commit had it. */
export interface ReviewedFinding {
  readonly path: string;
  readonly line: number;
  readonly rule: string;
  readonly severity: "high" | "medium" | "low";
  readonly detail: string;
  readonly new: boolean;
}

/**
 * Findings the review shows alike in several paths, once, with those paths: the fetcher copies each
 * symlink's target as a file of its own, and 4,000 links to a file of 252 findings show its 252 findings
 * at each link, a million findings and 244 MB of JSON when each was written for its path.
 */
export interface FindingList {
  /** In order: each shows every one of `findings`. */
  readonly paths: readonly string[];
  readonly findings: readonly Omit<ReviewedFinding, "path">[];
}

/** A commit as the fetcher's summary and the review show it: its first seven hex digits, as GitHub does. */
export function shortRef(ref: string): string {
  return ref.slice(0, 7);
}

export interface Review {
  readonly markdown: string;
  /**
   * In the order of the first path of each; each list made as it is gone through, which may be done more
   * than once.
   */
  readonly findings: Iterable<FindingList>;
}

/**
 * The load check of `--update` cannot run at all (a wrong UNSAFE_SKILLS fails every pack alike): no source
 * is to blame, so the fetcher stops the run with this message rather than hold any back.
 */
export class LoadCheckError extends Error {
  override name = "LoadCheckError";
}
