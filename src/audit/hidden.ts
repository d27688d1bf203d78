import { visible } from "../shared/index.js";
import { containerMarkersEnd } from "./container-markers.js";
import { collapsedStart, isToolDirective } from "./html-comments.js";
import { markdownLines } from "./markdown-lines.js";
import { MAX_LABEL, normalizedLabel } from "./references.js";
import type { Hit } from "./rules.js";
import { isSpace } from "./scan.js";

/** What a file must hold for either rule below to find anything: read only then. */
const MAY_HIDE = /hidden|display|\]:/i;
const MAY_HIDE_HTML = /hidden|display/i;
/**
 * A link reference definition on one line: its label (no bracket, at most 999 characters) and the rest of
 * the line after `]:`, read apart (see {@link definitionOn}).
 */
const DEFINITION = /^\[((?:[^[\]\\]|\\[\s\S]){1,999})\]:[ \t]*([\s\S]*)$/;
/** Any link reference definition's start: one may follow another without a blank line between. */
const DEFINITION_START = /^ {0,3}\[(?:[^[\]\\]|\\[\s\S]){1,999}\]:/;
/** The closing mark of a definition's title, by its opening one. */
const TITLE_CLOSE: Readonly<Record<string, string>> = { '"': '"', "'": "'", "(": ")" };
/** The `hidden` attribute, read at a tag's white space: a name, then `=`, white space or the tag's end. */
const HIDDEN_ATTRIBUTE = /hidden(?=[\s=/>]|$)/iy;
const DISPLAY_NONE = /display\s*:\s*none/iy;

/**
 * Text that Markdown renders as nothing but a model reads, other than an HTML comment (see
 * htmlCommentHits): a link reference definition used as a comment (`[//]: # (note)`) or whose title no
 * link shows, and an HTML element hidden by its `hidden` attribute or a `display: none` style. Outside
 * code, as the html-comment rule reads it; a title that is a Markdown tool's directive is left alone as a
 * comment's is. Each rule's hits come in order of offset, one rule after the other.
 */
export function* hiddenMarkupHits(text: string): Generator<Hit> {
  if (!MAY_HIDE.test(text)) return;
  if (text.includes("]:")) yield* markdownCommentHits(text);
  if (MAY_HIDE_HTML.test(text)) yield* hiddenHtmlHits(text);
}

/**
 * The link reference definitions that hide text: one that leads nowhere (`#`, `<>`), used as a comment,
 * hides its title, or without one a label of more than one word; one that leads somewhere hides its title
 * when no link uses it (the title shows only when a link is pointed at), or when an earlier definition of
 * the same label takes its links (CommonMark keeps the first).
 *
 * The definitions are read once, and what they hide found as they come, until one leads somewhere with a
 * title: whether that one hides it depends on the links of the whole text, so from there on what they hide
 * waits for the links to be counted (the text read once more, for brackets) and the definitions to be
 * read a second time. A text without such a definition is read once.
 */
function* markdownCommentHits(text: string): Generator<Hit> {
  /** Where each definition's `[` is: its own brackets are no link. */
  const owns: number[] = [];
  /** The labels of the definitions that lead somewhere with a title, each with how many links use it. */
  const uses = new Map<string, number>();
  /** How many definitions came before the first that leads somewhere with a title, or -1 when none did. */
  let judged = -1;
  for (const found of definitionsOf(text)) {
    // `[^1]: …` is a footnote to GitHub, which shows it at the end of the page.
    if (!found.nowhere && found.title !== undefined && !found.label.startsWith("^")) {
      uses.set(normalizedLabel(found.label), 0);
      if (judged === -1) judged = owns.length;
    }
    owns.push(found.at);
    if (judged !== -1) continue;
    // No link decides what a definition before the first titled one hides: a title of its label that
    // comes later is hidden or not, but it has none to hide itself, or leads nowhere.
    const hit = definitionHit(found, nowhereHidden(found));
    if (hit !== undefined) yield hit;
  }
  if (judged === -1) return;
  countUses(text, uses, owns);
  /** The labels of `uses` defined so far: a later definition of one is never a link's. */
  const seen = new Set<string>();
  let index = 0;
  for (const found of definitionsOf(text)) {
    let hidden = nowhereHidden(found);
    const label = normalizedLabel(found.label);
    const used = uses.get(label);
    if (used !== undefined) {
      if (!found.nowhere && (used === 0 || seen.has(label))) hidden = found.title;
      seen.add(label);
    }
    const hit = index++ < judged ? undefined : definitionHit(found, hidden);
    if (hit !== undefined) yield hit;
  }
}

