/** PowerShell's command line: whether `pwsh` or `powershell` reads its program from standard input. */
import type { WordReader } from "./words.js";

export const POWERSHELL = /^pwsh$|^powershell(?:\.exe)?$/i;

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
export function powershellReadsProgram(args: WordReader): boolean {
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
