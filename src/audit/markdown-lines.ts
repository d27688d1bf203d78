/** The walk over a Markdown file's lines that tells code from prose and raw HTML, as CommonMark's blocks do. */
import { commentsOutsideSpans } from "./code-spans.js";
import {
  BLANK_LINE,
  fenceMarker,
  fenceMarkerIn,
  type HtmlEnd,
  htmlBlock,
  interruptsParagraph,
  isSetextUnderline,
} from "./markdown-blocks.js";
import {
  containerOpened,
  countBelow,
  innermostAt,
  MAX_ITEMS_ON_A_LINE,
  type OpenedContainers,
  type QuotedLine,
  quotedLine,
} from "./markdown-containers.js";
import {
  endsParagraph,
  holdsParagraph,
  type OpenContainers,
  type ParagraphReading,
  type ParagraphSpans,
  paragraphCodeSpans,
  readParagraph,
} from "./markdown-paragraphs.js";
import { lineBreakOf } from "./text.js";

/** A line of a Markdown file as its rendered view places it. */
export interface MarkdownLine {
  readonly start: number;
  /** Where its line break is, or the end of the text; for a comment, those of the line it closes on. */
  readonly end: number;
  /** Shown as code: inside a fenced code block, or an indented one. */
  readonly code: boolean;
  /** Raw HTML: a line of an HTML block, where backticks make no code span. */
  readonly html?: boolean;
  /** Its text starts a paragraph: the line before holds no paragraph text (a link definition may start here). */
  readonly opensParagraph?: boolean;
  /** An HTML comment outside code that opens on it: where, and where its `-->` is (-1 when none is). */
  readonly comment?: { readonly open: number; readonly close: number };
  /**
   * On a line of paragraph text: the code spans of its paragraph from `from` (this line's start or later)
   * to its end, read with the containers open around it as the walker reads them. Ask before the next line.
   */
  readonly paragraphSpans?: (from: number) => ParagraphSpans;
}

/**
 * The lines of a Markdown file, in order, each told code or not, as CommonMark reads its blocks far
 * enough for the audit: fenced code blocks, indented code blocks, HTML comments outside code (the lines
 * a comment spans are one), and, never read as code, what looks like code but renders otherwise. An
 * indented code block starts after a blank line, four columns past the content of the list items,
 * footnotes, admonitions and definitions open around it (`- item`, blank, four spaces: that is the
 * item's text, and a comment there is hidden), and not inside an HTML block that a blank line does not
 * end (`<pre>`, `<script>`, `<style>`, `<textarea>`, `<?`, `<!X`, `<![CDATA[`). Where it cannot tell,
 * a line is not code: what is not code is searched for comments.
 */
export function* markdownLines(text: string): Generator<MarkdownLine> {
  const walk = new MarkdownWalk(text);
  for (let start = 0; start < text.length; ) {
    const line = walk.lineAt(start);
    yield line;
    start = line.end + 1;
  }
}

