/** What a system error's code means where it happened, and what to do about it when the words alone do not say. */
export type SystemProblems = Readonly<Record<string, readonly [what: string, fix?: string]>>;

/**
 * A system error in words, its code and what to do (`it is a folder (EISDIR); give a file`), when
 * `problems` knows its code; undefined otherwise, for the caller to say it its own way.
 */
export function problemInWords(error: unknown, problems: SystemProblems): string | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  const [what, fix] = (code === undefined ? undefined : problems[code]) ?? [];
  if (what === undefined) return undefined;
  return fix === undefined ? `${what} (${code})` : `${what} (${code}); ${fix}`;
}
