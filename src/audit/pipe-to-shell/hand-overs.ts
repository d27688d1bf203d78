/**
 * A variable handed to another in an assignment's value, wherever the value names it: a shell's (`y="$x"`,
 * `y=${x}`, `y="set -e; $x"`) and PowerShell's (`$t = "x; $s"`). What the receiver holds then holds the
 * giver's text, run as code when the receiver is.
 */

/** A shell variable named in another's value: `giver` in the value assigned to `receiver` at `at`. */
export interface ShellHandOver {
  readonly receiver: string;
  readonly giver: string;
  readonly at: number;
}

/** An assignment, its name in group 1, starting a word (a long word is read once, not from each character). */
const ASSIGNMENT = /(?<![\w$])(\w+)=/g;

/**
 * The shell hand-overs of `text`, in its order: each variable an assignment's value expands, read as a shell
 * reads the value, to its end (a blank, a line break, `;`, `&`, `|`, `<`, `>` or `)` outside quotes and
 * substitutions): not one in single quotes (`y='$x'`) or after a backslash (`y=\$x`), nor `${#x}` (its
 * length), `${!x}` or `${x:+…}` (a word of its own when x is set). Each value is read once, and the search
 * for the next assignment goes on after it, so that `a=b=c=…` is read once, not once an `=`; a quote never
 * closed takes the rest of the text, as a shell reads it.
 */
export function* shellHandOvers(text: string): Generator<ShellHandOver> {
  const assignments = new RegExp(ASSIGNMENT.source, "g");
  for (let match = assignments.exec(text); match !== null; match = assignments.exec(text)) {
    const receiver = match[1] ?? "";
    const value = readValue(text, match.index + match[0].length);
    for (const giver of value.givers) yield { receiver, giver, at: match.index };
    assignments.lastIndex = Math.max(assignments.lastIndex, value.end);
  }
}

/** The variables a value starting at `from` expands, and where it ends. One pass. */
function readValue(text: string, from: number): { givers: string[]; end: number } {
  const givers: string[] = [];
  let quote = 0;
  // Command substitutions open, `$(`: a blank inside one does not end the value.
  let depth = 0;
  let index = from;
  for (; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (quote === SINGLE_QUOTE) {
      if (code === SINGLE_QUOTE) quote = 0;
    } else if (code === BACKSLASH) {
      index++;
    } else if (code === DOUBLE_QUOTE) {
      quote = quote === DOUBLE_QUOTE ? 0 : DOUBLE_QUOTE;
    } else if (code === DOLLAR) {
      const reference = referenceAt(text, index);
      if (reference.name !== undefined) givers.push(reference.name);
      if (reference.opens) depth++;
      index = reference.end - 1;
    } else if (quote === 0 && code === CLOSE && depth > 0) {
      depth--;
    } else if (quote === 0 && depth === 0 && ENDS_VALUE.has(code)) {
      break;
    } else if (quote === 0 && code === SINGLE_QUOTE) {
      quote = SINGLE_QUOTE;
    }
  }
  return { givers, end: index };
}

/**
 * What the `$` at `start` expands: a variable's value (`$x`, `${x}`, `${x:-d}`, `${x%.sh}`), named, or a
 * command's output (`$(`), which opens. `${x:+w}`, `${x+w}`, `${#x}` and `${!x}` expand no value of x.
 */
function referenceAt(text: string, start: number): { name?: string; opens: boolean; end: number } {
  const next = text.charCodeAt(start + 1);
  if (next === OPEN) return { opens: true, end: start + 2 };
  const braced = next === OPEN_BRACE;
  const nameStart = braced ? start + 2 : start + 1;
  let nameEnd = nameStart;
  while (nameEnd < text.length && isWordCode(text.charCodeAt(nameEnd))) nameEnd++;
  if (nameEnd === nameStart) return { opens: false, end: start + 1 };
  const after = text.charCodeAt(nameEnd);
  const alternative = after === PLUS || (after === COLON && text.charCodeAt(nameEnd + 1) === PLUS);
  if (braced && alternative) return { opens: false, end: nameEnd };
  return { name: text.slice(nameStart, nameEnd), opens: false, end: nameEnd };
}

const isWordCode = (code: number) =>
  (code >= 0x30 && code <= 0x39) ||
  (code >= 0x41 && code <= 0x5a) ||
  (code >= 0x61 && code <= 0x7a) ||
  code === 0x5f;

/** What ends a value outside quotes and substitutions: blanks, a line break and the shell's operators. */
const ENDS_VALUE: ReadonlySet<number> = new Set([0x20, 0x09, 0x0a, 0x0d, 0x3b, 0x26, 0x7c, 0x3c, 0x3e, 0x29]);
const SINGLE_QUOTE = 0x27;
const DOUBLE_QUOTE = 0x22;
const BACKSLASH = 0x5c;
const DOLLAR = 0x24;
const OPEN = 0x28;
const CLOSE = 0x29;
const OPEN_BRACE = 0x7b;
const PLUS = 0x2b;
const COLON = 0x3a;

