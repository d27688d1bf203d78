/** The pipe-to-shell rule: shell command lines that download a script and run it. */
import { quoted } from "../visible.js";
import type { Reader } from "./reader.js";

const DOWNLOADER =
  /\b(?:curl|wget|iwr|irm|Invoke-WebRequest|Invoke-RestMethod|DownloadString|DownloadFile)\b/i;

/**
 * Where a command that downloads may be, for the search it shares with the rules of
 * exfiltration-search.ts.
 */
const DOWNLOADER_HERE = new RegExp(DOWNLOADER.source, "iy");

/** Shells read a script from standard input unless `-c` gives them one; `$SHELL` is the user's. */
const SHELL = /^(?:ba|z|da|k|fi|a|c|tc)?sh$|^pwsh$|^powershell(?:\.exe)?$|^\$(?:SHELL|\{SHELL\})$/i;

/** These read a program from standard input only without a program of their own (`-c`, `-m`, `-e`, a file). */
const INTERPRETER = /^(?:python[\d.]*|perl|ruby|node|php)$/i;

const INTERPRETER_PROGRAM = /^-[a-zA-Z]*[cmeEnpr]|^--(?:eval|print)\b/;

/** Runtimes whose `run` subcommand, or themselves, run a program named `-` (standard input). */
const RUNTIME = /^(?:deno|bun)$/i;

/** A file that is standard input: a shell or interpreter given it as its script reads the download. */
const STDIN_FILE = /^\/dev\/(?:stdin|fd\/0)$|^\/proc\/self\/fd\/0$/;

const SHELL_PROGRAM = /^-[a-zA-Z]*c$|^-(?:Command|File)$/i;

/**
 * `bash <(curl …)`, `sh -c "$(curl …)"`, `eval "$(wget …)"`, `iex (iwr …)`, `iex ((New-Object Net.WebClient)…)`.
 * Between `iex` and the download: white space and up to two `(`, at least one of either, matched one way
 * only (`\s*[(\s]\s*\(?\s*` matched it in cubically many ways, and `iex` and many spaces stalled the audit).
 */
