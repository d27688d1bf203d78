import {
  describeBytes,
  formatSize,
  isBinaryStart,
  isTextToGit,
  MAX_FILE_BYTES,
  SNIFF_BYTES,
} from "../catalog/index.js";
import { encodedBlobHits } from "./blobs.js";
import { characterHits, mayHoldCharacterHits } from "./characters.js";
import { EXFILTRATION_RULES, exfiltrationHits } from "./exfiltration-search.js";
import { explorerFileFindings, explorerKind } from "./explorer-files.js";
import { hiddenMarkupHits } from "./hidden.js";
import { htmlCommentHits } from "./html-comments.js";
import { deceptiveLinkHits } from "./links.js";
import type { HashComments } from "./pipe-to-shell/index.js";
import { type Finding, finding, type Hit, type RuleId } from "./rules.js";
import { LineCounter } from "./text.js";

/** What the caller knows of a file besides its bytes. */
export interface FileFacts {
  /** Any execute bit set in its mode. */
  readonly executable?: boolean;
}

/** How many lines one rule reports in one file before it sums up the rest in one more finding. */
export const FINDINGS_PER_RULE = 20;
/** How many different hits of one rule on one line a finding describes; more are only said to be there. */
const DETAILS_PER_LINE = 3;
const MARKDOWN = /\.(?:md|markdown|mdx)$/i;
/** Native executable formats, by their first bytes (ELF, Mach-O both ways, PE). */
const EXECUTABLE_MAGIC = [
  [0x7f, 0x45, 0x4c, 0x46],
  [0xcf, 0xfa, 0xed, 0xfe],
  [0xce, 0xfa, 0xed, 0xfe],
  [0xfe, 0xed, 0xfa, 0xcf],
  [0xfe, 0xed, 0xfa, 0xce],
  [0x4d, 0x5a],
] as const;

/**
 * Every finding of the file rules in one file: `path` is how findings name it (its last segment tells
 * SKILL.md and Markdown apart), `bytes` its whole content. Pure and cheap on the common path: a text
 * file that holds none of the characters and patterns looked for costs a decode and a few scans.
 */
export function auditFile(path: string, bytes: Uint8Array, facts: FileFacts = {}): Finding[] {
  // Whatever its encoding: Explorer reads it on the user's disk, where sync writes it byte for byte.
  const findings: Finding[] = explorerFileFindings(path, bytes);
  const served = servedText(bytes, path);
  const text = served?.text;
  // A native program with an execute bit is said to be both: a reviewer can read a script, not a program.
  const native = text === undefined && startsWithAny(bytes, EXECUTABLE_MAGIC);
  if (facts.executable === true || native) {
    const how = [native ? "a native program" : "", facts.executable === true ? "its mode lets it run" : ""];
    findings.push(finding(path, 0, "executable-file", `executable: ${how.filter(Boolean).join(", and ")}`));
  }
  if (text === undefined) {
    findings.push(
      finding(
        path,
        0,
        "binary-file",
        `binary, ${formatSize(bytes.length)}: agents get a description, not its content`,
      ),
    );
  }
  if (bytes.length > MAX_FILE_BYTES) {
    const served = text === undefined ? "" : `: agents get its first ${MAX_FILE_BYTES / 1024} KiB`;
    findings.push(finding(path, 0, "large-file", `${formatSize(bytes.length)}${served}`));
  }
  // What is not served as text, `sync` still writes byte for byte, where a shell runs it and tools read it.
  if (served === undefined) {
    const utf16 = utf16Of(bytes);
    if (utf16 !== undefined) {
      const why = "served as binary (UTF-16), but PowerShell and editors read it as text";
      findings.push(...onDiskFindings(path, new TextDecoder(utf16).decode(bytes), why, 0));
    } else if (readAsTextOnDisk(bytes, path)) {
      const why = `served as binary (${binaryReason(bytes)}), but shells and editors read it as text`;
      findings.push(...onDiskFindings(path, latin1(bytes), why, 0));
    }
  } else {
    findings.push(...textFindings(path, servedRules(path, served.text), served.text));
    if (served.bytes < bytes.length) {
      // The head ends at a line's end, or inside its one line: the lines before the rest are its LFs.
      const why = `not served (past its first ${MAX_FILE_BYTES / 1024} KiB, and not UTF-8), but shells and editors read it as text`;
      const linesBefore = served.text.split("\n").length - 1;
      findings.push(...onDiskFindings(path, latin1(bytes.subarray(served.bytes)), why, linesBefore));
    }
  }
  return findings;
}

