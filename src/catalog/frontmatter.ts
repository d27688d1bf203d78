import { createHash } from "node:crypto";
import {
  type Document,
  isCollection,
  isMap,
  isScalar,
  isSeq,
  Lexer,
  LineCounter,
  parseDocument,
  visit,
  type YAMLError,
} from "yaml";
import { codePoint, compareText, errorMessage, excerpt, quoted } from "../shared/index.js";

/** What the catalog reads in a SKILL.md's frontmatter: the skill's name, description and flags, or why not. */
export type ParsedFrontmatter =
  | ({
      readonly ok: true;
      readonly name: string;
      readonly description: string;
      /** Set when an unquoted description ends at ` #`, which YAML reads as a comment (see commentCuts). */
      readonly descriptionComment?: true;
      /** Set when the file begins with a UTF-8 byte order mark, which is read past here but sent as it is. */
      readonly bom?: true;
      /**
       * The description's length in characters as YAML reads it, untrimmed, its line breaks each counted
       * (as the Skills extension counts it), when that is over MAX_DESCRIPTION_LENGTH: `description` joins
       * runs of whitespace, so it may be far shorter.
       */
      readonly yamlDescriptionLength?: number;
    } & Invocation)
  | { readonly ok: false; readonly reason: string };

/**
 * Who may start a skill, as Claude Code's frontmatter flags say: `disable-model-invocation: true` keeps
 * it from the model (a person still starts it), `user-invocable: false` from people (no prompt).
 */
export interface Invocation {
  readonly modelInvocable: boolean;
  readonly userInvocable: boolean;
}

const NAME_RULE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_NAME_LENGTH = 64;
/**
 * A name longer than this is not served: a skill is named as its folder, and no file system names a
 * folder so long, so it can only be there to flood every listing that names the skill.
 */
export const LONGEST_SERVED_NAME = 255;
/**
 * The Agent Skills limit on a description. Every listing and search answer carries a skill's description,
 * so past this it is cut, not carried: one skill's page of text would cost every caller of its scope.
 */
export const MAX_DESCRIPTION_LENGTH = 1024;

const CLOSING_LINE = /^---\s*$/;
/**
 * YAML's document end. It does not close a frontmatter: the Agent Skills format, Claude's loader and the
 * Skills extension look for `---`, so a skill closed by it would be served by the tools alone.
 */
const DOCUMENT_END_LINE = /^\.\.\.\s*$/;
const DOCUMENT_END_REASON =
  'frontmatter ends at a "..." line (YAML\'s document end), which Claude, the Agent Skills format and the ' +
  "Skills extension do not read as its end: close the frontmatter with a --- line";

/**
 * Real frontmatters take a few hundred bytes (2 KB at most in shared/bench). A larger one is refused before
 * it is parsed: the YAML parser's work on hostile input grows faster than its size (80,000 keys in 1 MiB
 * took seconds).
 */
export const MAX_FRONTMATTER_BYTES = 64 * 1024;
/**
 * Aliases (`*a`) a frontmatter may hold. Resolving a chain of them costs the YAML parser time quadratic in
 * their number (a thousand took 8 s), under its own limit on how far they expand.
 */
const MAX_ALIASES = 100;
/**
 * YAML tokens (keys, values, indicators, spaces, line breaks) a frontmatter may hold; real ones hold about
 * a hundred (112 at most in shared/bench). The YAML parser makes an error, with a stack trace, of each
 * token out of place, and a line of 64,000 commas, within the size limit, took it seconds and megabytes.
 */
const MAX_YAML_TOKENS = 5000;

/** The keys that say what a skill is: given twice, which one is meant is anyone's guess. */
const IDENTITY_KEYS = ["name", "description"] as const;

/**
 * The frontmatter as data. A key repeated at the top is refused only when it is `name` or `description`;
 * any other repeated key (`metadata`, `allowed-tools`, a key inside `metadata`) takes its last value, as
 * PyYAML and most YAML readers do: a skill is not dropped for a slip in a field the service does not read.
 * Warnings (an unknown tag such as `!foo`) would go to stderr past the server's log; the text still reads.
 */
