/** Whether a place in a text is inside a comment, for the rule's searches of the whole text. */
import { blockCommentReading } from "./block-comments.js";
import { commentReading, commentStart, type HashComments } from "./comments.js";

/**
 * Whether an index of `text` (asked in increasing order) is inside a comment: a `#` comment of its line
 * where {@link HashComments} says `#` starts one, or PowerShell's `<# … #>`. A run of a kept variable in a
 * comment (`# iex $s`) runs nothing. Each line asked about is read once for its comment, so that many
 * runs on one line cost one reading of it.
 */
export function commentReader(text: string, comments: HashComments): (index: number) => boolean {
  if (comments === "none") return () => false;
  const lineComments = commentReading(text, comments);
  const blockCommentEnd = blockCommentReading(text, comments);
  let lineEnd = -1;
  let comment = 0;
  return (index) => {
    if (blockCommentEnd(index) !== undefined) return true;
    if (index > lineEnd) {
      const start = text.lastIndexOf("\n", index - 1) + 1;
      const newline = text.indexOf("\n", index);
      lineEnd = newline === -1 ? text.length : newline;
      const line = text.slice(start, lineEnd);
      // A line without a comment has none to reach, its line break included.
      const kind = lineComments(start);
      comment =
        kind === "none" ? Number.POSITIVE_INFINITY : start + commentStart(line, kind === "powershell");
      if (comment === lineEnd) comment = Number.POSITIVE_INFINITY;
    }
    return index >= comment;
  };
}