/**
 * All that a file's path decides of its audit besides the path its findings name: two files of the same
 * bytes and mode whose names read the same here have the same findings, each named for its own path.
 * A rule that reads more of the name must say so here.
 */
export function nameReading(path: string): string {
  return `${MARKDOWN.test(path) ? "markdown" : "text"} ${SCRIPT_NAME.test(path) ? "script" : "other"} ${explorerKind(path)} ${hashComments(path)}`;
}

/**
 * Where a `#` starts a comment in a file named `path`: in fenced code blocks of such languages in
 * Markdown, in the whole file in a script or configuration of a language whose comments it starts (a
 * shell's, PowerShell's, Python's, Ruby's, Perl's, YAML, TOML, a Dockerfile or Makefile), nowhere in
 * others (in JavaScript it names a private field, in a text it may be a root prompt).
 */
function hashComments(path: string): HashComments {
  if (MARKDOWN.test(path)) return "fenced";
  if (POWERSHELL_NAME.test(path)) return "powershell";
  return HASH_COMMENT_NAME.test(path) ? "file" : "none";
}

/** A PowerShell script or module, whose `<# … #>` is a comment too. */
const POWERSHELL_NAME = /\.psm?1$/i;

const HASH_COMMENT_NAME =
  /\.(?:sh|bash|zsh|ksh|fish|ps1|psm1|py|rb|pl|pm|ya?ml|toml)$|(?:^|\/)(?:Dockerfile|Makefile)$|(?:^|\/)scripts\/[^/.]+$/i;

/**
 * The findings of the rules of {@link diskRules} in `text`, a file's bytes (or its bytes past the head
 * served) as a tool on disk reads them, each detail after `why`; their lines counted on from
 * `linesBefore`, the lines of the file before `text`. Read a byte a character (Latin-1), every ASCII
 * command reads as a shell runs it, whatever the bytes around it.
 */
function onDiskFindings(path: string, text: string, why: string, linesBefore: number): Finding[] {
  return textFindings(path, diskRules(text, path), text).map((found) => ({
    ...found,
    line: found.line + linesBefore,
    detail: `${why}: ${found.detail}`,
  }));
}

/** The rules of a file the server serves as text: every rule, those of Markdown for Markdown files. */
function servedRules(path: string, text: string): Iterable<Hit>[] {
  return [
    mayHoldCharacterHits(text) ? characterHits(text, MARKDOWN.test(path)) : [],
    exfiltrationHits(text, { comments: hashComments(path) }),
    encodedBlobHits(text),
    deceptiveLinkHits(text),
    MARKDOWN.test(path) ? htmlCommentHits(text) : [],
    MARKDOWN.test(path) ? hiddenMarkupHits(text) : [],
  ];
}

/**
 * The rules of a file served as binary that tools read as text (see readAsTextOnDisk), decoded a byte a
 * character: those of what a command does or what words tell an agent that opens the file on disk.
 * Not those of characters (they read UTF-8, and such a file's bytes show as whatever encoding the viewer
 * picks; the server shows no one its text) nor of rendered Markdown (no one renders it): a `#` in a
 * Markdown file's fenced block is read as text there.
 */
function diskRules(text: string, path: string): Iterable<Hit>[] {
  const comments = hashComments(path);
  return [
    exfiltrationHits(text, { comments: comments === "fenced" ? "none" : comments }),
    encodedBlobHits(text),
  ];
}

