/** The walk over a Markdown file's lines that tells code from prose and raw HTML, as CommonMark's blocks do. */
import { commentsOutsideSpans } from "./code-spans.js";
import {
  BLANK_LINE,
  fenceMarker,
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
  quotedLine,
} from "./markdown-containers.js";
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
   * to its end, read with the containers open around it as the walker reads them. On a line of other text
   * (a heading's, whose text is one line), those of the line. Ask before the next line.
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
  let fence: string | undefined;
  /** The column where the text of the container the fence is in starts. */
  let fenceColumn = 0;
  /** The line before is blank, or there is none. */
  let blankBefore = true;
  /** The last line that is not blank was indented code. */
  let inCode = false;
  /** The last line is text of a paragraph, which a line not indented into its container may continue. */
  let paragraph = false;
  /** The content columns of the list items, quotes, footnotes and the like open, innermost last. */
  const containers: number[] = [];
  /** Which of `containers` are quotes, by index: a quote goes on only on a line with its `>` (or lazily). */
  const quotes: number[] = [];
  /** Which of `containers` a line opened that goes on with a paragraph: no block, so text ends none. */
  const guesses: number[] = [];
  /** The quotes open around the fence: a line with fewer `>` ends them, and the fence in them. */
  let fenceQuotes = 0;
  /** Closes the containers from the `kept`-th on. */
  const closeFrom = (kept: number) => {
    if (kept >= containers.length) return;
    containers.length = kept;
    while ((quotes.at(-1) ?? -1) >= kept) quotes.pop();
    while ((guesses.at(-1) ?? -1) >= kept) guesses.pop();
  };
  /** Closes the containers whose text starts past `column`. */
  const closePast = (column: number) => {
    let kept = containers.length;
    while (kept > 0 && (containers[kept - 1] ?? 0) > column) kept--;
    closeFrom(kept);
  };
  const openContainer = (column: number, quote: boolean, guess = false) => {
    if (column <= (containers.at(-1) ?? 0)) return;
    if (quote) quotes.push(containers.length);
    if (guess) guesses.push(containers.length);
    containers.push(column);
  };
  /** The index in `containers` of an empty list item the line before opened (`- `), or -1. */
  let emptyItem = -1;
  /** What ends the HTML block open. */
  let htmlEnd: HtmlEnd | undefined;
  /** The quotes open around the HTML block open, and the text column of the container it is in. */
  let htmlQuotes = 0;
  let htmlColumn = 0;
  /** The HTML block open was read inside one that a blank line ends, which goes on after it. */
  let nested = false;
  /** Where the paragraph that the last line holds text of starts, and the text column of its container. */
  let paragraphStart = 0;
  let paragraphColumn = 0;
  /** The paragraph read last as a whole, for the comments outside its code spans. */
  let reading: ParagraphReading | undefined;
  /** The start of the line after the last comment's end. */
  let afterComment = 0;
  const lineBreak = lineBreakOf(text);
  const spansOfParagraph = (from: number) =>
    paragraphCodeSpans(text, from, lineBreak, paragraphColumn, { containers, quotes, guesses });
  let offset = 0;
  while (offset < text.length) {
    const newline = text.indexOf(lineBreak, offset);
    const end = newline === -1 ? text.length : newline;
    const written = text.slice(offset, end);
    const start = offset;
    offset = end + 1;
    const emptyBefore = emptyItem;
    emptyItem = -1;
    // The line with its quotes' markers read as white space, and its indentation past them as it is
    // in the innermost quote: a quote's text starts two columns past its `>`, whatever follows that.
    // In code or raw HTML, a `>` past the quotes open is text; elsewhere a few more are read, as items.
    // Under a paragraph, a `>` indented four columns past the text of the containers its line is surely
    // in goes on with the paragraph.
    const inRaw = fence !== undefined || htmlEnd !== undefined;
    const surely = paragraph ? guesses : [];
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
      fence !== undefined &&
      ((!read.blank && read.indent < fenceColumn) || read.markers.matched < fenceQuotes)
    ) {
      fence = undefined;
      if (htmlEnd === undefined) {
        read = quotedLine(written, containers, quotes, quotes.length + MAX_ITEMS_ON_A_LINE, surely);
      }
    }
    // An HTML block in a list item ends with the item, at a line indented less than the item's text: no
    // line goes on with an HTML block lazily. The line is then read again, out of raw HTML.
    if (htmlEnd !== undefined && fence === undefined && !read.blank && read.indent < htmlColumn) {
      htmlEnd = undefined;
      nested = false;
      read = quotedLine(written, containers, quotes, quotes.length + MAX_ITEMS_ON_A_LINE, surely);
    }
    const { markers, line, width, indent, blank } = read;
    if (fence !== undefined) {
      // Up to three columns past the text of the fence's container, as the containers' columns count them
      // (in a quote, its `>` may stand anywhere up to three columns in: `>`, then `   >  ```).
      const marker = indent - fenceColumn < 4 ? fenceMarker(line.slice(width)) : undefined;
      // A closing fence has nothing after its run but white space: "`````word" is code.
      const closes =
        marker !== undefined &&
        marker[0] === fence[0] &&
        marker.length >= fence.length &&
        line.slice(line.indexOf(marker) + marker.length).trim() === "";
      if (closes) fence = undefined;
      yield { start, end, code: !closes };
      blankBefore = false;
      paragraph = false;
      continue;
    }
    // A line with fewer `>` than the quotes open ends the others, unless it goes on with a paragraph in
    // them (lazily): it opens no block, as a line indented four columns past them opens none.
    let lazily = false;
    if (markers.matched < quotes.length) {
      const inner = quotes[markers.matched] ?? containers.length;
      lazily =
        paragraph &&
        !blank &&
        markers.count === markers.matched &&
        (indent >= innermostAt(containers, indent, inner) + 4 || !endsParagraph(line.slice(width), true));
      if (!lazily) {
        closeFrom(inner);
        paragraph = false;
        // An HTML block in a quote ends with it.
        if (markers.matched < htmlQuotes) htmlEnd = undefined;
      }
    }
    // A `>` past the quotes open opens one: it ends the containers it is not indented into.
    if (markers.count > markers.matched) {
      const added = markers.columns.slice(markers.matched);
      closePast((added[0] ?? 2) - 2);
      for (const column of added) openContainer(column, true);
      paragraph = false;
    }
    if (blank) {
      // A list item begins with at most one blank line: an empty item (`- `) ends at the blank after it.
      // The line is blank in the item only when it holds no `>` of a quote in it.
      if (emptyBefore !== -1 && markers.count <= countBelow(quotes, emptyBefore)) {
        closeFrom(emptyBefore);
      }
      // The items a line going on with a paragraph seemed to open are none: nothing goes on lazily past a
      // blank line, so they hold no line after it.
      closeFrom(guesses[0] ?? containers.length);
      blankBefore = true;
      paragraph = false;
      if (htmlEnd === BLANK_LINE) htmlEnd = undefined;
      yield { start, end, code: false };
      continue;
    }
    if (blankBefore) closePast(indent);
    const codeColumn = (containers.at(-1) ?? 0) + 4;
    // Indented code may follow any block but a paragraph, which such a line continues.
    if (htmlEnd === undefined && indent >= codeColumn && (blankBefore || inCode || !paragraph)) {
      blankBefore = false;
      inCode = true;
      paragraph = false;
      yield { start, end, code: true };
      continue;
    }
    blankBefore = false;
    inCode = false;
    const content = line.slice(width);
    // A line not indented into the innermost container ends it, unless it goes on with a paragraph there
    // (lazily): not after a heading, nor when it starts a heading, a thematic break or a quote, which no
    // paragraph holds. Four columns past the text of the container left, the line is that container's
    // indented code, after a block that is no paragraph (under one it is the paragraph's text, and ends
    // nothing), unless the containers open are a guess (see `guesses`). A line going on lazily without a
    // quote's `>` ends nothing, whatever it starts with (`> 1. a`, then four spaces and `***`: no break).
    const lazy = indent < (containers.at(-1) ?? 0);
    if (htmlEnd === undefined && lazy && !lazily && (!paragraph || interruptsParagraph(content))) {
      let kept = containers.length;
      while (kept > 0 && (containers[kept - 1] ?? 0) > indent) kept--;
      if (indent < (containers[kept - 1] ?? 0) + 4) closeFrom(kept);
      else if (!paragraph && guesses.length === 0) {
        closeFrom(kept);
        inCode = true;
        yield { start, end, code: true };
        continue;
      }
    }
    // A line of an HTML block is raw HTML: it opens no container. Read in one that may be text, though (a
    // tag alone under a paragraph, see isTagAlone): there more containers only ask more of indented code.
    const container: OpenedContainers | undefined =
      htmlEnd !== undefined ? undefined : containerOpened(content, indent);
    // Whether the line opens a list item for sure: not in text that goes on (a paragraph goes on with a
    // line indented four columns past its container, or one an empty item or a number but 1 cannot end,
    // unless the line is not indented into the innermost container surely open: then the paragraph is
    // not the line's container, and an item opens after that one, whatever its marker).
    const surelyIn = containers[(guesses[0] ?? containers.length) - 1] ?? 0;
    // Under a paragraph, four columns past the text of the container the line is surely in, it opens no
    // block, whatever the items that text seemed to open: it goes on with the paragraph. A line going on
    // lazily without the `>` of a quote is in none of the containers from that quote on.
    const sure = Math.min(guesses[0] ?? containers.length, quotes[markers.matched] ?? containers.length);
    const pastSure: boolean = paragraph && indent >= innermostAt(containers, indent, sure) + 4;
    const opensItem: boolean =
      container?.listItem === true &&
      indent - innermostAt(containers, indent) < 4 &&
      !pastSure &&
      (!paragraph || container.interrupts || indent < surelyIn);
    // A `-` alone under a paragraph is its setext underline (a heading), not an item that may hold text.
    // It underlines only a paragraph of its own container: one it is indented into, not only into the items
    // the paragraph's text seemed to open (`2)` alone, then `=`).
    const ownContainer = indent >= paragraphColumn;
    const underline = paragraph && !opensItem && ownContainer && isSetextUnderline(content);
    if (container !== undefined && !underline) {
      // A list item the line opens ends the items it is not indented into (a line going on with a paragraph
      // ends none, whatever it looks like). The extensions' containers are text to CommonMark, which ends
      // nothing: they only ask more of indented code.
      if (container.listItem && opensItem) closePast(indent);
      // A quote opens only with an item the line opens for sure: one that a line without its `>` ends is
      // no safe guess (in raw HTML, or in text that goes on, a `>` is text).
      for (const { column, quote } of container.columns) {
        if (!quote || (opensItem && htmlEnd === undefined))
          openContainer(column, quote, container.listItem && !opensItem);
      }
      if (opensItem && container.empty && containers.at(-1) === container.columns.at(-1)?.column) {
        emptyItem = containers.length - 1;
      }
    }
    // Indented as code but not code: it goes on with the paragraph before it, and opens no block. So
    // does a line of a paragraph not indented into the innermost container, but four columns past the
    // text of the one it is surely in: no block opens there.
    const continuation: boolean = htmlEnd === undefined && (indent >= codeColumn || lazily || pastSure);
    // An item or a quote opened on the line whose text is indented code (`- >     x`): no paragraph, and
    // its backticks open no span that a later line closes.
    if (htmlEnd === undefined && !continuation && opensItem && container?.code === true) {
      inCode = true;
      paragraph = false;
      yield { start, end, code: true };
      continue;
    }
    let html = htmlEnd !== undefined;
    if (htmlEnd === BLANK_LINE) {
      // A line read as a tag alone may be text that a <pre> block interrupts: read both blocks.
      const block = htmlBlock(content);
      if (block !== undefined && block.end !== BLANK_LINE && !block.closed) {
        htmlEnd = block.end;
        nested = true;
      }
    } else if (htmlEnd !== undefined) {
      if (htmlEnd.test(content)) {
        htmlEnd = nested ? BLANK_LINE : undefined;
        nested = false;
      }
    } else if (!continuation) {
      // A fence opens on a list item's own line too (`- ```), in that item; else in the innermost
      // container the line is indented into, up to three columns past its text. Under a paragraph that is
      // one it is surely in: the items the paragraph's text seemed to open (`2)` alone) hold no block.
      const inItem = opensItem ? fenceMarker(content.slice(container?.text ?? 0)) : undefined;
      const around = paragraph ? sure : containers.length;
      const base = inItem !== undefined ? 0 : innermostAt(containers, indent, around);
      const marker = inItem ?? (indent - base < 4 ? fenceMarker(content) : undefined);
      if (marker !== undefined) {
        fence = marker;
        // A fence continues no paragraph: the items it is not indented into end here.
        if (inItem === undefined) closePast(base);
        fenceColumn = containers.at(-1) ?? 0;
        fenceQuotes = quotes.length;
        paragraph = false;
        yield { start, end, code: false };
        continue;
      }
      // An HTML block opens on a list item's own line too (`- <div>`), in that item.
      const inner: string = opensItem ? content.slice(container?.text ?? 0) : content;
      const tag = htmlBlock(inner);
      // A tag alone cannot interrupt a paragraph: under one, it is the paragraph's text (CommonMark's
      // start condition 7), and the lines after it go on with the paragraph.
      const block: typeof tag = tag?.interrupts === false && paragraph && !opensItem ? undefined : tag;
      // A comment that starts the line opens an HTML block too, raw HTML to the line of its `-->`.
      html = block !== undefined || inner.startsWith("<!--");
      htmlEnd = block === undefined || block.closed ? undefined : block.end;
      htmlQuotes = quotes.length;
      // HTML that may interrupt a paragraph continues none: the items it is not indented into end here.
      if (!opensItem && (block?.interrupts === true || content.startsWith("<!--"))) {
        closePast(paragraph ? innermostAt(containers, indent, around) : indent);
      }
      htmlColumn = containers.at(-1) ?? 0;
    }
    const continues = paragraph;
    // A continuation line is text of the paragraph whatever it starts with (`#`, `>`): it opens no block.
    // So is a list item's marker that cannot end the paragraph (`1.` alone, `2) x`): it opens no item.
    const goesOn: boolean =
      continuation ||
      (paragraph && container?.listItem === true && !opensItem && !isSetextUnderline(content));
    // The text of the items and quotes the line opens, read as they read it (`+ >  -   ` holds nothing),
    // holds a paragraph or not; a comment opens an HTML block there too (`- > <!-- x -->`).
    const itemText: string | undefined = opensItem ? content.slice(container?.text ?? 0) : undefined;
    const holds: boolean =
      itemText === undefined
        ? !content.startsWith("<!--") && holdsParagraph(content, paragraph && ownContainer)
        : !itemText.startsWith("<!--") && holdsParagraph(itemText, false);
    paragraph = goesOn || (!html && holds);
    // A block that ends the paragraph (a heading, its underline, HTML) ends the items its text seemed to
    // open too: they were text, and hold no line after it.
    if (continues && !paragraph && !opensItem) closeFrom(guesses[0] ?? containers.length);
    // A list item the line opens for sure holds a paragraph of its own, also under one (`a`, then `- b`).
    const opensParagraph = paragraph && (!continues || opensItem);
    if (opensParagraph) {
      paragraphStart = start;
      paragraphColumn = containers.at(-1) ?? 0;
    }
    let open = -1;
    if (html) {
      // An HTML block is raw HTML: backticks there make no code span, and a comment is hidden.
      const at = line.indexOf("<!--");
      open = at === -1 ? -1 : start + at;
    } else if (!line.includes("<!--")) {
      open = -1;
    } else if (paragraph) {
      // A code span may open on an earlier line of the paragraph, or close on a later one: read it whole.
      // Each reading starts where the last one or the last comment ended, or later: no line is read twice.
      while (reading === undefined || reading.end <= start) {
        const from = Math.max(paragraphStart, reading?.end ?? 0, afterComment);
        reading = readParagraph(text, from, lineBreak, paragraphColumn, { containers, quotes, guesses });
      }
      open = reading.commentFrom(start, end);
    } else {
      open = commentsOutsideSpans(text, start, end).next().value ?? -1;
    }
    const paragraphSpans = paragraph
      ? spansOfParagraph
      : html
        ? undefined
        : (from: number) => ({ end, spans: codeSpansFrom(text, from, end) });
    if (open === -1) {
      yield { start, end, code: false, html, opensParagraph, paragraphSpans };
      continue;
    }
    const close = text.indexOf("-->", open + 4);
    const resume = close === -1 ? -1 : text.indexOf(lineBreak, close);
    const last = resume === -1 ? text.length : resume;
    yield { start, end: last, code: false, html, opensParagraph, comment: { open, close }, paragraphSpans };
    // The lines the comment spans are lines of the HTML block open too: one of them may end it.
    if (htmlEnd instanceof RegExp && htmlEnd.test(text.slice(start, last))) {
      htmlEnd = nested ? BLANK_LINE : undefined;
      nested = false;
    }
    offset = last + 1;
    afterComment = offset;
  }
}
