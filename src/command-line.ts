// Imports nothing: the image's skills stage copies this file for the fetcher, without the rest of src/.

/** What a command line's options are declared as, for node:util parseArgs. */
type DeclaredOptions = Readonly<
  Record<string, { readonly type: "boolean" | "string"; readonly short?: string }>
>;

/**
 * A parseArgs error as a user reads it: what was wrong with which option, and for an unknown option or a
 * stray argument the valid options ("unknown option --x; valid: --a, --b, -h (--help)"). Node's own texts
 * name the option as it declared it (`'-t, --to <value>'`), span three lines for a missing value followed
 * by an option, and on an unknown option tell how to place a positional after `--`, which is not what
 * went wrong. Any other error keeps its message.
 */
export function describeArgsError(error: unknown, options: DeclaredOptions): string {
  const message = error instanceof Error ? error.message : String(error);
  const quoted = /'([^']*)'/.exec(message)?.[1] ?? "";
  const valid = `valid: ${validOptions(options)}`;
  switch ((error as NodeJS.ErrnoException).code) {
    case "ERR_PARSE_ARGS_UNKNOWN_OPTION":
      return `unknown option ${quoted}; ${valid}`;
    case "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL":
      return `unexpected argument "${quoted}": only options are taken; ${valid}`;
    case "ERR_PARSE_ARGS_INVALID_OPTION_VALUE": {
      const option = optionNamed(quoted);
      if (message.includes("does not take an argument")) return `${option} takes no value`;
      // Node's "ambiguous": the next word starts with "-", so it was taken for an option, not the value.
      if (message.includes("ambiguous")) {
        return `${option} needs a value, and the next word is an option (write ${option}=VALUE for a value that starts with "-")`;
      }
      return `${option} needs a value`;
    }
    default:
      return message;
  }
}

/** `--to, --pack (-p), …`: the options as a user may type them. */
function validOptions(options: DeclaredOptions): string {
  return Object.entries(options)
    .map(([name, { short }]) => (short === undefined ? `--${name}` : `--${name} (-${short})`))
    .join(", ");
}

/** The long name in Node's `-t, --to <value>`, or the name as given when there is none. */
function optionNamed(declared: string): string {
  const words = declared.split(" ");
  return words.find((word) => word.startsWith("--")) ?? words[0] ?? declared;
}
