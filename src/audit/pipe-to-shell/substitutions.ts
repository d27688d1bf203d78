/**
 * A download given to a shell or interpreter through a process substitution, a command's output or a
 * here-string: as its script, or as the standard input it reads its program from.
 */
import { type ShellWord, shellTokens } from "../shell-words.js";
import { DOWNLOADER_NAME, substitutedDownload } from "./downloads.js";
import { interpreterOptions, programSource, SHELL, SHELL_OPTIONS, STDIN_FILE } from "./interpreters.js";
import { isRemote, programOf } from "./runners.js";
import { remoteRunner } from "./stages.js";
import { wordReader } from "./words.js";

/**
 * `run as code` when a command of the line gives a shell or interpreter a download through a process
 * substitution or a here-string: as its script, past its options (`bash -x <(curl …)`, `python3 <(curl
 * …)`), or as the standard input it reads its program from (`bash < <(curl …)`, `bash <<< "$(curl …)"`).
 * The line's commands are read once, not those inside substitutions; the text a shell's `-c` or `eval`
 * runs is read as a command line of its own ({@link NESTED_TEXTS}), `depth` being how deep this one is.
 */
export function substitutedInto(command: string, remote: boolean, depth = 0): string | undefined {
  let words: ShellWord[] = [];
  let input = false;
  for (const token of shellTokens(command)) {
    if (token.kind === "operator") {
      if (runsDownload(words, input, remote, depth)) return "run as code";
      words = [];
      input = false;
    } else if (token.kind === "redirection") {
      const file = token.file?.raw ?? "";
      if (INPUT_REDIRECTION.test(token.operator) && substitutedDownload(file)) input = true;
    } else if (words.length > 0 || token.word.raw !== PROMPT) {
      words.push(token.word);
    }
  }
  return runsDownload(words, input, remote, depth) ? "run as code" : undefined;
}

/**
 * How deep a shell's text inside a shell's text is read (`sh -c 'bash -c "eval \"$(curl …)\""'` is 2): the
 * inner shell runs its text as a command line, so `sh -c 'eval "$(curl …)"'` and `bash -c 'python3 <(curl
 * …)'` run the download (they were missed). Each level reads its text once more, so that a line is read
 * at most 1 + 3 times however deep a hostile text nests.
 */
const NESTED_TEXTS = 3;

/** A shell's prompt copied before a command (`$ . <(curl …)`): no program has that name. */
const PROMPT = "$";

/**
 * Whether a command of `words`, its standard input a download or not, runs a download as its program. A
 * command ssh runs on another host ({@link RemoteCommand}) does when one of its commands does (`ssh host
 * bash -c "$(curl …)"`, the download made here), or when ssh's input is a download that one of them runs
 * (`ssh host 'cd x; sh' < <(curl …)`).
 */
function runsDownload(words: readonly ShellWord[], input: boolean, remote: boolean, depth: number): boolean {
  const args = wordReader(words.values());
  const found = programOf(args, remote);
  if (isRemote(found)) {
    return (
      substitutedInto(found.remote, false, depth) !== undefined ||
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
  // `eval "echo $(curl …)"` too: the shell puts the download into the text eval reads as code.
  // `eval 'bash <(curl …)'`: eval runs its words joined as a command line.
  if (name === "eval") {
    const texts: string[] = [];
    for (let word = args.next(); word !== undefined; word = args.next()) {
      if (substitutedDownload(word.raw) || expandsDownload(word.raw)) return true;
      texts.push(word.text);
    }
    return runsNestedText(texts.join(" "), remote, depth);
  }
  const options = SHELL.test(name) ? SHELL_OPTIONS : interpreterOptions(name);
  if (options === undefined) return false;
  const source = programSource(args, options);
  if (source === "stdin") return input;
  if (source === "option") return false;
  // A download inside the program's text, expanded before the program starts (`sh -c "echo $(curl …)"`),
  // is read by it as code: `hi; rm -rf ~` runs rm. Not inside a script's file name.
  if (substitutedDownload(source.word.raw)) return true;
  if (!source.text) return false;
  // A shell's text is a command line the shell reads (`sh -c 'eval "$(curl …)"'`); an interpreter's is not.
  return (
    expandsDownload(source.word.raw) || (SHELL.test(name) && runsNestedText(source.word.text, remote, depth))
  );
}

/**
 * Whether `text`, run by a shell as a command line, runs a download, read {@link NESTED_TEXTS} deep at most;
 * only a text naming a downloader is read, as only a substitution naming one is a download.
 */
function runsNestedText(text: string, remote: boolean, depth: number): boolean {
  return (
    depth < NESTED_TEXTS &&
    DOWNLOADER_NAME.test(text) &&
    substitutedInto(text, remote, depth + 1) !== undefined
  );
}

/**
 * Whether a download is substituted anywhere in `raw`, a word as written, where the shell running the line
 * expands it: outside single quotes (`"echo $(curl …)"`, `x$(curl …)`, ``"echo `wget …`"``; not `'echo
 * $(curl …)'`, expanded later by the program, as data). Only the outermost substitutions are read, each
 * once, to its end: the word is read in one pass, and each substitution's first command once more.
 */
function expandsDownload(raw: string): boolean {
  let quote = 0;
  for (let index = 0; index < raw.length; index++) {
    const code = raw.charCodeAt(index);
    if (code === BACKSLASH && quote !== SINGLE_QUOTE) index++;
    else if (quote === SINGLE_QUOTE) quote = code === SINGLE_QUOTE ? 0 : quote;
    else if (code === SINGLE_QUOTE && quote === 0) quote = SINGLE_QUOTE;
    else if (code === DOUBLE_QUOTE) quote = quote === 0 ? DOUBLE_QUOTE : 0;
    else if (code === BACKTICK || (code === DOLLAR && raw.charCodeAt(index + 1) === OPEN)) {
      const end = substitutionEnd(raw, index);
      if (substitutedDownload(raw.slice(index, end))) return true;
      index = end - 1;
    }
  }
  return false;
}

/**
 * Where the substitution opening at `start` of `raw` ends: after the backtick closing one, or the `)`
 * closing `$(`, parentheses counted (a quoted one may end it early: its first command, all that is read of
 * it, comes before).
 */
function substitutionEnd(raw: string, start: number): number {
  if (raw.charCodeAt(start) === BACKTICK) {
    const close = raw.indexOf("`", start + 1);
    return close === -1 ? raw.length : close + 1;
  }
  let depth = 0;
  for (let index = start + 1; index < raw.length; index++) {
    const code = raw.charCodeAt(index);
    if (code === OPEN) depth++;
    else if (code === CLOSE && --depth === 0) return index + 1;
  }
  return raw.length;
}

const BACKSLASH = 0x5c;
const SINGLE_QUOTE = 0x27;
const DOUBLE_QUOTE = 0x22;
const BACKTICK = 0x60;
const DOLLAR = 0x24;
const OPEN = 0x28;
const CLOSE = 0x29;

/** Redirections of standard input from a file or a string: `<`, `0<`, `<<<`. */
const INPUT_REDIRECTION = /^0?<(?:<<)?$/;