/** What a definition leading nowhere hides: its title, or without one a label of more than one word. */
function nowhereHidden(found: ReadDefinition): string | undefined {
  if (!found.nowhere) return undefined;
  return found.title ?? (/\S\s+\S/.test(found.label) ? found.label : undefined);
}

/** The finding of a definition that hides `hidden`, unless that is nothing or a Markdown tool's directive. */
function definitionHit(found: ReadDefinition, hidden: string | undefined): Hit | undefined {
  if (hidden === undefined || isToolDirective(hidden)) return undefined;
  return {
    rule: "markdown-comment",
    offset: found.offset,
    detail: `hidden from the rendered view: ${JSON.stringify(visible(collapsedStart(hidden, 120)))}`,
  };
}

/** A link reference definition as the Markdown walker places it. */
interface ReadDefinition {
  /** Where the line holding what it hides starts its content: its title's, or its own. */
  readonly offset: number;
  /** Where its `[` is. */
  readonly at: number;
  /** As written. */
  readonly label: string;
  /** Its destination leads nowhere: `#`, `<>` or `<#>`. */
  readonly nowhere: boolean;
  /** Its title: on its line or the next, closed there or going on to the lines after it. */
  readonly title: string | undefined;
}

/**
 * The link reference definitions of a Markdown text, in order, read where CommonMark reads one: at the start
 * of a paragraph (after a blank line, a heading, another definition…), in a list item or a quote too,
 * outside code and HTML blocks, on one line with its destination. A title may follow on the next line.
 */
function* definitionsOf(text: string): Generator<ReadDefinition> {
  let definitionBefore = false;
  /** A definition read on the line before that ends with its destination: its title may follow. */
  let untitled: ReadDefinition | undefined;
  for (const line of markdownLines(text)) {
    const content = text.slice(line.start, line.end);
    const before = untitled;
    untitled = undefined;
    const starts: boolean = line.opensParagraph === true || definitionBefore;
    definitionBefore = false;
    const trimmed = content.trimStart();
    const inner = trimmed.slice(containerMarkersEnd(trimmed)).trimStart();
    const offset = line.start + content.length - trimmed.length;
    if (before !== undefined) {
      const title = line.code || line.html === true || !starts ? undefined : titleOn(inner);
      if (title !== undefined) {
        yield { at: before.at, offset, label: before.label, nowhere: before.nowhere, title: title.text };
        definitionBefore = true;
        continue;
      }
      yield before;
    }
    if (line.code || line.html === true || !starts || trimmed === "") continue;
    definitionBefore = DEFINITION_START.test(inner);
    const found = definitionBefore ? definitionOn(inner) : undefined;
    if (found === undefined) continue;
    const at = line.start + content.length - inner.length;
    const read = { at, offset, label: found.label, nowhere: found.nowhere, title: found.title };
    if (found.title === undefined) untitled = read;
    else yield read;
  }
  if (untitled !== undefined) yield untitled;
}

/**
 * The definition that `content` (a line's, past its containers' markers) is, when it is one: a label, a
 * destination (`<…>`, or a run without white space whose parentheses pair), then nothing or a title
 * (`"…"`, `'…'`, `(…)`) with nothing after it. A title not closed on the line goes on to the next lines
 * (read as the definition's, though CommonMark shows it as text if it never closes: rather flagged than
 * missed). Undefined for what renders as text.
 */
