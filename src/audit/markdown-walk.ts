/**
 * The state of the walk of markdownLines, and its jobs, one method each: reading a line's quotes, a line
 * of fenced code, the quotes a line leaves or opens, a blank line, indented code, the containers a line
 * opens, raw HTML and fences opened, whether a paragraph goes on, and the comment on a line.
 */
import { commentsOutsideSpans } from "./code-spans.js";
import { MAX_ITEMS_ON_A_LINE } from "./container-groups.js";
import { containerOpened } from "./container-opening.js";
import { type QuotedLine, quotedLine } from "./container-quotes.js";
import { ContainerStack, countBelow } from "./container-stack.js";
import {
  BLANK_LINE,
  fenceMarker,
  htmlBlock,
  interruptsParagraph,
  isSetextUnderline,
  OpenHtmlBlock,
} from "./markdown-blocks.js";
import {
  codeSpansFrom,
  endsParagraph,
  holdsParagraph,
  type ParagraphReading,
  type ParagraphSpans,
  paragraphCodeSpans,
  readParagraph,
} from "./markdown-paragraphs.js";
import { lineBreakOf } from "./text.js";

/** The first word of a fence's info string, lowercase, past white space and a `{` or `.` before it. */
function infoLanguage(info: string): string {
  return (/^[\s{.]*([\w+#-]*)/.exec(info)?.[1] ?? "").toLowerCase();
}

/** The guesses a line is read against out of a paragraph: none, as no paragraph goes on with it. */
const NO_GUESSES: readonly number[] = [];

/** A line of a Markdown file as its rendered view places it. */
export interface MarkdownLine {
  readonly start: number;
  /** Where its line break is, or the end of the text; for a comment, those of the line it closes on. */
  readonly end: number;
  /** Shown as code: inside a fenced code block, or an indented one. */
  readonly code: boolean;
  /**
   * Inside a fenced code block: the first word of its info string, lowercase (```` ```bash ```` gives
   * `bash`, ```` ``` {.ps1} ```` `ps1`), `""` when it has none.
   */
  readonly language?: string;
  /** Raw HTML: a line of an HTML block, where backticks make no code span. */
  readonly html?: boolean;
  /** Its text starts a paragraph: the line before holds no paragraph text (a link definition may start here). */
  readonly opensParagraph?: boolean;
  /** An HTML comment outside code that opens on it: where, and where its `-->` is (-1 when none is). */
  readonly comment?: { readonly open: number; readonly close: number };
  /**
   * On a line of paragraph text: the code spans of its paragraph from `from` (this line's start or later)
   * to its end, read with the containers open around it as the walker reads them. On a line of other text
   * (a heading's, whose text is one line), those of the line. Ask before the next line.
   */
  readonly paragraphSpans?: (from: number) => ParagraphSpans;
}

/**
 * The blocks open as the walk reaches a line: what the lines before it opened and left open. Each job of
 * reading a line is a method. No closure is made per line: one per line made the walk 70% slower.
 */
export class MarkdownWalk {
  readonly #text: string;
  readonly #lineBreak: string;
  /** The marker of the fenced code block open. */
  #fence: string | undefined;
  /** The column where the text of the container the fence is in starts. */
  #fenceColumn = 0;
  /** The quotes open around the fence: a line with fewer `>` ends them, and the fence in them. */
  #fenceQuotes = 0;
  /** The first word of the open fence's info string (see {@link MarkdownLine.language}). */
  #fenceLanguage = "";
  /** The line before is blank, or there is none. */
  #blankBefore = true;
  /** The last line that is not blank was indented code. */
  #inCode = false;
  /** The last line is text of a paragraph, which a line not indented into its container may continue. */
  #paragraph = false;
  readonly #open = new ContainerStack();
  /** The index in the containers of an empty list item the line before opened (`- `), or -1. */
  #emptyItem = -1;
  readonly #html = new OpenHtmlBlock();
  /** Where the paragraph that the last line holds text of starts, and the text column of its container. */
  #paragraphStart = 0;
  #paragraphColumn = 0;
  /** The paragraph read last as a whole, for the comments outside its code spans. */
  #reading: ParagraphReading | undefined;
  /** The start of the line after the last comment's end. */
  #afterComment = 0;
  /** Where the last line read ends: its line break, or the end of the text (see `#spansOfLine`). */
  #lineEnd = 0;
  /** The code spans of the paragraph the last line holds text of, from `from`. */
  readonly #spansOfParagraph = (from: number): ParagraphSpans =>
    paragraphCodeSpans(this.#text, from, this.#lineBreak, this.#paragraphColumn, this.#open);
  /** Those of the last line read, when it holds no paragraph's text: asked before the next line is read. */
  readonly #spansOfLine = (from: number): ParagraphSpans => ({
    end: this.#lineEnd,
    spans: codeSpansFrom(this.#text, from, this.#lineEnd),
  });

  constructor(text: string) {
    this.#text = text;
    this.#lineBreak = lineBreakOf(text);
  }

  /** The line that starts at `start`, the one after the last line read (or a comment's lines, as one). */
  lineAt(start: number): MarkdownLine {
    const newline = this.#text.indexOf(this.#lineBreak, start);
    const end = newline === -1 ? this.#text.length : newline;
    this.#lineEnd = end;
    const emptyBefore = this.#emptyItem;
    this.#emptyItem = -1;
    const read = this.#read(this.#text.slice(start, end));
    if (this.#fence !== undefined) return this.#fencedLine(start, end, this.#fence, read);
    const lazily = this.#endQuotesLeft(read);
    this.#openQuotes(read.markers);
    if (read.blank) return this.#blankLine(start, end, read.markers, emptyBefore);
    return this.#textLine(start, end, read, lazily);
  }

  /**
   * The line with its quotes' markers read as white space, and its indentation past them as it is in the
   * innermost quote: a quote's text starts two columns past its `>`, whatever follows that. In code or raw
   * HTML, a `>` past the quotes open is text; elsewhere each opens a quote, the few read one by one and the
   * rest counted as one group. Under a paragraph, a `>` indented four columns past the text of the
   * containers its line is surely in goes on with the paragraph.
   */
  #read(written: string): QuotedLine {
    const open = this.#open;
    const inRaw = this.#fence !== undefined || this.#html.end !== undefined;
    const surely = this.#paragraph ? open.guesses : NO_GUESSES;
    let read = quotedLine(written, open, inRaw ? 0 : MAX_ITEMS_ON_A_LINE, surely);
    // A fence in a list item ends with the item: at a line indented less than the item's text; in a
    // quote, at a line without as many `>`. The line is then read again, out of code.
    if (
      this.#fence !== undefined &&
      ((!read.blank && read.indent < this.#fenceColumn) || read.markers.matched < this.#fenceQuotes)
    ) {
      this.#fence = undefined;
      if (this.#html.end === undefined) read = quotedLine(written, open, MAX_ITEMS_ON_A_LINE, surely);
    }
    // An HTML block in a list item ends with the item, at a line indented less than the item's text; in a
    // quote, at a line without as many `>`: no line goes on with an HTML block lazily. The line is then
    // read again, out of raw HTML.
    if (
      this.#html.end !== undefined &&
      this.#fence === undefined &&
      ((!read.blank && read.indent < this.#html.column) || read.markers.matched < this.#html.quotes)
    ) {
      this.#html.close();
      read = quotedLine(written, open, MAX_ITEMS_ON_A_LINE, surely);
    }
    return read;
  }

  /** A line in a fenced code block: code, unless it closes the block. */
  #fencedLine(start: number, end: number, fence: string, { line, width, indent }: QuotedLine): MarkdownLine {
    // Up to three columns past the text of the fence's container, as the containers' columns count them
    // (in a quote, its `>` may stand anywhere up to three columns in: `>`, then `   >  ```).
    const marker = indent - this.#fenceColumn < 4 ? fenceMarker(line.slice(width)) : undefined;
    // A closing fence has nothing after its run but white space: "`````word" is code.
    const closes =
      marker !== undefined &&
      marker[0] === fence[0] &&
      marker.length >= fence.length &&
      line.slice(line.indexOf(marker) + marker.length).trim() === "";
    if (closes) this.#fence = undefined;
    this.#blankBefore = false;
    this.#paragraph = false;
    return closes ? { start, end, code: false } : { start, end, code: true, language: this.#fenceLanguage };
  }

  /**
   * A line with fewer `>` than the quotes open ends the others, unless it goes on with a paragraph in them
   * (lazily): it opens no block, as a line indented four columns past them opens none. Whether it does.
   */
  #endQuotesLeft({ markers, blank, indent, line, width }: QuotedLine): boolean {
    const { containers, quotes } = this.#open;
    if (markers.matched >= quotes.length) return false;
    const inner = quotes[markers.matched] ?? containers.length;
    // With some of a group's `>`, the line is in those quotes: four columns past the last it goes on.
    const base = markers.partial?.column ?? this.#open.innermostAt(indent, inner);
    const lazily =
      this.#paragraph &&
      !blank &&
      markers.count === markers.matched &&
      (indent >= base + 4 || !endsParagraph(line.slice(width), true));
    if (!lazily) {
      this.#open.closeFrom(inner);
      // The quotes of the group the line has stay open: read as one group again, as new ones are.
      const { partial } = markers;
      if (partial !== undefined) this.#open.open(partial.column, true, false, partial.group);
      this.#paragraph = false;
      // An HTML block in a quote ends with it.
      if (markers.matched < this.#html.quotes) this.#html.close();
    }
    return lazily;
  }

  /** A `>` past the quotes open opens one: it ends the containers it is not indented into. */
  #openQuotes(markers: QuotedLine["markers"]): void {
    if (markers.count <= markers.matched) return;
    const added = markers.columns.slice(markers.matched);
    const { group } = markers;
    // It ends the paragraph before it: the items that paragraph's text seemed to open were text.
    this.#open.closeGuesses();
    this.#open.closePast((added.length === 1 && group !== undefined ? group.low : (added[0] ?? 2)) - 2);
    // A group is the last: the quotes past the few read one by one.
    for (const [at, column] of added.entries()) {
      this.#open.open(column, true, false, at === added.length - 1 ? group : undefined);
    }
    this.#paragraph = false;
  }

  #blankLine(start: number, end: number, markers: QuotedLine["markers"], emptyBefore: number): MarkdownLine {
    // A list item begins with at most one blank line: an empty item (`- `) ends at the blank after it.
    // The line is blank in the item only when it holds no `>` of a quote in it.
    // Of a group of items it ends, only the last (`+ *`, past eight others, then a blank line: the `+`
    // item goes on).
    if (emptyBefore !== -1 && markers.count <= countBelow(this.#open.quotes, emptyBefore)) {
      this.#open.closeEmptyItem(emptyBefore);
    }
    // The items a line going on with a paragraph seemed to open are none: nothing goes on lazily past a
    // blank line, so they hold no line after it.
    this.#open.closeGuesses();
    this.#blankBefore = true;
    this.#paragraph = false;
    if (this.#html.end === BLANK_LINE) this.#html.end = undefined;
    return { start, end, code: false };
  }

  /** A line that is not blank, out of fenced code: indented code, or text, raw HTML and the blocks it opens. */
  #textLine(start: number, end: number, read: QuotedLine, lazily: boolean): MarkdownLine {
    const { line, width, indent } = read;
    const open = this.#open;
    if (this.#blankBefore) open.closePast(indent);
    const codeColumn = open.innermost + 4;
    // Indented code may follow any block but a paragraph, which such a line continues.
    if (
      this.#html.end === undefined &&
      indent >= codeColumn &&
      (this.#blankBefore || this.#inCode || !this.#paragraph)
    ) {
      return this.#codeLine(start, end);
    }
    this.#blankBefore = false;
    this.#inCode = false;
    const content = line.slice(width);
    if (this.#codeOfContainerLeft(content, indent, lazily)) return this.#codeLine(start, end);
    // A line of an HTML block is raw HTML: it opens no container. Read in one that may be text, though (a
    // tag alone under a paragraph, see isTagAlone): there more containers only ask more of indented code.
    const container =
      this.#html.end !== undefined ? undefined : containerOpened(content, indent, read.written);
    // Under a paragraph, four columns past the text of the container the line is surely in, it opens no
    // block, whatever the items that text seemed to open: it goes on with the paragraph. A line going on
    // lazily without the `>` of a quote is in none of the containers from that quote on.
    const sure = open.surelyIn(read.markers.matched);
    const pastSure = this.#paragraph && indent >= open.innermostAt(indent, sure) + 4;
    const opensItem = open.opensItem(container, indent, pastSure, this.#paragraph);
    // A `-` alone under a paragraph is its setext underline (a heading), not an item that may hold text.
    // It underlines only a paragraph of its own container: one it is indented into, not only into the items
    // the paragraph's text seemed to open (`2)` alone, then `=`).
    const ownContainer = indent >= this.#paragraphColumn;
    const underline = this.#paragraph && !opensItem && ownContainer && isSetextUnderline(content);
    if (container !== undefined && !underline) {
      // An item opened under a paragraph ends it: the items its text seemed to open were text.
      if (opensItem && this.#paragraph) open.closeGuesses();
      this.#emptyItem = open.openAll(container, indent, opensItem, this.#html.end !== undefined);
    }
    // Indented as code but not code: it goes on with the paragraph before it, and opens no block. So
    // does a line of a paragraph not indented into the innermost container, but four columns past the
    // text of the one it is surely in: no block opens there.
    const continuation = this.#html.end === undefined && (indent >= codeColumn || lazily || pastSure);
    // An item or a quote opened on the line whose text is indented code (`- >     x`): no paragraph, and
    // its backticks open no span that a later line closes.
    if (this.#html.end === undefined && !continuation && opensItem && container?.code === true) {
      return this.#codeLine(start, end);
    }
    // The text of the items and quotes the line opens, read as they read it (`+ >  -   ` holds nothing).
    const itemText = opensItem ? content.slice(container?.text ?? 0) : undefined;
    let html: boolean;
    if (this.#html.end !== undefined) {
      this.#html.goOn(content);
      html = true;
    } else if (continuation) {
      html = false;
    } else if (this.#opensFence(content, indent, itemText, sure)) {
      return { start, end, code: false };
    } else {
      html = this.#opensHtml(content, indent, itemText, sure);
    }
    const continues = this.#paragraph;
    // A continuation line is text of the paragraph whatever it starts with (`#`, `>`): it opens no block.
    // So is a list item's marker that cannot end the paragraph (`1.` alone, `2) x`): it opens no item.
    const goesOn =
      continuation ||
      (continues && container?.listItem === true && !opensItem && !isSetextUnderline(content));
    // The text of the items and quotes the line opens holds a paragraph or not; a comment opens an HTML
    // block there too (`- > <!-- x -->`).
    const holds =
      itemText === undefined
        ? !content.startsWith("<!--") && holdsParagraph(content, continues && ownContainer)
        : !itemText.startsWith("<!--") && holdsParagraph(itemText, false);
    this.#paragraph = goesOn || (!html && holds);
    // A block that ends the paragraph (a heading, its underline, HTML) ends the items its text seemed to
    // open too: they were text, and hold no line after it.
    if (continues && !this.#paragraph && !opensItem) open.closeGuesses();
    // A list item the line opens for sure holds a paragraph of its own, also under one (`a`, then `- b`).
    const opensParagraph = this.#paragraph && (!continues || opensItem);
    if (opensParagraph) {
      this.#paragraphStart = start;
      this.#paragraphColumn = open.innermost;
    }
    const comment = this.#commentOpenOn(start, end, line, html);
    const paragraphSpans = this.#paragraph ? this.#spansOfParagraph : html ? undefined : this.#spansOfLine;
    if (comment === -1) return { start, end, code: false, html, opensParagraph, paragraphSpans };
    const close = this.#text.indexOf("-->", comment + 4);
    const last = this.#commentEnd(start, close);
    return {
      start,
      end: last,
      code: false,
      html,
      opensParagraph,
      comment: { open: comment, close },
      paragraphSpans,
    };
  }

  /** A line of indented code: no paragraph goes on past it. */
  #codeLine(start: number, end: number): MarkdownLine {
    this.#blankBefore = false;
    this.#inCode = true;
    this.#paragraph = false;
    return { start, end, code: true };
  }

  /**
   * A line not indented into the innermost container ends it, unless it goes on with a paragraph there
   * (lazily): not after a heading, nor when it starts a heading, a thematic break or a quote, which no
   * paragraph holds. Four columns past the text of the container left, the line is that container's
   * indented code, after a block that is no paragraph (under one it is the paragraph's text, and ends
   * nothing), unless the containers open are a guess (see `guesses`). A line going on lazily without a
   * quote's `>` ends nothing, whatever it starts with (`> 1. a`, then four spaces and `***`: no break).
   * Whether it is that code.
   */
  #codeOfContainerLeft(content: string, indent: number, lazily: boolean): boolean {
    const open = this.#open;
    if (this.#html.end !== undefined || indent >= open.innermost || lazily) return false;
    if (this.#paragraph && !interruptsParagraph(content)) return false;
    if (indent < open.innermostAt(indent) + 4) {
      open.closePast(indent);
      return false;
    }
    if (this.#paragraph || open.guesses.length > 0) return false;
    open.closePast(indent);
    return true;
  }

  /**
   * Whether the line opens a fenced code block: on a list item's own line too (`- ```), in that item;
   * else in the innermost container the line is indented into, up to three columns past its text. Under a
   * paragraph that is one it is surely in (`sure` containers): the items the paragraph's text seemed to
   * open (`2)` alone) hold no block.
   */
  #opensFence(content: string, indent: number, itemText: string | undefined, sure: number): boolean {
    const open = this.#open;
    const inItem = itemText === undefined ? undefined : fenceMarker(itemText);
    const around = this.#paragraph ? sure : open.containers.length;
    const base = inItem !== undefined ? 0 : open.innermostAt(indent, around);
    const marker = inItem ?? (indent - base < 4 ? fenceMarker(content) : undefined);
    if (marker === undefined) return false;
    this.#fence = marker;
    const opening = inItem === undefined ? content : (itemText ?? "");
    this.#fenceLanguage = infoLanguage(opening.slice(opening.indexOf(marker) + marker.length));
    // A fence continues no paragraph: the items it is not indented into end here.
    if (inItem === undefined) open.closePast(base);
    this.#fenceColumn = open.innermost;
    this.#fenceQuotes = open.quotes.length;
    this.#paragraph = false;
    return true;
  }

  /**
   * Opens the HTML block the line starts, if any, and tells whether the line is raw HTML: on a list item's
   * own line too (`- <div>`), in that item (its `itemText`). A comment that starts the line opens one too,
   * raw HTML to the line of its `-->`.
   */
  #opensHtml(content: string, indent: number, itemText: string | undefined, sure: number): boolean {
    const open = this.#open;
    const inner = itemText ?? content;
    const tag = htmlBlock(inner);
    // A tag alone cannot interrupt a paragraph: under one, it is the paragraph's text (CommonMark's
    // start condition 7), and the lines after it go on with the paragraph.
    const block = tag?.interrupts === false && this.#paragraph && itemText === undefined ? undefined : tag;
    this.#html.end = block === undefined || block.closed ? undefined : block.end;
    this.#html.quotes = open.quotes.length;
    // HTML that may interrupt a paragraph continues none: the items it is not indented into end here.
    if (itemText === undefined && (block?.interrupts === true || content.startsWith("<!--"))) {
      open.closePast(this.#paragraph ? open.innermostAt(indent, sure) : indent);
    }
    this.#html.column = open.innermost;
    return block !== undefined || inner.startsWith("<!--");
  }

  /** Where an HTML comment outside code opens on the line, or -1. */
  #commentOpenOn(start: number, end: number, line: string, html: boolean): number {
    if (html) {
      // An HTML block is raw HTML: backticks there make no code span, and a comment is hidden.
      const at = line.indexOf("<!--");
      return at === -1 ? -1 : start + at;
    }
    if (!line.includes("<!--")) return -1;
    if (!this.#paragraph) return commentsOutsideSpans(this.#text, start, end).next().value ?? -1;
    // A code span may open on an earlier line of the paragraph, or close on a later one: read it whole.
    // Each reading starts where the last one or the last comment ended, or later: no line is read twice.
    let reading = this.#reading;
    while (reading === undefined || reading.end <= start) {
      const from = Math.max(this.#paragraphStart, reading?.end ?? 0, this.#afterComment);
      reading = readParagraph(this.#text, from, this.#lineBreak, this.#paragraphColumn, this.#open);
    }
    this.#reading = reading;
    return reading.commentFrom(start, end);
  }

  /**
   * The end of the last of the lines from `start` that a comment closing at `close` (-1: none) spans, read
   * as one line. They are lines of the HTML block open too: one of them may end it.
   */
  #commentEnd(start: number, close: number): number {
    const text = this.#text;
    const resume = close === -1 ? -1 : text.indexOf(this.#lineBreak, close);
    const last = resume === -1 ? text.length : resume;
    this.#html.goOnAcross(text, start, last);
    this.#afterComment = last + 1;
    return last;
  }
}