/**
 * A PowerShell variable named in another's value: `giver` in the value assigned to `receiver` at `at`,
 * `made` when the value makes a script block of it (`[scriptblock]::Create($s)`), run as a block.
 */
export interface PowerShellHandOver extends ShellHandOver {
  readonly made: boolean;
}

/** A PowerShell assignment, its name in group 1 (`==` is no assignment in PowerShell, and not read as one). */
const POWERSHELL_ASSIGNMENT = /(?<![\w$])\$(\w+)[ \t]*=(?!=)/g;

/** A value making a script block of a string, read where the value starts. */
const MADE_BLOCK = /[ \t]*\[(?:System\.Management\.Automation\.)?ScriptBlock\]::Create\(/iy;

/**
 * The PowerShell hand-overs of `text`, in its order: each variable an assignment's value names, read as
 * PowerShell reads the value, to a line break, `;` or a `)` or `}` closing what holds the assignment,
 * outside quotes and brackets: `$t = $s`, `$t = "$s"`, and now `$t = "x; $s"`, `$t = 'a' + $s`, `$t =
 * "${s}"` (only a value starting with the variable was read: those were missed). Not one in single quotes
 * (`$t = '$s'`) or after a backtick. Each value is read once, and the search for the next assignment goes
 * on after it; a quote never closed takes the rest of the text.
 */
export function* powershellHandOvers(text: string): Generator<PowerShellHandOver> {
  const assignments = new RegExp(POWERSHELL_ASSIGNMENT.source, "g");
  const made = new RegExp(MADE_BLOCK.source, "iy");
  for (let match = assignments.exec(text); match !== null; match = assignments.exec(text)) {
    const receiver = match[1] ?? "";
    const from = match.index + match[0].length;
    made.lastIndex = from;
    const block = made.test(text);
    const value = readPowerShellValue(text, from);
    for (const giver of value.givers) yield { receiver, giver, at: match.index, made: block };
    assignments.lastIndex = Math.max(assignments.lastIndex, value.end);
  }
}

/** The variables a PowerShell value starting at `from` names, and where it ends. One pass. */
function readPowerShellValue(text: string, from: number): { givers: string[]; end: number } {
  const givers: string[] = [];
  let quote = 0;
  // Brackets open, `(`, `{`, `[`, a subexpression's `$(` too: a `;` or line break inside one does not end the value.
  let depth = 0;
  let index = from;
  for (; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (quote === SINGLE_QUOTE) {
      if (code === SINGLE_QUOTE) quote = 0;
    } else if (code === BACKTICK) {
      index++;
    } else if (code === DOUBLE_QUOTE) {
      quote = quote === DOUBLE_QUOTE ? 0 : DOUBLE_QUOTE;
    } else if (code === DOLLAR) {
      const reference = powershellReferenceAt(text, index);
      if (reference.name !== undefined) givers.push(reference.name);
      index = reference.end - 1;
    } else if (quote === 0 && OPENS.has(code)) {
      depth++;
    } else if (quote === 0 && CLOSES.has(code)) {
      if (depth === 0) break;
      depth--;
    } else if (quote === 0 && depth === 0 && POWERSHELL_ENDS_VALUE.has(code)) {
      break;
    } else if (quote === 0 && code === SINGLE_QUOTE) {
      quote = SINGLE_QUOTE;
    }
  }
  return { givers, end: index };
}

/** The variable the `$` at `start` names (`$s`, `${s}`), and where the reference ends; `$(` is read as a bracket. */
function powershellReferenceAt(text: string, start: number): { name?: string; end: number } {
  const braced = text.charCodeAt(start + 1) === OPEN_BRACE;
  const nameStart = braced ? start + 2 : start + 1;
  let nameEnd = nameStart;
  while (nameEnd < text.length && isWordCode(text.charCodeAt(nameEnd))) nameEnd++;
  if (nameEnd === nameStart) return { end: start + 1 };
  const end = braced && text.charCodeAt(nameEnd) === CLOSE_BRACE ? nameEnd + 1 : nameEnd;
  return { name: text.slice(nameStart, nameEnd), end };
}

const BACKTICK = 0x60;
const CLOSE_BRACE = 0x7d;
const OPENS: ReadonlySet<number> = new Set([OPEN, OPEN_BRACE, 0x5b]);
const CLOSES: ReadonlySet<number> = new Set([CLOSE, CLOSE_BRACE, 0x5d]);
/** What ends a PowerShell value outside quotes and brackets: a line break and `;`. */
const POWERSHELL_ENDS_VALUE: ReadonlySet<number> = new Set([0x0a, 0x0d, 0x3b]);