function readFrontmatter(text: string): { data: unknown; descriptionComment: boolean } | { reason: string } {
  if (holdsMoreTokens(text, MAX_YAML_TOKENS)) {
    return { reason: `frontmatter holds more than ${MAX_YAML_TOKENS} YAML tokens` };
  }
  // Not prettyErrors: it quotes the line of each error, and a line of a thousand errors is quoted a
  // thousand times. Only the first error is told, placed by the line counter.
  const lines = new LineCounter();
  let document: Document.Parsed;
  try {
    document = parseYaml(text, lines);
  } catch (error) {
    // The parser recurses once a level of nesting, and 2,500 keys nested in a flow sequence (10 KB)
    // overflow its stack: the file reads, its YAML does not.
    if (error instanceof RangeError) return { reason: "frontmatter is not valid YAML: nested too deeply" };
    throw error;
  }
  const [error] = document.errors;
  if (error) return { reason: `frontmatter is not valid YAML: ${describeYamlError(error, lines, text)}` };
  let aliases = 0;
  visit(document, {
    Alias: () => (++aliases > MAX_ALIASES ? visit.BREAK : undefined),
  });
  if (aliases > MAX_ALIASES) return { reason: `frontmatter holds more than ${MAX_ALIASES} YAML aliases` };
  let descriptionComment = false;
  if (isMap(document.contents)) {
    const keys = document.contents.items.map(({ key }) => (isScalar(key) ? key.value : key));
    const repeated = IDENTITY_KEYS.find((name) => keys.filter((key) => key === name).length > 1);
    if (repeated) return { reason: `frontmatter gives ${repeated} more than once` };
    const description = document.contents.items.find(
      ({ key }) => isScalar(key) && key.value === "description",
    );
    descriptionComment = commentCuts(description?.value, text);
  }
  try {
    return { data: document.toJS(), descriptionComment };
  } catch (error) {
    // Aliases expanding past the parser's limit (a "billion laughs" frontmatter) throw here.
    return { reason: `frontmatter is not valid YAML: ${firstLine(errorMessage(error))}` };
  }
}

/**
 * A frontmatter parsed as YAML, its errors those of YAML: the parser counts a key's length in UTF-16 units
 * against YAML's limit of 1,024 characters on a key written without `? `, so it refused a key of 513 emoji
 * that YAML, PyYAML, js-yaml and the Skills extension read. Its error is dropped for a key within the limit
 * in characters; the key, already read, stays as it is.
 */
function parseYaml(text: string, lineCounter?: LineCounter): Document.Parsed {
  const document = parseDocument(text, {
    uniqueKeys: false,
    logLevel: "error",
    prettyErrors: false,
    ...(lineCounter === undefined ? {} : { lineCounter }),
  });
  document.errors = document.errors.filter(
    (error) => error.code !== "KEY_OVER_1024_CHARS" || implicitKeyLength(error, text) > MAX_IMPLICIT_KEY,
  );
  return document;
}

/** YAML's limit on a key written without `? `, in characters, to its `:`, its anchor and tag included. */
const MAX_IMPLICIT_KEY = 1024;

/**
 * The length in characters (code points) of the key a KEY_OVER_1024_CHARS `error` places, as the parser
 * measures it in UTF-16 units: from its anchor or tag, when it has them on its line, to its `:`.
 */
function implicitKeyLength(error: YAMLError, text: string): number {
  const [keyStart = 0, keyEnd = keyStart] = error.pos;
  const { start, colon } = implicitKeySpan(keyStart, keyEnd, text);
  return characters(text, start, colon);
}

/**
 * Where a key written from `keyStart` to `keyEnd` in `text` begins, its anchor and tag included when they
 * are on its line, and where its `:` is (or the first character after the spaces and tabs that follow it).
 */
