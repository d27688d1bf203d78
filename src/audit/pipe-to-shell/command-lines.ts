/** The command lines of a text, joined across trailing backslashes, as pipe-to-shell and data-upload read them. */

/** A command line of a text: its text, joined across trailing backslashes, and where it starts and ends. */
export interface CommandLine {
  readonly command: string;
  readonly offset: number;
  readonly end: number;
}

/**
 * The command line holding an index of `text` ({@link commandAround}), the last one built kept: pipe-to-shell
 * and data-upload both read the line of a `curl` or `wget`, and each built it, a join across continued
 * lines too, once for itself.
 */
export function commandLines(text: string): (index: number) => CommandLine {
  let last: CommandLine | undefined;
  return (index) => {
    if (last === undefined || index < last.offset || index >= last.end) last = commandAround(text, index);
    return last;
  };
}

/**
 * The command line holding `index`, joined across trailing backslashes as a shell reads it, and the
 * offsets where it starts and ends.
 */
function commandAround(text: string, index: number): CommandLine {
  let offset = text.lastIndexOf("\n", index - 1) + 1;
  while (offset > 0 && /\\\r?\n$/.test(text.slice(Math.max(0, offset - 3), offset))) {
    offset = text.lastIndexOf("\n", offset - 2) + 1;
  }
  let end = offset;
  for (let start = offset; ; start = end + 1) {
    const newline = text.indexOf("\n", start);
    end = newline === -1 ? text.length : newline;
    const last = end - 1 >= start && text[end - 1] === "\r" ? end - 2 : end - 1;
    if (newline === -1 || last < start || text[last] !== "\\") break;
  }
  const command = joinContinued(text, offset, end);
  return { command: command.endsWith("\r") ? command.slice(0, -1) : command, offset, end };
}

/**
 * The text from `start` to `end` (lines continued with a trailing backslash) with each backslash and the
 * line break after it read as one space. Built in a buffer: a file of millions of continued lines made a
 * regular expression's replacement hold hundreds of megabytes.
 */
function joinContinued(text: string, start: number, end: number): string {
  const newline = text.indexOf("\n", start);
  if (newline === -1 || newline >= end) return text.slice(start, end);
  const units = new Uint16Array(end - start);
  let length = 0;
  for (let index = start; index < end; index++) {
    const code = text.charCodeAt(index);
    const breakAt = code === 0x5c && text.charCodeAt(index + 1) === 0x0d ? index + 2 : index + 1;
    if (code === 0x5c && breakAt < end && text.charCodeAt(breakAt) === 0x0a) {
      units[length++] = 0x20;
      index = breakAt;
    } else {
      units[length++] = code;
    }
  }
  const parts: string[] = [];
  for (let from = 0; from < length; from += CHUNK) {
    parts.push(String.fromCharCode(...units.subarray(from, Math.min(length, from + CHUNK))));
  }
  return parts.join("");
}

/** Characters turned into a string at once: few enough to pass as arguments. */
const CHUNK = 8192;
