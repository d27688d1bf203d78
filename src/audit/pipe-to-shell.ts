/** The pipe-to-shell rule: shell command lines that download a script and run it. */
import { quoted } from "../visible.js";
import type { Reader } from "./reader.js";
import { isSpace } from "./scan.js";

const DOWNLOADER =
  /\b(?:curl|wget|iwr|irm|Invoke-WebRequest|Invoke-RestMethod|DownloadString|DownloadFile)\b/i;

/**
 * Where a command that downloads may be, for the search it shares with the rules of
 * exfiltration-search.ts.
 */
const DOWNLOADER_HERE = new RegExp(DOWNLOADER.source, "iy");

/** Shells read a script from standard input unless `-c` gives them one; `$SHELL` is the user's. */
const SHELL = /^(?:ba|z|da|k|fi|a|c|tc)?sh$|^\$(?:SHELL|\{SHELL\})$/i;

/** Runtimes whose `run` subcommand, or themselves, run a program named `-` (standard input). */
const RUNTIME = /^(?:deno|bun)$/i;

/** A file that is standard input: a shell or interpreter given it as its script reads the download. */
const STDIN_FILE = /^\/dev\/(?:stdin|fd\/0)$|^\/proc\/self\/fd\/0$/;

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
  let downloadStage = true;
  for (const stage of stagesFrom(command, download.index)) {
    // The download's own stage reads nothing piped.
    if (!downloadStage) {
      const runner = stageRunner(stage, true);
      if (runner !== undefined) return runner;
    }
    downloadStage = false;
  }
  return undefined;
}

/**
 * `piped into sh` when the command of a pipeline stage runs what it reads as code; with `teeing`, also when
 * it is `tee` writing what it reads into a command that does (`tee >(sh)`).
 */
function stageRunner(stage: string, teeing: boolean): string | undefined {
  const words = wordReader(commandWords(stage));
  const program = programOf(words)?.text ?? "";
  const name = program.slice(program.lastIndexOf("/") + 1);
  if (/^(?:iex|Invoke-Expression)$/i.test(name)) return `piped into ${name}`;
  // `source /dev/stdin`, `. /dev/stdin`: the shell running the pipeline runs the download itself.
  if (/^(?:source|\.)$/.test(name) && STDIN_FILE.test(words.next()?.text ?? "")) return `piped into ${name}`;
  if (RUNTIME.test(name) && runsStandardInput(words)) return `piped into ${name}`;
  if (POWERSHELL.test(name) && powershellReadsProgram(words)) return `piped into ${name}`;
  const options = SHELL.test(name) ? SHELL_OPTIONS : interpreterOptions(name);
  if (options !== undefined && readsProgram(words, options)) return `piped into ${name}`;
  if (teeing && name === "tee") return teedInto(words);
  return undefined;
}

/**
 * `piped into sh through tee` when one of tee's files is a process substitution whose command runs what it
 * reads (`tee >(sh)`, `tee -a log >(bash -s)`): tee writes what it reads to each. The command inside is read
 * for a runner, not for another tee, so each word of the line is read at most twice.
 */
function teedInto(files: WordReader): string | undefined {
  for (let file = files.next(); file !== undefined; file = files.next()) {
    if (!file.raw.startsWith(">(")) continue;
    const inner = file.raw.slice(2, file.raw.endsWith(")") ? -1 : undefined);
    for (const stage of stagesFrom(inner, 0)) {
      const runner = stageRunner(stage, false);
      if (runner !== undefined) return `${runner} through tee`;
    }
  }
  return undefined;
}

/** The stages of the pipeline in `command` from `from` on: up to the first `|`, then after each `|`. */
function* stagesFrom(command: string, from: number): Generator<string> {
  const pipes = /(?<!\|)\|(?![|&])/g;
  pipes.lastIndex = from;
  let start = from;
  for (let pipe = pipes.exec(command); pipe !== null; pipe = pipes.exec(command)) {
    yield command.slice(start, pipe.index);
    start = pipe.index + 1;
  }
  yield command.slice(start);
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
  /** Letters taking a value: the rest of their word, or the next word when they end it (`-o pipefail`). */
  readonly value: string;
  /** Letters whose value, if any, is the rest of their word only (perl's `-l`, `-0777`, `-i.bak`). */
  readonly attached: string;
  /** Letters saying the program is standard input, what follows being its arguments (`sh -s`). */
  readonly stdin: string;
  /** Long options giving the program. */
  readonly longProgram: ReadonlySet<string>;
  /** Long options taking a value, the next word unless written after `=` (`--rcfile file`). */
  readonly longValue: ReadonlySet<string>;
  /** Whether `+` starts options too, as it does for shells (`+o posix`, `+x`). */
  readonly plus: boolean;
}

