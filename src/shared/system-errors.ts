// Imports nothing: the image's skills stage copies this file for the fetcher, without the rest of src/.

/**
 * What each system error's code means, said one way by the server, every command and the fetcher. A
 * caller says more where it knows more (what ENOENT means when the file was there a moment ago), and what
 * to do, in its own {@link SystemProblems}.
 */
const MEANINGS: Readonly<Record<string, string>> = {
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOENT: "there is no such file or folder",
  ENOTDIR: "a part of its path is a file, not a folder",
  EISDIR: "it is a folder, not a file",
  EEXIST: "a file is already there",
  ELOOP: "its path holds a loop of symlinks",
  ENAMETOOLONG: "its path is longer than the system allows",
  EROFS: "its file system is read-only",
  ENOSPC: "no space is left on its disk",
  EDQUOT: "the disk quota is used up",
  EFBIG: "a file grew past the size this process may write",
  EMFILE: "too many files are open",
  ENFILE: "too many files are open on the system",
  EIO: "input/output error",
  EILSEQ: "its name is not in the file system's encoding",
};

/**
 * What the codes mean where the caller met them, when that is more than {@link MEANINGS} says (`what`), and
 * what to do about each (`fix`).
 */
export type SystemProblems = Readonly<Record<string, { readonly what?: string; readonly fix?: string }>>;

const NOTHING_MORE: SystemProblems[string] = {};

/**
 * A system error in words, its code and what to do (`it is a folder, not a file (EISDIR); give a file`), when
 * `problems` or {@link MEANINGS} knows its code; undefined otherwise, for the caller to say it its own way.
 */
export function problemInWords(error: unknown, problems: SystemProblems = {}): string | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === undefined) return undefined;
  const { what = MEANINGS[code], fix } = problems[code] ?? NOTHING_MORE;
  if (what === undefined) return undefined;
  return fix === undefined ? `${what} (${code})` : `${what} (${code}); ${fix}`;
}

/**
 * {@link problemInWords}, else the error's code alone (`EXDEV`), else its message: what went wrong, for a
 * message that says where.
 */
export function systemProblem(error: unknown, problems: SystemProblems = {}): string {
  return problemInWords(error, problems) ?? (error as NodeJS.ErrnoException).code ?? errorMessage(error);
}

/** What a caught value says: an Error's message, else the value as text (a thrown string, say). */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
