/** The parts of a skill that search weighs, strongest first; their positions number the fields. */
export const FIELD_NAMES = ["name", "description", "place", "headings", "body"] as const;
export type FieldName = (typeof FIELD_NAMES)[number];

export const NAME = 0;
export const DESCRIPTION = 1;
/** The pack and group names: where the skill sits says what it is about. */
export const PLACE = 2;
/** Markdown headings of SKILL.md. */
export const HEADINGS = 3;
/** The rest of SKILL.md after the frontmatter, code blocks included. */
const BODY = 4;

/** Receives a stretch of a document's text and the field it belongs to. */
type SectionVisitor = (field: number, text: string, start: number, end: number) => void;

const CARRIAGE_RETURN = 13;
const SPACE = 32;
const TAB = 9;
const HASH = 35;

/**
 * Walks a SKILL.md line by line, past its frontmatter, handing each line to `visit` as a heading or as
 * body text. Lines are handed over as positions in the document, not copied: a catalog's documents add up
 * to hundreds of megabytes. A `#` line inside a fenced code block is code, not a heading.
 */
export function forEachSection(document: string, visit: SectionVisitor): void {
  let start = bodyStart(document);
  let inFence = false;
  while (start < document.length) {
    const newline = document.indexOf("\n", start);
    const next = newline < 0 ? document.length : newline + 1;
    let end = newline < 0 ? document.length : newline;
    if (end > start && document.charCodeAt(end - 1) === CARRIAGE_RETURN) end--;
    if (isFence(document, start, end)) inFence = !inFence;
    visit(!inFence && isHeading(document, start, end) ? HEADINGS : BODY, document, start, end);
    start = next;
  }
}

/** Where the text after the YAML frontmatter (`---` lines) begins; 0 when there is none. */
function bodyStart(document: string): number {
  if (!document.startsWith("---")) return 0;
  let start = 0;
  for (let line = 0; start < document.length; line++) {
    const newline = document.indexOf("\n", start);
    let end = newline < 0 ? document.length : newline;
    if (end > start && document.charCodeAt(end - 1) === CARRIAGE_RETURN) end--;
    const dashes = document.startsWith("---", start);
    if (line === 0 && !(dashes && end === start + 3)) return 0;
    if (line >= 2 && dashes && onlyBlanks(document, start + 3, end)) {
      return newline < 0 ? document.length : newline + 1;
    }
    if (newline < 0) break;
    start = newline + 1;
  }
  return 0;
}

function onlyBlanks(text: string, start: number, end: number): boolean {
  for (let i = start; i < end; i++) {
    const code = text.charCodeAt(i);
    if (code !== SPACE && code !== TAB) return false;
  }
  return true;
}

/** Up to three spaces of indentation, as Markdown allows. */
function indentEnd(text: string, start: number, end: number): number {
  let i = start;
  while (i < end && i - start < 3 && text.charCodeAt(i) === SPACE) i++;
  return i;
}

/** An ATX heading: one to six `#` and a blank. */
function isHeading(text: string, start: number, end: number): boolean {
  let i = indentEnd(text, start, end);
  const hashes = i;
  while (i < end && text.charCodeAt(i) === HASH) i++;
  const level = i - hashes;
  const blank = text.charCodeAt(i);
  return level >= 1 && level <= 6 && i < end && (blank === SPACE || blank === TAB);
}

/** A code fence: three backticks or tildes. */
function isFence(text: string, start: number, end: number): boolean {
  const i = indentEnd(text, start, end);
  return end - i >= 3 && (text.startsWith("```", i) || text.startsWith("~~~", i));
}
