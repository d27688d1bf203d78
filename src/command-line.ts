/** What a command line's options are declared as, for node:util parseArgs. */
type DeclaredOptions = Readonly<
  Record<string, { readonly type: "boolean" | "string"; readonly short?: string }>
>;

/**
 * A parseArgs error as a user reads it: an unknown option as "unknown option --x; valid: --a, --b, -h
 * (--help)", rather than Node's text on placing a positional after `--`, which is not what went wrong.
 * Any other error keeps its message.
 */
export function describeArgsError(error: unknown, options: DeclaredOptions): string {
  const message = error instanceof Error ? error.message : String(error);
  if ((error as NodeJS.ErrnoException).code !== "ERR_PARSE_ARGS_UNKNOWN_OPTION") return message;
  const given = /'([^']*)'/.exec(message)?.[1] ?? "";
  const valid = Object.entries(options).map(([name, { short }]) =>
    short === undefined ? `--${name}` : `--${name} (-${short})`,
  );
  return `unknown option ${given}; valid: ${valid.join(", ")}`;
}
