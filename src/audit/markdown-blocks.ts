/** The blocks a single line opens: headings, thematic breaks, fences and HTML blocks. */
import { isSpace } from "./scan.js";

/**
 * Whether a line's content starts what ends a paragraph and cannot continue one lazily: an ATX heading, a
 * thematic break (also `---`, a setext underline only under a paragraph of its own container) or a quote.
 */
export function interruptsParagraph(content: string): boolean {
  return isAtxHeading(content) || content.startsWith(">") || isThematicBreak(content);
}

const ATX_HEADING = /^#{1,6}(?:[ \t]|\r?$)/;

const SETEXT_UNDERLINE = /^(?:=+|-+)[ \t]*\r?$/;

/** Whether a line's content opens an ATX heading (`# title`). */
export function isAtxHeading(content: string): boolean {
  return ATX_HEADING.test(content);
}

/** Whether a line's content is a setext heading's underline (`===`, `---`) under a paragraph's text. */
export function isSetextUnderline(content: string): boolean {
  return SETEXT_UNDERLINE.test(content);
}

/**
 * `* * *`, `---`, `_ _ _`: a thematic break, not a list item. What `^(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|
 * (?:_[ \t]*){3,})\r?$` matches, read forward (that expression overflowed the stack on a line of millions
 * of `- `).
 */
export function isThematicBreak(content: string): boolean {
  const mark = content.charCodeAt(0);
  if (mark !== 0x2a && mark !== 0x2d && mark !== 0x5f) return false;
  const end = content.endsWith("\r") ? content.length - 1 : content.length;
  let marks = 0;
  for (let at = 0; at < end; at++) {
    const code = content.charCodeAt(at);
    if (code === mark) marks++;
    else if (code !== 0x20 && code !== 0x09) return false;
  }
  return marks >= 3;
}

/**
 * The run of three or more backticks or tildes that opens or closes a fenced code block, after at most
 * three spaces (what `^\s{0,3}(`{3,}|~{3,})` captures, without its backtracking stack on a long run).
 * A run of backticks with a backtick after it on the line is no fence but code spans in a paragraph
 * (CommonMark: a backtick fence's info string holds none), so the next line is not code.
 */
export function fenceMarker(line: string): string | undefined {
  let start = 0;
  while (start < 3 && isSpace(line.charCodeAt(start))) start++;
  const mark = line[start];
  if (mark !== "`" && mark !== "~") return undefined;
  let end = start;
  while (line[end] === mark) end++;
  if (mark === "`" && line.includes("`", end)) return undefined;
  return end - start >= 3 ? line.slice(start, end) : undefined;
}

/** What ends an HTML block: a line holding a text, or a blank line. */
type HtmlEnd = RegExp | typeof BLANK_LINE;

export const BLANK_LINE = "blank line";

/** The start conditions of the HTML blocks that a blank line does not end, each with its end. */
const RAW_END = /<\/(?:script|pre|style|textarea)>/i;

const HTML_BLOCKS: readonly (readonly [RegExp, RegExp])[] = [
  [/^<(?:script|pre|style|textarea)(?:[\s>]|$)/i, RAW_END],
  [/^<\?/, /\?>/],
  [/^<![a-z]/i, />/],
  [/^<!\[CDATA\[/, /\]\]>/],
];

/** An HTML block that a blank line ends: a block-level tag opened or closed at the start of a line. */
const BLOCK_TAG =
  /^<\/?(?:address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul)(?:[\s>]|\/>|$)/i;

/** One attribute of a tag, and what may end the tag, read from where the last match ended. */
const ATTRIBUTE = /\s+[a-z_:][\w.:-]*(?:\s*=\s*(?:[^\s"'=<>`]+|'[^']*'|"[^"]*"))?/iy;

const TAG_NAME = /[a-z][a-z0-9-]*/iy;

const OPEN_TAG_END = /\s*\/?>[ \t\r]*$/y;

const CLOSE_TAG_END = /\s*>[ \t\r]*$/y;

/**
 * Whether `content` is one open or closing tag and nothing else (`<img src=x>`, `</span>`), which
 * starts an HTML block that a blank line ends (CommonMark's start condition 7; that such a tag cannot
 * interrupt a paragraph is not looked at, so a line may be read as HTML that renders as text: it is
 * searched for comments the more closely). Read attribute by attribute, each from where the last
 * ended, so that the line is read once.
 */
function isTagAlone(content: string): boolean {
  const closing = content.startsWith("</");
  if (!closing && !content.startsWith("<")) return false;
  TAG_NAME.lastIndex = closing ? 2 : 1;
  if (!TAG_NAME.test(content)) return false;
  let at = TAG_NAME.lastIndex;
  if (!closing) {
    ATTRIBUTE.lastIndex = at;
    while (ATTRIBUTE.test(content)) {
      at = ATTRIBUTE.lastIndex;
    }
  }
  const tagEnd = closing ? CLOSE_TAG_END : OPEN_TAG_END;
  tagEnd.lastIndex = at;
  return tagEnd.test(content);
}

/**
 * The HTML block that `content` (a line without its indentation) opens, if any: what ends it, whether
 * the line itself closes it already, and whether it may interrupt a paragraph (all but a lone tag).
 */
export function htmlBlock(
  content: string,
): { end: HtmlEnd; closed: boolean; interrupts: boolean } | undefined {
  const block = HTML_BLOCKS.find(([opens]) => opens.test(content));
  if (block === undefined) {
    if (BLOCK_TAG.test(content)) return { end: BLANK_LINE, closed: false, interrupts: true };
    return isTagAlone(content) ? { end: BLANK_LINE, closed: false, interrupts: false } : undefined;
  }
  const [opens, end] = block;
  const opening = opens.exec(content)?.[0].length ?? 0;
  return { end, closed: end.test(content.slice(opening)), interrupts: true };
}

/** The HTML block open as a walk over a file's lines reaches a line (see markdownLines), if any. */
export class OpenHtmlBlock {
  /** What ends it: undefined when none is open. */
  end: HtmlEnd | undefined;
  /** The quotes open around it, and the text column of the container it is in. */
  quotes = 0;
  column = 0;

  close(): void {
    this.end = undefined;
  }

  /**
   * A line of it: it may end it. In one that a blank line ends, a `<pre` line is raw HTML of that block,
   * not a <pre> block of its own that would go on past the blank line (CommonMark reads no block in one).
   */
  goOn(content: string): void {
    if (this.end instanceof RegExp && this.end.test(content)) this.close();
  }

  /** The lines of `text` from `start` to `last` that a comment spans, read as one: one of them may end it. */
  goOnAcross(text: string, start: number, last: number): void {
    if (this.end instanceof RegExp && this.end.test(text.slice(start, last))) this.close();
  }
}