/** The blocks open as the walk reaches a line: what the lines before it opened and left open. */
class MarkdownWalk {
  readonly #text: string;
  readonly #lineBreak: string;
  /** The marker of the fenced code block open. */
  #fence: string | undefined;
  /** The column where the text of the container the fence is in starts. */
  #fenceColumn = 0;
  /** The quotes open around the fence: a line with fewer `>` ends them, and the fence in them. */
  #fenceQuotes = 0;
  /** The line before is blank, or there is none. */
  #blankBefore = true;
  /** The last line that is not blank was indented code. */
  #inCode = false;
  /** The last line is text of a paragraph, which a line not indented into its container may continue. */
  #paragraph = false;
  /** The content columns of the list items, quotes, footnotes and the like open, innermost last. */
  readonly #containers: number[] = [];
  /** Which of `containers` are quotes, by index: a quote goes on only on a line with its `>` (or lazily). */
  readonly #quotes: number[] = [];
  /** Which of `containers` a line opened that goes on with a paragraph: no block, so text ends none. */
  readonly #guesses: number[] = [];
  /** The three above, as the paragraph readers take them. */
  readonly #open: OpenContainers = {
    containers: this.#containers,
    quotes: this.#quotes,
    guesses: this.#guesses,
  };
  /** The index in `containers` of an empty list item the line before opened (`- `), or -1. */
  #emptyItem = -1;
  /** What ends the HTML block open. */
  #htmlEnd: HtmlEnd | undefined;
  /** The quotes open around the HTML block open, and the text column of the container it is in. */
  #htmlQuotes = 0;
  #htmlColumn = 0;
  /** The HTML block open was read inside one that a blank line ends, which goes on after it. */
  #nested = false;
  /** Where the paragraph that the last line holds text of starts, and the text column of its container. */
  #paragraphStart = 0;
  #paragraphColumn = 0;
  /** The paragraph read last as a whole, for the comments outside its code spans. */
  #reading: ParagraphReading | undefined;
  /** The start of the line after the last comment's end. */
  #afterComment = 0;
  readonly #spansOfParagraph = (from: number): ParagraphSpans =>
    paragraphCodeSpans(this.#text, from, this.#lineBreak, this.#paragraphColumn, this.#open);

  constructor(text: string) {
    this.#text = text;
    this.#lineBreak = lineBreakOf(text);
  }

  /** The line that starts at `start`, the one after the last line read (or a comment's lines, as one). */
  lineAt(start: number): MarkdownLine {
    const newline = this.#text.indexOf(this.#lineBreak, start);
    const end = newline === -1 ? this.#text.length : newline;
    const emptyBefore = this.#emptyItem;
    this.#emptyItem = -1;
    const read = this.#read(this.#text.slice(start, end));
    if (this.#fence !== undefined) return this.#fencedLine(start, end, this.#fence, read.line);
    const lazily = this.#endQuotesLeft(read);
    this.#openQuotes(read.markers);
    if (read.blank) return this.#blankLine(start, end, read.markers, emptyBefore);
    return this.#textLine(start, end, read, lazily);
  }

  /**
   * The line with its quotes' markers read as white space, and its indentation past them as it is in the
   * innermost quote: a quote's text starts two columns past its `>`, whatever follows that. In code or raw
   * HTML, a `>` past the quotes open is text; elsewhere a few more are read, as items. Under a paragraph,
   * a `>` indented four columns past the text of the containers its line is surely in goes on with the
   * paragraph.
   */
  #read(written: string): QuotedLine {
    const containers = this.#containers;
    const quotes = this.#quotes;
    const inRaw = this.#fence !== undefined || this.#htmlEnd !== undefined;
    const surely = this.#paragraph ? this.#guesses : [];
    let read = quotedLine(
      written,
      containers,
      quotes,
      quotes.length + (inRaw ? 0 : MAX_ITEMS_ON_A_LINE),
      surely,
    );
    // A fence in a list item ends with the item: at a line indented less than the item's text; in a
    // quote, at a line without as many `>`. The line is then read again, out of code.
    if (
      this.#fence !== undefined &&
      ((!read.blank && read.indent < this.#fenceColumn) || read.markers.matched < this.#fenceQuotes)
    ) {
      this.#fence = undefined;
      if (this.#htmlEnd === undefined) {
        read = quotedLine(written, containers, quotes, quotes.length + MAX_ITEMS_ON_A_LINE, surely);
      }
    }
    // An HTML block in a list item ends with the item, at a line indented less than the item's text: no
    // line goes on with an HTML block lazily. The line is then read again, out of raw HTML.
    if (
      this.#htmlEnd !== undefined &&
      this.#fence === undefined &&
      !read.blank &&
      read.indent < this.#htmlColumn
    ) {
      this.#htmlEnd = undefined;
      this.#nested = false;
      read = quotedLine(written, containers, quotes, quotes.length + MAX_ITEMS_ON_A_LINE, surely);
    }
    return read;
  }

  /** A line in a fenced code block: code, unless it closes the block. */
  #fencedLine(start: number, end: number, fence: string, line: string): MarkdownLine {
    const marker = fenceMarkerIn(line, this.#fenceColumn);
    // A closing fence has nothing after its run but white space: "`````word" is code.
    const closes =
      marker !== undefined &&
      marker[0] === fence[0] &&
      marker.length >= fence.length &&
      line.slice(line.indexOf(marker) + marker.length).trim() === "";
    if (closes) this.#fence = undefined;
    this.#blankBefore = false;
    this.#paragraph = false;
    return { start, end, code: !closes };
  }

  /**
   * A line with fewer `>` than the quotes open ends the others, unless it goes on with a paragraph in them
   * (lazily): it opens no block, as a line indented four columns past them opens none. Whether it does.
   */
  #endQuotesLeft({ markers, blank, indent, line, width }: QuotedLine): boolean {
    if (markers.matched >= this.#quotes.length) return false;
    const inner = this.#quotes[markers.matched] ?? this.#containers.length;
    const lazily =
      this.#paragraph &&
      !blank &&
      markers.count === markers.matched &&
      (indent >= innermostAt(this.#containers, indent, inner) + 4 ||
        !endsParagraph(line.slice(width), true, true));
    if (!lazily) {
      this.#closeFrom(inner);
      this.#paragraph = false;
      // An HTML block in a quote ends with it.
      if (markers.matched < this.#htmlQuotes) this.#htmlEnd = undefined;
    }
    return lazily;
  }

  /** A `>` past the quotes open opens one: it ends the containers it is not indented into. */
  #openQuotes(markers: QuotedLine["markers"]): void {
    if (markers.count <= markers.matched) return;
    const added = markers.columns.slice(markers.matched);
    this.#closePast((added[0] ?? 2) - 2);
    for (const column of added) this.#openContainer(column, true);
    this.#paragraph = false;
  }

  #blankLine(start: number, end: number, markers: QuotedLine["markers"], emptyBefore: number): MarkdownLine {
    // A list item begins with at most one blank line: an empty item (`- `) ends at the blank after it.
    // The line is blank in the item only when it holds no `>` of a quote in it.
    if (emptyBefore !== -1 && markers.count <= countBelow(this.#quotes, emptyBefore)) {
      this.#closeFrom(emptyBefore);
    }
    // The items a line going on with a paragraph seemed to open are none: nothing goes on lazily past a
    // blank line, so they hold no line after it.
    this.#closeFrom(this.#guesses[0] ?? this.#containers.length);
    this.#blankBefore = true;
    this.#paragraph = false;
    if (this.#htmlEnd === BLANK_LINE) this.#htmlEnd = undefined;
    return { start, end, code: false };
  }

  /** A line that is not blank, out of fenced code: indented code, or text, raw HTML and the blocks it opens. */
  #textLine(start: number, end: number, { line, width, indent }: QuotedLine, lazily: boolean): MarkdownLine {
    if (this.#blankBefore) this.#closePast(indent);
    const codeColumn = (this.#containers.at(-1) ?? 0) + 4;
    // Indented code may follow any block but a paragraph, which such a line continues.
    if (
      this.#htmlEnd === undefined &&
      indent >= codeColumn &&
      (this.#blankBefore || this.#inCode || !this.#paragraph)
    ) {
      return this.#codeLine(start, end);
    }
    this.#blankBefore = false;
    this.#inCode = false;
    const content = line.slice(width);
    const lazy = indent < (this.#containers.at(-1) ?? 0);
    if (this.#codeOfContainerLeft(content, indent, lazy)) return this.#codeLine(start, end);
    const { container, opensItem, pastSure } = this.#containersOpened(content, indent);
    // A `-` alone under a paragraph is its setext underline (a heading), not an item that may hold text.
    const underline = this.#paragraph && !opensItem && !lazy && isSetextUnderline(content);
    if (container !== undefined && !underline) this.#openContainers(container, indent, opensItem);
    // Indented as code but not code: it goes on with the paragraph before it, and opens no block. So
    // does a line of a paragraph not indented into the innermost container, but four columns past the
    // text of the one it is surely in: no block opens there.
    const continuation: boolean = this.#htmlEnd === undefined && (indent >= codeColumn || lazily || pastSure);
    // An item or a quote opened on the line whose text is indented code (`- >     x`): no paragraph, and
    // its backticks open no span that a later line closes.
    if (this.#htmlEnd === undefined && !continuation && opensItem && container?.code === true) {
      return this.#codeLine(start, end);
    }
    let html: boolean;
    if (this.#htmlEnd !== undefined) {
      this.#goOnInHtml(content);
      html = true;
    } else if (continuation) {
      html = false;
    } else if (this.#opensFence(line, content, indent, container, opensItem)) {
      return { start, end, code: false };
    } else {
      html = this.#opensHtml(content, indent, container, opensItem);
    }
    const continues = this.#paragraph;
    this.#paragraph = this.#holdsText(content, container, opensItem, continuation, lazy, html);
    if (this.#paragraph && !continues) {
      this.#paragraphStart = start;
      this.#paragraphColumn = this.#containers.at(-1) ?? 0;
    }
    const opensParagraph = this.#paragraph && !continues;
    const paragraphSpans = this.#paragraph ? this.#spansOfParagraph : undefined;
    const open = this.#commentOpenOn(start, end, line, html);
    if (open === -1) return { start, end, code: false, html, opensParagraph, paragraphSpans };
    return this.#commentLines(start, open, { html, opensParagraph, paragraphSpans });
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
   * nothing), unless the containers open are a guess (see `guesses`). Whether it is that code.
   */
  #codeOfContainerLeft(content: string, indent: number, lazy: boolean): boolean {
    if (this.#htmlEnd !== undefined || !lazy || (this.#paragraph && !interruptsParagraph(content))) {
      return false;
    }
    const containers = this.#containers;
    let kept = containers.length;
    while (kept > 0 && (containers[kept - 1] ?? 0) > indent) kept--;
    if (indent < (containers[kept - 1] ?? 0) + 4) {
      this.#closeFrom(kept);
      return false;
    }
    if (this.#paragraph || this.#guesses.length > 0) return false;
    this.#closeFrom(kept);
    return true;
  }

  /**
   * The containers the line's content opens, whether it opens a list item for sure, and whether it is
   * four columns past the text of the container it is surely in, under a paragraph: then it opens no
   * block, whatever the items that text seemed to open, and goes on with the paragraph. A line of an HTML
   * block is raw HTML: it opens no container. Read in one that may be text, though (a tag alone under a
   * paragraph, see isTagAlone): there more containers only ask more of indented code.
   */
  #containersOpened(
    content: string,
    indent: number,
  ): { container: OpenedContainers | undefined; opensItem: boolean; pastSure: boolean } {
    const containers = this.#containers;
    const paragraph = this.#paragraph;
    const container = this.#htmlEnd !== undefined ? undefined : containerOpened(content, indent);
    // Not in text that goes on (a paragraph goes on with a line indented four columns past its
    // container, or one an empty item or a number but 1 cannot end, unless the line is not indented into
    // the innermost container surely open: then the paragraph is not the line's container, and an item
    // opens after that one, whatever its marker).
    const surely = this.#guesses[0] ?? containers.length;
    const surelyIn = containers[surely - 1] ?? 0;
    const pastSure = paragraph && indent >= innermostAt(containers, indent, surely) + 4;
    const opensItem =
      container?.listItem === true &&
      indent - innermostAt(containers, indent) < 4 &&
      !pastSure &&
      (!paragraph || container.interrupts || indent < surelyIn);
    return { container, opensItem, pastSure };
  }

  #openContainers(container: OpenedContainers, indent: number, opensItem: boolean): void {
    // A list item the line opens ends the items it is not indented into (a line going on with a paragraph
    // ends none, whatever it looks like). The extensions' containers are text to CommonMark, which ends
    // nothing: they only ask more of indented code.
    if (container.listItem && opensItem) this.#closePast(indent);
    // A quote opens only with an item the line opens for sure: one that a line without its `>` ends is
    // no safe guess (in raw HTML, or in text that goes on, a `>` is text).
    for (const { column, quote } of container.columns) {
      if (!quote || (opensItem && this.#htmlEnd === undefined)) {
        this.#openContainer(column, quote, container.listItem && !opensItem);
      }
    }
    const containers = this.#containers;
    if (opensItem && container.empty && containers.at(-1) === container.columns.at(-1)?.column) {
      this.#emptyItem = containers.length - 1;
    }
  }

  /** A line of the HTML block open: it may end the block, or open a <pre> block in one a blank line ends. */
  #goOnInHtml(content: string): void {
    if (this.#htmlEnd === BLANK_LINE) {
      // A line read as a tag alone may be text that a <pre> block interrupts: read both blocks.
      const block = htmlBlock(content);
      if (block !== undefined && block.end !== BLANK_LINE && !block.closed) {
        this.#htmlEnd = block.end;
        this.#nested = true;
      }
    } else if (this.#htmlEnd?.test(content) === true) {
      this.#htmlEnd = this.#nested ? BLANK_LINE : undefined;
      this.#nested = false;
    }
  }

  /**
   * Whether the line opens a fenced code block: on a list item's own line too (`- ```), in that item;
   * else in the innermost container the line is indented into, up to three columns past its text.
   */
  #opensFence(
    line: string,
    content: string,
    indent: number,
    container: OpenedContainers | undefined,
    opensItem: boolean,
  ): boolean {
    const inItem = opensItem ? fenceMarker(content.slice(container?.text ?? 0)) : undefined;
    const base = inItem !== undefined ? 0 : innermostAt(this.#containers, indent);
    const marker = inItem ?? fenceMarkerIn(line, base);
    if (marker === undefined) return false;
    this.#fence = marker;
    // A fence continues no paragraph: the items it is not indented into end here.
    if (inItem === undefined) this.#closePast(base);
    this.#fenceColumn = this.#containers.at(-1) ?? 0;
    this.#fenceQuotes = this.#quotes.length;
    this.#paragraph = false;
    return true;
  }

  /** Whether the line opens an HTML block: on a list item's own line too (`- <div>`), in that item. */
  #opensHtml(
    content: string,
    indent: number,
    container: OpenedContainers | undefined,
    opensItem: boolean,
  ): boolean {
    const inner = opensItem ? content.slice(container?.text ?? 0) : content;
    const tag = htmlBlock(inner);
    // A tag alone cannot interrupt a paragraph: under one, it is the paragraph's text (CommonMark's
    // start condition 7), and the lines after it go on with the paragraph.
    const block: typeof tag = tag?.interrupts === false && this.#paragraph && !opensItem ? undefined : tag;
    this.#htmlEnd = block === undefined || block.closed ? undefined : block.end;
    this.#htmlQuotes = this.#quotes.length;
    // HTML that may interrupt a paragraph continues none: the items it is not indented into end here.
    if (!opensItem && (block?.interrupts === true || content.startsWith("<!--"))) {
      this.#closePast(indent);
    }
    this.#htmlColumn = this.#containers.at(-1) ?? 0;
    return block !== undefined;
  }

  /**
   * Whether the line leaves a paragraph open. A continuation line is text of the paragraph whatever it
   * starts with (`#`, `>`): it opens no block. So is a list item's marker that cannot end the paragraph
   * (`1.` alone, `2) x`): it opens no item. The text of the items and quotes the line opens, read as they
   * read it (`+ >  -   ` holds nothing), holds a paragraph or not; a comment opens an HTML block there too
   * (`- > <!-- x -->`).
   */
  #holdsText(
    content: string,
    container: OpenedContainers | undefined,
    opensItem: boolean,
    continuation: boolean,
    lazy: boolean,
    html: boolean,
  ): boolean {
    const goesOn: boolean =
      continuation ||
      (this.#paragraph && container?.listItem === true && !opensItem && !isSetextUnderline(content));
    const itemText: string | undefined = opensItem ? content.slice(container?.text ?? 0) : undefined;
    const holds: boolean =
      itemText === undefined
        ? !content.startsWith("<!--") && holdsParagraph(content, this.#paragraph && !lazy)
        : !itemText.startsWith("<!--") && holdsParagraph(itemText, false);
    return goesOn || (!html && holds);
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

  /** The lines from `start` that the comment opening at `open` spans, as one line, to the end of its last. */
  #commentLines(
    start: number,
    open: number,
    line: Pick<MarkdownLine, "html" | "opensParagraph" | "paragraphSpans">,
  ): MarkdownLine {
    const text = this.#text;
    const close = text.indexOf("-->", open + 4);
    const resume = close === -1 ? -1 : text.indexOf(this.#lineBreak, close);
    const last = resume === -1 ? text.length : resume;
    // The lines the comment spans are lines of the HTML block open too: one of them may end it.
    if (this.#htmlEnd instanceof RegExp && this.#htmlEnd.test(text.slice(start, last))) {
      this.#htmlEnd = this.#nested ? BLANK_LINE : undefined;
      this.#nested = false;
    }
    this.#afterComment = last + 1;
    const { html, opensParagraph, paragraphSpans } = line;
    return { start, end: last, code: false, html, opensParagraph, comment: { open, close }, paragraphSpans };
  }

  /** Closes the containers from the `kept`-th on. */
  #closeFrom(kept: number): void {
    if (kept >= this.#containers.length) return;
    this.#containers.length = kept;
    while ((this.#quotes.at(-1) ?? -1) >= kept) this.#quotes.pop();
    while ((this.#guesses.at(-1) ?? -1) >= kept) this.#guesses.pop();
  }

  /** Closes the containers whose text starts past `column`. */
  #closePast(column: number): void {
    let kept = this.#containers.length;
    while (kept > 0 && (this.#containers[kept - 1] ?? 0) > column) kept--;
    this.#closeFrom(kept);
  }

  #openContainer(column: number, quote: boolean, guess = false): void {
    if (column <= (this.#containers.at(-1) ?? 0)) return;
    if (quote) this.#quotes.push(this.#containers.length);
    if (guess) this.#guesses.push(this.#containers.length);
    this.#containers.push(column);
  }
}
