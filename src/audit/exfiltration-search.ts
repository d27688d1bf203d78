/**
 * The one search of the rules for instructions that turn an agent against its user, each in a file of its
 * own: a file of credentials named (`secret-file`), a command that sends a local file or a command's output
 * to a host (`data-upload`), and words that tell the agent to drop its other instructions or to keep
 * something from the user (`prompt-injection`), a command that wipes the home folder, the root or a disk
 * (`destructive-command`), and words that tell the agent to send a file or a key to a URL
 * (`upload-instruction`). Each is a phrase a person reading a bump should see, not proof of an attack: real
 * skills upload files to APIs and teach SSH, hence medium.
 *
 * Every rule finds its starting words with a regular expression of fixed alternatives and then reads a
 * bounded stretch after them (or one shell command, each read once): linear in the text. They share one
 * search for where any of them may start ({@link STARTS}).
 */
import { destructiveCommand } from "./destructive.js";
import { conceal, override } from "./injection.js";
import { type CommandLine, commandLines, type HashComments, pipeToShell } from "./pipe-to-shell/index.js";
import type { Reader } from "./reader.js";
import type { Hit, RuleId } from "./rules.js";
import { secretFile } from "./secret-files.js";
import { uploadInstruction } from "./upload-sentences.js";
import { dataUpload } from "./uploads.js";

/** A word boundary, which most alternatives of {@link READERS} start with. */
const WORD_START = String.raw`\b`;

type Make = (text: string, lines: (index: number) => CommandLine, comments: HashComments) => Reader;

/**
 * The readers of {@link exfiltrationHits}, in the order they are tried at one place, each with the
 * alternatives (expressions, case aside) where its expression may start: every place where it
 * matches is one where one of them does. {@link STARTS} searches for them all at once.
 */
