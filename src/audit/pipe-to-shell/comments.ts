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
 * Whether the command line at an offset of `text` (asked in order, some skipped) is one where a `#`
 * starts a comment: with `fenced`, a line of a fenced code block whose language is one of
 * {@link HASH_COMMENT_LANGUAGES}, told by a Markdown walk made once and read on as the offsets grow.
 */
export function commentReading(text: string, comments: HashComments): (offset: number) => boolean {
  if (comments !== "fenced") return () => comments === "file" || comments === "powershell";
  const walk = markdownLines(text);
  let line: MarkdownLine | undefined;
  return (offset) => {
    while (line === undefined || line.end < offset) {
      const next = walk.next();
      if (next.done === true) return false;
      line = next.value;
    }
    return line.start <= offset && HASH_COMMENT_LANGUAGES.has(line.language ?? "");
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

/**
 * Where the comment of a command line starts, as a shell reads it: at a `#` beginning a word outside
 * quotes (`# never do: curl … | sh`, `make # not curl … | sh`), the line's length when none does. A `#`
 * inside a word (`https://x/#a`, `$#`) or in quotes starts none. One pass.
 */
export function commentStart(command: string): number {
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
    } else if (code === HASH_CODE && (index === 0 || COMMENT_AFTER.has(command.charAt(index - 1)))) {
      return index;
    }
  }
  return command.length;
}

/** What a `#` starting a comment may follow: a blank, or an operator ending a word. */
const COMMENT_AFTER: ReadonlySet<string> = new Set([" ", "\t", ";", "&", "|", "(", ")"]);
export const HASH_CODE = 0x23;
export const BACKSLASH_CODE = 0x5c;
export const SINGLE_QUOTE_CODE = 0x27;
export const DOUBLE_QUOTE_CODE = 0x22;
