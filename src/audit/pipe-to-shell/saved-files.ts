/**
 * A download saved to a file that a later command runs: `curl -o x.sh URL; bash x.sh`, `wget -qO /tmp/x
 * URL && chmod +x /tmp/x && /tmp/x`, `Invoke-WebRequest URL -OutFile a.ps1; & .\a.ps1`.
 */
import { shellTokens } from "../shell-words.js";
import { commentStart } from "./comments.js";
import { SHELL } from "./interpreters.js";

/** A command's place in a text, ordered as the text runs: its line's offset, then its place on the line. */
export type Place = readonly [line: number, command: number];

/** The words of one command of a line (up to `;`, `&&`, `||`, `&` or `|`), as written, and its place. */
interface Command {
  readonly words: readonly string[];
  readonly redirected: readonly string[];
  readonly place: Place;
}

/** The commands of the line at `offset`, read once with the shell's tokens, redirections' files apart. */
function* lineCommands(line: string, offset: number): Generator<Command> {
  let words: string[] = [];
  let redirected: string[] = [];
  let index = 0;
  for (const token of shellTokens(line)) {
    if (token.kind === "word") {
      words.push(token.word.raw);
    } else if (token.kind === "redirection") {
      if (STDOUT_TO_FILE.test(token.operator) && token.file !== undefined) redirected.push(token.file.raw);
    } else if (words.length > 0 || redirected.length > 0) {
      yield { words, redirected, place: [offset, index++] };
      words = [];
      redirected = [];
    }
  }
  if (words.length > 0) yield { words, redirected, place: [offset, index] };
}

/** Redirections writing standard output to a file: `>`, `1>`, `>>`, `>|`. */
const STDOUT_TO_FILE = /^1?>[>|]?$/;

/**
 * A file's name as two commands of a script name it alike: quotes removed, PowerShell's `\` read as `/`,
 * and a leading `./` dropped (`.\a.ps1`, `"./a.ps1"` and `a.ps1` are one file).
 */
