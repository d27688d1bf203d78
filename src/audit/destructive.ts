/** The destructive-command rule: a command that wipes the home folder, the root or a disk. */
import type { Reader } from "./reader.js";
import { isSpace } from "./scan.js";
import { details, WINDOW } from "./text-around.js";

/**
 * `rm -rf` (recursive, any spelling of the flags) of the root, the home folder or a system folder, alone or
 * as a glob (`"$HOME"/*`) or with `--no-preserve-root`, `mkfs`, `dd` onto a disk, and the shell's fork bomb.
 */
const DESTROYERS = /\brm\s|\bmkfs(?:\.\w+)?\s|\bdd\s|:\(\)\s*\{\s*:\|:&\s*\};:/y;
/** A disk a `dd` writes, at most {@link DD_REACH} characters after it on its line. */
const DISK = /\bof=\/dev\/(?:sd|nvme|disk|hd|xvd|vd|mmcblk)/g;
const DD_REACH = 200;
const WIPED = new Set([
  "",
  "~",
  "$HOME",
  "/home",
  "/Users",
  "/root",
  "/etc",
  "/usr",
  "/var",
  "/boot",
  "/bin",
]);

export function destructiveCommand(text: string): Reader {
  // `dd` looks for the first disk and line feed after it, each found once for all the `dd`s before it:
  // read to its disk with `dd\s[^\n]{0,200}?\bof=…`, `dd if=x ` repeated cost 48 ms of CPU a MiB.
  const diskAfter = firstAfter(text, DISK);
  const lineFeedAfter = firstAfter(text, /\n/g);
  const removesEverything = rmArguments(text);
  const detail = details(text);
  return {
    pattern: DESTROYERS,
    next: 0,
    read(match) {
      let end = match.index + match[0].length;
      if (match[0].startsWith("dd")) {
        const disk = diskAfter(end);
        const lineFeed = lineFeedAfter(end);
        if (
          disk === undefined ||
          disk.index - end > DD_REACH ||
          (lineFeed !== undefined && lineFeed.index < disk.index)
        ) {
          return undefined;
        }
        end = disk.end;
      }
      this.next = end;
      if (match[0].startsWith("rm") && !removesEverything(end)) return undefined;
      const what = match[0].startsWith(":")
        ? "a fork bomb, which stalls the machine"
        : /^(?:mkfs|dd)/.test(match[0])
          ? "overwrites a disk"
          : "removes the root, the home folder or a system folder";
      return {
        rule: "destructive-command",
        offset: match.index,
        detail: detail(what, match.index, end, 80),
      };
    },
  };
}

/**
 * A function giving the first match of `pattern` (global) in `text` at or after a place, asked of places
 * that never go back: the text after the last place asked is searched again only once the match found
 * there is behind, so all asks together search the text about once.
 */
function firstAfter(
  text: string,
  pattern: RegExp,
): (from: number) => { index: number; end: number } | undefined {
  let searched = -1;
  let found: { index: number; end: number } | undefined;
  return (from) => {
    if (searched !== -1 && searched <= from && (found === undefined || found.index >= from)) return found;
    pattern.lastIndex = from;
    const match = pattern.exec(text);
    searched = from;
    found = match === null ? undefined : { index: match.index, end: match.index + match[0].length };
    return found;
  };
}

/**
 * A function telling whether the arguments of an `rm` (from a place up to the end of its command, at most
 * 200 characters) remove recursively a folder in {@link WIPED}, asked of places that only grow, each at a
 * word's start or in white space (after `rm `). `rm -rf x ` repeated has an `rm` every nine characters:
 * each reading the 200 after it cost 77 ms of CPU a MiB (a slice, a split and a search of words for each,
 * 580). Each word is read once for all the `rm`s before it, and only where the last recursive flag and
 * the last folder such as `~` start is kept: an `rm` removes everything when both start at or after it.
 * A word cut by an `rm`'s 200 characters is read so cut for that `rm`, and again whole for the next.
 */
