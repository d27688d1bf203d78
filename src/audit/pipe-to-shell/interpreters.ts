/**
 * Shells and interpreters, and where each reads its program: from standard input (the download piped in)
 * unless an option or a script's file gives it one; `su`'s shell too.
 */
import type { ShellWord } from "../shell-words.js";
import { type WordReader, wordSet } from "./words.js";

/**
 * Shells read a script from standard input unless `-c` gives them one; `$SHELL` is the user's, and so is
 * `${SHELL:-sh}` (its default, a shell or not, stands only where no user's shell is set).
 */
export const SHELL = /^(?:ba|z|da|k|fi|a|c|tc)?sh$|^\$(?:SHELL|\{SHELL(?::?[-=?][^}]*)?\})$/i;

/** Runtimes whose `run` subcommand, or themselves, run a program named `-` (standard input). */
export const RUNTIME = /^(?:deno|bun)$/i;

/** A file that is standard input: a shell or interpreter given it as its script reads the download. */
export const STDIN_FILE = /^\/dev\/(?:stdin|fd\/0)$|^\/proc\/self\/fd\/0$/;

/** Whether `deno` or `bun` given `args` runs standard input: `deno run -`, `bun -`, options between. */
export function runsStandardInput(args: WordReader): boolean {
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

export const SHELL_OPTIONS: ProgramOptions = {
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

export const interpreterOptions = (name: string) =>
  INTERPRETER_OPTIONS.find(([names]) => names.test(name))?.[1];

/** Whether a shell or interpreter given `args` runs standard input ({@link programSource}). */
export function readsProgram(args: WordReader, options: ProgramOptions): boolean {
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
export function programSource(args: WordReader, options: ProgramOptions): "stdin" | "option" | ProgramWord {
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
        return name === arg ? programText(args.next()) : programText(valueAfter(word, name.length + 1));
      if (options.longProgram.has(name)) return "option";
      if (options.longValue.has(name) && name === arg) args.next();
      continue;
    }
    if (!(arg.startsWith("-") || (options.plus && arg.startsWith("+")))) return { word, text: codeOperand };
    for (let index = 1; index < arg.length; index++) {
      const letter = arg.charAt(index);
      if (options.code.includes(letter)) {
        if (options.codeOperand) {
          codeOperand = true;
          continue;
        }
        return programText(index === arg.length - 1 ? args.next() : valueAfter(word, index + 1));
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
 * The word a shell or interpreter reads its program from: its text (`-c TEXT`, `-e TEXT`), which it reads
 * as code, or a script's file (`bash x.sh`), which names it.
 */
export interface ProgramWord {
  readonly word: ShellWord;
  readonly text: boolean;
}

/** The program's text given as `word`, "option" when the option giving it ends the command. */
const programText = (word: ShellWord | undefined): ProgramWord | "option" =>
  word === undefined ? "option" : { word, text: true };

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
export function suRunsShell(args: WordReader): boolean {
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
