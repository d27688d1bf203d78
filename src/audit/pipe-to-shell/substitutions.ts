/**
 * A download given to a shell or interpreter through a process substitution, a command's output or a
 * here-string: as its script, or as the standard input it reads its program from.
 */
import { type ShellWord, shellTokens } from "../shell-words.js";
import { substitutedDownload } from "./downloads.js";
import { interpreterOptions, programSource, SHELL, SHELL_OPTIONS, STDIN_FILE } from "./interpreters.js";
import { isRemote, programOf } from "./runners.js";
import { remoteRunner } from "./stages.js";
import { wordReader } from "./words.js";

/**
 * `run as code` when a command of the line gives a shell or interpreter a download through a process
 * substitution or a here-string: as its script, past its options (`bash -x <(curl …)`, `python3 <(curl
 * …)`), or as the standard input it reads its program from (`bash < <(curl …)`, `bash <<< "$(curl …)"`).
 * The line's commands are read once, not those inside substitutions.
 */
export function substitutedInto(command: string, remote: boolean): string | undefined {
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
