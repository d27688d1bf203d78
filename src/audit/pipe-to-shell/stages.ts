/**
 * The commands of a pipeline stage that read what is piped into it, and whether one of them runs it as
 * code: a shell, an interpreter, `iex`, `source`, a `tee` into a process substitution, ssh's remote command.
 */
import { pipelineStages, type ShellToken, type ShellWord, shellTokens } from "../shell-words.js";
import {
  interpreterOptions,
  RUNTIME,
  readsProgram,
  runsStandardInput,
  SHELL,
  SHELL_OPTIONS,
  STDIN_FILE,
  suRunsShell,
} from "./interpreters.js";
import { POWERSHELL, powershellReadsProgram } from "./powershell.js";
import { isRemote, programOf } from "./runners.js";
import { type WordReader, wordReader, wordSet } from "./words.js";

/**
 * `piped into sh` when the command of a pipeline stage runs what it reads as code; with `teeing`, also when
 * it is `tee` writing what it reads into a command that does (`tee >(sh)`).
 */
export function stageRunner(stage: string, teeing: boolean, remote: boolean): string | undefined {
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
export function remoteRunner(line: string, teeing: boolean): string | undefined {
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
export function writesNoStageInput(stage: string): boolean {
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
export function substitutionRunner(word: string, remote: boolean): string | undefined {
  if (!word.startsWith(">(")) return undefined;
  const inner = word.slice(2, word.endsWith(")") ? -1 : undefined);
  for (const stage of pipelineStages(inner, 0)) {
    const runner = stageRunner(stage.text, false, remote);
    if (runner !== undefined) return runner;
  }
  return undefined;
}