function implicitKeySpan(keyStart: number, keyEnd: number, text: string): { start: number; colon: number } {
  let colon = keyEnd;
  while (text[colon] === " " || text[colon] === "\t") colon++;
  // Back over at most two properties (`&anchor !tag key`), each a word separated by spaces or tabs (or,
  // the first, after the `{`, `[` or `,` before it).
  let start = keyStart;
  for (let props = 0; props < 2; props++) {
    let space = start;
    while (text[space - 1] === " " || text[space - 1] === "\t") space--;
    let word = space;
    while (word > 0 && !/[\s{[,]/.test(text[word - 1] ?? " ")) word--;
    if (space === start || word === space || (text[word] !== "&" && text[word] !== "!")) break;
    start = word;
  }
  return { start, colon };
}

/** The characters (code points) of `text` from `start` to `end`. */
function characters(text: string, start: number, end: number): number {
  let length = end - start;
  for (let at = start; at < end; at++) {
    const unit = text.charCodeAt(at);
    if (unit >= 0xd800 && unit <= 0xdbff && (text.charCodeAt(at + 1) & 0xfc00) === 0xdc00) length--;
  }
  return length;
}

/**
 * Why a SKILL.md that does not start with `---` has no frontmatter. A file saved as UTF-16 (Windows
 * PowerShell 5 writes one with `>`, `Out-File` and `Set-Content`) starts with it too, as the author's
 * editor shows it, but its bytes hold a NUL after each ASCII character. So does one whose lines end in
 * CR alone (classic Mac OS, some old editors): it is refused rather than read, as the agents' hosts that
 * read SKILL.md from disk (Claude Code, and what sync installs for) split lines at LF.
 */
function noFrontmatter(markdown: string): string {
  if (markdown.includes("\0"))
    return (
      "SKILL.md is not UTF-8 (it holds NUL bytes, as UTF-16 does, which Windows PowerShell 5 writes): " +
      "save it as UTF-8"
    );
  if (endsLinesWithCrOnly(markdown))
    return "SKILL.md's line ends are CR only (as classic Mac OS wrote them): save the file with LF or CRLF line ends";
  return "no frontmatter (the file must start with ---)";
}

/** Whether the first line break of `text` is a CR with no LF after it. */
function endsLinesWithCrOnly(text: string): boolean {
  const lineBreak = text.search(/[\r\n]/);
  return lineBreak >= 0 && text[lineBreak] === "\r" && text[lineBreak + 1] !== "\n";
}

/** The text of a SKILL.md's frontmatter, between its --- lines, or why there is none to read. */
function frontmatterText(markdown: string): { text: string } | { reason: string } {
  const lines = markdown.split(/\r?\n/);
  if (lines[0]?.trimEnd() !== "---") return { reason: noFrontmatter(markdown) };
  const end = closingLineIndex(lines);
  const text = lines.slice(1, end < 0 ? lines.length : end).join("\n");
  if (Buffer.byteLength(text) > MAX_FRONTMATTER_BYTES) {
    return { reason: `frontmatter is larger than ${MAX_FRONTMATTER_BYTES / 1024} KiB` };
  }
  if (endsAtDocumentEnd(lines, end)) return { reason: DOCUMENT_END_REASON };
  if (end < 0) return { reason: "frontmatter is not closed by a --- line" };
  return { text };
}

/**
 * Whether the author closed the frontmatter with `...`: such a line before the closing `---` (at `end`, -1
 * when there is none) with more than comments and blank lines after it, which YAML reads as another
 * document (or the body, when no `---` follows).
 */
function endsAtDocumentEnd(lines: readonly string[], end: number): boolean {
  const last = end < 0 ? lines.length : end;
  const dots = lines.findIndex((line, index) => index > 0 && index < last && DOCUMENT_END_LINE.test(line));
  if (dots < 0) return false;
  return end < 0 || lines.slice(dots + 1, last).some((line) => !/^\s*(?:#.*)?$/.test(line));
}

/**
 * The frontmatter of a SKILL.md as a YAML document, for checks of how it is written; undefined when it
 * cannot be read as data (readFrontmatterFields says why), within the same limits.
 */
export function frontmatterDocument(markdown: string): Document.Parsed | undefined {
  const source = frontmatterText(markdown);
  return "reason" in source ? undefined : documentOf(source.text);
}

function documentOf(text: string): Document.Parsed | undefined {
  if (holdsMoreTokens(text, MAX_YAML_TOKENS)) return undefined;
  try {
    const document = parseYaml(text);
    return document.errors.length === 0 ? document : undefined;
  } catch (error) {
    if (error instanceof RangeError) return undefined;
    throw error;
  }
}

/**
 * A warning for each key inside `{ }` or `[ ]`, written without `? `, that PyYAML refuses and this server
 * reads: YAML limits such a key to one line and 1,024 characters, but the YAML parser (and the Skills
 * extension's) hold to it only outside them, and PyYAML everywhere. Its scanner forgets a possible key
 * once the scan is on another line or past 1,024 characters from the key's start (its anchor or tag) and
 * then, at the `:`, refuses the whole frontmatter ("while parsing a flow mapping"), so a host reading
 * SKILL.md with it loses the skill. Counted as it counts: characters from the key's start to its `:`.
 */
export function pyyamlRefusedKeys(markdown: string): string[] {
  const source = frontmatterText(markdown);
  if ("reason" in source) return [];
  const { text } = source;
  const document = documentOf(text);
  if (document === undefined) return [];
  const warnings: string[] = [];
  visit(document, {
    Pair: (_key, pair, path) => {
      const parent = path.at(-1);
      if (!isCollection(parent) || !parent.flow || !isScalar(pair.key) || pair.key.range == null) return;
      const [keyStart, keyEnd] = pair.key.range;
      const { start, colon: afterKey } = implicitKeySpan(keyStart, keyEnd, text);
      let before = start;
      while (/\s/.test(text[before - 1] ?? "")) before--;
      // `? key : value` is a key PyYAML reads at any length; so is a key with no value (`{ key }`).
      if (text[before - 1] === "?") return;
      let colon = afterKey;
      while (/\s/.test(text[colon] ?? "")) colon++;
      if (text[colon] !== ":") return;
      const line = lineOf(text, start);
      const key = quoted(String(pair.key.value), QUOTED_KEY_LENGTH);
      const where = `frontmatter line ${line + 1}: the key ${key} inside ${isSeq(parent) ? "[ ]" : "{ }"}`;
      const refused = 'PyYAML refuses the whole frontmatter for it (it reads no key written without "? "';
      if (lineOf(text, colon) !== line) {
        warnings.push(
          `${where} runs over lines to its ":": ${refused} over more than one line), where this server reads it: write it on one line`,
        );
      } else {
        const length = characters(text, start, colon);
        if (length > MAX_IMPLICIT_KEY) {
          warnings.push(
            `${where} is ${length.toLocaleString("en-US")} characters long to its ":": ${refused} longer than ` +
              `${MAX_IMPLICIT_KEY.toLocaleString("en-US")}), where this server reads it: shorten it`,
          );
        }
      }
    },
  });
  return warnings;
}

/** The 0-based line of SKILL.md that `offset` in its frontmatter's text is on (the frontmatter starts on line 1). */
function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let at = text.indexOf("\n"); at >= 0 && at < offset; at = text.indexOf("\n", at + 1)) line++;
  return line;
}

/** The whole frontmatter of a SKILL.md as data, or why it cannot be read. */
export function readFrontmatterFields(
  markdown: string,
): { fields: Record<string, unknown>; descriptionComment: boolean } | { reason: string } {
  const source = frontmatterText(markdown);
  if ("reason" in source) return source;
  const read = readFrontmatter(source.text);
  if ("reason" in read) return read;
  const { data, descriptionComment } = read;
  if (data === null || typeof data !== "object" || Array.isArray(data)) {
    const what = data === null ? "empty" : Array.isArray(data) ? "a YAML list" : `a YAML ${typeof data}`;
    return {
      reason: `frontmatter is ${what}, not a YAML mapping: write it as key: value lines (name: …, description: …)`,
    };
  }
  return { fields: data as Record<string, unknown>, descriptionComment };
}

/** Reads the `name` and `description` of a SKILL.md, or says why it cannot be served. */
export function parseSkillDocument(markdown: string): ParsedFrontmatter {
  return readSkillFrontmatter(markdown).parsed;
}

/**
 * {@link parseSkillDocument}, and the {@link frontmatterDigest} of the whole frontmatter when it reads as
 * data: the inspection compares the Skills extension's reading with it instead of parsing the YAML again.
 */
export function readSkillFrontmatter(markdown: string): { parsed: ParsedFrontmatter; digest?: string } {
  const read = readFrontmatterFields(markdown);
  if ("reason" in read) return { parsed: { ok: false, reason: read.reason } };
  const { fields } = read;
  const name = requiredText(fields, "name");
  if (typeof name !== "string") return { parsed: { ok: false, reason: name.reason } };
  const description = requiredText(fields, "description");
  if (typeof description !== "string") return { parsed: { ok: false, reason: description.reason } };
  const yamlLength = characters(String(fields.description), 0, String(fields.description).length);
  const parsed: ParsedFrontmatter = {
    ok: true,
    name,
    description: description.replace(/\s+/g, " "),
    modelInvocable: fields["disable-model-invocation"] !== true,
    userInvocable: fields["user-invocable"] !== false,
    ...(read.descriptionComment ? { descriptionComment: true } : {}),
    ...(yamlLength > MAX_DESCRIPTION_LENGTH ? { yamlDescriptionLength: yamlLength } : {}),
  };
  return { parsed, digest: frontmatterDigest(fields) };
}

/**
 * A SHA-256 of `fields` as JSON carries them, keys sorted: two readings of a frontmatter have one digest
 * exactly when a client comparing their JSON would find them equal.
 */
export function frontmatterDigest(fields: unknown): string {
  const sorted = JSON.stringify(fields, (_key, value: unknown) =>
    value !== null && typeof value === "object" && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => compareText(a, b)))
      : value,
  );
  return createHash("sha256").update(sorted).digest("base64url");
}

