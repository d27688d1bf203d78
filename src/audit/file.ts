import { describeBytes, isBinaryStart, MAX_FILE_BYTES } from "../catalog/index.js";
import { characterHits, mayHoldCharacterHits } from "./characters.js";
import { deceptiveLinkHits, encodedBlobHits, htmlCommentHits, pipeToShellHits } from "./content.js";
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
  const findings: Finding[] = [];
  const text = servedText(bytes, path);
  if (facts.executable === true || (text === undefined && startsWithAny(bytes, EXECUTABLE_MAGIC))) {
    const how = facts.executable === true ? "its mode lets it run" : "a native program";
    findings.push(finding(path, 0, "executable-file", `executable: ${how}`));
  }
  if (text === undefined) {
    findings.push(
      finding(
        path,
        0,
        "binary-file",
        `binary, ${sizeOf(bytes.length)}: agents get a description, not its content`,
      ),
    );
  }
  if (bytes.length > MAX_FILE_BYTES) {
    const served = text === undefined ? "" : ": agents get its first 256 KiB";
    findings.push(finding(path, 0, "large-file", `${sizeOf(bytes.length)}${served}`));
  }
  if (text !== undefined) findings.push(...linesOf(path, text, textHits(path, text)));
  return findings;
}

function textHits(path: string, text: string): Hit[] {
  const hits: Hit[] = mayHoldCharacterHits(text) ? characterHits(text) : [];
  hits.push(...pipeToShellHits(text), ...encodedBlobHits(text), ...deceptiveLinkHits(text));
  if (MARKDOWN.test(path)) hits.push(...htmlCommentHits(text));
  return hits.sort((a, b) => a.offset - b.offset);
}

/**
 * One finding per rule and line (its hits' details joined, a repeated one counted), at most {@link FINDINGS_PER_RULE}
 * lines per rule, then one finding that counts the lines left.
 */
function linesOf(path: string, text: string, hits: readonly Hit[]): Finding[] {
  const lines = new LineCounter(text);
  const byLine = new Map<string, { rule: RuleId; line: number; details: Map<string, number> }>();
  const linesPerRule = new Map<RuleId, number>();
  const more = new Map<RuleId, { line: number; lines: Set<number> }>();
  for (const hit of hits) {
    const line = lines.lineAt(hit.offset);
    const key = `${hit.rule}\n${line}`;
    const same = byLine.get(key);
    if (same) {
      same.details.set(hit.detail, (same.details.get(hit.detail) ?? 0) + 1);
      continue;
    }
    const counted = linesPerRule.get(hit.rule) ?? 0;
    if (counted >= FINDINGS_PER_RULE) {
      const rest = more.get(hit.rule) ?? { line, lines: new Set<number>() };
      rest.lines.add(line);
      more.set(hit.rule, rest);
      continue;
    }
    linesPerRule.set(hit.rule, counted + 1);
    byLine.set(key, { rule: hit.rule, line, details: new Map([[hit.detail, 1]]) });
  }
  const findings = [...byLine.values()].map(({ rule, line, details }) =>
    finding(path, line, rule, describeLine(details)),
  );
  for (const [rule, rest] of more) {
    findings.push(finding(path, rest.line, rule, `${rest.lines.size} more lines from here on, not listed`));
  }
  return findings;
}

/** The first few distinct details of a line, each with how often it came when more than once. */
function describeLine(details: ReadonlyMap<string, number>): string {
  const parts = [...details]
    .slice(0, DETAILS_PER_LINE)
    .map(([detail, times]) => (times === 1 ? detail : `${times} × ${detail}`));
  if (details.size > DETAILS_PER_LINE) parts.push("and more on this line");
  return parts.join("; ");
}

/**
 * The file's text, exactly when the server serves it as text: no NUL in its first 8 KiB and valid UTF-8.
 * A file over the 256 KiB cap whose tail is not UTF-8 is still served its first 256 KiB as text, so that
 * part is what is audited then. A leading byte order mark is kept, so that rules can tell it apart.
 */
function servedText(bytes: Uint8Array, path: string): string | undefined {
  if (isBinaryStart(bytes)) return undefined;
  try {
    return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    if (bytes.length <= MAX_FILE_BYTES) return undefined;
    const head = Buffer.from(bytes.buffer, bytes.byteOffset, MAX_FILE_BYTES);
    const served = describeBytes(head, bytes.length, path);
    return served.kind === "text" ? served.text : undefined;
  }
}

function startsWithAny(bytes: Uint8Array, magics: readonly (readonly number[])[]): boolean {
  return magics.some((magic) => magic.every((byte, index) => bytes[index] === byte));
}

function sizeOf(bytes: number): string {
  return bytes < 1024 * 1024 ? `${(bytes / 1024).toFixed(1)} KiB` : `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
