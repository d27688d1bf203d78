import { visible } from "../../src/shared/index.js";

/** How much of a body (an added SKILL.md, or a changed one's diff) is shown, and of each of its lines. */
export interface BodyRoom {
  readonly chars: number;
  readonly lineChars: number;
}

/**
 * Bodies are shown whole, up to WHOLE, when the review still fits: no rule flags plain words, so the diff
 * is where a reviewer reads an instruction aimed at the agent. Past the budget they are cut to SHORT.
 */
export const WHOLE: BodyRoom = { chars: 20_000, lineChars: 2000 };
export const SHORT: BodyRoom = { chars: 3000, lineChars: 200 };
const ROOMS = [WHOLE, SHORT];
/** A line kept this long is cut exactly as the whole line would be, in every room. */
const KEPT_LINE_CHARS = Math.max(...ROOMS.map((room) => room.lineChars)) + 1;

/**
 * The lines of a body that any room can show, and how many it has: all the review keeps of a SKILL.md
 * (up to 1 MiB, old and new) once compared, so that a bump changing many of them holds no more than it
 * can show.
 */
export interface Excerpt {
  readonly lines: readonly string[];
  readonly total: number;
}

export function excerptOf(lines: readonly string[]): Excerpt {
  const kept = Math.max(...ROOMS.map((room) => shownLines(lines, room).length));
  return {
    lines: lines
      .slice(0, kept)
      .map((line) => (line.length > KEPT_LINE_CHARS ? cut(line, KEPT_LINE_CHARS) : line)),
    total: lines.length,
  };
}

/** The first lines as `room` shows them, each cut to its line length, hidden characters as `{U+…}`. */
export function shownLines(lines: readonly string[], room: BodyRoom): string[] {
  const shown: string[] = [];
  let size = 0;
  for (const line of lines) {
    const cutLine = line.length > room.lineChars ? `${cut(line, room.lineChars)}…` : line;
    const text = cutLine.split("\t").map(visible).join("\t");
    if (size + text.length > room.chars) break;
    shown.push(text);
    size += text.length + 1;
  }
  return shown;
}

/** The first `chars` code points of `line`. */
function cut(line: string, chars: number): string {
  return [...line].slice(0, chars).join("");
}
