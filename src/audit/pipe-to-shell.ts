/** The pipe-to-shell rule: shell command lines that download a script and run it. */
import { quoted } from "../shared/index.js";
import { markdownLines } from "./markdown-lines.js";
import type { MarkdownLine } from "./markdown-walk.js";
import type { Reader } from "./reader.js";
import { commandWords, pipelineStages, type ShellToken, type ShellWord, shellTokens } from "./shell-words.js";

const DOWNLOADER =
  /\b(?:curl|wget|iwr|irm|Invoke-WebRequest|Invoke-RestMethod|DownloadString|DownloadFile)\b/i;

/**
 * Where a command that downloads may be, for the search it shares with the rules of
 * exfiltration-search.ts.
 */
const DOWNLOADER_HERE = new RegExp(DOWNLOADER.source, "iy");

/**
 * Shells read a script from standard input unless `-c` gives them one; `$SHELL` is the user's, and so is
 * `${SHELL:-sh}` (its default, a shell or not, stands only where no user's shell is set).
 */
const SHELL = /^(?:ba|z|da|k|fi|a|c|tc)?sh$|^\$(?:SHELL|\{SHELL(?::?[-=?][^}]*)?\})$/i;

/** Runtimes whose `run` subcommand, or themselves, run a program named `-` (standard input). */
const RUNTIME = /^(?:deno|bun)$/i;

/** A file that is standard input: a shell or interpreter given it as its script reads the download. */
const STDIN_FILE = /^\/dev\/(?:stdin|fd\/0)$|^\/proc\/self\/fd\/0$/;

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
 * PowerShell's `[scriptblock]::Create(…)` of a download, directly inside its parentheses or one pair
 * more (`[scriptblock]::Create((irm …))`, `…::Create((New-Object Net.WebClient).DownloadString(…))`),
 * as iex's forms are read: a block is code waiting to run. Each optional `(` takes the white space after
 * it, so that a run of spaces is matched one way only.
 */
