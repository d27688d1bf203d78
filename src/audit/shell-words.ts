/**
 * Command lines read as a shell reads them, for the rules of commands (pipe-to-shell, data-upload): words
 * split at spaces and tabs, quoted or escaped text staying in its word, substitutions and expansions
 * running to their end, and the operators and redirections between words. Each reading is one pass.
 */
import { isSpace } from "./scan.js";

/** A word of a command: as written (`"A=b"`), and as the program run is given it, its quotes removed (`A=b`). */
export interface ShellWord {
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
export function* commandWords(stage: string): Generator<ShellWord> {
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
 * text's end (where the quote opened then is `unclosed`); `$(…)`, `<(…)` and `>(…)` run to their closing
 * parenthesis, `${…}` to its closing brace (`A=${A:-a b}` is one word), a backtick to the next.
 */
function wordAt(
  text: string,
  from: number,
): { end: number; text: string; unclosed: number | undefined } | undefined {
  let end = from;
  let quote: number | undefined;
  let quoteStart = from;
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
      quoteStart = end;
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
  const unclosed = quote === undefined ? undefined : quoteStart;
  return { end, text: unquotedText + text.slice(copiedFrom, end), unclosed };
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

/** What a shell reads in a command line: a word, an operator between commands, or a redirection and its file. */
export type ShellToken =
  | { readonly kind: "word"; readonly word: ShellWord }
  | { readonly kind: "operator"; readonly text: string }
  | { readonly kind: "redirection"; readonly operator: string; readonly file: ShellWord | undefined };

/**
 * Everything in `command`, in order, as a shell reads it (the words as {@link commandWords} reads them):
 * `|`, `|&`, `||`, `&&`, `;`, `&`, `(` and `)` are operators, `> file`, `2>&1`, `<<EOF` redirections.
 */
export function* shellTokens(command: string): Generator<ShellToken> {
  let index = 0;
  for (;;) {
    while (index < command.length && isSpace(command.charCodeAt(index))) index++;
    if (index === command.length) return;
    const operatorEnd = redirectionEnd(command, index);
    if (operatorEnd !== undefined) {
      const fileStart = skipBlanks(command, operatorEnd);
      const file = wordAt(command, fileStart);
      const operator = command.slice(index, operatorEnd);
      if (file === undefined) {
        yield { kind: "redirection", operator, file: undefined };
        index = fileStart;
      } else {
        yield {
          kind: "redirection",
          operator,
          file: { raw: command.slice(fileStart, file.end), text: file.text },
        };
        index = file.end;
      }
      continue;
    }
    const word = wordAt(command, index);
    if (word === undefined) {
      const end = controlEnd(command, index);
      yield { kind: "operator", text: command.slice(index, end) };
      index = end;
      continue;
    }
    yield { kind: "word", word: { raw: command.slice(index, word.end), text: word.text } };
    index = word.end;
  }
}

/**
 * Where the operator at `from`, where no word starts, ends: `&&`, `||`, `;;` and `|&` (a pipe of standard
 * output and error) are one, any other character is.
 */
function controlEnd(text: string, from: number): number {
  const code = text.charCodeAt(from);
  const next = text.charCodeAt(from + 1);
  const double =
    ((code === AMPERSAND || code === PIPE || code === 0x3b) && next === code) ||
    (code === PIPE && next === AMPERSAND);
  return double ? from + 2 : from + 1;
}

/**
 * The stages of the pipeline in `command` from `from` on, as a shell reads them: split at each `|` or `|&`
 * outside quotes, substitutions, expansions (`jq 'a | sh'` is one stage) and the groups opened after
 * `from` (`(cat > f; echo hi | sh)` is one stage), and ended by a `;`, `&`,
 * `&&` or `||` outside the groups opened after `from` (`curl …; echo hi | sh` pipes echo into sh, not the
 * download); a group opened before `from` and closed after such an end pipes all it wrote, the download
 * too, into the stages after it (`{ curl …; } | sh`, `(curl …; echo) | sh`), as a quote opened before it does
 * (`ssh host 'curl …; echo' | sh`). `from` may be inside quotes
 * (`echo "$(curl … )" | sh`, `ssh host 'curl … | sh'`): a quote never closed is read as closing the one
 * `from` is in, and the reading goes on after it, twice at most (a `"` and a `'`), so that each character
 * is read at most three times. Once a separator has ended the pipeline, the reading for a group's end stops
 * at `until`, where the caller reads on by itself (the next download on the line).
 */
export function* pipelineStages(
  command: string,
  from: number,
  until = command.length,
): Generator<PipelineStage> {
  let start = from;
  let index = from;
  // How many quotes never closed were read as closing one `from` is in.
  let closedOuter = 0;
  const groups: GroupDepth = { open: 0, ended: false };
  // Where a command starts, the only place a `{` or `}` opens or closes a group.
  let commandStart = true;
  for (;;) {
    while (index < command.length && isSpace(command.charCodeAt(index))) index++;
    if (index === command.length || (groups.ended && index >= until)) break;
    const operatorEnd = redirectionEnd(command, index);
    if (operatorEnd !== undefined) {
      const fileStart = skipBlanks(command, operatorEnd);
      index = wordAt(command, fileStart)?.end ?? fileStart;
      continue;
    }
    const word = wordAt(command, index);
    if (word !== undefined) {
      const raw = command.slice(index, word.end);
      const after = word.unclosed !== undefined && closedOuter < 2 ? word.unclosed + 1 : undefined;
      index = after ?? word.end;
      if (after !== undefined) {
        closedOuter++;
        // The quote `from` is in closes whatever was opened in it: `ssh host 'curl …; echo' | sh`.
        groups.open = 0;
        if (closeGroup(groups)) start = index;
        commandStart = false;
        continue;
      }
      if (commandStart && raw === "{") {
        groups.open++;
        continue;
      }
      if (commandStart && raw === "}" && closeGroup(groups)) start = index;
      commandStart = false;
      continue;
    }
    const end = controlEnd(command, index);
    const operator = command.slice(index, end);
    if (operator === "|" || operator === "|&") {
      // A pipe inside a group opened after the download is the group's own (`curl … | (cat > f; echo hi
      // | sh)`): the stage is the whole group, whose commands the caller reads.
      if (groups.open === 0) {
        if (!groups.ended) yield { text: command.slice(start, index), end: index };
        start = end;
      }
    } else if (operator === "(") {
      groups.open++;
    } else if (operator === ")") {
      if (closeGroup(groups)) start = end;
    } else if (groups.open === 0 && !groups.ended) {
      yield { text: command.slice(start, index), end: index };
      groups.ended = true;
    }
    commandStart = operator !== ")";
    index = end;
  }
  if (!groups.ended) yield { text: command.slice(start), end: command.length };
}

/** A stage of a pipeline: its text, and where it ends in the command (the last stage's end, the pipeline's). */
export interface PipelineStage {
  readonly text: string;
  readonly end: number;
}

/** The groups (`(…)`, `{ …; }`) a pipeline's reading is in, and whether a separator outside them ended it. */
interface GroupDepth {
  /** Groups opened after the download and not closed. */
  open: number;
  ended: boolean;
}

/**
 * Closes the innermost group; true when it is one opened before the download whose pipeline a separator
 * had ended: what the group writes, the download among it, goes on into the stages after it.
 */
function closeGroup(groups: GroupDepth): boolean {
  if (groups.open > 0) {
    groups.open--;
    return false;
  }
  if (!groups.ended) return false;
  groups.ended = false;
  return true;
}
