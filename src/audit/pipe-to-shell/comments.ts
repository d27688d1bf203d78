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
 * `command`, a command line, with the stretches `blanked` (offsets in it, start and end) made spaces, so
 * that its offsets stay: PowerShell's block comments on the line, as the text's reading found them. A
 * download inside one runs nothing, and read with the line it was piped into the `iex` beside it (`<# irm x
 * | iex #> iwr y -OutFile f` was flagged). A `<#` the text's reading finds in a string started on a line
 * before (`"` on one line, `<# " ; irm x | iex` on the next) opens no comment, and hides nothing.
 */
export function withoutBlockComments(
  command: string,
  blanked: readonly (readonly [number, number])[],
): string {
  let code = "";
  let copiedFrom = 0;
  for (const [start, end] of blanked) {
    const from = Math.min(Math.max(start, copiedFrom), command.length);
    const to = Math.min(end, command.length);
    code += command.slice(copiedFrom, from) + " ".repeat(Math.max(0, to - from));
    copiedFrom = Math.max(from, to);
  }
  return code + command.slice(copiedFrom);
}

/** What a `#` starting a comment may follow: a blank, or an operator ending a word. */
const COMMENT_AFTER: ReadonlySet<string> = new Set([" ", "\t", ";", "&", "|", "(", ")"]);
export const HASH_CODE = 0x23;
const LESS_CODE = 0x3c;
const GREATER_CODE = 0x3e;
const BACKSLASH_CODE = 0x5c;
export const SINGLE_QUOTE_CODE = 0x27;
export const DOUBLE_QUOTE_CODE = 0x22;
