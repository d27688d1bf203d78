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

/** One source could not be fetched; the message carries git's own words. */
export class SourceError extends FetcherError {
  override name = "SourceError";
  constructor(
    readonly source: string,
    detail: string,
  ) {
    super(`source "${source}": ${detail}`);
  }
}

/** An error's message on one line (git's stderr spans several): what a build log needs. */
export function oneLine(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "")
    .join(" ");
}
