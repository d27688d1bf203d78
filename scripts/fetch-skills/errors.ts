import { errorMessage, quoted, type SystemProblems, systemProblem } from "../../src/shared/index.js";

/** A failure the user can act on: printed as its message, never with a stack trace. */
export class FetcherError extends Error {
  override name = "FetcherError";
}

/** The command line is wrong: printed as one line followed by the usage. */
export class UsageError extends FetcherError {
  override name = "UsageError";
}

/** skills.toml is wrong: every problem, one per line, each naming the file, line, source and key. */
export class ManifestError extends FetcherError {
  override name = "ManifestError";
  constructor(readonly problems: readonly string[]) {
    super(problems.join("\n"));
  }
}

/**
 * The review of a repin failed after the new commits were written (skills.toml and the skills folder), so
 * the run fails without its summary. `cause` is what failed; a stack trace is kept for what is not a
 * FetcherError (a bug, or the system), for its report.
 */
export class ReviewError extends FetcherError {
  override name = "ReviewError";
  constructor(
    readonly written: string,
    cause: unknown,
  ) {
    super(`${written} hold the new commits, but the review of what they change failed: ${oneLine(cause)}`, {
      cause,
    });
  }
}

/**
 * The run was told to stop (SIGINT or SIGTERM): the reason its abort signal carries. It exits with the
 * status the signal itself would have given, 128 + its number.
 */
export class StoppedError extends FetcherError {
  override name = "StoppedError";
  constructor(readonly signal: "SIGINT" | "SIGTERM") {
    super(`stopped by ${signal}`);
  }
}

/** One source could not be fetched; the message carries git's own words. */
export class SourceError extends FetcherError {
  override name = "SourceError";
  /** What is wrong, without the source's name. */
  readonly reason: string;
  constructor(
    readonly source: string,
    detail: string,
  ) {
    super(`source ${quoted(source)}: ${withoutCredentials(detail)}`);
    this.reason = withoutCredentials(detail);
  }
}

/** What a user can do about each of the file system's errors of writing a folder or file. */
const WRITE_PROBLEMS: SystemProblems = {
  EACCES: { fix: "give a folder this user may write in, or change its permissions" },
  EPERM: { fix: "give a folder this user may write in, or change its permissions" },
  EROFS: { fix: "give a folder on a writable file system" },
  ENOSPC: { fix: "free some space, or give a folder on another disk" },
  EDQUOT: { fix: "free some space, or give a folder on another disk" },
  EFBIG: { fix: "raise its limit (ulimit -f)" },
  ENOTDIR: {
    what: "a file stands where its path needs a folder",
    fix: "remove that file, or give another folder",
  },
  EEXIST: { fix: "remove it, or give another folder" },
  EISDIR: { fix: "give a file's path" },
  ENAMETOOLONG: { fix: "give a shorter path" },
  ELOOP: { fix: "fix the symlinks, or give another folder" },
  EMFILE: { fix: "raise the limit of open files (ulimit -n)" },
  ENFILE: { fix: "close some programs, or raise the system's limit" },
  EIO: { fix: "check the disk" },
};

/**
 * Why a folder or file could not be made or written, in words, its code, and what to do
 * (`permission denied (EACCES); give a folder this user may write in, …`). An error without a code, or of
 * a code not known, gives its code or message as it is.
 */
export function describeWriteError(error: unknown): string {
  return systemProblem(error, WRITE_PROBLEMS);
}

/** An error's message on one line (git's stderr spans several): what a build log needs. */
export function oneLine(error: unknown): string {
  const text = errorMessage(error);
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .join(" ");
}

/**
 * `text` with the credentials of the URLs in it taken out, for whatever the fetcher prints or writes
 * into the image (`sources.json`): all of an http(s) URL's user part (a token often stands there
 * alone), and the password of any other URL (`ssh://git:secret@host` keeps `git`).
 */
export function withoutCredentials(text: string): string {
  return text.replace(/\b(https?:\/\/)[^\s/@]+@/gi, "$1").replace(PASSWORD_AFTER_SCHEME, "://$1@");
}

/**
 * A URL's `user:password@`, its user as group 1. The scheme before `://` is looked for from there,
 * backwards: matched forwards from each word boundary, a run of scheme characters (`a-a-a-…`) was read
 * again from each of its positions, and a megabyte of a remote's words in git's error took twenty minutes.
 */
const PASSWORD_AFTER_SCHEME = /:\/\/(?<=\b[a-z][a-z0-9+.-]*:\/\/)([^\s/:@]+):[^\s/@]+@/gi;