function definitionOn(content: string): Omit<ReadDefinition, "at" | "offset"> | undefined {
  const definition = DEFINITION.exec(content);
  if (definition === null) return undefined;
  const label = definition[1] ?? "";
  // A label of white space alone is none: the line is text.
  if (label.trim() === "") return undefined;
  const rest = (definition[2] ?? "").trimEnd();
  // A destination on the next line is not read: such a definition is not looked at.
  if (rest === "") return undefined;
  const destinationEnd = rest[0] === "<" ? angledEnd(rest) : bareEnd(rest);
  if (destinationEnd === undefined) return undefined;
  const destination = rest.slice(0, destinationEnd);
  const nowhere = destination === "#" || destination === "<>" || destination === "<#>";
  const after = rest.slice(destinationEnd);
  if (after === "") return { label, nowhere, title: undefined };
  if (!isSpace(after.charCodeAt(0))) return undefined;
  const title = titleOn(after.trimStart());
  return title === undefined ? undefined : { label, nowhere, title: title.text };
}

/** Just past the `>` of a destination `<…>` at the start of `rest`, with no `<` or unescaped `>` inside. */
function angledEnd(rest: string): number | undefined {
  for (let at = 1; at < rest.length; at++) {
    const code = rest.charCodeAt(at);
    if (code === 0x5c) at++;
    else if (code === 0x3e) return at + 1;
    else if (code === 0x3c) return undefined;
  }
  return undefined;
}

/** The end of a destination without `<…>` at the start of `rest`: its parentheses must pair. */
function bareEnd(rest: string): number | undefined {
  let depth = 0;
  let at = 0;
  for (; at < rest.length && !isSpace(rest.charCodeAt(at)); at++) {
    const code = rest.charCodeAt(at);
    if (code === 0x5c) at++;
    else if (code === 0x28) depth++;
    else if (code === 0x29 && --depth < 0) return undefined;
  }
  return depth === 0 ? Math.min(at, rest.length) : undefined;
}

/**
 * The title that `content` (the rest of a line) is: `"…"`, `'…'` or `(…)` with nothing after it, or one
 * whose closing mark is not on the line (it goes on). Undefined when the line is no title.
 */
function titleOn(content: string): { text: string } | undefined {
  const close = TITLE_CLOSE[content[0] ?? ""];
  if (close === undefined) return undefined;
  const text = content.trimEnd();
  for (let at = 1; at < text.length; at++) {
    if (text[at] === "\\") at++;
    else if (text[at] === close) return at === text.length - 1 ? { text: text.slice(1, at) } : undefined;
  }
  return { text: text.slice(1) };
}

/**
 * Counts in `uses` how many links use each of its labels (normalized as CommonMark matches labels): the
 * pairs of brackets holding the label but the definitions' own (each `[` of `owns`, in order), where a pair
 * has no bracket inside and no `(` after it (an inline link's text names no definition). A label written
 * in code, or as text where no link is read, counts as a use too: such a title is rather missed than
 * flagged in error. The text is read once.
 */
function countUses(text: string, uses: Map<string, number>, owns: readonly number[]): void {
  let own = 0;
  let open = -1;
  for (let at = 0; at < text.length; at++) {
    const code = text.charCodeAt(at);
    if (code === 0x5c) at++;
    else if (code === 0x5b) open = at;
    else if (code === 0x5d && open !== -1) {
      while ((owns[own] ?? Number.POSITIVE_INFINITY) < open) own++;
      if (owns[own] !== open && at - open - 1 <= MAX_LABEL && text.charCodeAt(at + 1) !== 0x28) {
        const label = normalizedLabel(text.slice(open + 1, at));
        const count = uses.get(label);
        if (count !== undefined) uses.set(label, count + 1);
      }
      open = -1;
    }
  }
}

/**
 * HTML elements hidden by a `hidden` attribute or `display: none`, outside code: code spans are read as
 * the html-comment rule reads them, across the lines of a paragraph (a span opened on one line and closed
 * on the next is code on both); in an HTML block backticks make none.
 */