/**
 * Whether a file the server serves as binary is text to the tools on disk: git diffs it as text (no NUL in
 * its first 8,000 bytes), or it starts with `#!`, which the kernel runs as a script whatever follows
 * (sh and bash run past a NUL after the first line), or its name says it is a script and its first line
 * holds no NUL (`bash run.sh` runs it as such). Images, archives and fonts hold a NUL early; a PNG's
 * first line holds none, but it is not named `.sh`.
 */
function readAsTextOnDisk(bytes: Uint8Array, path: string): boolean {
  if (bytes[0] === 0x23 && bytes[1] === 0x21) return true;
  return isTextToGit(bytes) || (SCRIPT_NAME.test(path) && !firstLineHoldsNul(bytes));
}

/**
 * The name of a script: its extension, or a name without one in a `scripts` folder. Not any file in such
 * a folder: Python's `__pycache__` there holds `.pyc` files, whose first line (the magic number) holds no
 * NUL either; nor `.ts`, which video files (MPEG transport streams) are named too.
 */
const SCRIPT_NAME =
  /\.(?:sh|bash|zsh|ksh|fish|ps1|psm1|py|rb|pl|pm|php|lua|js|mjs|cjs|bat|cmd)$|(?:^|\/)scripts\/[^/.]+$/i;

/** Whether a NUL comes before the first line feed (or the file has none and holds a NUL). */
function firstLineHoldsNul(bytes: Uint8Array): boolean {
  const lineFeed = bytes.indexOf(0x0a);
  const nul = bytes.indexOf(0);
  return nul !== -1 && (lineFeed === -1 || nul < lineFeed);
}

/** `bytes` read a byte a character (ISO-8859-1), as a shell reads the ASCII in them. */
function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString("latin1");
}

/**
 * The decoder of a file that starts with a UTF-16 byte order mark (not UTF-32's, `FF FE 00 00`): a text
 * PowerShell runs and editors open as text, which the server serves as binary for its NULs.
 */
function utf16Of(bytes: Uint8Array): "utf-16le" | "utf-16be" | undefined {
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  if (bytes[0] !== 0xff || bytes[1] !== 0xfe) return undefined;
  return bytes[2] === 0 && bytes[3] === 0 ? undefined : "utf-16le";
}

/** Why the server serves as binary a file that {@link readAsTextOnDisk}, as a reviewer reads it. */
function binaryReason(bytes: Uint8Array): string {
  if (!isBinaryStart(bytes)) return "not UTF-8";
  return bytes.subarray(0, SNIFF_BYTES).includes(0)
    ? "a NUL in its first 8 KiB"
    : "control characters in its first 8 KiB";
}

/**
 * The findings of the text rules (`rules`, each its hits over `text`), in the order of the hits that
 * opened them (by offset; at one offset, in the order the rules run, those of exfiltrationHits in
 * {@link EXFILTRATION_RULES}'s). Each rule's hits are taken as it finds them, in order of offset, and only
 * what the findings show is kept: a file with millions of hits costs no more memory than one with a few.
 */
function textFindings(path: string, rules: Iterable<Hit>[], text: string): Finding[] {
  // One counter a rule: each counts on from its rule's last hit, and one pass gives hits of several rules.
  const counters = new Map<RuleId, LineCounter>();
  const byRule = new Map<RuleId, RuleLines>();
  rules.forEach((hits, order) => {
    for (const hit of hits) {
      const counter = counters.get(hit.rule) ?? new LineCounter(text);
      counters.set(hit.rule, counter);
      const line = counter.lineAt(hit.offset);
      const state = byRule.get(hit.rule) ?? { listed: new Map(), more: undefined };
      byRule.set(hit.rule, state);
      addHit(state, hit, line, order);
    }
  });
  const first = (a: Opened, b: Opened) =>
    a.offset - b.offset || a.order - b.order || withinPass(a.rule) - withinPass(b.rule);
  const rulesLines = [...byRule.values()];
  const listed = rulesLines.flatMap((state) => [...state.listed.values()]).sort(first);
  const more = rulesLines.flatMap((state) => (state.more ? [state.more] : [])).sort(first);
  return [
    ...listed.map((found) => finding(path, found.line, found.rule, describeLine(found))),
    ...more.map(({ rule, line, lines: count }) =>
      finding(path, line, rule, `${count} more lines from here on, not listed`),
    ),
  ];
}

