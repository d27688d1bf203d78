/** The list item and quote markers that start a line's content: a list item's marker, and where they end. */
import { MAX_ITEMS_ON_A_LINE } from "./container-groups.js";
import { isThematicBreak } from "./markdown-blocks.js";

/** A list item's marker at the start of a line's content. */
const BULLET = /^(?:[-+*]|\d{1,9}[.)])(?=[ \t]|\r?$)/;

/** The list item marker that starts a line's content (`-`, `1.`, `2)`), if any. */
export function listItemMarker(content: string): string | undefined {
  return BULLET.exec(content)?.[0];
}

/**
 * Where the list item markers and quote markers that start a line's content end, each with the white space
 * after it: what `^(?:(?:[-+*]|\d{1,9}[.)])(?:[ \t]+|(?=\r?$))|>[ \t]?)*` matches, read forward (that
 * expression overflowed the stack on a line of millions of markers). With `texts`, where the text of each
 * container they open starts is added to it, in order (one character past an item's marker when indented
 * code follows it), for the first few: more than MAX_ITEMS_ON_A_LINE there means more are left out.
 */
export function containerMarkersEnd(content: string, texts?: number[]): number {
  // A thematic break is no list item (`- --`, `> * * *`): where the run of one mark and white space that
  // ends the line starts, found once, so that only the last few markers are read as a possible break.
  const breakFrom = trailingMarksStart(content);
  let at = 0;
  for (;;) {
    const code = content.charCodeAt(at);
    if (code === 0x3e) {
      at += content[at + 1] === " " || content[at + 1] === "\t" ? 2 : 1;
      if (texts !== undefined && texts.length <= MAX_ITEMS_ON_A_LINE) texts.push(at);
      // Up to three more spaces may stand before the marker of a container in the quote (`>  > a`).
      let next = at;
      while (next - at < 3 && content[next] === " ") next++;
      if (next > at && next < content.length && MARKER_START.includes(content.charAt(next))) at = next;
      continue;
    }
    if (at >= breakFrom && isThematicBreak(content.slice(at))) return at;
    let marker = code === 0x2d || code === 0x2b || code === 0x2a ? at + 1 : at;
    if (marker === at) {
      while (marker - at < 9 && isDigit(content.charCodeAt(marker))) marker++;
      const delimiter = content.charCodeAt(marker);
      marker = marker > at && (delimiter === 0x2e || delimiter === 0x29) ? marker + 1 : at;
    }
    if (marker === at) return at;
    let after = marker;
    while (content[after] === " " || content[after] === "\t") after++;
    if (after > marker) {
      at = after;
      if (texts !== undefined && texts.length <= MAX_ITEMS_ON_A_LINE) {
        texts.push(after - marker > 4 ? marker + 1 : after);
      }
    } else
      return marker === content.length || (content[marker] === "\r" && marker + 1 === content.length)
        ? marker
        : at;
  }
}

/**
 * Where the white space and copies of one mark (`-`, `*`, `_`) that end `content` start: a thematic break
 * can start there or later, nowhere before.
 */
export function trailingMarksStart(content: string): number {
  let mark = -1;
  let at = content.length;
  while (at > 0) {
    const code = content.charCodeAt(at - 1);
    if (code === 0x20 || code === 0x09 || code === 0x0d) at--;
    else if (mark === -1 && (code === 0x2d || code === 0x2a || code === 0x5f)) mark = code;
    else if (code === mark) at--;
    else break;
  }
  return at;
}

/** The characters a quote's or list item's marker may start with. */
const MARKER_START = ">-+*0123456789";

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}