function fileKey(raw: string): string {
  return raw
    .replace(/["']/g, "")
    .replaceAll("\\", "/")
    .replace(/^(?:\.\/)+/, "");
}

/** The program of a command: past `sudo` and its options, and variables set for it (`A=1 sh x`). */
function programIndex(words: readonly string[]): number {
  let index = 0;
  while (index < words.length) {
    const word = words[index] ?? "";
    if (word === "sudo" || (index > 0 && words[0] === "sudo" && word.startsWith("-")) || /^\w+=/.test(word))
      index++;
    else break;
  }
  return index;
}

/** What a command's name is without its folder: `/usr/bin/curl` is curl. */
const baseName = (word: string) =>
  fileKey(word)
    .slice(fileKey(word).lastIndexOf("/") + 1)
    .toLowerCase();

/** The last path segment of an address, the file wget and `curl -O` name after it. */
function remoteName(word: string): string | undefined {
  const text = fileKey(word);
  if (!text.includes("://")) return undefined;
  const path = text.replace(/[?#].*$/, "");
  const name = path.slice(path.lastIndexOf("/") + 1);
  return name === "" || path.endsWith("://") ? undefined : name;
}

/**
 * The files a download command writes: curl's `-o`/`--output` (or the address's name with `-O`), wget's
 * `-O`/`--output-document` (or the address's name), PowerShell's `-OutFile`, and curl's standard output
 * redirected to a file. Standard output (`-`) and devices are none.
 */
function savedFiles(command: Command): string[] {
  const start = programIndex(command.words);
  const program = baseName(command.words[start] ?? "");
  const args = command.words.slice(start + 1);
  const files: string[] = [];
  const named = (option: (word: string) => string | undefined) => {
    let awaiting = false;
    for (const word of args) {
      if (awaiting) files.push(word);
      const value = option(word);
      awaiting = value === "";
      if (value !== undefined && value !== "") files.push(value);
    }
  };
  if (program === "curl") {
    named((word) => optionValue(word, "o", "--output"));
    if (args.some((word) => word === "--remote-name" || /^-[a-zA-Z]*O[a-zA-Z]*$/.test(word)))
      files.push(...addressNames(args));
    if (files.length === 0) files.push(...command.redirected);
  } else if (program === "wget") {
    named((word) => optionValue(word, "O", "--output-document"));
    if (files.length === 0) files.push(...addressNames(args));
  } else if (POWERSHELL_DOWNLOAD.test(program)) {
    named((word) => (/^-outf(?:ile?)?$/i.test(word) ? "" : undefined));
  }
  return files.map(fileKey).filter((file) => file !== "-" && file !== "" && !file.startsWith("/dev/"));
}

const POWERSHELL_DOWNLOAD = /^(?:iwr|irm|invoke-webrequest|invoke-restmethod)$/;

function addressNames(args: readonly string[]): string[] {
  return args.flatMap((word) => remoteName(word) ?? []);
}

/** An option's value in `word`: attached (`-oFILE`, `-sSo FILE`, `--output=FILE`), `""` when the next word holds it. */
function optionValue(word: string, letter: string, long: string): string | undefined {
  if (word === long) return "";
  if (word.startsWith(`${long}=`)) return word.slice(long.length + 1);
  if (word.startsWith("--") || !word.startsWith("-")) return undefined;
  const at = word.indexOf(letter, 1);
  if (at === -1 || !/^[a-zA-Z]*$/.test(word.slice(1, at))) return undefined;
  return word.slice(at + 1);
}

/** Interpreters given a script's file as their first word that is not an option. */
const INTERPRETER = /^(?:python[\d.]*|node|perl|ruby|php|pwsh|powershell(?:\.exe)?|source|\.)$/;

/**
 * The file a command runs as a program: its program itself (`/tmp/x`, `./a.ps1`, `.\a.ps1`), or the
 * script it gives a shell or an interpreter (`sh x.sh`, `sudo bash -e x.sh`, `python3 x.py`, `pwsh -File
 * a.ps1`, `. ./x.sh`). A shell given `-c` runs its text, not a file; `cat x.sh`, `sha256sum x.sh` and
 * `tar xf x.tgz` read their files as data.
 */
function runFile(command: Command): string | undefined {
  const start = programIndex(command.words);
  const program = command.words[start];
  if (program === undefined) return undefined;
  const name = baseName(program);
  if (!SHELL.test(name) && !INTERPRETER.test(name)) return fileKey(program);
  for (const word of command.words.slice(start + 1)) {
    if (/^-[a-zA-Z]*c$/.test(word) && SHELL.test(name)) return undefined;
    if (/^-(?:f|file)$/i.test(word) || word.startsWith("-")) continue;
    return fileKey(word);
  }
  return undefined;
}

/** The last place each file is run as a program in a text (by {@link fileKey}), read once a text, outside `#` comments. */
export function fileRuns(text: string): ReadonlyMap<string, Place> {
  const runs = new Map<string, Place>();
  let offset = 0;
  while (offset <= text.length) {
    const newline = text.indexOf("\n", offset);
    const end = newline === -1 ? text.length : newline;
    const line = text.slice(offset, end);
    for (const command of lineCommands(line.slice(0, commentStart(line)), offset)) {
      const file = runFile(command);
      if (file !== undefined) runs.set(file, command.place);
    }
    offset = end + 1;
  }
  return runs;
}

const after = (run: Place, download: Place) =>
  run[0] > download[0] || (run[0] === download[0] && run[1] > download[1]);

/**
 * Whether a download on the command line at `offset` is saved to a file that the line, after it, or a
 * later line of the text runs as a program (`runs` read when first asked).
 */
export function savedFileRun(
  command: string,
  offset: number,
  runs: () => ReadonlyMap<string, Place>,
): boolean {
  for (const download of lineCommands(command, offset)) {
    for (const file of savedFiles(download)) {
      const run = runs().get(file);
      if (run !== undefined && after(run, download.place)) return true;
    }
  }
  return false;
}