/** A rule's place among those that share one pass (0 for the others). */
function withinPass(rule: RuleId): number {
  return Math.max(0, (EXFILTRATION_RULES as readonly RuleId[]).indexOf(rule));
}

/** Where a finding was opened: the offset of its first hit, and the place of its rule in the run. */
interface Opened {
  readonly rule: RuleId;
  readonly line: number;
  readonly offset: number;
  readonly order: number;
}

/** The hits of one line: its first {@link DETAILS_PER_LINE} details, counted, and whether there were others. */
interface ListedLine extends Opened {
  readonly details: Map<string, number>;
  others: boolean;
}

/** The lines past the {@link FINDINGS_PER_RULE} listed: how many, and the last seen (hits come in order). */
interface MoreLines extends Opened {
  lines: number;
  last: number;
}

interface RuleLines {
  readonly listed: Map<number, ListedLine>;
  more: MoreLines | undefined;
}

function addHit(state: RuleLines, hit: Hit, line: number, order: number): void {
  const same = state.listed.get(line);
  if (same) {
    const times = same.details.get(hit.detail);
    if (times !== undefined) same.details.set(hit.detail, times + 1);
    else if (same.details.size < DETAILS_PER_LINE) same.details.set(hit.detail, 1);
    else same.others = true;
  } else if (state.listed.size < FINDINGS_PER_RULE) {
    const details = new Map([[hit.detail, 1]]);
    state.listed.set(line, { rule: hit.rule, line, offset: hit.offset, order, details, others: false });
  } else if (state.more === undefined) {
    state.more = { rule: hit.rule, line, offset: hit.offset, order, lines: 1, last: line };
  } else if (state.more.last !== line) {
    state.more.lines++;
    state.more.last = line;
  }
}

/** The first few distinct details of a line, each with how often it came when more than once. */
function describeLine({ details, others }: ListedLine): string {
  const parts = [...details].map(([detail, times]) => (times === 1 ? detail : `${times} × ${detail}`));
  if (others) parts.push("and more on this line");
  return parts.join("; ");
}

/**
 * The file's text, exactly when the server serves it as text: not binary by its first 8 KiB (see
 * isBinaryStart) and valid UTF-8, and how many of its bytes that text is. A file over the cap
 * (MAX_FILE_BYTES) whose tail is not UTF-8 is still served its first bytes as text, up to a line's end, so
 * that part is what the served rules read then. A leading byte order mark is kept, so that rules can tell
 * it apart (the server's reading of such a head drops it: its bytes are counted back).
 */
function servedText(bytes: Uint8Array, path: string): { text: string; bytes: number } | undefined {
  if (isBinaryStart(bytes)) return undefined;
  try {
    return {
      text: new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes),
      bytes: bytes.length,
    };
  } catch {
    if (bytes.length <= MAX_FILE_BYTES) return undefined;
    const head = Buffer.from(bytes.buffer, bytes.byteOffset, MAX_FILE_BYTES);
    const served = describeBytes(head, bytes.length, path);
    if (served.kind !== "text") return undefined;
    const bom = head.subarray(0, 3).equals(UTF8_BOM) && !served.text.startsWith("\uFEFF") ? 3 : 0;
    return { text: served.text, bytes: bom + Buffer.byteLength(served.text) };
  }
}

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

function startsWithAny(bytes: Uint8Array, magics: readonly (readonly number[])[]): boolean {
  return magics.some((magic) => magic.every((byte, index) => bytes[index] === byte));
}
