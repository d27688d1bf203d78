/** The walk over a Markdown file's lines that tells code from prose and raw HTML, as CommonMark's blocks do. */
import { type MarkdownLine, MarkdownWalk } from "./markdown-walk.js";

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