function* hiddenHtmlHits(text: string): Generator<Hit> {
  const quoted = tagReader(true);
  const unquoted = tagReader(false);
  const backticks = text.includes("`");
  /** The paragraph read last for its code spans, and the first of its spans not yet behind the lines read. */
  let reading: { end: number; spans: readonly { start: number; end: number }[]; next: number } | undefined;
  for (const line of markdownLines(text)) {
    const content = text.slice(line.start, line.end);
    if (line.code || content.trim() === "") {
      quoted.reset();
      unquoted.reset();
      continue;
    }
    // The line break is read too: it parts a tag's name from an attribute on the next line.
    const lineEnd = line.start + Math.min(content.length + 1, text.length - line.start);
    const spans: { start: number; end: number }[] = [];
    if (line.html !== true && backticks) {
      // Each reading starts past the last one's end: no line is read twice.
      if (reading === undefined || reading.end <= line.start) {
        // The walker reads a paragraph whole, with the containers open around it, and other text by line.
        const spans = line.paragraphSpans?.(line.start) ?? { end: lineEnd, spans: [] };
        reading = { ...spans, next: 0 };
      }
      for (let span = reading.spans[reading.next]; span !== undefined && span.start < lineEnd; ) {
        spans.push({ start: Math.max(span.start, line.start), end: Math.min(span.end, lineEnd) });
        if (span.end > lineEnd) break;
        reading.next++;
        span = reading.spans[reading.next];
      }
    }
    const found = new Map<number, number>();
    let from = line.start;
    for (const span of [...spans, { start: lineEnd, end: lineEnd }]) {
      for (const hit of quoted.read(text, from, span.start)) found.set(hit.tag, hit.at);
      for (const hit of unquoted.read(text, from, span.start)) {
        if (!found.has(hit.tag)) found.set(hit.tag, hit.at);
      }
      if (span.end > span.start) {
        quoted.reset();
        unquoted.reset();
      }
      from = span.end;
    }
    for (const [tag, at] of [...found].sort((a, b) => a[1] - b[1])) {
      yield {
        rule: "hidden-html",
        offset: at,
        detail: `hidden from the rendered view: ${JSON.stringify(visible(collapsedStart(text.slice(tag, tag + 600), 120)))}`,
      };
    }
  }
}

/**
 * Reads HTML tags over the stretches of text it is given, in order, across lines (a tag may span them):
 * each `<` and a letter opens a tag that `>` closes, and a `hidden` attribute or `display: none` in it
 * is a hit, once per tag. With `quotes`, a quoted value is read as a browser reads it (`>` in it closes
 * nothing); without, quotes are ignored, as CommonMark ignores a tag whose quote never closes and reads
 * a tag inside it: the two readers together miss neither. Each character is looked at once.
 */
function tagReader(quotes: boolean) {
  /** Where the tag open starts, or -1 outside one. */
  let tag = -1;
  /** The quote open in the tag, or 0. */
  let quote = 0;
  let reported = false;
  return {
    reset() {
      tag = -1;
      quote = 0;
    },
    *read(text: string, from: number, to: number): Generator<{ tag: number; at: number }> {
      for (let at = from; at < to; at++) {
        const code = text.charCodeAt(at);
        if (quote !== 0) {
          if (code === quote) quote = 0;
          else if (!reported && startsAt(DISPLAY_NONE, 0x64, text, at)) {
            reported = true;
            yield { tag, at };
          }
          continue;
        }
        if (code === 0x3c && isLetter(text.charCodeAt(at + 1))) {
          tag = at;
          reported = false;
          continue;
        }
        if (tag === -1) continue;
        if (code === 0x3e) tag = -1;
        else if (quotes && (code === 0x22 || code === 0x27)) quote = code;
        else if (reported) continue;
        else if (isSpace(code) && startsAt(HIDDEN_ATTRIBUTE, 0x68, text, at + 1)) {
          reported = true;
          yield { tag, at: at + 1 };
        } else if (startsAt(DISPLAY_NONE, 0x64, text, at)) {
          reported = true;
          yield { tag, at };
        }
      }
    },
  };
}

/** Whether the sticky `pattern` matches at `at`, tried only where its first letter, `first`, is. */
function startsAt(pattern: RegExp, first: number, text: string, at: number): boolean {
  if ((text.charCodeAt(at) | 0x20) !== first) return false;
  pattern.lastIndex = at;
  return pattern.test(text);
}

function isLetter(code: number): boolean {
  return (code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a;
}
