import { visible } from "../catalog/index.js";
import { CONTAINER_MARKERS, codeSpans, collapsedStart, isToolDirective, markdownLines } from "./content.js";
import type { Hit } from "./rules.js";
import { isSpace } from "./scan.js";

/** What a file must hold for either rule below to find anything: read only then. */
const MAY_HIDE = /hidden|display|\]:/i;
/**
 * A link reference definition whose destination leads nowhere (`#`, `<>`): CommonMark renders no
 * definition, so `[//]: # (text)` and `[comment]: <> "text"` are comments a reader never sees. The label
 * holds no bracket and at most 999 characters; the rest of the line is read apart.
 */
const NOWHERE_DEFINITION =
  /^ {0,3}\[((?:[^[\]\\]|\\[\s\S]){1,999})\]:[ \t]*(?:#|<#?>)(?=[ \t]|\r?$)([\s\S]*)$/;
/** Any link reference definition's start: one may follow another without a blank line between. */
const DEFINITION_START = /^ {0,3}\[(?:[^[\]\\]|\\[\s\S]){1,999}\]:/;
/** The closing mark of a definition's title, by its opening one. */
const TITLE_CLOSE: Readonly<Record<string, string>> = { '"': '"', "'": "'", "(": ")" };
/** The `hidden` attribute, read at a tag's white space: a name, then `=`, white space or the tag's end. */
const HIDDEN_ATTRIBUTE = /hidden(?=[\s=/>]|$)/iy;
const DISPLAY_NONE = /display\s*:\s*none/iy;

/**
 * Text that Markdown renders as nothing but a model reads, other than an HTML comment (see
 * htmlCommentHits): a link reference definition that leads nowhere used as a comment (`[//]: # (note)`),
 * and an HTML element hidden by its `hidden` attribute or a `display: none` style. Outside code, as the
 * html-comment rule reads it; a title that is a Markdown tool's directive is left alone as a comment's is.
 */
export function* hiddenMarkupHits(text: string): Generator<Hit> {
  if (!MAY_HIDE.test(text)) return;
  const quoted = tagReader(true);
  const unquoted = tagReader(false);
  let definitionBefore = false;
  for (const line of markdownLines(text)) {
    const content = text.slice(line.start, line.end);
    if (line.code || content.trim() === "") {
      quoted.reset();
      unquoted.reset();
      definitionBefore = false;
      continue;
    }
    const trimmed = content.trimStart();
    const inner = trimmed.slice(CONTAINER_MARKERS.exec(trimmed)?.[0].length ?? 0).trimStart();
    const starts: boolean = line.opensParagraph === true || definitionBefore;
    const indent = content.length - trimmed.length;
    const hidden = starts && line.html !== true ? commentDefinition(inner) : undefined;
    definitionBefore = starts && line.html !== true && DEFINITION_START.test(inner);
    if (hidden !== undefined) {
      yield {
        rule: "markdown-comment",
        offset: line.start + indent,
        detail: `hidden from the rendered view: ${JSON.stringify(visible(collapsedStart(hidden, 120)))}`,
      };
    }
    const spans = line.html === true || !content.includes("`") ? [] : [...codeSpans(content)];
    const found = new Map<number, number>();
    let from = 0;
    // The line break is read too: it parts a tag's name from an attribute on the next line.
    const lineEnd = Math.min(content.length + 1, text.length - line.start);
    for (const span of [...spans, { start: lineEnd, end: lineEnd }]) {
      for (const hit of quoted.read(text, line.start + from, line.start + span.start))
        found.set(hit.tag, hit.at);
      for (const hit of unquoted.read(text, line.start + from, line.start + span.start)) {
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
 * What a link reference definition that leads nowhere hides, when `content` (a line's, past its
 * containers' markers) is one: its title (`[//]: # (text)`), or a label of more than one word when it has
 * none. Undefined for what renders as text (a title with text after it) and for a tool's directive.
 */
function commentDefinition(content: string): string | undefined {
  const definition = NOWHERE_DEFINITION.exec(content);
  if (definition === null) return undefined;
  const label = definition[1] ?? "";
  const rest = (definition[2] ?? "").trim();
  if (rest === "") return /\S\s+\S/.test(label) ? label : undefined;
  const close = TITLE_CLOSE[rest[0] ?? ""];
  if (close === undefined) return undefined;
  const end = rest.indexOf(close, 1);
  // A title that goes on to the next lines is still the definition's; text after a closed one is not.
  if (end !== -1 && rest.slice(end + 1).trim() !== "") return undefined;
  const title = rest.slice(1, end === -1 ? rest.length : end);
  return isToolDirective(title) ? undefined : title;
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
