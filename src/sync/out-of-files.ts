/**
 * A request that failed for want of a file descriptor: this process's (EMFILE, its `ulimit -n`) or the
 * whole system's (ENFILE, its table of open files full). Neither is a sign of the server, which a user
 * told "cannot connect" or "stopped answering" would look at instead.
 */
export const OUT_OF_FILES = {
  EMFILE: {
    who: "this process has too many files open",
    fix: "raise its limit on open files (ulimit -n, to 1024 or more)",
  },
  ENFILE: {
    who: "the system has too many files open",
    fix: "close some programs (or raise the system's limit on open files, fs.file-max)",
  },
} as const;

/** Who ran out of file descriptors and what to do, when `why` (an error in words) names EMFILE or ENFILE. */
export function outOfFiles(why: string): (typeof OUT_OF_FILES)[keyof typeof OUT_OF_FILES] | undefined {
  const code = /\b(EMFILE|ENFILE)\b/.exec(why)?.[1];
  return code === "EMFILE" || code === "ENFILE" ? OUT_OF_FILES[code] : undefined;
}

/** `; <who>, not the server: <fix>, then run sync again`, for a failure `why` naming EMFILE or ENFILE; else "". */
export function outOfFilesHint(why: string): string {
  const out = outOfFiles(why);
  return out === undefined ? "" : `; ${out.who}, not the server: ${out.fix}, then run sync again`;
}