const SCRIPT_BLOCK_DOWNLOAD =
  /\[(?:System\.Management\.Automation\.)?ScriptBlock\]::Create\s*\(\s*(?:\(\s*)?(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod|New-Object\s+(?:System\.)?Net\.WebClient)\b/i;

/**
 * Such a block run by `&` before it, or given to a cmdlet that runs it, by `-ScriptBlock` or as
 * Invoke-Command's first argument, one `(` at most between: `& ([scriptblock]::Create((irm …)))`,
 * `Invoke-Command -ScriptBlock ([scriptblock]::Create((iwr …).Content))`, `Start-Job -ScriptBlock (…)`.
 * The second `&` of `&&` calls nothing.
 */
const CALLED = new RegExp(
  `(?:(?<!&)&|-ScriptBlock\\b|\\b(?:Invoke-Command|icm)\\b)\\s*(?:\\(\\s*)?${SCRIPT_BLOCK_DOWNLOAD.source}`,
  "i",
);

/**
 * A script block of a download kept in a variable, the variable's name in group 1: `$b =
 * [scriptblock]::Create((irm …))`. What runs is the variable, on the same line or a later one.
 */
const KEPT_BLOCK = new RegExp(`\\$(\\w+)\\s*=\\s*${SCRIPT_BLOCK_DOWNLOAD.source}`, "gi");

/**
 * A variable run as a script block, its name in one group: `& $b` (not after `&&`), `. $b` (dot-sourced),
 * `$b.Invoke()`, `$b.InvokeReturnAsIs()`, `-ScriptBlock $b` (Invoke-Command, Start-Job),
 * `Invoke-Command $b`.
 */
const BLOCK_RUN =
  /(?<!&)&[ \t]*\$(\w+)|(?:^|[\s;{(|])\.[ \t]+\$(\w+)|\$(\w+)\.Invoke(?:ReturnAsIs)?[ \t]*\(|-ScriptBlock[ \t]+\$(\w+)|\b(?:Invoke-Command|icm)[ \t]+\$(\w+)/gim;

/**
 * The last place in `text` where each variable kept a script block of a download is run, by lowercase
 * name (PowerShell's names ignore case). Read once a text, when its first such block is kept: two passes,
 * one for the variables keeping one and one for their runs, so that only those are held.
 */
function keptBlockRuns(text: string): ReadonlyMap<string, number> {
  const kept = new Set<string>();
  for (const match of text.matchAll(KEPT_BLOCK)) kept.add((match[1] ?? "").toLowerCase());
  const runs = new Map<string, number>();
  for (const match of text.matchAll(BLOCK_RUN)) {
    const name = (match[1] ?? match[2] ?? match[3] ?? match[4] ?? match[5] ?? "").toLowerCase();
    if (kept.has(name)) runs.set(name, match.index);
  }
  return runs;
}

/**
 * Whether a script block of a download the command line at `offset` keeps in a variable is run after it,
 * on the line or a later one: `$b = [scriptblock]::Create((irm …)); & $b`. `runs` gives
 * {@link keptBlockRuns} of the text, read when first asked.
 */
function keptBlockRun(command: string, offset: number, runs: () => ReadonlyMap<string, number>): boolean {
  for (const match of command.matchAll(KEPT_BLOCK)) {
    const run = runs().get((match[1] ?? "").toLowerCase());
    if (run !== undefined && run > offset + match.index) return true;
  }
  return false;
}

/**
 * A download kept in a variable as a string, the variable's name in group 1 (PowerShell's) or 2 (a
 * shell's): `$s = irm …`, `$s = (iwr …).Content`, `$s = (New-Object Net.WebClient).DownloadString(…)`,
 * `x=$(curl …)`, `x="$(wget …)"`, ``x=`curl …` ``. A shell's name starts a word (the look-behind), so that a
 * long word is read once, not from each of its characters; `(` takes the white space after it.
 */
const KEPT_STRING =
  /\$(\w+)\s*=\s*(?:\(\s*)?(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod|New-Object\s+(?:System\.)?Net\.WebClient)\b|(?<![\w$])(\w+)="?(?:\$\(|`)[ \t]*(?:curl|wget)\b/gi;

/**
 * A PowerShell variable's string run as code, its name in one group: `iex $s`, `Invoke-Expression ($s)`,
 * `iex -Command $s`, `$s | iex`, and a script block made of it and run as {@link CALLED} and
 * {@link INVOKED} read one (`& ([scriptblock]::Create($s))`, `[scriptblock]::Create($s).Invoke()`,
 * `Invoke-Command -ScriptBlock ([scriptblock]::Create($s))`). Each optional part starts with a character of
 * its own, so that white space is matched one way only.
 */
const POWERSHELL_STRING_RUN =
  /\b(?:iex|Invoke-Expression)[ \t]*(?:-c[a-z]*[ \t]+)?(?:\([ \t]*)?"?\$(\w+)|\$(\w+)[ \t]*\|[ \t]*(?:iex|Invoke-Expression)\b|(?:(?<!&)&|-ScriptBlock\b|\b(?:Invoke-Command|icm)\b)[ \t]*(?:\([ \t]*)?\[(?:System\.Management\.Automation\.)?ScriptBlock\]::Create\([ \t]*\$(\w+)|\[(?:System\.Management\.Automation\.)?ScriptBlock\]::Create\([ \t]*\$(\w+)[ \t]*\)\.Invoke(?:ReturnAsIs)?\(/gi;

/**
 * A shell variable's string run as code, its name in one group: `eval "$x"`, `sh -c "$x"`, `bash -ec
 * "${x}"`, `echo "$x" | sudo bash`, `printf '%s\n' "$x" | sh`, `bash <<< "$x"`. A printf's format is read
 * to its closing quote on its line, a bounded search: the next printf's format starts after that quote.
 */
const SHELL_STRING_RUN =
  /\b(?:eval|(?:ba|z|da|k)?sh[ \t]+-[a-zA-Z]*c)[ \t]+["']?\$\{?(\w+)|\b(?:echo|printf[ \t]+'[^'\n]*')[ \t]+"?\$\{?(\w+)\}?"?[ \t]*\|[ \t]*(?:sudo[ \t]+)?(?:ba|z|da|k)?sh\b|\b(?:ba|z|da|k)?sh[ \t]*<<<[ \t]*"?\$\{?(\w+)/gi;

/** The name a match of a variable's run gives: its one group that matched. */
const runName = (match: RegExpMatchArray): string | undefined =>
  match.slice(1).find((name) => name !== undefined);

/** The key of a kept variable, by its PowerShell or shell name: PowerShell's names ignore case, a shell's do not. */
const variableKey = (powershell: string | undefined, shell: string | undefined): string =>
  powershell === undefined ? `sh ${shell ?? ""}` : `ps ${powershell.toLowerCase()}`;

/**
 * The last place in `text` where each variable kept a download as a string is run as code, by
 * {@link variableKey}. Read once a text, when its first such string is kept, in passes as
 * {@link keptBlockRuns} is: one for the variables keeping one, one for each language's runs.
 */
function keptStringRuns(text: string): ReadonlyMap<string, number> {
  const kept = new Set<string>();
  for (const match of text.matchAll(KEPT_STRING)) kept.add(variableKey(match[1], match[2]));
  const runs = new Map<string, number>();
  const found = (key: string, index: number) => {
    if (kept.has(key) && index > (runs.get(key) ?? -1)) runs.set(key, index);
  };
  for (const match of text.matchAll(POWERSHELL_STRING_RUN))
    found(variableKey(runName(match), undefined), match.index);
  for (const match of text.matchAll(SHELL_STRING_RUN))
    found(variableKey(undefined, runName(match)), match.index);
  return runs;
}

/**
 * Whether a download the command line at `offset` keeps in a variable as a string is run as code after
 * it, on the line or a later one: `$s = irm …; iex $s`, `x=$(curl …)` then `eval "$x"`. `runs` gives
 * {@link keptStringRuns} of the text, read when first asked.
 */
function keptStringRun(command: string, offset: number, runs: () => ReadonlyMap<string, number>): boolean {
  // Most lines with a download keep nothing: those are not searched again.
  if (!command.includes("=")) return false;
  for (const match of command.matchAll(KEPT_STRING)) {
    const run = runs().get(variableKey(match[1], match[2]));
    if (run !== undefined && run > offset + match.index) return true;
  }
  return false;
}

/** A script block run by its method, later on the line: `[scriptblock]::Create(…).Invoke()`. */
const INVOKED = /\.Invoke(?:ReturnAsIs)?\s*\(/i;

/**
 * Whether `command` makes a script block of a download and runs it, by `&` before it or by `.Invoke()`
 * after it, or keeps it in a variable run later ({@link keptBlockRun}; looked for only on a line that makes
 * one, so that other lines cost no more search). Each search reads the line once: the `.Invoke(` is looked for only after the first making, not
 * after each, which would read the rest of the line as many times.
 */
function scriptBlockRun(command: string, offset: number, runs: () => ReadonlyMap<string, number>): boolean {
  const made = SCRIPT_BLOCK_DOWNLOAD.exec(command);
  if (made === null) return false;
  return (
    CALLED.test(command) ||
    INVOKED.test(command.slice(made.index + made[0].length)) ||
    keptBlockRun(command, offset, runs)
  );
}

/**
 * A download run as code: piped into a shell or into an interpreter that reads its program from standard
 * input, or run through `<(…)`, `$(…)`, PowerShell's `iex` or a script block made of it. Whatever the
 * server at the other end sends on the day runs with the user's rights, and no review of the skill saw it.
 * `curl -o file` and a download piped into `jq`, `tar` or `python -m json.tool` read data and are not
 * flagged. Each command line holding a downloader is read once.
 */
export function pipeToShell(
  text: string,
  lines = commandLines(text),
  comments: HashComments = "none",
): Reader {
  const commented = commentReading(text, comments);
  const blockCommentEnd = blockCommentReading(text, comments);
  let runs: ReadonlyMap<string, number> | undefined;
  const blockRuns = () => {
    runs ??= keptBlockRuns(text);
    return runs;
  };
  let stringRuns: ReadonlyMap<string, number> | undefined;
  const keptRuns = () => {
    stringRuns ??= keptStringRuns(text);
    return stringRuns;
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
      // Where a Markdown file's blocks are told, only a line that may hold a comment is placed in them.
      const comment = commentStart(line);
      const command = comment < line.length && commented(offset) ? line.slice(0, comment) : line;
      const runner =
        RUN_DOWNLOAD.test(command) ||
        scriptBlockRun(command, offset, blockRuns) ||
        keptStringRun(command, offset, keptRuns)
          ? "run as code"
          : (pipedInto(command) ?? substitutedInto(command, true));
      if (runner === undefined) return undefined;
      return {
        rule: "pipe-to-shell",
        offset,
        detail: `a download ${runner}: ${quoted(line.trim(), 160)}`,
      };
    },
  };
}

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
function commentReading(text: string, comments: HashComments): (offset: number) => boolean {
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

/** The languages of fenced blocks that are PowerShell, where `<# … #>` is a comment. */
const POWERSHELL_LANGUAGES: ReadonlySet<string> = wordSet("powershell pwsh ps1 psm1 ps posh");

/**
 * Where the PowerShell block comment holding an offset of `text` ends, undefined when none holds it; asked
 * in order of offset. The comments are found once, when first asked, and only in a text holding a `<#`.
 */
function blockCommentReading(text: string, comments: HashComments): (offset: number) => number | undefined {
  if ((comments !== "powershell" && comments !== "fenced") || !text.includes("<#")) return () => undefined;
  let regions: readonly number[] | undefined;
  let next = 0;
  return (offset) => {
    regions ??= blockComments(text, comments === "fenced");
    while (next < regions.length && (regions[next + 1] ?? 0) <= offset) next += 2;
    const start = regions[next];
    return start !== undefined && start <= offset ? regions[next + 1] : undefined;
  };
}

/**
 * PowerShell's block comments in `text`, each as its start and its end after `#>`, in order: in the whole
 * text, or with `fenced`, in the lines of Markdown's fenced PowerShell blocks, a comment going on across
 * the lines of its block. *Decision*: one never closed (in the file, or in its block) is no comment, so
 * that a `<#` cannot hide what follows it; PowerShell refuses such a script, but a reader copies its lines.
 */
function blockComments(text: string, fenced: boolean): number[] {
  const regions: number[] = [];
  const scan: BlockScan = { open: -1, quote: 0, here: 0 };
  if (!fenced) {
    scanBlockComments(text, 0, text.length, scan, regions);
    return regions;
  }
  for (const line of markdownLines(text)) {
    if (POWERSHELL_LANGUAGES.has(line.language ?? "")) {
      scanBlockComments(text, line.start, line.end, scan, regions);
    } else {
      scan.open = -1;
      scan.quote = 0;
      scan.here = 0;
    }
  }
  return regions;
}

/**
 * Where a scan for block comments is: where the comment open starts (-1 when none is), the quote of the
 * string it is in and that of the here-string it is in (0 when none is).
 */
interface BlockScan {
  open: number;
  quote: number;
  here: number;
}

/**
 * Reads `text` from `from` (a line's start) to `to` a character at a time for block comments, adding each
 * closed one to `regions`: `<#` opens one outside strings and `#` comments, `#>` closes it. A string goes
 * on across lines, as PowerShell's do, and a here-string (`@'`, `@"`) to its `'@` or `"@` at a line's
 * start (past blanks and a quote's `>`): a `<#` inside one is text, and read as a comment a later `#>`
 * closed, it hid the commands between. A quote never closed makes no comment after it: a miss of a
 * comment costs a finding, not a hidden download. A `#` beginning a word starts a comment to the line's end.
 */
function scanBlockComments(text: string, from: number, to: number, scan: BlockScan, regions: number[]): void {
  let lineStart = true;
  for (let index = from; index < to; index++) {
    const code = text.charCodeAt(index);
    const after = index + 1 < to ? text.charCodeAt(index + 1) : -1;
    const atLineStart: boolean = lineStart;
    lineStart = code === NEWLINE_CODE || (atLineStart && LINE_PREFIX_CODES.has(code));
    if (scan.open !== -1) {
      if (code === HASH_CODE && after === GREATER_CODE) {
        regions.push(scan.open, index + 2);
        scan.open = -1;
        index++;
      }
    } else if (scan.here !== 0) {
      if (atLineStart && code === scan.here && after === AT_CODE) {
        scan.here = 0;
        index++;
      }
    } else if (scan.quote !== 0) {
      if (code === scan.quote) scan.quote = 0;
      else if (code === BACKTICK_CODE && scan.quote === DOUBLE_QUOTE_CODE) index++;
    } else if (code === AT_CODE && (after === SINGLE_QUOTE_CODE || after === DOUBLE_QUOTE_CODE)) {
      scan.here = after;
      index++;
    } else if (code === SINGLE_QUOTE_CODE || code === DOUBLE_QUOTE_CODE) {
      scan.quote = code;
    } else if (code === LESS_CODE && after === HASH_CODE) {
      scan.open = index;
      index++;
    } else if (code === HASH_CODE && (index === from || WORD_BEFORE_COMMENT.has(text.charAt(index - 1)))) {
      const newline = text.indexOf("\n", index);
      index = newline === -1 || newline > to ? to : newline - 1;
    }
  }
}

/** What may stand before a here-string's end on its line: blanks, and a Markdown quote's `>`. */
const LINE_PREFIX_CODES: ReadonlySet<number> = new Set([0x20, 0x09, 0x3e]);
const AT_CODE = 0x40;

/** What a `#` starting a PowerShell line comment may follow: a line break, or what {@link commentStart} allows. */
const WORD_BEFORE_COMMENT: ReadonlySet<string> = new Set([
  "\n",
  " ",
  "\t",
  ";",
  "&",
  "|",
  "(",
  ")",
  "{",
  "}",
]);
const NEWLINE_CODE = 0x0a;
const LESS_CODE = 0x3c;
const GREATER_CODE = 0x3e;
const BACKTICK_CODE = 0x60;

/**
 * Where the comment of a command line starts, as a shell reads it: at a `#` beginning a word outside
 * quotes (`# never do: curl … | sh`, `make # not curl … | sh`), the line's length when none does. A `#`
 * inside a word (`https://x/#a`, `$#`) or in quotes starts none. One pass.
 */
function commentStart(command: string): number {
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
const HASH_CODE = 0x23;
const BACKSLASH_CODE = 0x5c;
const SINGLE_QUOTE_CODE = 0x27;
const DOUBLE_QUOTE_CODE = 0x22;

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

/**
 * `piped into sh`, when a pipe after a download leads into something that runs what it reads. Each download
 * on the line is read up to where its pipeline ends (`curl …; curl … | sh`), and the search for the next
 * starts there; a pipeline a separator ended is read for a group's end only up to the next download, so
 * that each character is read by one pipeline.
 */
function pipedInto(command: string): string | undefined {
  const downloads = new RegExp(DOWNLOADER.source, "gi");
  let download = downloads.exec(command);
  while (download !== null) {
    const next = downloads.exec(command);
    let downloadStage = true;
    let end = download.index + 1;
    for (const stage of pipelineStages(command, download.index, next?.index)) {
      end = Math.max(end, stage.end);
      // The download's own stage reads nothing piped, but may write into a command; so may each stage after.
      const written = writtenInto(stage.text, downloadStage);
      const runner = written ?? (downloadStage ? undefined : stageRunner(stage.text, true, true));
      // A stage that runs what it reads drops none of it; one that runs nothing, or writes into a runner,
      // may write nothing it reads (`curl … | echo hi | sh`, `| echo hi > >(sh)`): from it on, no stage gets
      // the download, and a download in a later stage is read as one of its own (`… | echo hi | curl … |
      // sh`). Asked only then, so that a pipe into sh costs no more reading.
      const mayDrop = !downloadStage && (runner === undefined || written !== undefined);
      if (mayDrop && writesNoStageInput(stage.text)) break;
      if (runner !== undefined) return runner;
      downloadStage = false;
    }
    if (next === null || next.index >= end) {
      download = next;
    } else {
      downloads.lastIndex = end;
      download = downloads.exec(command);
    }
  }
  return undefined;
}

/**
 * `run as code` when a command of the line gives a shell or interpreter a download through a process
 * substitution or a here-string: as its script, past its options (`bash -x <(curl …)`, `python3 <(curl
 * …)`), or as the standard input it reads its program from (`bash < <(curl …)`, `bash <<< "$(curl …)"`).
 * The line's commands are read once, not those inside substitutions.
 */
function substitutedInto(command: string, remote: boolean): string | undefined {
  let words: ShellWord[] = [];
  let input = false;
  for (const token of shellTokens(command)) {
    if (token.kind === "operator") {
      if (runsDownload(words, input, remote)) return "run as code";
      words = [];
      input = false;
    } else if (token.kind === "redirection") {
      const file = token.file?.raw ?? "";
      if (INPUT_REDIRECTION.test(token.operator) && substitutedDownload(file)) input = true;
    } else if (words.length > 0 || token.word.raw !== PROMPT) {
      words.push(token.word);
    }
  }
  return runsDownload(words, input, remote) ? "run as code" : undefined;
}

/** A shell's prompt copied before a command (`$ . <(curl …)`): no program has that name. */
const PROMPT = "$";

/**
 * Whether a command of `words`, its standard input a download or not, runs a download as its program. A
 * command ssh runs on another host ({@link RemoteCommand}) does when one of its commands does (`ssh host
 * bash -c "$(curl …)"`, the download made here), or when ssh's input is a download that one of them runs
 * (`ssh host 'cd x; sh' < <(curl …)`).
 */
function runsDownload(words: readonly ShellWord[], input: boolean, remote: boolean): boolean {
  const args = wordReader(words.values());
  const found = programOf(args, remote);
  if (isRemote(found)) {
    return (
      substitutedInto(found.remote, false) !== undefined ||
      (input && remoteRunner(found.remote, false) !== undefined)
    );
  }
  const program = found?.text ?? "";
  const name = program.startsWith("$") ? program : program.slice(program.lastIndexOf("/") + 1);
  // `source <(curl …)`, `. <(wget …)`: the shell running the line runs the file it is given, standard
  // input too (`source /dev/stdin <<< "$(curl …)"`).
  if (name === "." || name === "source") {
    const file = args.next();
    return file !== undefined && (substitutedDownload(file.raw) || (input && STDIN_FILE.test(file.text)));
  }
  // `eval $(wget …)`: eval runs its words joined, a download among them.
  if (name === "eval") {
    for (let word = args.next(); word !== undefined; word = args.next()) {
      if (substitutedDownload(word.raw)) return true;
    }
    return false;
  }
  const options = SHELL.test(name) ? SHELL_OPTIONS : interpreterOptions(name);
  if (options === undefined) return false;
  const source = programSource(args, options);
  if (source === "stdin") return input;
  return source !== "option" && substitutedDownload(source.raw);
}

/** Redirections of standard input from a file or a string: `<`, `0<`, `<<<`. */
const INPUT_REDIRECTION = /^0?<(?:<<)?$/;

/**
 * Whether `word` is a process substitution or a command's output whose command is a download: `<(curl
 * …)`, `"$(wget …)"`, `` `curl …` ``, the downloader named by its path, escaped from an alias or run by a
 * runner (`$(/usr/bin/curl …)`, `$(\curl …)`, `$(command curl …)`, `<(sudo wget …)`: each was missed).
 * The substitution's first command is read with the word reader, once.
 */
function substitutedDownload(word: string): boolean {
  const opening = SUBSTITUTION_OPENING.exec(word);
  // Only a substitution naming a downloader is read for its program: each costs a reading of its words.
  if (opening === null || !DOWNLOADER_NAME.test(word)) return false;
  const found = programOf(wordReader(commandWords(word.slice(opening[0].length))), false);
  if (found === undefined || isRemote(found)) return false;
  return DOWNLOAD_PROGRAM.test(found.text.slice(found.text.lastIndexOf("/") + 1));
}

const SUBSTITUTION_OPENING = /^(?:<\(|"?\$\(|"?`)/;
const DOWNLOAD_PROGRAM = /^(?:curl|wget)$/i;
const DOWNLOADER_NAME = /curl|wget/i;

/**
 * `piped into sh through a process substitution` when a stage writes what it reads or downloads into one
 * whose command runs what it reads: its standard output redirected there (`curl … > >(sh)`, `curl … | tee
 * log > >(sh)`), or the file curl's `-o` or wget's `-O` names (`curl -o >(sh) …`, `curl -o>(sh) …`,
 * `--output=>(sh)`). The download's own stage writes to standard output only what it does not write to a
 * file (`curl -o out.txt … > >(sh)` runs nothing downloaded), and wget writes there only when `-O -` says
 * so (`wget URL > >(sh)` writes a file).
 */
function writtenInto(stage: string, downloadStage: boolean): string | undefined {
  let program: string | undefined;
  let options: OutputOption | undefined;
  // The value of an output option given as the next word is awaited.
  let output = false;
  let stdoutRunner: string | undefined;
  const files: DownloadFiles = { outputs: 0, toStdout: false, operands: 0 };
  for (const token of shellTokens(stage)) {
    if (token.kind === "redirection") {
      if (STDOUT_REDIRECTION.test(token.operator) && token.file !== undefined) {
        stdoutRunner ??= substitutionRunner(token.file.raw, true);
      }
      continue;
    }
    if (token.kind !== "word") continue;
    const { raw, text } = token.word;
    if (program === undefined) {
      program = text.toLowerCase();
      options = OUTPUT_OPTIONS.get(program);
      continue;
    }
    const value: string | undefined = output
      ? raw
      : options === undefined
        ? undefined
        : attachedOutput(raw, text, options);
    output = value === "";
    if (value === undefined) {
      countFile(files, text, options);
    } else if (value !== "") {
      const runner = substitutionRunner(value, true);
      if (runner !== undefined) return `${runner} through a process substitution`;
      countOutput(files, value);
    }
  }
  if (stdoutRunner === undefined) return undefined;
  if (downloadStage && program === "curl" && !writesToStdout(files)) return undefined;
  // wget writes to a file named by the address unless `-O -` names standard output.
  if (downloadStage && program === "wget" && !files.toStdout) return undefined;
  return `${stdoutRunner} through a process substitution`;
}

/** Redirections of standard output: `>`, `1>`, `>>`, `>|`, `&>`, `&>>`. */
const STDOUT_REDIRECTION = /^(?:1?>[>|]?|&>>?)$/;

/** An option naming the file a downloader writes to: its letter (alone or ending a cluster, `-sSo`) and its long name. */
interface OutputOption {
  readonly letter: string;
  readonly long: string;
  /** The letter of an option writing to a file named by the address, taking no value (curl's `-O`). */
  readonly remoteLetter: string | undefined;
  readonly remoteLong: string | undefined;
}

const OUTPUT_OPTIONS: ReadonlyMap<string, OutputOption> = new Map([
  ["curl", { letter: "o", long: "--output", remoteLetter: "O", remoteLong: "--remote-name" }],
  ["wget", { letter: "O", long: "--output-document", remoteLetter: undefined, remoteLong: undefined }],
]);

/**
 * The file an output option in `raw` names: its value attached (`-o>(sh)`, `-sSo>(sh)`, `--output=>(sh)`),
 * `""` when the option ends the word and its value is the next one, undefined for any other word. The
 * option is read in `text`, its quotes removed; the value from `raw`, where `>(` in quotes is a file's name.
 */
function attachedOutput(raw: string, text: string, option: OutputOption): string | undefined {
  if (text === option.long) return "";
  if (text.startsWith(`${option.long}=`)) {
    return raw.startsWith(`${option.long}=`)
      ? raw.slice(option.long.length + 1)
      : text.slice(option.long.length + 1);
  }
  if (text.startsWith("--") || !text.startsWith("-")) return undefined;
  const letter = text.indexOf(option.letter, 1);
  if (letter === -1 || !/^[a-zA-Z]*$/.test(text.slice(1, letter))) return undefined;
  if (letter === text.length - 1) return "";
  return raw.startsWith(text.slice(0, letter + 1)) ? raw.slice(letter + 1) : text.slice(letter + 1);
}

/** What curl's words say of where its downloads go: how many files it writes, whether one is standard output, and how many words may be addresses. */
interface DownloadFiles {
  outputs: number;
  toStdout: boolean;
  operands: number;
}

/** Counts a word of curl that names no output file: an option writing to a file named by the address (`-O`), or a word that may be an address. */
function countFile(files: DownloadFiles, word: string, options: OutputOption | undefined): void {
  if (options !== undefined && writesRemoteName(word, options)) files.outputs++;
  // Any other option's value is counted as an address too (`-H 'X: y'`): the download is then read as
  // written to standard output, as it is when curl is given more addresses than files.
  else if (!word.startsWith("-")) files.operands++;
}

/** `-O`, `-sSLO`, `--remote-name`: a file named by the address. */
function writesRemoteName(word: string, options: OutputOption): boolean {
  if (word === options.remoteLong) return true;
  const letter = options.remoteLetter;
  return letter !== undefined && word.includes(letter) && /^-[a-zA-Z]+$/.test(word);
}

function countOutput(files: DownloadFiles, file: string): void {
  files.outputs++;
  // Read with its quotes and escapes removed: `-o "-"` and `-o \/dev/stdout` are standard output too.
  const name = file.replace(/["'\\]/g, "");
  if (name === "-" || STDOUT_FILE.test(name)) files.toStdout = true;
}

/** A file that is standard output. */
const STDOUT_FILE = /^\/dev\/(?:stdout|fd\/1)$|^\/proc\/self\/fd\/1$/;

/**
 * Whether curl writes a download to standard output: unless every address it is given is written to a
 * file (one `-o file` or `-O` each), none of them standard output.
 */
function writesToStdout(files: DownloadFiles): boolean {
  return files.toStdout || files.outputs === 0 || files.outputs < files.operands;
}

/**
 * `piped into sh` when the command of a pipeline stage runs what it reads as code; with `teeing`, also when
 * it is `tee` writing what it reads into a command that does (`tee >(sh)`).
 */
function stageRunner(stage: string, teeing: boolean, remote: boolean): string | undefined {
  for (const command of inputCommands(stage, false)) {
    const runner = commandRunner(wordReader(command.values()), teeing, remote);
    if (runner !== undefined) return runner;
  }
  return undefined;
}

/**
 * `piped into sh` when a command of the command line ssh runs on another host runs what it reads: each
 * command of the line reads ssh's input, not only the first (`ssh host 'cd x; sh'`), and one after a pipe
 * what the command before it writes (`ssh host 'cat | sh'`, not `ssh host 'echo hi | sh'`).
 */
function remoteRunner(line: string, teeing: boolean): string | undefined {
  for (const command of inputCommands(line, true)) {
    const runner = commandRunner(wordReader(command.values()), teeing, false);
    if (runner !== undefined) return runner;
  }
  return undefined;
}

/**
 * The commands of a pipeline stage that read what is piped into it: its first, and each of a group it
 * opens run one after another (`(cd x; sh)`, `{ cd x && sh; }`), and one a pipe inside the group feeds
 * from a command that does, unless that command writes none of it (`(cd x; cat | sh)`, not `(cat > f;
 * echo hi | sh)`). With `list`, the stage is a whole command line given the input (ssh's remote command),
 * each of its commands reading it too. Read in one pass, with the stage's words and operators read once.
 */
function* inputCommands(stage: string, list: boolean): Generator<ShellWord[]> {
  let words: ShellWord[] = [];
  // Whether the command being read reads the stage's input, and the same for each group it is in.
  let reads = true;
  const groups: boolean[] = [];
  for (const token of shellTokens(stage)) {
    if (token.kind === "redirection") continue;
    const opens =
      token.kind === "operator" ? token.text === "(" : words.length === 0 && token.word.raw === "{";
    const closes =
      token.kind === "operator" ? token.text === ")" : words.length === 0 && token.word.raw === "}";
    if (token.kind === "word" && !opens && !closes) {
      words.push(token.word);
      continue;
    }
    if (reads && words.length > 0) yield words;
    // What a pipe after this command passes on is what it read, unless it reads nothing (`echo hi | sh`).
    const passesOn: boolean = reads && !writesNoInput(words);
    words = [];
    if (opens) {
      groups.push(reads);
    } else if (closes) {
      const group = groups.pop();
      // A `)` closing what the stage did not open ends the stage's commands (`$(curl … | sh)`).
      if (group === undefined) return;
      // What the group read is what it writes into a pipe after it.
      reads = group;
    } else if (token.kind === "operator" && token.text.startsWith("|")) {
      // A pipe inside a group or a list: the next command reads the one before it (`(cd x; cat | sh)`).
      reads = passesOn;
    } else {
      // After `;`, `&&`, `||` or `&` the next command reads the group's input, or the list's.
      reads = token.kind === "operator" && (groups[groups.length - 1] ?? list);
    }
  }
  if (reads && words.length > 0) yield words;
}

/**
 * Whether the command of `words` writes nothing it reads: shell builtins and commands that write only what
 * they are given or nothing (`echo hi`, `cd /tmp`), so that a pipe after it passes on none of the download.
 */
function writesNoInput(words: readonly ShellWord[]): boolean {
  const program = programOf(wordReader(words.values()), false);
  return program !== undefined && !isRemote(program) && NO_INPUT_COMMANDS.has(program.text);
}

/**
 * Whether a later stage of a pipeline is one command that writes nothing it reads ({@link writesNoInput}):
 * `echo hi` in `curl … | echo hi | sh`. A stage of more than one command (a group) is read as passing its
 * input on, as is any program not known to drop it (`tee`, `cat`, `gunzip`, `jq`, `base64 -d`): an
 * unknown filter is one an attacker may pick.
 */
function writesNoStageInput(stage: string): boolean {
  const tokens = shellTokens(stage);
  // The program is read first, and the rest of the stage only after one that drops its input: a stage of
  // a million words was read whole for each pipe.
  const program = programOf(wordReader(wordsBeforeOperator(tokens)), false);
  if (program === undefined || isRemote(program) || !NO_INPUT_COMMANDS.has(program.text)) return false;
  for (const token of tokens) if (token.kind === "operator") return false;
  return true;
}

/** The words of `tokens` up to the first operator, which is taken too; the rest stay to be read. */
function* wordsBeforeOperator(tokens: Iterator<ShellToken>): Generator<ShellWord> {
  for (let token = tokens.next(); token.done !== true; token = tokens.next()) {
    if (token.value.kind === "operator") return;
    if (token.value.kind === "word") yield token.value.word;
  }
}

const NO_INPUT_COMMANDS = wordSet("echo printf true false : cd pwd sleep mkdir export");

/**
 * `piped into sh` when a command of `words`, reading what is piped into it, runs it ({@link stageRunner}),
 * or when it is ssh and a command of the command line the remote shell reads does (`ssh host 'cd x; sh'`).
 */
function commandRunner(words: WordReader, teeing: boolean, remote: boolean): string | undefined {
  const found = programOf(words, remote);
  if (isRemote(found)) return remoteRunner(found.remote, teeing);
  const program = found?.text ?? "";
  // A parameter's expansion is named whole: `${SHELL:-/bin/sh}` holds a slash.
  const name = program.startsWith("$") ? program : program.slice(program.lastIndexOf("/") + 1);
  if (/^(?:iex|Invoke-Expression)$/i.test(name)) return `piped into ${name}`;
  // `source /dev/stdin`, `. /dev/stdin`: the shell running the pipeline runs the download itself; fish's
  // `source` given no file or `-` reads standard input (`curl … | source`, fisher's install line).
  if (/^(?:source|\.)$/.test(name) && sourcesStandardInput(words.next()?.text)) return `piped into ${name}`;
  if (RUNTIME.test(name) && runsStandardInput(words)) return `piped into ${name}`;
  if (POWERSHELL.test(name) && powershellReadsProgram(words)) return `piped into ${name}`;
  if (name === "su" && suRunsShell(words)) return "piped into su";
  const options = SHELL.test(name) ? SHELL_OPTIONS : interpreterOptions(name);
  if (options !== undefined && readsProgram(words, options)) return `piped into ${name}`;
  if (teeing && name === "tee") return teedInto(words, remote);
  return undefined;
}

function sourcesStandardInput(file: string | undefined): boolean {
  return file === undefined || file === "-" || STDIN_FILE.test(file);
}

/**
 * `piped into sh through tee` when one of tee's files is a process substitution whose command runs what it
 * reads (`tee >(sh)`, `tee -a log >(bash -s)`): tee writes what it reads to each. The command inside is read
 * for a runner, not for another tee, so each word of the line is read at most twice.
 */
function teedInto(files: WordReader, remote: boolean): string | undefined {
  for (let file = files.next(); file !== undefined; file = files.next()) {
    const runner = substitutionRunner(file.raw, remote);
    if (runner !== undefined) return `${runner} through tee`;
  }
  return undefined;
}

/**
 * `piped into sh` when `word` is a process substitution `>(…)` whose command runs what it reads. Its
 * stages are read for a runner, not for a tee, so each word of the line is read at most twice.
 */
function substitutionRunner(word: string, remote: boolean): string | undefined {
  if (!word.startsWith(">(")) return undefined;
  const inner = word.slice(2, word.endsWith(")") ? -1 : undefined);
  for (const stage of pipelineStages(inner, 0)) {
    const runner = stageRunner(stage.text, false, remote);
    if (runner !== undefined) return runner;
  }
  return undefined;
}

/** Words read one at a time, with a word read too far given back. */
interface WordReader {
  next(): ShellWord | undefined;
  unread(word: ShellWord): void;
}

function wordReader(words: Iterator<ShellWord>): WordReader {
  const back: ShellWord[] = [];
  return {
    next() {
      const word = back.pop();
      if (word !== undefined) return word;
      const read = words.next();
      return read.done ? undefined : read.value;
    },
    unread(word) {
      back.push(word);
    },
  };
}

/** Whether `deno` or `bun` given `args` runs standard input: `deno run -`, `bun -`, options between. */
function runsStandardInput(args: WordReader): boolean {
  for (let word = args.next(); word !== undefined; word = args.next()) {
    const arg = word.text;
    if (arg === "-" || STDIN_FILE.test(arg)) return true;
    if (arg !== "run" && !arg.startsWith("-")) return false;
  }
  return false;
}

/**
 * The options of a shell or an interpreter that decide whether it reads its program from standard input.
 * A short option's letters may be written together (`-eo pipefail`, `-uWignore`).
 */
interface ProgramOptions {
  /** Letters giving the program (`-c`, `-e`) or a module to run (`-m`): standard input is data then. */
  readonly program: string;
  /**
   * Of those, the letters whose value is the program's text: the rest of their word, or the next word
   * (`python3 -c CODE`, `perl -e CODE`). A shell's `-c` takes no value: its text is the first word that
   * is not an option (`bash -c -e CODE`, `bash -e -c CODE`), which {@link ProgramOptions.codeOperand} says.
   */
  readonly code: string;
  /** Whether the program's text given by a program letter is the first operand, as a shell's `-c` reads it. */
  readonly codeOperand: boolean;
  /** Letters taking a value: the rest of their word, or the next word when they end it (`-o pipefail`). */
  readonly value: string;
  /** Letters whose value, if any, is the rest of their word only (perl's `-l`, `-0777`, `-i.bak`). */
  readonly attached: string;
  /** Letters saying the program is standard input, what follows being its arguments (`sh -s`). */
  readonly stdin: string;
  /** Long options giving the program. */
  readonly longProgram: ReadonlySet<string>;
  /** Of those, the ones whose value is the program's text (`--eval TEXT`, `--eval=TEXT`). */
  readonly longCode: ReadonlySet<string>;
  /** Long options taking a value, the next word unless written after `=` (`--rcfile file`). */
  readonly longValue: ReadonlySet<string>;
  /** Whether `+` starts options too, as it does for shells (`+o posix`, `+x`). */
  readonly plus: boolean;
}

const SHELL_OPTIONS: ProgramOptions = {
  program: "c",
  code: "c",
  codeOperand: true,
  value: "oO",
  attached: "",
  stdin: "s",
  longProgram: new Set(),
  longCode: new Set(),
  longValue: new Set(["--rcfile", "--init-file"]),
  plus: true,
};

/** The options of interpreters that read a program from standard input when given none. */
const INTERPRETER_OPTIONS: readonly (readonly [RegExp, ProgramOptions])[] = [
  [
    /^python[\d.]*$/i,
    {
      program: "cm",
      code: "c",
      codeOperand: false,
      value: "WX",
      attached: "",
      stdin: "",
      longProgram: new Set(),
      longCode: new Set(),
      longValue: new Set(["--check-hash-based-pycs"]),
      plus: false,
    },
  ],
  [
    /^perl$/i,
    {
      program: "eE",
      code: "eE",
      codeOperand: false,
      value: "I",
      attached: "MmxlC0iDdF",
      stdin: "",
      longProgram: new Set(),
      longCode: new Set(),
      longValue: new Set(),
      plus: false,
    },
  ],
  [
    /^ruby$/i,
    {
      program: "e",
      code: "e",
      codeOperand: false,
      value: "rICE",
      attached: "xTWK0F",
      stdin: "",
      longProgram: new Set(),
      longCode: new Set(),
      longValue: new Set([
        "--enable",
        "--disable",
        "--encoding",
        "--external-encoding",
        "--internal-encoding",
      ]),
      plus: false,
    },
  ],
  [
    /^node$/i,
    {
      program: "ep",
      code: "ep",
      codeOperand: false,
      value: "rC",
      attached: "",
      stdin: "",
      longProgram: new Set(["--eval", "--print", "--test", "--run"]),
      longCode: new Set(["--eval", "--print"]),
      longValue: new Set([
        "--require",
        "--import",
        "--input-type",
        "--loader",
        "--experimental-loader",
        "--conditions",
        "--title",
        "--env-file",
        "--disable-warning",
        "--redirect-warnings",
      ]),
      plus: false,
    },
  ],
  [
    /^php$/i,
    {
      program: "rfFRBES",
      code: "rBRE",
      codeOperand: false,
      value: "dczt",
      attached: "",
      stdin: "",
      longProgram: new Set(),
      longCode: new Set(),
      longValue: new Set(),
      plus: false,
    },
  ],
];

const interpreterOptions = (name: string) => INTERPRETER_OPTIONS.find(([names]) => names.test(name))?.[1];

/** Whether a shell or interpreter given `args` runs standard input ({@link programSource}). */
function readsProgram(args: WordReader, options: ProgramOptions): boolean {
  return programSource(args, options) === "stdin";
}

/**
 * Where a shell or interpreter given `args` reads its program: standard input unless an option gives it
 * one or an argument names a script file. The word holding the program's text or naming its file is
 * returned: a script's (`bash x.sh`), a shell's `-c` text, the first word not an option (`bash -e -c
 * TEXT`, `bash -c -- TEXT`), and an interpreter's, its option's value (`python3 -c TEXT`, `-cTEXT`,
 * `node --eval=TEXT`). "option" when an option gives a program with no such word (`-m json.tool`, `bash
 * -c` alone); `-`, `-s` and `--` say "stdin, and what follows are its arguments". An option's value is no
 * script file (`bash -o pipefail`, `python3 -W ignore`).
 */
function programSource(args: WordReader, options: ProgramOptions): "stdin" | "option" | ShellWord {
  // A shell's `-c` was read: its text is the first word not an option.
  let codeOperand = false;
  for (let word = args.next(); word !== undefined; word = args.next()) {
    const arg = word.text;
    if (arg === "-" || arg === "--") {
      if (codeOperand) continue;
      return "stdin";
    }
    if (STDIN_FILE.test(arg) && !codeOperand) return "stdin";
    if (arg.startsWith("--")) {
      const name = arg.split("=", 1)[0] ?? arg;
      if (options.longCode.has(name))
        return name === arg ? (args.next() ?? "option") : valueAfter(word, name.length + 1);
      if (options.longProgram.has(name)) return "option";
      if (options.longValue.has(name) && name === arg) args.next();
      continue;
    }
    if (!(arg.startsWith("-") || (options.plus && arg.startsWith("+")))) return word;
    for (let index = 1; index < arg.length; index++) {
      const letter = arg.charAt(index);
      if (options.code.includes(letter)) {
        if (options.codeOperand) {
          codeOperand = true;
          continue;
        }
        return index === arg.length - 1 ? (args.next() ?? "option") : valueAfter(word, index + 1);
      }
      if (options.program.includes(letter)) return "option";
      if (options.stdin.includes(letter) && !codeOperand) return "stdin";
      if (options.attached.includes(letter)) break;
      if (options.value.includes(letter)) {
        if (index === arg.length - 1) args.next();
        break;
      }
    }
  }
  return codeOperand ? "option" : "stdin";
}

/**
 * The value attached to an option in `word`, from `length` characters of its text on (`-c"$(curl …)"`,
 * `--eval=…`): read in its raw text where the option is written without quotes, so that a substitution
 * in quotes is still seen as one.
 */
function valueAfter(word: ShellWord, length: number): ShellWord {
  const option = word.text.slice(0, length);
  const raw = word.raw.startsWith(option) ? word.raw.slice(length) : word.text.slice(length);
  return { raw, text: word.text.slice(length) };
}

/** su's options giving the shell a command, and those taking a value (`-s /bin/bash`, `-g wheel`). */
const SU_COMMAND = wordSet("-c --command --session-command");
const SU_VALUE = wordSet("-s -g -G -w --shell --group --supp-group --whitelist-environment");

/**
 * Whether `su` given `args` runs a shell reading standard input: it does unless `-c` gives it a command
 * (`su - root -c make`) or a word after the user names a script the shell is given.
 */
function suRunsShell(args: WordReader): boolean {
  let user = false;
  for (let word = args.next(); word !== undefined; word = args.next()) {
    const arg = word.text;
    const name = arg.split("=", 1)[0] ?? arg;
    if (SU_COMMAND.has(name) || /^-[a-zA-Z]*c/.test(arg)) return false;
    if (SU_VALUE.has(arg)) args.next();
    else if (!arg.startsWith("-")) {
      if (user) return false;
      user = true;
    }
  }
  return true;
}

const POWERSHELL = /^pwsh$|^powershell(?:\.exe)?$/i;

/** PowerShell's parameters giving the program, each as short as it may be written (`-c`, `-f`, `-e`). */
const POWERSHELL_PROGRAM = ["command", "file", "encodedcommand"];
/** PowerShell's parameters taking a value, written whole or cut to two letters or more, and their aliases. */
const POWERSHELL_VALUE = [
  "executionpolicy",
  "windowstyle",
  "outputformat",
  "inputformat",
  "configurationname",
  "workingdirectory",
  "version",
  "psconsolefile",
  "custompipename",
  "settingsfile",
];
const POWERSHELL_VALUE_ALIASES = new Set(["ep", "ex", "of", "if", "wd", "w", "v"]);

/**
 * Whether PowerShell given `args` runs standard input: `-` or `-Command -` (`-File -`), past parameters and
 * their values (`-ExecutionPolicy Bypass`), written with any case and cut short as it allows. A word not a
 * parameter is a script (pwsh's `-File`) or a command (Windows PowerShell's `-Command`).
 */
function powershellReadsProgram(args: WordReader): boolean {
  for (let word = args.next(); word !== undefined; word = args.next()) {
    const arg = word.text;
    if (arg === "-") return true;
    if (!arg.startsWith("-")) return false;
    const name = arg.replace(/^--?/, "").toLowerCase();
    if (name !== "" && POWERSHELL_PROGRAM.some((parameter) => parameter.startsWith(name))) {
      return args.next()?.text === "-";
    }
    const takesValue =
      POWERSHELL_VALUE_ALIASES.has(name) ||
      (name.length >= 2 && POWERSHELL_VALUE.some((parameter) => parameter.startsWith(name)));
    if (takesValue) args.next();
  }
  return true;
}

/**
 * The program of a pipeline stage, read from `words`: past the variables set for it (`VERSION=1.2 sh`, the
 * shell's own or `env`'s, `env "A=b"`) and the commands that run the command after them, each with its
 * options and their values (`sudo -u root`, `env -i`, `nohup`, `nice -n 5`) and the words it reads before
 * the command (`timeout 10`, `chroot /`), a value that would be the last word staying as what `sudo` runs.
 * `env -S 'sh -x'` splits its value into the words that follow. A runner that starts the user's shell
 * when given no command (`chroot /srv`, `sudo -s`, `sudo -i`, `doas -s`) gives `$SHELL`. Undefined when no
 * word is left for a program. With `remote`, ssh given a command gives the command line the remote user's
 * shell reads ({@link RemoteCommand}); without, ssh's words after the host are read as the program's.
 */
function programOf(words: WordReader, remote: boolean): ShellWord | RemoteCommand | undefined {
  /** The runner whose arguments are read; undefined outside one. */
  let runner: Runner | undefined;
  /** How many of the runner's operands are still to be read before its command. */
  let operands = 0;
  // Only one `env -S` is split: a split value holding another was split again, the text read once more.
  let split = false;
  // Whether the runner runs the user's shell if no command follows.
  let startsShell = false;
  for (let word = words.next(); word !== undefined; word = words.next()) {
    const text = word.text;
    if (runner !== undefined && text.startsWith("-")) {
      const splits = runner === ENV && !split ? envSplitString(text, words) : undefined;
      if (splits !== undefined) {
        split = true;
        for (const splitWord of [...commandWords(splits)].reverse()) words.unread(splitWord);
        continue;
      }
      const option = runnerOption(runner, text);
      if (option.noInput) return undefined;
      if (option.shell) startsShell = true;
      if (!option.value) continue;
      const value = words.next();
      if (value === undefined) return word;
      const after = words.next();
      // A runner that starts the user's shell runs it, not its option's value (`sudo -su root`).
      if (after === undefined) return startsShell && operands === 0 ? USER_SHELL : value;
      words.unread(after);
      continue;
    }
    if (operands > 0) {
      operands--;
      continue;
    }
    // ssh reads options after the host too (`ssh host -p 22`); its first other word starts the command.
    if (runner?.remote === true && remote) {
      words.unread(word);
      return remoteCommand(words);
    }
    // The shell reads `A=b` as an assignment only unquoted; a runner is given the word with its quotes gone.
    if (isAssignment(runner === undefined ? word.raw : text)) continue;
    runner = RUNNERS.get(text);
    if (runner === undefined) return word;
    operands = runner.operands;
    startsShell = runner.shell;
  }
  return startsShell && operands === 0 ? USER_SHELL : undefined;
}

/**
 * What a runner's option word says: whether it starts the user's shell (`-s`, `--login`) and whether its
 * value is the next word (`-u root`). Short options may be written together, read letter by letter as
 * getopt reads them: `-su root` is `-s -u root`, `-Tp 22` is `-T -p 22`, and a letter taking a value
 * takes the rest of its word if any (`-oL`, `-c3`).
 */
function runnerOption(runner: Runner, option: string): RunnerOption {
  if (option.startsWith("--") || option.length <= 2) {
    return {
      shell: runner.shellOptions.has(option),
      value: runner.values.has(option),
      noInput: runner.noInputOptions.has(option),
    };
  }
  let shell = false;
  for (let index = 1; index < option.length; index++) {
    const letter = `-${option.charAt(index)}`;
    if (runner.noInputOptions.has(letter)) return { shell, value: false, noInput: true };
    if (runner.shellOptions.has(letter)) shell = true;
    if (runner.values.has(letter)) return { shell, value: index === option.length - 1, noInput: false };
  }
  return { shell, value: false, noInput: false };
}

interface RunnerOption {
  readonly shell: boolean;
  readonly value: boolean;
  /** Whether what the runner runs reads no standard input then (`ssh -n`). */
  readonly noInput: boolean;
}

/**
 * The command line ssh runs on the host: the rest of its words joined with spaces, which the remote user's
 * shell reads anew, a list of commands each reading the pipe (`ssh host 'sudo bash -s'` runs sudo, not a
 * program `sudo bash -s`; `ssh host 'cd x; sh'` runs `sh` after `cd`).
 */
function remoteCommand(words: WordReader): RemoteCommand {
  const texts: string[] = [];
  for (let word = words.next(); word !== undefined; word = words.next()) texts.push(word.text);
  return { remote: texts.join(" ") };
}

/**
 * What ssh runs on another host, read as a command line of its own. It is read once more for the commands
 * in it, and an ssh inside it is read as a program given words, not as another command line, so that a
 * line's text is read a bounded number of times (`ssh a ssh b ssh c sh` read each tail anew).
 */
interface RemoteCommand {
  readonly remote: string;
}

const isRemote = (program: ShellWord | RemoteCommand | undefined): program is RemoteCommand =>
  program !== undefined && "remote" in program;

/** The shell a runner starts when given no command: the user's, which reads standard input. */
const USER_SHELL: ShellWord = { raw: "$SHELL", text: "$SHELL" };

/** `env -S 'sh -x'`, `-S'sh -x'`, `--split-string='sh -x'`: the string env splits into words, if `option` gives one. */
function envSplitString(option: string, words: WordReader): string | undefined {
  if (option === "-S" || option === "--split-string") return words.next()?.text;
  if (option.startsWith("--split-string=")) return option.slice("--split-string=".length);
  return option.startsWith("-S") ? option.slice(2) : undefined;
}

/** A command that runs the command given after it. */
interface Runner {
  /** Its options taking a value as the next word (`-u root`); other options are read as flags. */
  readonly values: ReadonlySet<string>;
  /** How many words it reads before the command, past its options: timeout's duration, chroot's new root. */
  readonly operands: number;
  /** Whether, given no command, it runs the user's shell (`chroot /srv` runs `$SHELL -i`), reading standard input. */
  readonly shell: boolean;
  /** Its options that make it run the user's shell when no command follows (`sudo -s`, `sudo -i`). */
  readonly shellOptions: ReadonlySet<string>;
  /** Its options after which what it runs reads no standard input (`ssh -n`, `ssh -N`). */
  readonly noInputOptions: ReadonlySet<string>;
  /** Whether its command is one string the user's shell on another host splits (ssh's). */
  readonly remote: boolean;
}

/** The words of a list written with spaces between them. */
function wordSet(list: string): ReadonlySet<string> {
  return new Set(list.split(" ").filter((word) => word !== ""));
}

const runner = (values: string, operands = 0, shell = false, shellOptions = ""): Runner => ({
  values: wordSet(values),
  operands,
  shell,
  shellOptions: wordSet(shellOptions),
  noInputOptions: new Set(),
  remote: false,
});

/**
 * ssh: given no command, the remote user's login shell reads the pipe (`ssh -T host`); given one, that
 * shell runs it with the pipe as its input (`ssh host bash`). `-n` and `-f` read /dev/null instead, `-N`
 * runs nothing, `-s` a subsystem, `-W` forwards the pipe to a port.
 */
const SSH: Runner = {
  ...runner("-B -b -c -D -E -e -F -I -i -J -L -l -m -O -o -P -p -Q -R -S -w", 1, true),
  noInputOptions: wordSet("-n -f -N -s -W"),
  remote: true,
};

const ENV = runner("-u -C --unset --chdir");

/**
 * Commands that run the command given after them, with their options that take a value as the next word
 * and the operands they read first. `{` and `!` are the shell's: a group, and a pipeline whose status is
 * negated, run what follows.
 */
const RUNNERS: ReadonlyMap<string, Runner> = new Map([
  [
    "sudo",
    runner(
      "-u -g -C -D -p -r -t -T -U -R -h " +
        "--user --group --close-from --chdir --prompt --role --type --command-timeout --other-user --host",
      0,
      false,
      "-s -i --shell --login",
    ),
  ],
  ["doas", runner("-u -C", 0, false, "-s")],
  ["env", ENV],
  ["command", runner("")],
  ["exec", runner("-a")],
  ["nohup", runner("")],
  ["time", runner("-f -o --format --output")],
  ["nice", runner("-n --adjustment")],
  ["timeout", runner("-k -s --kill-after --signal", 1)],
  ["setsid", runner("")],
  ["stdbuf", runner("-i -o -e --input --output --error")],
  ["chroot", runner("--userspec --groups", 1, true)],
  ["ionice", runner("-c -n -t --class --classdata")],
  // taskset's CPU mask or list (`taskset 0x3`, `taskset -c 0`) comes before the command.
  ["taskset", runner("", 1)],
  ["runuser", runner("-u -g -G -w --user --group --supp-group --whitelist-environment")],
  // unshare given no command runs `$SHELL`.
  [
    "unshare",
    runner(
      "-S -G -R -w --setuid --setgid --root --wd --propagation --setgroups " +
        "--map-user --map-group --map-users --map-groups --monotonic --boottime",
      0,
      true,
    ),
  ],
  ["ssh", SSH],
  ["{", runner("")],
  ["!", runner("")],
]);

const isAssignment = (word: string) => /^\w+=/.test(word);
