/**
 * PowerShell's script blocks made of a download: run where they are made, or kept in a variable that is
 * run later in the text.
 */

import type { KeptRuns } from "./kept-runs.js";
import { variableKey } from "./kept-strings.js";

/**
 * PowerShell's `[scriptblock]::Create(…)` of a download, directly inside its parentheses or one pair
 * more (`[scriptblock]::Create((irm …))`, `…::Create((New-Object Net.WebClient).DownloadString(…))`),
 * as iex's forms are read: a block is code waiting to run. Each optional `(` takes the white space after
 * it, so that a run of spaces is matched one way only.
 */
const SCRIPT_BLOCK_DOWNLOAD =
  /\[(?:System\.Management\.Automation\.)?ScriptBlock\]::Create\s*\(\s*(?:\(\s*)?(?:iwr|irm|Invoke-WebRequest|Invoke-RestMethod|New-Object\s+(?:System\.)?Net\.WebClient)\b/i;

/**
 * Such a block run by `&` before it, or given to a cmdlet that runs it, by `-ScriptBlock` or as
 * Invoke-Command's first argument, one `(` at most between: `& ([scriptblock]::Create((irm …)))`,
 * `Invoke-Command -ScriptBlock ([scriptblock]::Create((iwr …).Content))`, `Start-Job -ScriptBlock (…)`.
 * The second `&` of `&&` calls nothing.
 */
const CALLED = new RegExp(
  `(?:(?<!&)&|-ScriptBlock\\b|\\b(?:Invoke-Command|icm)\\b)\\s*(?:\\(\\s*)?${SCRIPT_BLOCK_DOWNLOAD.source}`,
  "i",
);

/**
 * A script block of a download kept in a variable, the variable's name in group 1: `$b =
 * [scriptblock]::Create((irm …))`. What runs is the variable, on the same line or a later one.
 */
export const KEPT_BLOCK = new RegExp(`\\$(\\w+)\\s*=\\s*${SCRIPT_BLOCK_DOWNLOAD.source}`, "gi");

/**
 * A variable run as a script block, its name in one group: `& $b` (not after `&&`), `. $b` (dot-sourced),
 * `$b.Invoke()`, `$b.InvokeReturnAsIs()`, `-ScriptBlock $b` (Invoke-Command, Start-Job),
 * `Invoke-Command $b`. What comes before a `.` is looked behind, not matched: a match from the line break
 * before it would start on the line above, and a run after a line ending in a `#` comment was read as in it.
 */
export const BLOCK_RUN =
  /(?<!&)&[ \t]*\$(\w+)|(?<![^\s;{(|])\.[ \t]+\$(\w+)|\$(\w+)\.Invoke(?:ReturnAsIs)?[ \t]*\(|-ScriptBlock[ \t]+\$(\w+)|\b(?:Invoke-Command|icm)[ \t]+\$(\w+)/gi;

/**
 * Whether a script block of a download the command line at `offset` keeps in a variable is run after it,
 * on the line or a later one, itself or through the variables it is handed to: `$b =
 * [scriptblock]::Create((irm …)); & $b`. `runs` gives the text's {@link KeptRuns}, read when first asked.
 */
function keptBlockRun(command: string, offset: number, runs: () => KeptRuns): boolean {
  for (const match of command.matchAll(KEPT_BLOCK)) {
    const run = runs().blocks.get(variableKey(match[1], undefined));
    if (run !== undefined && run > offset + match.index) return true;
  }
  return false;
}

/** A script block run by its method, later on the line: `[scriptblock]::Create(…).Invoke()`. */
const INVOKED = /\.Invoke(?:ReturnAsIs)?\s*\(/i;

/**
 * Whether `command` makes a script block of a download and runs it, by `&` before it or by `.Invoke()`
 * after it, or keeps it in a variable run later ({@link keptBlockRun}; looked for only on a line that makes
 * one, so that other lines cost no more search). Each search reads the line once: the `.Invoke(` is looked for only after the first making, not
 * after each, which would read the rest of the line as many times.
 */
export function scriptBlockRun(command: string, offset: number, runs: () => KeptRuns): boolean {
  const made = SCRIPT_BLOCK_DOWNLOAD.exec(command);
  if (made === null) return false;
  return (
    CALLED.test(command) ||
    INVOKED.test(command.slice(made.index + made[0].length)) ||
    keptBlockRun(command, offset, runs)
  );
}
