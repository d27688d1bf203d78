/** The Markdown blocks the review is built of: sections, collapsed details, code fences. */
import { longestBacktickRun, visible } from "../../src/shared/index.js";
import { type BodyRoom, type Excerpt, shownLines } from "./excerpt.js";
import { count } from "./phrases.js";

/** Lists longer than this are collapsed, so that a 60-skill bump still reads from the top. */
const OPEN_ITEMS = 10;

/**
 * `lines` in a code fence longer than any run of backticks in them, each line and all of them cut as `room`
 * says, with a note of what was left out (`of what`) and `where` it is, hidden characters shown as `{U+…}`.
 */
export function fenced(
  lines: Excerpt,
  language: string,
  ofWhat: string,
  room: BodyRoom,
  where: string,
): string[] {
  const shown = shownLines(lines.lines, room);
  const longest = shown.reduce((most, line) => Math.max(most, longestBacktickRun(line)), 2);
  const fence = "`".repeat(longest + 1);
  const left = lines.total - shown.length;
  return [
    `${fence}${language}`,
    ...shown,
    fence,
    ...(left > 0
      ? ["", `… and ${count(left, "more line")} ${ofWhat}, cut to keep the review short: ${where}.`]
      : []),
  ];
}

export function collapsed(summary: string, body: readonly string[]): string[] {
  // Hidden characters of a skill's name shown as `{U+202E}`, as everywhere else, not left to reorder the line.
  return ["<details>", `<summary>${html(visible(summary))}</summary>`, "", ...body, "", "</details>", ""];
}

/** `text` safe inside an HTML element. */
function html(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/** A heading and its lines, collapsed when there are many; nothing when there is nothing. */
export function section(lines: string[], title: string, items: number, body: readonly string[]): void {
  if (items === 0) return;
  lines.push(`#### ${title}`, "");
  append(lines, collapsible(count(items, "item"), body, items));
}

/**
 * `items` added to `lines` one by one: spread into one call (`push(...items)`), some hundred thousand
 * lines (twenty added SKILL.md files of 10,000 short lines, shown whole) overflow the call stack.
 */
export function append(lines: string[], items: readonly string[]): void {
  for (const item of items) lines.push(item);
}

export function collapsible(summary: string, body: readonly string[], items: number): string[] {
  // One blank line after it: a body ending in a collapsed block (a diff) has its own.
  if (items <= OPEN_ITEMS) return body.at(-1) === "" ? [...body] : [...body, ""];
  return ["<details>", `<summary>${summary}</summary>`, "", ...body, "", "</details>", ""];
}
