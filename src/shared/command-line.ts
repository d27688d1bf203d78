// Imports only files that import nothing: the image's skills stage copies them for the fetcher, without the
// rest of src/.
import { errorMessage, problemInWords, type SystemProblems } from "./system-errors.js";
import { quoted } from "./visible.js";

/**
 * A script's command line is wrong (or, for audit-skills, the folder it names): the script prints the
 * message, one line, then its usage, and exits 2 as every command does.
 */
export class UsageError extends Error {
  override name = "UsageError";
}

/** What a command line's options are declared as, for node:util parseArgs. */
type DeclaredOptions = Readonly<
  Record<
    string,
    { readonly type: "boolean" | "string"; readonly short?: string; readonly multiple?: boolean }
  >
>;

/** Of parseArgs's tokens (`tokens: true`), what an option's says: its long name and the value given. */
interface OptionToken {
  readonly kind: string;
  readonly name?: string;
  readonly value?: string | undefined;
}

/**
 * The first option that takes one value and was given two different ones (`--to a --to b`), in words;
 * undefined when there is none. parseArgs keeps the last without a word, so a value a script or an
 * alias put first, and the user's own after it, made the command act on the other without saying so.
 * The same value twice is no mistake.
 */
export function givenTwice(tokens: readonly OptionToken[], options: DeclaredOptions): string | undefined {
  const given = new Map<string, string>();
  for (const token of tokens) {
    if (token.kind !== "option" || token.name === undefined || token.value === undefined) continue;
    const declared = options[token.name];
    if (declared === undefined || declared.type !== "string" || declared.multiple === true) continue;
    const first = given.get(token.name);
    if (first !== undefined && first !== token.value) {
      return `--${token.name} is given twice (${quoted(first)}, then ${quoted(token.value)}): give it once`;
    }
    given.set(token.name, token.value);
  }
  return undefined;
}

/**
 * A parseArgs error as a user reads it: what was wrong with which option, and for an unknown option or a
 * stray argument the valid options ("unknown option --x; valid: --a, --b, -h (--help)"). Node's own texts
 * name the option as it declared it (`'-t, --to <value>'`), span three lines for a missing value followed
 * by an option, and on an unknown option tell how to place a positional after `--`, which is not what
 * went wrong. An option that takes one of a few words (`choices`, by its long name) and was given no value
 * is told those words too, as a wrong word is ({@link notOneOf}). Any other error keeps its message.
 */
export function describeArgsError(
  error: unknown,
  options: DeclaredOptions,
  choices: Readonly<Record<string, readonly string[]>> = {},
): string {
  const message = errorMessage(error);
  // What was typed may hold quotes and line breaks: it ends at the quote that ends Node's sentence.
  const typed = /'(.*?)'(?=\. [A-Z]|$)/s.exec(message)?.[1] ?? "";
  const valid = `valid: ${validOptions(options)}`;
  switch ((error as NodeJS.ErrnoException).code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `unknown option ${OPTION_WORD.test(typed) ? typed : quoted(typed)}; ${valid}`;
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
      return `unexpected argument ${quoted(typed)}: only options are taken; ${valid}`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE": {
      // The option as declared (`'-t, --to <value>'`), not as typed.
      const option = optionNamed(/'([^']*)'/.exec(message)?.[1] ?? "");
      if (message.includes("does not take an argument")) return `${option} takes no value`;
      const words = choices[option.replace(/^--?/, "")];
      const needs = `${option} needs a value${words === undefined ? "" : ` (one of ${words.join(", ")})`}`;
      // Node's "ambiguous": the next word starts with "-", so it was taken for an option, not the value.
      if (message.includes("ambiguous")) {
        return `${needs}, and the next word is an option (write ${option}=VALUE for a value that starts with "-")`;
      }
      return needs;
    }
    default:
      return message;
  }
}

/** An option as options are written (`--bogus`), shown as it is; anything else is quoted, escaped and cut. */
const OPTION_WORD = /^--?[\w-]{1,64}$/;

/** `--to, --pack (-p), …`: the options as a user may type them. */
export function validOptions(options: DeclaredOptions): string {
  return Object.entries(options)
    .map(([name, { short }]) => (short === undefined ? `--${name}` : `--${name} (-${short})`))
    .join(", ");
}

/** The long name in Node's `-t, --to <value>`, or the name as given when there is none. */
function optionNamed(declared: string): string {
  const words = declared.split(" ");
  return words.find((word) => word.startsWith("--")) ?? words[0] ?? declared;
}

/** Why a file cannot be read, where the general words of its code do not say it all, and what to do. */
const UNREADABLE_FILE: SystemProblems = {
  ENOENT: { what: "there is no such file" },
  EISDIR: { what: "it is a folder", fix: "give a file" },
  EACCES: { fix: "let the user this runs as read it" },
  EPERM: { fix: "let the user this runs as read it" },
  EIO: { fix: "check the disk" },
};

/**
 * A file the user named (by an option or a setting) that cannot be read, said one way wherever it was named:
 * `named` says where it came from and the file (`API_KEYS_FILE /run/keys`, `--api-key-file keys.txt`), and
 * the rest why, in words with the system's code (`… cannot be read: it is a folder (EISDIR); give a file`).
 */
export function unreadableFile(named: string, error: unknown): string {
  const problem = problemInWords(error, UNREADABLE_FILE);
  if (problem !== undefined) return `${named} cannot be read: ${problem}`;
  const code = (error as NodeJS.ErrnoException).code;
  if (code !== undefined) return `${named} cannot be read (${code})`;
  return `${named} cannot be read: ${errorMessage(error)}`;
}

/** A keys file of only blank lines and `#` comments, said one way for the server and for sync. */
export function noKey(named: string, fix: string): string {
  return `${named} holds no key: every line is blank or a # comment; ${fix}`;
}

/**
 * `text` as a whole number of at least `least`, written in digits alone (Number() read `0x10`, `1e3` and
 * ` 5` as 16, 1000 and 5); undefined when it is none, for {@link notWholeNumber} to say so.
 */
export function wholeNumberIn(text: string, least = 1): number | undefined {
  const number = /^\d+$/.test(text) ? Number(text) : Number.NaN;
  return Number.isSafeInteger(number) && number >= least ? number : undefined;
}

/**
 * A value that is not the whole number asked for, said one way by every command: `where` names the option
 * (`--duration "abc" is not a whole number ≥ 1`), or is empty for an argument.
 */
export function notWholeNumber(where: string, text: string, least = 1): string {
  return `${where === "" ? "" : `${where} `}${quoted(text)} is not a whole number ≥ ${least}`;
}

/**
 * A value that is none of the words an option or setting takes, said one way by every command:
 * `--fail-on "severe" is not one of high, medium, low, never`.
 */
export function notOneOf(where: string, text: string, choices: readonly string[]): string {
  return `${where} ${quoted(text)} is not one of ${choices.join(", ")}`;
}
