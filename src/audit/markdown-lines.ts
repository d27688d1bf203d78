/** The walk over a Markdown file's lines that tells code from prose and raw HTML, as CommonMark's blocks do. */
import type { ParagraphSpans } from "./markdown-paragraphs.js";
import { MarkdownWalk } from "./markdown-walk.js";

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
  const walk = new MarkdownWalk(text);
  for (let start = 0; start < text.length; ) {
    const line = walk.lineAt(start);
    yield line;
    start = line.end + 1;
  }
}