/**
 * Whether `text`, the start of a SKILL.md, holds the whole frontmatter, can never hold one (it does not
 * open with ---), or holds more than a frontmatter may: either way, reading further cannot change what
 * parseSkillDocument says.
 */
export function closesFrontmatter(text: string): boolean {
  const lines = text.split(/\r?\n/);
  if (lines[0]?.trimEnd() !== "---" || closingLineIndex(lines) > 0) return true;
  return Buffer.byteLength(lines.slice(1).join("\n")) > MAX_FRONTMATTER_BYTES;
}

/**
 * The index of the line that closes the frontmatter of a SKILL.md split into `lines` (`---` after the
 * first line), or -1 when none does. Whether the first line opens one is the caller's to check.
 */
export function closingLineIndex(lines: readonly string[]): number {
  return lines.findIndex((line, index) => index > 0 && CLOSING_LINE.test(line));
}

/** Why a name breaks the Agent Skills naming rule, or undefined when it follows it. */
export function nameRuleViolation(name: string): string | undefined {
  if (name.length > MAX_NAME_LENGTH) return `is longer than ${MAX_NAME_LENGTH} characters`;
  if (NAME_RULE.test(name)) return undefined;
  // A letter outside a-z looks like one of them (Cyrillic а, é), so the rule alone does not say what is wrong.
  const [odd] = /[^a-z0-9-]/u.exec(name) ?? [""];
  const letter = /^[^\p{ASCII}]$/u.test(odd) && /^\p{L}$/u.test(odd);
  return (
    "must be lowercase letters, digits and single hyphens" +
    (letter ? `: "${odd}" (${codePoint(odd.codePointAt(0) ?? 0)}) is not one of a-z` : "")
  );
}