const SHELL_OPTIONS: ProgramOptions = {
  program: "c",
  value: "oO",
  attached: "",
  stdin: "s",
  longProgram: new Set(),
  longValue: new Set(["--rcfile", "--init-file"]),
  plus: true,
};

/** The options of interpreters that read a program from standard input when given none. */
const INTERPRETER_OPTIONS: readonly (readonly [RegExp, ProgramOptions])[] = [
  [
    /^python[\d.]*$/i,
    {
      program: "cm",
      value: "WX",
      attached: "",
      stdin: "",
      longProgram: new Set(),
      longValue: new Set(["--check-hash-based-pycs"]),
      plus: false,
    },
  ],
  [
    /^perl$/i,
    {
      program: "eE",
      value: "I",
      attached: "MmxlC0iDdF",
      stdin: "",
      longProgram: new Set(),
      longValue: new Set(),
      plus: false,
    },
  ],
  [
    /^ruby$/i,
    {
      program: "e",
      value: "rICE",
      attached: "xTWK0F",
      stdin: "",
      longProgram: new Set(),
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
      value: "rC",
      attached: "",
      stdin: "",
      longProgram: new Set(["--eval", "--print", "--test", "--run"]),
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
      value: "dczt",
      attached: "",
      stdin: "",
      longProgram: new Set(),
      longValue: new Set(),
      plus: false,
    },
  ],
];

const interpreterOptions = (name: string) => INTERPRETER_OPTIONS.find(([names]) => names.test(name))?.[1];

/**
 * Whether a shell or interpreter given `args` runs standard input: it does unless an option gives it a
 * program (`-c`, `-m json.tool`) or an argument names a script file; `-`, `-s` and `--` say "stdin, and
 * what follows are its arguments". An option's value is no script file (`bash -o pipefail`, `python3 -W
 * ignore`).
 */
function readsProgram(args: WordReader, options: ProgramOptions): boolean {
  for (let word = args.next(); word !== undefined; word = args.next()) {
    const arg = word.text;
    if (arg === "-" || arg === "--" || STDIN_FILE.test(arg)) return true;
    if (arg.startsWith("--")) {
      const name = arg.split("=", 1)[0] ?? arg;
      if (options.longProgram.has(name)) return false;
      if (options.longValue.has(name) && name === arg) args.next();
      continue;
    }
    if (!(arg.startsWith("-") || (options.plus && arg.startsWith("+")))) return false;
    for (let index = 1; index < arg.length; index++) {
      const letter = arg.charAt(index);
      if (options.program.includes(letter)) return false;
      if (options.stdin.includes(letter)) return true;
      if (options.attached.includes(letter)) break;
      if (options.value.includes(letter)) {
        if (index === arg.length - 1) args.next();
        break;
      }
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
 * `env -S 'sh -x'` splits its value into the words that follow. Undefined when no word is left for a
 * program.
 */
function programOf(words: WordReader): ShellWord | undefined {
  /** The runner whose arguments are read; undefined outside one. */
  let runner: Runner | undefined;
  /** How many of the runner's operands are still to be read before its command. */
  let operands = 0;
  // Only one `env -S` is split: a split value holding another was split again, the text read once more.
  let split = false;
  for (let word = words.next(); word !== undefined; word = words.next()) {
    const text = word.text;
    if (runner !== undefined && text.startsWith("-")) {
      const splits = runner === ENV && !split ? envSplitString(text, words) : undefined;
      if (splits !== undefined) {
        split = true;
        for (const splitWord of [...commandWords(splits)].reverse()) words.unread(splitWord);
        continue;
      }
      if (!runner.values.has(text)) continue;
      const value = words.next();
      if (value === undefined) return word;
      const after = words.next();
      if (after === undefined) return value;
      words.unread(after);
      continue;
    }
    if (operands > 0) {
      operands--;
      continue;
    }
    // The shell reads `A=b` as an assignment only unquoted; a runner is given the word with its quotes gone.
    if (isAssignment(runner === undefined ? word.raw : text)) continue;
    runner = RUNNERS.get(text);
    if (runner === undefined) return word;
    operands = runner.operands;
  }
  return undefined;
}

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
}

const runner = (values: string, operands = 0): Runner => ({
  values: new Set(values.split(" ").filter((value) => value !== "")),
  operands,
});

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
    ),
  ],
  ["doas", runner("-u -C")],
  ["env", ENV],
  ["command", runner("")],
  ["exec", runner("-a")],
  ["nohup", runner("")],
  ["time", runner("-f -o --format --output")],
  ["nice", runner("-n --adjustment")],
  ["timeout", runner("-k -s --kill-after --signal", 1)],
  ["setsid", runner("")],
  ["stdbuf", runner("-i -o -e --input --output --error")],
  ["chroot", runner("--userspec --groups", 1)],
  ["ionice", runner("-c -n -t --class --classdata")],
  ["{", runner("")],
  ["!", runner("")],
]);

