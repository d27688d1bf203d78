/**
 * The pipe-to-shell finding: a command line holding a download, read for each way it may be run as code,
 * and the finding made of the first found.
 */
import { quoted } from "../../shared/index.js";
import type { Reader } from "../reader.js";
import { blockCommentReading, blockCommentsWithin } from "./block-comments.js";
import { commandLines } from "./command-lines.js";
import {
  commentReading,
  commentStart,
  type HashComments,
  type LineComments,
  withoutBlockComments,
} from "./comments.js";
import { DOWNLOADER } from "./downloads.js";
import type { KeptRuns } from "./kept-runs.js";
import { keptStringRun } from "./kept-strings.js";
import { keptRuns } from "./kept-variables.js";
import { pipedInto } from "./pipes.js";
import { fileRuns, type Place, savedFileRun } from "./saved-files.js";
import { scriptBlockRun } from "./script-blocks.js";
import { substitutedInto } from "./substitutions.js";

/**
 * The command line `line` at `offset` up to its comment, where its comments are {@link LineComments}, and
 * PowerShell's block comments on it blanked (`blockComments`: those within a stretch of the text, asked
 * in order). Where a Markdown file's blocks are told, only a line that may hold a comment is placed in them.
 */
function withoutComment(
  line: string,
  offset: number,
  commented: (offset: number) => LineComments,
  blockComments: (from: number, to: number) => readonly (readonly [number, number])[],
): string {
  if (commentStart(line) === line.length && !line.includes("<#") && !line.includes("#>")) return line;
  const kind = commented(offset);
  if (kind === "none") return line;
  if (kind === "hash") return line.slice(0, commentStart(line));
  // Offsets in the line: those after a line joined by a trailing backslash, which PowerShell does not
  // join, are shifted, and only by a character a join.
  const blanked = blockComments(offset, offset + line.length).map(
    ([start, end]) => [start - offset, end - offset] as const,
  );
  const code = withoutBlockComments(line, blanked);
  return code.slice(0, commentStart(code, true));
}

/**
 * Where a command that downloads may be, for the search it shares with the rules of
 * exfiltration-search.ts.
 */
const DOWNLOADER_HERE = new RegExp(DOWNLOADER.source, "iy");

/**
 * `bash <(curl …)`, `sh -c "$(curl …)"`, `eval "$(wget …)"`, `iex (iwr …)`, `iex ((New-Object Net.WebClient)…)`.
 * A shell's name starts a word or follows a folder's slash (`x.sh <(curl …)` names a script's file), and
 * `.` starts a command (`jq . <(curl …)` gives jq a filter). `-c` may end a cluster of options (`bash -ec`,
 * `sh -xc`): the letters are read once, up to the last `c` before a space.
 * Between `iex` and the download: white space and up to two `(`, at least one of either, matched one way
 * only (`\s*[(\s]\s*\(?\s*` matched it in cubically many ways, and `iex` and many spaces stalled the audit);
 * a `(` may be a subexpression's `$(`, in a string or not, and the string a script block called in it
 * (`iex $(irm …)`, `iex "$(irm …)"`, `iex "& { $(irm …) }"`), after `-Command` cut short or not. Each part
 * starts with a character of its own, the white space before it taken by the part before.
 */
const RUN_DOWNLOAD =
  /(?:(?:^|[\s;&|(/])(?:ba|z|da|k)?sh\s+<\(|\bsource\s+<\(|(?:^|[;&|(])\s*\.\s+<\(|\b(?:(?:ba|z|da|k)?sh\s+-[a-zA-Z]*c|eval)\s+["']?(?:\$\(|`))\s*(?:curl|wget)\b|\b(?:iex|Invoke-Expression)\b(?=[(\s])\s*(?:-c[a-z]*\s+)?"?(?:&\s*\{\s*)?(?:\$?\(\s*){0,2}(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod|New-Object\s+(?:System\.)?Net\.WebClient)\b/i;

/**
 * A download run as code: piped into a shell or into an interpreter that reads its program from standard
 * input, or run through `<(…)`, `$(…)`, PowerShell's `iex` or a script block made of it. Whatever the
 * server at the other end sends on the day runs with the user's rights, and no review of the skill saw it.
 * So is a download saved to a file that the line or a later one runs (`curl -o x.sh …; bash x.sh`);
 * `curl -o file` read as data, and a download piped into `jq`, `tar` or `python -m json.tool`, are not
 * flagged. Each command line holding a downloader is read once.
 */
export function pipeToShell(
  text: string,
  lines = commandLines(text),
  comments: HashComments = "none",
): Reader {
  const commented = commentReading(text, comments);
  const blockCommentEnd = blockCommentReading(text, comments);
  // Asked from the lines' starts on, in their order: the search's places may run ahead of a line's start.
  const lineBlockComments = blockCommentsWithin(text, comments);
  let runs: KeptRuns | undefined;
  const kept = () => {
    runs ??= keptRuns(text, comments);
    return runs;
  };
  let savedRuns: ReadonlyMap<string, Place> | undefined;
  const ranFiles = () => {
    savedRuns ??= fileRuns(text);
    return savedRuns;
  };
  return {
    pattern: DOWNLOADER_HERE,
    next: 0,
    read(match) {
      // A download in a PowerShell block comment runs nothing: the search goes on past the comment.
      const commentEnd = blockCommentEnd(match.index);
      if (commentEnd !== undefined) {
        this.next = commentEnd;
        return undefined;
      }
      const { command: line, offset, end } = lines(match.index);
      this.next = end;
      const command = withoutComment(line, offset, commented, lineBlockComments);
      const runner =
        RUN_DOWNLOAD.test(command) ||
        scriptBlockRun(command, offset, kept) ||
        keptStringRun(command, offset, kept)
          ? "run as code"
          : (pipedInto(command) ??
            substitutedInto(command, true) ??
            (savedFileRun(command, offset, ranFiles) ? "saved to a file run as a program" : undefined));
      if (runner === undefined) return undefined;
      return {
        rule: "pipe-to-shell",
        offset,
        detail: `a download ${runner}: ${quoted(line.trim(), 160)}`,
      };
    },
  };
}