/** Strips a leading byte order mark, which editors on Windows like to add. */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

function requiredText(fields: Record<string, unknown>, key: string): string | { reason: string } {
  const value = fields[key];
  if (value === null) return { reason: `frontmatter ${key} is empty` };
  if (value === undefined) {
    // `Name:` or `Description:` is another key to YAML: say which one was found.
    const near = Object.keys(fields).find((other) => other.trim().toLowerCase() === key);
    const hint = near === undefined ? "" : ` (it has ${JSON.stringify(near)}: keys are lowercase)`;
    return { reason: `frontmatter has no ${key}${hint}` };
  }
  if (typeof value === "number" || typeof value === "boolean") {
    // YAML reads `name: 2024` or `description: true` as such; the author meant the text.
    return {
      reason: `frontmatter ${key} is a ${typeof value}, not a string: put it in quotes (${key}: "…")`,
    };
  }
  if (Array.isArray(value) || (value !== null && typeof value === "object" && value.constructor === Object)) {
    // An indented line under `description:` holding ": " or starting with "- " makes one.
    const kind = Array.isArray(value) ? "list" : "mapping";
    return {
      reason:
        `frontmatter ${key} is a YAML ${kind}, not a string: write it as text on its line, in quotes, ` +
        `or after | or > for several lines`,
    };
  }
  if (typeof value !== "string") return { reason: `frontmatter ${key} is not a string` };
  const trimmed = value.trim();
  if (trimmed === "") return { reason: `frontmatter ${key} is empty` };
  return trimmed;
}

