/**
 * Downloads kept in a variable as a string, PowerShell's or a shell's, and run as code later in the text
 * (`$s = irm …; iex $s`, `x=$(curl …)` then `eval "$x"`).
 */
import type { KeptRuns } from "./kept-runs.js";

/**
 * A download kept in a variable as a string, the variable's name in group 1 (PowerShell's) or 2 (a
 * shell's): `$s = irm …`, `$s = (iwr …).Content`, `$s = (New-Object Net.WebClient).DownloadString(…)`,
 * `x=$(curl …)`, `x="$(wget …)"`, ``x=`curl …` ``. A shell's name starts a word (the look-behind), so that a
 * long word is read once, not from each of its characters; `(` takes the white space after it.
 */
export const KEPT_STRING =
  /\$(\w+)\s*=\s*(?:\(\s*)?(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod|New-Object\s+(?:System\.)?Net\.WebClient)\b|(?<![\w$])(\w+)="?(?:\$\(|`)[ \t]*(?:curl|wget)\b/gi;

/**
 * A PowerShell variable's string run as code, its name in one group: `iex $s`, `Invoke-Expression ($s)`,
 * `iex -Command $s`, `$s | iex`, and a script block made of it and run as {@link CALLED} and
 * {@link INVOKED} read one (`& ([scriptblock]::Create($s))`, `[scriptblock]::Create($s).Invoke()`,
 * `Invoke-Command -ScriptBlock ([scriptblock]::Create($s))`). Each optional part starts with a character of
 * its own, so that white space is matched one way only.
 */
export const POWERSHELL_STRING_RUN =
  /\b(?:iex|Invoke-Expression)[ \t]*(?:-c[a-z]*[ \t]+)?(?:\([ \t]*)?"?\$(\w+)|\$(\w+)[ \t]*\|[ \t]*(?:iex|Invoke-Expression)\b|(?:(?<!&)&|-ScriptBlock\b|\b(?:Invoke-Command|icm)\b)[ \t]*(?:\([ \t]*)?\[(?:System\.Management\.Automation\.)?ScriptBlock\]::Create\([ \t]*\$(\w+)|\[(?:System\.Management\.Automation\.)?ScriptBlock\]::Create\([ \t]*\$(\w+)[ \t]*\)\.Invoke(?:ReturnAsIs)?\(/gi;

/**
 * A shell variable's string run as code, its name in one group: `eval "$x"`, `sh -c "$x"`, `bash -ec
 * "${x}"`, `"$SHELL" -c "$x"`, `echo "$x" | sudo bash`, `printf '%s\n' "$x" | sh`, `| $SHELL`, `bash <<<
 * "$x"`, and a process substitution printing it, sourced or given to a shell (`source <(echo "$x")`, `.
 * <(printf '%s' "$x")`, `bash <(echo "$x")`). A printf's format is read to its closing quote on its line, a
 * bounded search: the next printf's format starts after that quote.
 */
export const SHELL_STRING_RUN =
  /(?:\beval|(?:\b(?:ba|z|da|k)?sh|"?\$\{?SHELL\}?"?)[ \t]+-[a-zA-Z]*c)[ \t]+["']?\$\{?(\w+)|\b(?:echo|printf[ \t]+(?:'[^'\n]*'|"[^"\n]*"))[ \t]+"?\$\{?(\w+)\}?"?[ \t]*\|[ \t]*(?:sudo[ \t]+)?(?:(?:ba|z|da|k)?sh\b|"?\$\{?SHELL\b)|\b(?:ba|z|da|k)?sh[ \t]*<<<[ \t]*"?\$\{?(\w+)|(?:\bsource|(?<![^\s;&|(])\.|\b(?:ba|z|da|k)?sh)[ \t]+<\([ \t]*(?:echo|printf[ \t]+(?:'[^'\n]*'|"[^"\n]*"))[ \t]+"?\$\{?(\w+)/gi;

/** The name a match of a variable's run gives: its one group that matched. */
export const runName = (match: RegExpMatchArray): string | undefined =>
  match.slice(1).find((name) => name !== undefined);

/** The key of a kept variable, by its PowerShell or shell name: PowerShell's names ignore case, a shell's do not. */
export const variableKey = (powershell: string | undefined, shell: string | undefined): string =>
  powershell === undefined ? `sh ${shell ?? ""}` : `ps ${powershell.toLowerCase()}`;

/**
 * Whether a download the command line at `offset` keeps in a variable as a string is run as code after
 * it, on the line or a later one, itself or through the variables it is handed to: `$s = irm …; iex $s`,
 * `x=$(curl …)` then `eval "$x"`, `y="$x"; sh -c "$y"`. `runs` gives the text's {@link KeptRuns}, read when
 * first asked.
 */
export function keptStringRun(command: string, offset: number, runs: () => KeptRuns): boolean {
  // Most lines with a download keep nothing: those are not searched again.
  if (!command.includes("=")) return false;
  for (const match of command.matchAll(KEPT_STRING)) {
    const run = runs().strings.get(variableKey(match[1], match[2]));
    if (run !== undefined && run > offset + match.index) return true;
  }
  return false;
}
