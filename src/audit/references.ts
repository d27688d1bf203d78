import { fenceMarker } from "./markdown-blocks.js";
import { indexOf, isSpace, NOWHERE, type Steps, searchForward } from "./scan.js";

/** A link of a text: what it shows, where it goes, and where it starts. */
export interface Link {
  readonly shown: string;
  readonly target: string;
  readonly offset: number;
}

/**
 * The link reference definitions of a Markdown text (`[label]: destination "title"`), as CommonMark reads
 * them as far as the links they name need: by normalized label, the first definition of each, and where
 * every definition starts (it is no link itself).
 */
interface Definitions {
  readonly targets: ReadonlyMap<string, string>;
  readonly starts: ReadonlySet<number>;
  /** The fenced code blocks, in order, `[start, end)`: their brackets are text, not links. */
  readonly fenced: readonly (readonly [number, number])[];
}

/** No label is longer (CommonMark): a longer `[…]:` is text. */
export const MAX_LABEL = 999;

/**
 * The definitions of `text`, one pass over its lines. A definition starts a line outside fenced code, after
 * any `>` and list markers and at most three spaces, and does not continue a paragraph (CommonMark: it
 * cannot interrupt one, so `text\n[a]: x` is text). Its destination may sit on the next line. Other block
 * rules (HTML blocks, indented code, lazy continuation lines, fences inside containers) are not followed: a
 * line there that looks like a definition is read as one, and may take a label before the one a renderer uses.
 */
export function linkDefinitions(text: string, steps?: Steps): Definitions {
  const targets = new Map<string, string>();
  const starts = new Set<number>();
  const fenced: [number, number][] = [];
  if (!text.includes("]:")) return { targets, starts, fenced };
  let fence: string | undefined;
  let fenceStart = 0;
  /** Whether the line before was paragraph text, which the next line continues. */
  let inParagraph = false;
  let quotes = 0;
  for (let offset = 0; offset <= text.length; ) {
    const end = lineEndOf(text, offset, steps);
    const line = text.slice(offset, end);
    const marker = fenceMarker(line);
    const container = containerOf(line);
    if (fence !== undefined) {
      if (marker !== undefined && marker[0] === fence[0] && marker.length >= fence.length) {
        fence = undefined;
        fenced.push([fenceStart, end]);
      }
      inParagraph = false;
    } else if (marker !== undefined) {
      fence = marker;
      fenceStart = offset;
      inParagraph = false;
    } else {
      const startsBlock: boolean = !inParagraph || container.listItem || container.quotes !== quotes;
      const found: Definition | undefined = startsBlock
        ? definitionAt(text, offset + container.end, end, steps)
        : undefined;
      if (found) {
        starts.add(found.start);
        if (!targets.has(found.label)) targets.set(found.label, found.target);
      }
      inParagraph = found === undefined && continuesAsParagraph(line.slice(container.end));
      quotes = container.quotes;
      if (found) {
        offset = found.end + 1;
        continue;
      }
    }
    offset = end + 1;
  }
  if (fence !== undefined) fenced.push([fenceStart, text.length]);
  return { targets, starts, fenced };
}

/**
 * The reference links of `text` that resolve through `definitions`: `[text][label]` (full), `[text][]`
 * (collapsed) and `[text]` (shortcut), with 1 to `maxShown` characters of text on one line and no bracket
 * in it (an address has none). A label no definition has is plain text, as CommonMark renders it, and
 * `[label]` after it may then open a link of its own. Each `[` is looked at once, and each text or label
 * with no `[` inside is read once, so the work is linear.
 */
export function* referenceLinks(
  text: string,
  definitions: Definitions,
  maxShown: number,
  steps?: Steps,
): Generator<Link> {
  if (definitions.targets.size === 0) return;
  const closeAfter = searchForward((from) => indexOf(text, "]", from, steps));
  const openAfter = searchForward((from) => indexOf(text, "[", from, steps));
  const lineEndAfter = searchForward((from) => indexOf(text, "\n", from, steps));
  /** Where the bracket of text with no `[` and no line break in it, opened at `open`, closes. */
  const plainClose = (open: number): number | undefined => {
    const close = closeAfter(open + 1);
    return close < openAfter(open + 1) && close < lineEndAfter(open + 1) ? close : undefined;
  };
  let block = 0;
  for (let open = openAfter(0); open !== NOWHERE; ) {
    let resume = openAfter(open + 1);
    while ((definitions.fenced[block]?.[1] ?? NOWHERE) <= open) block++;
    const [codeStart, codeEnd] = definitions.fenced[block] ?? [NOWHERE, NOWHERE];
    if (codeStart <= open) {
      open = openAfter(codeEnd);
      continue;
    }
    const close = plainClose(open);
    const length = close === undefined ? 0 : close - open - 1;
    if (close !== undefined && length >= 1 && length <= maxShown && !definitions.starts.has(open)) {
      const shown = text.slice(open + 1, close);
      const labelClose = text[close + 1] === "[" ? plainClose(close + 1) : undefined;
      const label =
        labelClose === undefined || labelClose === close + 2 || labelClose - close - 2 > MAX_LABEL
          ? shown
          : text.slice(close + 2, labelClose);
      const target = text[close + 1] === "(" ? undefined : definitions.targets.get(normalizedLabel(label));
      if (target !== undefined) {
        yield { shown, target, offset: open };
        if (labelClose !== undefined) resume = openAfter(labelClose + 1);
      }
    }
    open = resume;
  }
}