/** A word of a command: as written (`"A=b"`), and as the program run is given it, its quotes removed (`A=b`). */
interface ShellWord {
  readonly raw: string;
  readonly text: string;
}

/**
 * The words of the command a pipeline stage starts with, as a shell reads them: split at spaces and tabs,
 * quoted or escaped text staying in its word, up to a `;`, `&`, `|`, `(` or `)` outside quotes, and
 * redirections skipped wherever they stand, with their file (`A=1 >/dev/null sh`, `sh 2>&1`, `&> log`,
 * `< in`). A line separator U+2028 or a space in quotes (`VERSION="1 beta" sh`, `VERSION=1{U+2028}beta
 * sh`) is part of a variable's value, not a word of its own read as the program; before a word, it is the
 * line break a reader sees (`curl … |{U+2028}sh`). A subshell's `(` opening the stage is passed: `(sh)`
 * runs `sh`.
 */
function* commandWords(stage: string): Generator<ShellWord> {
  let index = 0;
  while (
    index < stage.length &&
    (isSpace(stage.charCodeAt(index)) || stage.charCodeAt(index) === OPEN_PARENTHESIS)
  ) {
    index++;
  }
  for (;;) {
    while (index < stage.length && isSpace(stage.charCodeAt(index))) index++;
    if (index === stage.length) return;
    const operatorEnd = redirectionEnd(stage, index);
    if (operatorEnd !== undefined) {
      const file = wordAt(stage, skipBlanks(stage, operatorEnd));
      index = file === undefined ? stage.length : file.end;
      continue;
    }
    const word = wordAt(stage, index);
    if (word === undefined) return;
    yield { raw: stage.slice(index, word.end), text: word.text };
    index = word.end;
  }
}

function skipBlanks(text: string, from: number): number {
  let index = from;
  while (index < text.length && isShellBlank(text.charCodeAt(index))) index++;
  return index;
}

/**
 * Where the operator of a redirection starting at `from` ends, its file's word after it: `>`, `>>`, `>|`,
 * `<`, `<<`, `<<-`, `<<<`, `<>`, `<&`, `>&`, after a file descriptor's digits or not, and `&>`, `&>>`.
 * Undefined when none starts there, and for `<(` and `>(`, which are words.
 */
function redirectionEnd(text: string, from: number): number | undefined {
  let index = from;
  while (isDigit(text.charCodeAt(index))) index++;
  const code = text.charCodeAt(index);
  if (index === from && code === AMPERSAND && text.charCodeAt(index + 1) === GREATER) {
    return text.charCodeAt(index + 2) === GREATER ? index + 3 : index + 2;
  }
  if (code !== LESS && code !== GREATER) return undefined;
  const next = text.charCodeAt(index + 1);
  if (next === OPEN_PARENTHESIS) return undefined;
  if (code === GREATER)
    return next === GREATER || next === AMPERSAND || next === PIPE ? index + 2 : index + 1;
  if (next === LESS) {
    const third = text.charCodeAt(index + 2);
    return third === LESS || third === HYPHEN ? index + 3 : index + 2;
  }
  return next === AMPERSAND || next === GREATER ? index + 2 : index + 1;
}

