import { type ParseArgsConfig, parseArgs } from "node:util";
import { describeArgsError, notWholeNumber, wholeNumberIn } from "../src/shared/index.js";

/** A bench's options as node:util parseArgs declares them. */
type Declared = NonNullable<ParseArgsConfig["options"]>;

/** `--help` (-h), which every bench takes. */
const HELP = { help: { type: "boolean", short: "h" } } as const;

/** A bench's command line, as its messages and its `--help` name it. */
interface BenchCommand {
  /** How its messages begin: its npm script's name (`bench:parts`). */
  readonly name: string;
  readonly usage: string;
}

/**
 * The options and arguments of a bench, read as scripts/ and the server read theirs (node:util parseArgs,
 * strict, errors worded by src/shared/command-line.ts): `--help` (-h) prints the usage and exits 0; an unknown
 * option, an option without its value, or more than `most` arguments besides the options exits 2 with one
 * line saying what was wrong, then the usage. Benches that read argv by hand read `--help` as a folder or a
 * count, and one that parsed with parseArgs alone died on an unknown option with a stack trace.
 */
export function readCommandLine<const O extends Declared>(
  command: BenchCommand,
  options: O,
  most = 0,
  argv: readonly string[] = process.argv.slice(2),
) {
  const declared = { ...options, ...HELP };
  let parsed: ReturnType<
    typeof parseArgs<{ args: string[]; options: O & typeof HELP; strict: true; allowPositionals: true }>
  >;
  try {
    // Without room for arguments, parseArgs itself refuses one, in the words describeArgsError gives it.
    parsed = parseArgs({ args: [...argv], options: declared, strict: true, allowPositionals: most > 0 });
  } catch (error) {
    return refuse(command, describeArgsError(error, declared));
  }
  if ((parsed.values as { readonly help?: boolean }).help === true) {
    console.log(command.usage);
    process.exit(0);
  }
  if (parsed.positionals.length > most) {
    refuse(command, `${most} arguments at most besides the options (got ${parsed.positionals.join(" ")})`);
  }
  return parsed;
}

/** Exits 2 with `problem` in one line after the command's name, then its usage. */
export function refuse(command: BenchCommand, problem: string): never {
  console.error(`${command.name}: ${problem}\n${command.usage}`);
  process.exit(2);
}

/**
 * `text` as a whole number of at least `least`, given as `option` (`--skills`, or a positional's name);
 * anything else exits 2 saying so: Number() read a word as NaN, and the run failed later or ran on nothing.
 */
export function wholeNumber(command: BenchCommand, option: string, text: string, least = 1): number {
  return wholeNumberIn(text, least) ?? refuse(command, notWholeNumber(option, text, least));
}

/** `text` as a number above 0 (`0.5`), given as `option`; anything else exits 2 saying so. */
export function numberAbove0(command: BenchCommand, option: string, text: string): number {
  const number = /^\d+(\.\d+)?$/.test(text) ? Number(text) : Number.NaN;
  if (!(number > 0)) refuse(command, `${option} "${text}" is not a number above 0`);
  return number;
}

/**
 * The counts given as a bench's arguments (`npm run bench:search-speed -- 10000 3000`), each a whole number
 * of at least 1, at most `most` of them; anything else exits 2 with one line and the usage.
 */
export function wholeNumbersOrExit(command: BenchCommand, given: readonly string[], most: number): number[] {
  if (given.length > most)
    refuse(command, `${most} counts at most (got ${given.length}: ${given.join(" ")})`);
  return given.map((text) => wholeNumberIn(text) ?? refuse(command, notWholeNumber("", text)));
}