const READERS: readonly (readonly [Make, readonly RegExp[]])[] = [
  [pipeToShell, [/\bcurl/, /\bwget/, /\binvoke-/, /\biwr/, /\birm/, /\bdownload/]],
  [
    dataUpload,
    [
      ...[/\bcurl/, /\bwget/, /\binvoke-/, /\biwr/, /\birm/, /\bnc/, /\bnetcat/, /\/dev\//],
      ...[/\burlopen/, /\brequests\./, /\bhttpx\./, /\bfetch/, /\baxios/, /\bsendbeacon/],
    ],
  ],
  [
    secretFile,
    [
      /\.ssh/,
      /\.aws/,
      /\.netrc/,
      /\.git-/,
      /\.docker/,
      /\.gnupg/,
      /\.config/,
      /\.azure/,
      /id_/,
      /\/etc\/shadow/,
      /find-/,
      /application_/,
    ],
  ],
  [override, [/\bignore/, /\bdisregard/, /\bforget/]],
  [
    conceal,
    [
      /\bdo\s+not/,
      /\bdon['’]t/,
      /\bmust/,
      /\bshould/,
      /\bshall\s+not/,
      /\bneed/,
      /\bmay\s+not/,
      /\bno\s+need/,
      /\bnever/,
      /\bwithout/,
      /\bhid/,
      /\bconceal/,
      /\bkeep/,
      // `the user must not find out`: the concealment starts at who it is kept from.
      /\buser/,
      /\bhuman/,
      /\boperator/,
    ],
  ],
  [destructiveCommand, [/\brm\s/, /\bmkfs/, /\bdd\s/, /:\(\)/]],
  [
    uploadInstruction,
    [
      /\bupload/,
      /\bsen[dt]/,
      /\bpost/,
      /\btransmit/,
      /\bexfiltrat/,
      /\bforward/,
      /\bsubmit/,
      /\bcop(?:y|ie)/,
    ],
  ],
];

/**
 * Where any of the rules below, and pipe-to-shell, may start: the alternatives of {@link READERS}. V8 tries
 * an expression of many alternatives at every character, so each rule's own search cost a pass of 2-3 ns
 * a character, and the four a second for the 100 MB of a 10,000-skill catalog; this one search costs
 * about one such pass, and each rule's own expression, sticky, decides at the places it finds.
 */
const STARTS = startsOf(READERS.flatMap(([, starts]) => starts.map((start) => start.source)));

/**
 * One expression of `alternatives`, those after a word boundary in one group after one `\b`: each with its
 * own, the search took 60% longer.
 */
function startsOf(alternatives: readonly string[]): RegExp {
  const unique = [...new Set(alternatives)];
  const words = unique.filter((source) => source.startsWith(WORD_START));
  const others = unique.filter((source) => !source.startsWith(WORD_START));
  const grouped = `${WORD_START}(?:${words.map((source) => source.slice(WORD_START.length)).join("|")})`;
  return new RegExp([grouped, ...others].join("|"), "gi");
}

/**
 * The places in {@link READERS} of the readers that a match of {@link STARTS} may start, by its first two
 * characters (lowercase), taken from each reader's own alternatives. Each is tried only where a match
 * starts so: tried all at every match, the others cost `~/.ssh ` repeated 37 ms of CPU a MiB, not 15, and
 * `dd if=x ` 66, not 48. (A group of alternatives for each reader told the same, but a search with groups
 * took twice as long.)
 */
const STARTED_BY: ReadonlyMap<string, readonly number[]> = readersByStart();

function readersByStart(): Map<string, number[]> {
  const byStart = new Map<string, number[]>();
  for (const [index, [, starts]] of READERS.entries()) {
    for (const first of new Set(starts.map((start) => firstTwo(start.source)))) {
      byStart.set(first, [...(byStart.get(first) ?? []), index]);
    }
  }
  return byStart;
}

/**
 * The first two characters an alternative of {@link READERS} matches, lowercase: after a `\b`, each a
 * character or an escaped punctuation mark, neither optional. Any other (a class, `\s`) throws, when the
 * module loads.
 */
function firstTwo(source: string): string {
  let at = source.startsWith(WORD_START) ? WORD_START.length : 0;
  let first = "";
  while (first.length < 2) {
    const char = source.charAt(at);
    const escaped = char === "\\" ? source.charAt(at + 1) : undefined;
    if (escaped !== undefined ? !/^[^\w\s]$/.test(escaped) : !/^[^\\[\]()|?*+{}^$.]$/.test(char)) {
      throw new Error(`an alternative of READERS starting with no two plain characters: ${source}`);
    }
    first += escaped ?? char;
    at += escaped !== undefined ? 2 : 1;
    // `nc?`: the character may be missing, and the text's second character another.
    if (/^[?*{]$/.test(source.charAt(at))) {
      throw new Error(`an alternative of READERS starting with an optional character: ${source}`);
    }
  }
  return first.toLowerCase();
}

const ALL_READERS = READERS.map((_, index) => index);

/** The rules of {@link exfiltrationHits}, in the order their findings at one offset are listed. */
export const EXFILTRATION_RULES = [
  "pipe-to-shell",
  "data-upload",
  "secret-file",
  "prompt-injection",
  "destructive-command",
  "upload-instruction",
] as const satisfies readonly RuleId[];

/** How {@link exfiltrationHits} reads a text. */
export interface ExfiltrationReading {
  /** Where a `#` starts a comment, which pipe-to-shell leaves alone ({@link HashComments}); nowhere unless said. */
  readonly comments?: HashComments;
  /**
   * Finds where to try the rules (global), those {@link READERS} names for the match's first two
   * characters, or all of them: the tests pass one that matches every character, one at a time, which
   * tries each rule at every place as a search of its own would, and expect the same hits.
   */
  readonly starts?: RegExp;
}

/**
 * The hits of the rules below and of pipe-to-shell, each rule's in order of offset (not all of them
 * together: a data-upload hit is at the start of its command, a secret-file hit is given when its line
 * is done).
 */
export function* exfiltrationHits(
  text: string,
  { comments = "none", starts = STARTS }: ExfiltrationReading = {},
): Generator<Hit> {
  // pipe-to-shell and data-upload read the command line of each `curl` once between them.
  const lines = commandLines(text);
  const readers = READERS.map(([make]) => make(text, lines, comments));
  for (let from = 0; ; ) {
    starts.lastIndex = from;
    const start = starts.exec(text);
    if (start === null) break;
    for (const index of STARTED_BY.get(start[0].slice(0, 2).toLowerCase()) ?? ALL_READERS) {
      const reader = readers[index];
      if (reader === undefined || start.index < reader.next) continue;
      reader.pattern.lastIndex = start.index;
      const match = reader.pattern.exec(text);
      if (match === null) continue;
      const hit = reader.read(match);
      if (hit !== undefined) yield hit;
    }
    // Not past the match: a rule may start inside another's first words.
    from = start.index + 1;
  }
  for (const reader of readers) {
    const hit = reader.finish?.();
    if (hit !== undefined) yield hit;
  }
}