/** A label as CommonMark matches it: case folded, white space collapsed to single spaces, trimmed. */
export function normalizedLabel(label: string): string {
  let collapsed = "";
  let space = false;
  for (let index = 0; index < label.length; index++) {
    const code = label.charCodeAt(index);
    if (isSpace(code)) {
      space = collapsed !== "";
    } else {
      if (space) collapsed += " ";
      collapsed += label[index];
      space = false;
    }
  }
  // What markdown-it does for Unicode case folding: `ẞ` and `ß` both become `SS`.
  return collapsed.toLowerCase().toUpperCase();
}

/**
 * Whether a line's content is paragraph text, which a next line may continue: not blank, not an ATX heading,
 * and not a line of one repeated `=`, `-`, `*` or `_` (a setext underline or a thematic break).
 */
function continuesAsParagraph(content: string): boolean {
  const trimmed = content.trim();
  if (trimmed === "" || ATX_HEADING.test(trimmed)) return false;
  const first = trimmed[0] ?? "";
  return (
    !"=-*_".includes(first) || [...trimmed].some((character) => character !== first && character !== " ")
  );
}

const ATX_HEADING = /^#{1,6}(?:[ \t]|$)/;

/** The index of the line break that ends the line starting at `offset`, or the text's length. */
function lineEndOf(text: string, offset: number, steps?: Steps): number {
  const end = indexOf(text, "\n", offset, steps);
  return end === NOWHERE ? text.length : end;
}

/** What a line opens with before its content: `>` markers, counted, and whether a list item starts. */
interface Container {
  readonly quotes: number;
  readonly listItem: boolean;
  /** Where the content starts in the line. */
  readonly end: number;
}

function containerOf(line: string): Container {
  let quotes = 0;
  let listItem = false;
  let index = 0;
  for (;;) {
    const start = skipIndent(line, index);
    if (line[start] === ">") {
      quotes++;
      index = start + 1;
      if (line[index] === " ") index++;
      continue;
    }
    const marker = listMarkerEnd(line, start);
    if (marker === undefined) return { quotes, listItem, end: index };
    listItem = true;
    index = marker + 1;
  }
}

/** Just past the list marker (`-`, `*`, `+`, `1.`, `1)`) at `start` when a space follows it. */
function listMarkerEnd(line: string, start: number): number | undefined {
  let end = start;
  if (line[end] === "-" || line[end] === "*" || line[end] === "+") end++;
  else {
    while (end - start < 9 && line.charCodeAt(end) >= 0x30 && line.charCodeAt(end) <= 0x39) end++;
    if (end === start || (line[end] !== "." && line[end] !== ")")) return undefined;
    end++;
  }
  return line[end] === " " || line[end] === "\t" ? end : undefined;
}

/** Past at most three spaces at `from`. */
function skipIndent(line: string, from: number): number {
  let index = from;
  while (index - from < 3 && line[index] === " ") index++;
  return index;
}

interface Definition {
  readonly label: string;
  readonly target: string;
  /** Where its `[` is. */
  readonly start: number;
  /** The index of the line break that ends it (or the text's length). */
  readonly end: number;
}

/**
 * The definition whose line content starts at `from` (the line ends at `end`): at most three spaces,
 * `[label]:`, white space with at most one line break, a destination (`<…>` on one line, or a run without
 * white space), then the line's end or white space before a title. Only http(s) destinations are kept:
 * the others have no host to compare.
 */
function definitionAt(text: string, from: number, end: number, steps?: Steps): Definition | undefined {
  const start = skipIndent(text, from);
  if (text[start] !== "[") return undefined;
  let close = start + 1;
  while (close < end && close - start <= MAX_LABEL + 1 && text[close] !== "]" && text[close] !== "[") {
    close += text[close] === "\\" ? 2 : 1;
  }
  if (steps) steps.count += close - start;
  if (close >= end || text[close] !== "]" || text[close + 1] !== ":") return undefined;
  const label = normalizedLabel(text.slice(start + 1, close));
  if (label === "") return undefined;
  let destination = skipBlanks(text, close + 2);
  let lineEnd = end;
  if (destination === end && end < text.length) {
    lineEnd = lineEndOf(text, end + 1, steps);
    destination = skipBlanks(text, end + 1);
  }
  if (steps) steps.count += destination - close;
  const angled = text[destination] === "<";
  const targetStart = angled ? destination + 1 : destination;
  let targetEnd = targetStart;
  while (targetEnd < lineEnd && !endsTarget(text.charCodeAt(targetEnd), angled)) targetEnd++;
  if (steps) steps.count += targetEnd - targetStart;
  const after = angled ? targetEnd + 1 : targetEnd;
  if (targetEnd === targetStart || (angled && text[targetEnd] !== ">")) return undefined;
  if (after < lineEnd && !isSpace(text.charCodeAt(after))) return undefined;
  const target = text.slice(targetStart, targetEnd);
  if (!/^https?:\/\//i.test(target)) return undefined;
  return { label, target, start, end: lineEnd };
}

const endsTarget = (code: number, angled: boolean) =>
  angled ? code === 0x3e || code === 0x3c || code === 0x0a : isSpace(code);

/** Past spaces and tabs (no line break) at `from`. */
function skipBlanks(text: string, from: number): number {
  let index = from;
  while (text[index] === " " || text[index] === "\t") index++;
  return index;
}