/**
 * The word at `from` as a shell reads it, and its text with its quotes and escaping backslashes removed;
 * undefined at a `;`, `&`, `|`, `(` or `)`, which end a command. A quote runs to its closing quote or the
 * text's end; `$(…)`, `<(…)` and `>(…)` run to their closing parenthesis, `${…}` to its closing brace
 * (`A=${A:-a b}` is one word), a backtick to the next.
 */
function wordAt(text: string, from: number): { end: number; text: string } | undefined {
  let end = from;
  let quote: number | undefined;
  // What closes each substitution open here, the innermost last: `)` or `}`.
  const closers: number[] = [];
  // The text without quotes is built only from a word holding one: copied up to each quote dropped. Not
  // a closure dropping it: tsx names one made anew at each call, most of the cost of a word.
  let unquotedText = "";
  let copiedFrom = from;
  while (end < text.length) {
    const code = text.charCodeAt(end);
    if (quote === undefined && closers.length === 0 && (isShellBlank(code) || endsWord(code))) {
      const substitution =
        (code === LESS || code === GREATER) && text.charCodeAt(end + 1) === OPEN_PARENTHESIS;
      if (!substitution) break;
      closers.push(CLOSE_PARENTHESIS);
      end += 2;
      continue;
    }
    // A backslash escapes the next character, but inside single quotes, where it is itself.
    if (code === BACKSLASH && quote !== SINGLE_QUOTE) {
      unquotedText += text.slice(copiedFrom, end);
      copiedFrom = end + 1;
      end += 2;
      continue;
    }
    if (code === quote || (quote === undefined && (code === SINGLE_QUOTE || code === DOUBLE_QUOTE))) {
      unquotedText += text.slice(copiedFrom, end);
      copiedFrom = end + 1;
      quote = code === quote ? undefined : code;
    } else if (quote === undefined && code === BACKTICK) {
      // A backtick closed in the stage opens a command's output (``A=`date` sh``); one that is not closes
      // the substitution the stage is in (`` `curl … | sh` ``), and ends the command.
      const closing = text.indexOf("`", end + 1);
      if (closing === -1) break;
      end = closing;
    } else if (quote === undefined && code === DOLLAR && opensSubstitution(text.charCodeAt(end + 1))) {
      closers.push(text.charCodeAt(end + 1) === OPEN_PARENTHESIS ? CLOSE_PARENTHESIS : CLOSE_BRACE);
      end++;
    } else if (quote === undefined && code === closers[closers.length - 1]) {
      closers.pop();
    }
    end++;
  }
  end = Math.min(end, text.length);
  if (end === from) return undefined;
  return { end, text: unquotedText + text.slice(copiedFrom, end) };
}

/** After a `$`: `(` opens a command's output, `{` a parameter's expansion (`${A:-a b}`). */
function opensSubstitution(code: number): boolean {
  return code === OPEN_PARENTHESIS || code === OPEN_BRACE;
}

/** What ends a word outside quotes besides blanks: `;`, `&`, `|`, `(`, `)`, `<` and `>`. */
function endsWord(code: number): boolean {
  return (
    code === 0x3b ||
    code === AMPERSAND ||
    code === PIPE ||
    code === OPEN_PARENTHESIS ||
    code === CLOSE_PARENTHESIS ||
    code === LESS ||
    code === GREATER
  );
}

const isDigit = (code: number) => code >= 0x30 && code <= 0x39;

const BACKSLASH = 0x5c;
const SINGLE_QUOTE = 0x27;
const DOUBLE_QUOTE = 0x22;
const BACKTICK = 0x60;
const DOLLAR = 0x24;
const AMPERSAND = 0x26;
const PIPE = 0x7c;
const LESS = 0x3c;
const GREATER = 0x3e;
const HYPHEN = 0x2d;
const OPEN_PARENTHESIS = 0x28;
const CLOSE_PARENTHESIS = 0x29;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** What separates a shell's words: a space or a tab (a line feed ends the command, and no other space splits). */
function isShellBlank(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

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
