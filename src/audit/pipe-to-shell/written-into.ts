/**
 * A stage's output written into a process substitution that runs it: its standard output redirected
 * there, or the file a downloader's output option names.
 */
import { shellTokens } from "../shell-words.js";
import { substitutionRunner } from "./stages.js";

/**
 * `piped into sh through a process substitution` when a stage writes what it reads or downloads into one
 * whose command runs what it reads: its standard output redirected there (`curl … > >(sh)`, `curl … | tee
 * log > >(sh)`), or the file curl's `-o` or wget's `-O` names (`curl -o >(sh) …`, `curl -o>(sh) …`,
 * `--output=>(sh)`). The download's own stage writes to standard output only what it does not write to a
 * file (`curl -o out.txt … > >(sh)` runs nothing downloaded), and wget writes there only when `-O -` says
 * so (`wget URL > >(sh)` writes a file).
 */
export function writtenInto(stage: string, downloadStage: boolean): string | undefined {
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