/**
 * How much of a YAML error's first line a reason quotes, and of the key it names: the parser quotes an
 * alias or a key whole, and a 60,000-character one made a reason that long, in every log and in
 * `check-skills`' report, which a pull request body (65,536 characters at most) carries.
 */
const QUOTED_ERROR_LENGTH = 200;
const QUOTED_KEY_LENGTH = 64;

function firstLine(message: string): string {
  return excerpt(message.split("\n", 1)[0] ?? message, QUOTED_ERROR_LENGTH);
}

/** Whether `text` holds more than `limit` YAML tokens; the lexer stops at the one past the limit. */
function holdsMoreTokens(text: string, limit: number): boolean {
  let count = 0;
  for (const _token of new Lexer().lex(text)) if (++count > limit) return true;
  return false;
}

/**
 * A YAML error in one line, placed in SKILL.md rather than in the frontmatter (which starts on the file's
 * second line) by `lines`, the line counter of the parse that found it, with how to fix it when the line
 * is a top-level key with an unquoted value: the parser's words ("Nested mappings are not allowed in
 * compact mappings") do not tell an author that `description: Use when: …` needs quotes.
 */
function describeYamlError(error: YAMLError, lines: LineCounter, text: string): string {
  const what = firstLine(error.message);
  const [offset = -1] = error.pos;
  if (offset < 0) return what;
  const { line, col } = lines.linePos(offset);
  if (error.code === "KEY_OVER_1024_CHARS") {
    // The parser's words count UTF-16 units ("chars") and name no key: say it in characters.
    return (
      `the key at line ${line + 1} is ${implicitKeyLength(error, text).toLocaleString("en-US")} characters ` +
      `long, and YAML reads a key of at most ${MAX_IMPLICIT_KEY.toLocaleString("en-US")} (to its ":"), as PyYAML ` +
      "does: shorten it"
    );
  }
  const key = PLAIN_VALUE_LINE.exec(text.split("\n", line)[line - 1] ?? "")?.[1];
  const hint =
    key === undefined
      ? ""
      : ` (put the value of ${excerpt(key, QUOTED_KEY_LENGTH)} in quotes: in an unquoted value YAML reads ": " and a leading [ { - * & ! @ or \` as syntax)`;
  return `${what} at line ${line + 1}, column ${col}${hint}`;
}

/**
 * Whether `node`, a value in `text`, is unquoted and followed on its line by a comment: YAML ends a plain
 * value at ` #`, so `description: Fixes issue #42` reads as "Fixes issue", with no error to tell.
 */
function commentCuts(node: unknown, text: string): boolean {
  if (!isScalar(node) || node.type !== "PLAIN" || node.range == null) return false;
  const [, end, nodeEnd] = node.range;
  return TRAILING_COMMENT.test(text.slice(end, nodeEnd));
}

const TRAILING_COMMENT = /^[ \t]+#/;

/** A top-level key and an unquoted value on its line (`description: Use when: …`); the key is group 1. */
const PLAIN_VALUE_LINE = /^([A-Za-z][\w-]*):[ \t]+[^\s"'|>#]/;
