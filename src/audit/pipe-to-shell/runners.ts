/**
 * The runners table: commands that run the command after them (`sudo`, `env`, `timeout`, ssh's remote
 * command), and the program of a command read past them and past the variables set for it.
 */
import { commandWords, type ShellWord } from "../shell-words.js";
import { type WordReader, wordSet } from "./words.js";

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
export function programOf(words: WordReader, remote: boolean): ShellWord | RemoteCommand | undefined {
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
export interface RemoteCommand {
  readonly remote: string;
}

export const isRemote = (program: ShellWord | RemoteCommand | undefined): program is RemoteCommand =>
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
