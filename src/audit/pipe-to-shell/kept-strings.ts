/**
 * Downloads kept in a variable as a string, PowerShell's or a shell's, and run as code later in the text
 * (`$s = irm …; iex $s`, `x=$(curl …)` then `eval "$x"`).
 */

/**
 * A download kept in a variable as a string, the variable's name in group 1 (PowerShell's) or 2 (a
 * shell's): `$s = irm …`, `$s = (iwr …).Content`, `$s = (New-Object Net.WebClient).DownloadString(…)`,
 * `x=$(curl …)`, `x="$(wget …)"`, ``x=`curl …` ``. A shell's name starts a word (the look-behind), so that a
 * long word is read once, not from each of its characters; `(` takes the white space after it.
 */
const KEPT_STRING =
  /\$(\w+)\s*=\s*(?:\(\s*)?(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod|New-Object\s+(?:System\.)?Net\.WebClient)\b|(?<![\w$])(\w+)="?(?:\$\(|`)[ \t]*(?:curl|wget)\b/gi;

/**
 * A PowerShell variable's string run as code, its name in one group: `iex $s`, `Invoke-Expression ($s)`,
 * `iex -Command $s`, `$s | iex`, and a script block made of it and run as {@link CALLED} and
 * {@link INVOKED} read one (`& ([scriptblock]::Create($s))`, `[scriptblock]::Create($s).Invoke()`,
 * `Invoke-Command -ScriptBlock ([scriptblock]::Create($s))`). Each optional part starts with a character of
 * its own, so that white space is matched one way only.
 */
const POWERSHELL_STRING_RUN =
  /\b(?:iex|Invoke-Expression)[ \t]*(?:-c[a-z]*[ \t]+)?(?:\([ \t]*)?"?\$(\w+)|\$(\w+)[ \t]*\|[ \t]*(?:iex|Invoke-Expression)\b|(?:(?<!&)&|-ScriptBlock\b|\b(?:Invoke-Command|icm)\b)[ \t]*(?:\([ \t]*)?\[(?:System\.Management\.Automation\.)?ScriptBlock\]::Create\([ \t]*\$(\w+)|\[(?:System\.Management\.Automation\.)?ScriptBlock\]::Create\([ \t]*\$(\w+)[ \t]*\)\.Invoke(?:ReturnAsIs)?\(/gi;

/**
 * A shell variable's string run as code, its name in one group: `eval "$x"`, `sh -c "$x"`, `bash -ec
 * "${x}"`, `echo "$x" | sudo bash`, `printf '%s\n' "$x" | sh`, `bash <<< "$x"`. A printf's format is read
 * to its closing quote on its line, a bounded search: the next printf's format starts after that quote.
 */
const SHELL_STRING_RUN =
  /\b(?:eval|(?:ba|z|da|k)?sh[ \t]+-[a-zA-Z]*c)[ \t]+["']?\$\{?(\w+)|\b(?:echo|printf[ \t]+'[^'\n]*')[ \t]+"?\$\{?(\w+)\}?"?[ \t]*\|[ \t]*(?:sudo[ \t]+)?(?:ba|z|da|k)?sh\b|\b(?:ba|z|da|k)?sh[ \t]*<<<[ \t]*"?\$\{?(\w+)/gi;

/** The name a match of a variable's run gives: its one group that matched. */
const runName = (match: RegExpMatchArray): string | undefined =>
  match.slice(1).find((name) => name !== undefined);

/** The key of a kept variable, by its PowerShell or shell name: PowerShell's names ignore case, a shell's do not. */
const variableKey = (powershell: string | undefined, shell: string | undefined): string =>
  powershell === undefined ? `sh ${shell ?? ""}` : `ps ${powershell.toLowerCase()}`;

/**
 * The last place in `text` where each variable kept a download as a string is run as code, by
 * {@link variableKey}. Read once a text, when its first such string is kept, in passes as
 * {@link keptBlockRuns} is: one for the variables keeping one, one for each language's runs.
 */
export function keptStringRuns(text: string): ReadonlyMap<string, number> {
  const kept = new Set<string>();
  for (const match of text.matchAll(KEPT_STRING)) kept.add(variableKey(match[1], match[2]));
  const runs = new Map<string, number>();
  const found = (key: string, index: number) => {
    if (kept.has(key) && index > (runs.get(key) ?? -1)) runs.set(key, index);
  };
  for (const match of text.matchAll(POWERSHELL_STRING_RUN))
    found(variableKey(runName(match), undefined), match.index);
  for (const match of text.matchAll(SHELL_STRING_RUN))
    found(variableKey(undefined, runName(match)), match.index);
  return runs;
}

/**
 * Whether a download the command line at `offset` keeps in a variable as a string is run as code after
 * it, on the line or a later one: `$s = irm …; iex $s`, `x=$(curl …)` then `eval "$x"`. `runs` gives
 * {@link keptStringRuns} of the text, read when first asked.
 */
export function keptStringRun(
  command: string,
  offset: number,
  runs: () => ReadonlyMap<string, number>,
): boolean {
  // Most lines with a download keep nothing: those are not searched again.
  if (!command.includes("=")) return false;
  for (const match of command.matchAll(KEPT_STRING)) {
    const run = runs().get(variableKey(match[1], match[2]));
    if (run !== undefined && run > offset + match.index) return true;
  }
  return false;
}
