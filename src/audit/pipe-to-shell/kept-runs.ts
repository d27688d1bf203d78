/**
 * What the readers of kept downloads share, apart from the module that finds them (kept-variables.ts), so
 * that the modules it reads with need not import it back.
 */

/**
 * The last place in a text where each variable keeping a download (by `variableKey`) is run as code,
 * itself or through a variable it is handed to later: as a string (`iex $s`, `eval "$x"`) and as a script
 * block (`& $b`).
 */
export interface KeptRuns {
  readonly strings: ReadonlyMap<string, number>;
  readonly blocks: ReadonlyMap<string, number>;
}
