/** Where a `#` starts a comment, which runs nothing: the kind of text, and a command line's comment. */
import { markdownLines } from "../markdown-lines.js";
import type { MarkdownLine } from "../markdown-walk.js";
import { wordSet } from "./words.js";

/**
 * Where a `#` starts a comment in a text: in the whole of it (a shell script; "powershell", a PowerShell
 * script, where `<# … #>` is one too), in the fenced code blocks of Markdown whose language's comments it
 * starts (`<# … #>` in PowerShell's), or nowhere.
 */
export type HashComments = "file" | "powershell" | "fenced" | "none";

/**
 * The comments of a command line: none, a shell's `#` (or another language's), or PowerShell's, where
 * `<# … #>` is one too.
 */
export type LineComments = "none" | "hash" | "powershell";

/**
 * The comments of the command line at an offset of `text` (asked in order, some skipped): with `fenced`,
 * those of a line of a fenced code block whose language is one of {@link HASH_COMMENT_LANGUAGES}, told by
 * a Markdown walk made once and read on as the offsets grow.
 */
export function commentReading(text: string, comments: HashComments): (offset: number) => LineComments {
  if (comments !== "fenced") {
    const kind = comments === "powershell" ? "powershell" : comments === "file" ? "hash" : "none";
    return () => kind;
  }
  const walk = markdownLines(text);
  let line: MarkdownLine | undefined;
  return (offset) => {
    while (line === undefined || line.end < offset) {
      const next = walk.next();
      if (next.done === true) return "none";
      line = next.value;
    }
    const language = line.language ?? "";
    if (line.start > offset || !HASH_COMMENT_LANGUAGES.has(language)) return "none";
    return POWERSHELL_LANGUAGES.has(language) ? "powershell" : "hash";
  };
}

/**
 * The languages of fenced blocks whose comments a `#` starts: shells, PowerShell, Python, Ruby, Perl,
 * YAML, TOML, Dockerfiles and Makefiles. Not `console`, `shell-session` or a block of no language, where a
 * line starting `# ` is a root prompt (`# curl … | sh` runs as root), nor Markdown, where it is a heading.
 */
const HASH_COMMENT_LANGUAGES: ReadonlySet<string> = wordSet(
  "sh bash zsh ksh dash ash fish shell shellscript posix powershell pwsh ps1 psm1 ps posh " +
    "python py python3 ruby rb perl pl yaml yml toml dockerfile docker makefile make",
);

/** The languages of fenced blocks that are PowerShell, where `<# … #>` is a comment. */
export const POWERSHELL_LANGUAGES: ReadonlySet<string> = wordSet("powershell pwsh ps1 psm1 ps posh");

/**
 * Where the comment of a command line starts, as a shell reads it: at a `#` beginning a word outside
 * quotes (`# never do: curl … | sh`, `make # not curl … | sh`), the line's length when none does. A `#`
 * inside a word (`https://x/#a`, `$#`) or in quotes starts none. With `powershell`, a block comment closed
 * on the line is passed over and one left open ends the line's reading (block-comments.ts reads it), and a
 * `#>` closes one, starting no line comment: `<# note #> iex $s` and `#> iex $s`, after a comment of many
 * lines, were read as comments and their runs missed. One pass.
 */
export function commentStart(command: string, powershell = false): number {
  let quote = 0;
  for (let index = 0; index < command.length; index++) {
    const code = command.charCodeAt(index);
    if (quote !== 0) {
      if (code === quote) quote = 0;
      else if (code === BACKSLASH_CODE && quote === DOUBLE_QUOTE_CODE) index++;
    } else if (code === BACKSLASH_CODE) {
      index++;
    } else if (code === SINGLE_QUOTE_CODE || code === DOUBLE_QUOTE_CODE) {
      quote = code;
    } else if (powershell && code === LESS_CODE && command.charCodeAt(index + 1) === HASH_CODE) {
      const close = command.indexOf("#>", index + 2);
      if (close === -1) return command.length;
      index = close + 1;
    } else if (powershell && code === HASH_CODE && command.charCodeAt(index + 1) === GREATER_CODE) {
      index++;
    } else if (code === HASH_CODE && (index === 0 || COMMENT_AFTER.has(command.charAt(index - 1)))) {
      return index;
    }
  }
  return command.length;
}

/**
 * `command`, a PowerShell command line, with its block comments blanked (each character a space, so that
 * offsets stay): one closed on the line, the end of one opened on a line before it, up to its `#>`, and
 * one opened on the line and closed on a later one, to the line's end. `inComment` says whether an index
 * of the line is in a block comment of the text (asked at its start, then at most once more, in order),
 * where one is closed after the line. A download inside one runs nothing, and read with the line it was
 * piped into the `iex` beside it (`<# irm x | iex #> iwr y -OutFile f` was flagged). One pass, quotes read
 * as {@link commentStart} reads them.
 */
export function withoutBlockComments(command: string, inComment: (index: number) => boolean): string {
  let blanked = "";
  let copiedFrom = 0;
  let index = 0;
  if (inComment(0)) {
    const close = command.indexOf("#>");
    if (close === -1) return " ".repeat(command.length);
    blanked = " ".repeat(close + 2);
    copiedFrom = close + 2;
    index = close + 2;
  }
  let quote = 0;
  for (; index < command.length; index++) {
    const code = command.charCodeAt(index);
    if (quote !== 0) {
      if (code === quote) quote = 0;
      else if (code === BACKSLASH_CODE && quote === DOUBLE_QUOTE_CODE) index++;
    } else if (code === BACKSLASH_CODE) {
      index++;
    } else if (code === SINGLE_QUOTE_CODE || code === DOUBLE_QUOTE_CODE) {
      quote = code;
    } else if (code === LESS_CODE && command.charCodeAt(index + 1) === HASH_CODE) {
      const close = command.indexOf("#>", index + 2);
      // Left open on the line: a comment if the text closes it later, else none (a stray `<#` hides nothing).
      if (close === -1) {
        return inComment(index)
          ? blanked + command.slice(copiedFrom, index)
          : blanked + command.slice(copiedFrom);
      }
      blanked += command.slice(copiedFrom, index) + " ".repeat(close + 2 - index);
      copiedFrom = close + 2;
      index = close + 1;
    }
  }
  return blanked + command.slice(copiedFrom);
}

/** What a `#` starting a comment may follow: a blank, or an operator ending a word. */
const COMMENT_AFTER: ReadonlySet<string> = new Set([" ", "\t", ";", "&", "|", "(", ")"]);
export const HASH_CODE = 0x23;
const LESS_CODE = 0x3c;
const GREATER_CODE = 0x3e;
const BACKSLASH_CODE = 0x5c;
export const SINGLE_QUOTE_CODE = 0x27;
export const DOUBLE_QUOTE_CODE = 0x22;