export function rmArguments(text: string): (from: number) => boolean {
  // Where reading goes on: past the last word read whole, and the white space after it.
  let scanned = 0;
  // Where the command being read ends, once found.
  let stop: number | undefined;
  let lastRecursive = -1;
  let lastWiped = -1;
  return (from) => {
    const limit = Math.min(text.length, from + WINDOW * 2);
    // Past what was read (reading never passes a command's end): what was read is behind.
    if (from >= scanned) {
      scanned = from;
      stop = undefined;
    }
    let cutRecursive = false;
    let cutWiped = false;
    while (stop === undefined && scanned < limit) {
      const start = scanned;
      const code = text.charCodeAt(start);
      if (endsCommand(code)) {
        stop = start;
        break;
      }
      if (isSpace(code)) {
        scanned++;
        continue;
      }
      const { end, open } = wordEnd(text, start, limit);
      const recursive = code === HYPHEN && isRecursiveFlag(text, start, end);
      const wiped =
        code === HYPHEN
          ? !recursive && end - start === NO_PRESERVE_ROOT.length && text.startsWith(NO_PRESERVE_ROOT, start)
          : mayBeWiped(text, start, end) && WIPED.has(bareTarget(text, start, end));
      const next = text.charCodeAt(end);
      if (
        end === limit &&
        end < text.length &&
        (open ? next !== LINE_FEED : !isSpace(next) && !endsCommand(next))
      ) {
        cutRecursive = recursive;
        cutWiped = wiped;
        break;
      }
      if (recursive) lastRecursive = start;
      if (wiped) lastWiped = start;
      scanned = end;
    }
    return (lastRecursive >= from || cutRecursive) && (lastWiped >= from || cutWiped);
  };
}

/**
 * Where the word of an `rm`'s arguments starting at `start` ends, before `limit`: at white space or
 * {@link endsCommand} outside quotes, as a shell reads it (`rm -rf "a;" ~` removes `~`: the `;` in quotes
 * ended the reading of the arguments, and it was missed), a backslash escaping the next character but in
 * single quotes. A line feed ends it even in quotes, the line read alone as the other command rules read
 * it. `open` when it ends inside a quote or after a backslash.
 */
function wordEnd(text: string, start: number, limit: number): { end: number; open: boolean } {
  let quote = 0;
  let end = start;
  while (end < limit) {
    const code = text.charCodeAt(end);
    if (code === LINE_FEED || (quote === 0 && (isSpace(code) || endsCommand(code)))) break;
    if (code === BACKSLASH && quote !== SINGLE_QUOTE && text.charCodeAt(end + 1) !== LINE_FEED) end++;
    else if (code === quote) quote = 0;
    else if (quote === 0 && (code === SINGLE_QUOTE || code === DOUBLE_QUOTE)) quote = code;
    end++;
  }
  return { end: Math.min(end, limit), open: quote !== 0 || end > limit };
}

const LINE_FEED = 0x0a;
const BACKSLASH = 0x5c;
const SINGLE_QUOTE = 0x27;
const DOUBLE_QUOTE = 0x22;

/** A word without its quotes and braces, and without a `/` or `/*` at its end: `"$HOME"/*` is `$HOME`. */
function bareTarget(text: string, start: number, end: number): string {
  return text
    .slice(start, end)
    .replace(/["'{}]/g, "")
    .replace(/\/\*?$/, "");
}

/** What ends a command for {@link rmArguments}: `;`, `|`, `&` and a line feed. */
function endsCommand(code: number): boolean {
  return code === 0x3b || code === 0x7c || code === 0x26 || code === 0x0a;
}

const HYPHEN = 0x2d;
const NO_PRESERVE_ROOT = "--no-preserve-root";

/** `--recursive`, or a hyphen and letters of which one is `r` or `R` (`-r`, `-fR`, `-rf`). */
function isRecursiveFlag(text: string, start: number, end: number): boolean {
  if (end - start === 11 && text.startsWith("--recursive", start)) return true;
  for (let index = start + 1; index < end; index++) {
    const code = text.charCodeAt(index) | 0x20;
    if (code === 0x72) return true;
    if (code < 0x61 || code > 0x7a) return false;
  }
  return false;
}

/**
 * Whether a word, without its quotes and braces, starts as every name in {@link WIPED} does (the root's
 * empty name is what is left of `/` or `/*`). One of quotes and braces only names no folder: `find …
 * -exec rm -rf {} +` removes what find found, and `rm -rf ""` nothing.
 */
function mayBeWiped(text: string, start: number, end: number): boolean {
  for (let index = start; index < end; index++) {
    const char = text[index];
    if (char === '"' || char === "'" || char === "{" || char === "}") continue;
    return char === "~" || char === "$" || char === "/";
  }
  return false;
}