const RUN_DOWNLOAD =
  /(?:\b(?:(?:ba|z|da|k)?sh|source)\s+<\(|(?:^|[\s;&|(])\.\s+<\(|\b(?:(?:ba|z|da|k)?sh\s+-c|eval)\s+["']?(?:\$\(|`))\s*(?:curl|wget)\b|\b(?:iex|Invoke-Expression)\b(?=[(\s])\s*(?:\(\s*){0,2}(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod|New-Object\s+(?:System\.)?Net\.WebClient)\b/i;

/**
 * A download run as code: piped into a shell or into an interpreter that reads its program from standard
 * input, or run through `<(…)`, `$(…)` or PowerShell's `iex`. Whatever the server at the other end sends
 * on the day runs with the user's rights, and no review of the skill saw it. `curl -o file` and a
 * download piped into `jq`, `tar` or `python -m json.tool` read data and are not flagged. Each command
 * line holding a downloader is read once.
 */
export function pipeToShell(text: string, lines = commandLines(text)): Reader {
  return {
    pattern: DOWNLOADER_HERE,
    next: 0,
    read(match) {
      const { command, offset, end } = lines(match.index);
      this.next = end;
      const runner = RUN_DOWNLOAD.test(command) ? "run as code" : pipedInto(command);
      if (runner === undefined) return undefined;
      return {
        rule: "pipe-to-shell",
        offset,
        detail: `a download ${runner}: ${quoted(command.trim(), 160)}`,
      };
    },
  };
}

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

/** `piped into sh`, when a pipe after the download leads into something that runs what it reads. */
function pipedInto(command: string): string | undefined {
  const download = DOWNLOADER.exec(command);
  if (download === null) return undefined;
  for (const stage of pipedStages(command, download.index)) {
    const cut = stage.search(/[;&<>]|\s\d>/);
    const run = cut === -1 ? stage : stage.slice(0, cut);
    const words = run.slice(programStart(run)).matchAll(/[^\s)]+/g);
    const program = words.next();
    const name = program.done ? "" : unquoted(program.value[0]).replace(/^.*\//, "");
    if (/^(?:iex|Invoke-Expression)$/i.test(name)) return `piped into ${name}`;
    // `source /dev/stdin`, `. /dev/stdin`: the shell running the pipeline runs the download itself.
    if (/^(?:source|\.)$/.test(name) && STDIN_FILE.test(unquoted(words.next().value?.[0] ?? ""))) {
      return `piped into ${name}`;
    }
    if (RUNTIME.test(name) && runsStandardInput(words)) return `piped into ${name}`;
    const gives = SHELL.test(name) ? SHELL_PROGRAM : INTERPRETER.test(name) ? INTERPRETER_PROGRAM : undefined;
    if (gives !== undefined && readsProgram(words, gives)) return `piped into ${name}`;
  }
  return undefined;
}

/** The stages of the pipeline in `command` that `|`s after `from` feed, one at a time. */
function* pipedStages(command: string, from: number): Generator<string> {
  const pipes = /(?<!\|)\|(?![|&])/g;
  pipes.lastIndex = from;
  for (let pipe = pipes.exec(command); pipe !== null; ) {
    const start = pipe.index + 1;
    pipe = pipes.exec(command);
    yield command.slice(start, pipe === null ? command.length : pipe.index);
  }
}

/** Whether `deno` or `bun` given `args` runs standard input: `deno run -`, `bun -`, options between. */
function runsStandardInput(args: Iterable<RegExpMatchArray>): boolean {
  for (const [word] of args) {
    const arg = unquoted(word);
    if (arg === "-" || STDIN_FILE.test(arg)) return true;
    if (arg !== "run" && !arg.startsWith("-")) return false;
  }
  return false;
}

/**
 * Whether a shell or interpreter given `args` runs standard input: it does unless a flag gives it a
 * program (`-c`, `-m json.tool`) or an argument names a script file; `-`, `-s` and `--` say "stdin, and
 * what follows are its arguments".
 */
function readsProgram(args: Iterable<RegExpMatchArray>, givesProgram: RegExp): boolean {
  for (const [word] of args) {
    const arg = unquoted(word);
    if (arg === "-" || arg === "-s" || arg === "--" || STDIN_FILE.test(arg)) return true;
    if (givesProgram.test(arg) || !arg.startsWith("-")) return false;
  }
  return true;
}

/**
 * Where the program of a pipeline stage starts: past the variables set for it (`VERSION=1.2 sh`, the
 * shell's own or `env`'s) and the commands that run the command after them, each with its options and
 * their values (`sudo -u root`, `env -i`, `nohup`, `nice -n 5`). A last word always stays, as the program
 * or as what `sudo` runs.
 */
function programStart(stage: string): number {
  /** The options of the runner whose arguments are read, which take a value; undefined outside one. */
  let options: ReadonlySet<string> | undefined;
  for (let word = wordAt(stage, 0); word !== undefined; ) {
    const next = wordAt(stage, word.end);
    if (next === undefined) return word.start;
    const text = stage.slice(word.start, word.end);
    if (options !== undefined && isFlag(text)) {
      const after = options.has(text) ? wordAt(stage, next.end) : next;
      if (after === undefined) return next.start;
      word = after;
      continue;
    }
    if (!isAssignment(text)) {
      options = RUNNERS.get(text);
      if (options === undefined) return word.start;
    }
    word = next;
  }
  return stage.length;
}

/** Commands that run the command given after them, with their options that take a value as the next word. */
const RUNNERS: ReadonlyMap<string, ReadonlySet<string>> = new Map([
  ["sudo", new Set(["-u", "-g", "-C", "-D", "-p", "-r", "-t", "-T", "-U", "-R"])],
  ["doas", new Set(["-u", "-C"])],
  ["env", new Set(["-u", "-C"])],
  ["command", new Set()],
  ["exec", new Set(["-a"])],
  ["nohup", new Set()],
  ["time", new Set(["-f", "-o"])],
  ["nice", new Set(["-n"])],
]);

/**
 * The first word at or after `from` as a shell splits it: at spaces and tabs only, a quoted or escaped
 * stretch staying in its word. A line separator U+2028 or a space in quotes (`VERSION="1 beta" sh`,
 * `VERSION=1{U+2028}beta sh`) is part of a variable's value, not a word of its own read as the program.
 */
function wordAt(text: string, from: number): { start: number; end: number } | undefined {
  let start = from;
  while (start < text.length && isShellBlank(text.charCodeAt(start))) start++;
  if (start === text.length) return undefined;
  let end = start;
  let quote: number | undefined;
  while (end < text.length && (quote !== undefined || !isShellBlank(text.charCodeAt(end)))) {
    const code = text.charCodeAt(end);
    // A backslash escapes the next character, but inside single quotes, where it is itself.
    if (code === BACKSLASH && quote !== SINGLE_QUOTE) end++;
    else if (code === quote) quote = undefined;
    else if (quote === undefined && (code === SINGLE_QUOTE || code === DOUBLE_QUOTE)) quote = code;
    end++;
  }
  return { start, end: Math.min(end, text.length) };
}

const BACKSLASH = 0x5c;
const SINGLE_QUOTE = 0x27;
const DOUBLE_QUOTE = 0x22;

/** What separates a shell's words: a space or a tab (a line feed ends the command, and no other space splits). */
function isShellBlank(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

const isFlag = (word: string) => word.length > 1 && word.startsWith("-");

const isAssignment = (word: string) => /^\w+=/.test(word);

/** `word` without the quotes around it (any number of `"`, `'` and backticks at either end). */
export function unquoted(word: string): string {
  let start = 0;
  let end = word.length;
  while (start < end && isQuote(word.charCodeAt(start))) start++;
  while (end > start && isQuote(word.charCodeAt(end - 1))) end--;
  return start === 0 && end === word.length ? word : word.slice(start, end);
}

/**
 * `"`, `'` or a backtick. Not a closure in {@link unquoted}: made anew for each word, and under tsx named
 * at each call too, it was most of the cost of reading a command line of many words.
 */
function isQuote(code: number): boolean {
  return code === 0x22 || code === 0x27 || code === 0x60;
}
