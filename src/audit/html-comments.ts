/** The html-comment rule: HTML comments a Markdown file's rendered view hides, less the directives of Markdown tools. */
import { visible } from "../shared/index.js";
import { markdownLines } from "./markdown-lines.js";
import type { Hit } from "./rules.js";
import { isSpace } from "./scan.js";
import { lineBreakOf } from "./text.js";

/**
 * HTML comments outside code: a rendered SKILL.md does not show them, but a model reads them. Comments
 * shown inside code blocks (fenced or indented) or code spans are examples a reader sees.
 */
export function* htmlCommentHits(text: string): Generator<Hit> {
  if (!text.includes("<!--")) return;
  const lineBreak = lineBreakOf(text);
  for (const { comment } of markdownLines(text)) {
    if (comment === undefined) continue;
    const { open, close } = comment;
    const inside = text.slice(open + 4, close === -1 ? text.length : close);
    const resume = close === -1 ? text.length : text.indexOf(lineBreak, close);
    // The scan goes on at the next line: a directive passes only with no other comment after it.
    const rest = close === -1 ? "" : text.slice(close + 3, resume === -1 ? text.length : resume);
    if (close === -1 || !isToolDirective(inside) || rest.includes("<!--")) {
      yield {
        rule: "html-comment",
        offset: open,
        detail: `hidden from the rendered view: ${JSON.stringify(visible(collapsedStart(inside, 120)))}`,
      };
    }
  }
}

/**
 * Comments that tell a Markdown tool what to do, written whole: linters (`markdownlint-disable MD013`),
 * formatters (`prettier-ignore`), tables of contents (`toc`, `omit in toc`), prose linters and spell
 * checkers turned off and on, excerpt breaks (`more`, `truncate`). A team's own skills, linted and
 * formatted, hold them in every file. Their words are fixed, and markdownlint's take only rule numbers,
 * so they carry no text of anyone's choosing; a directive that takes free text (`cspell:ignore`,
 * `markdownlint-configure-file`) is not one of them.
 */
const TOOL_DIRECTIVES = new Set([
  "prettier-ignore",
  "prettier-ignore-start",
  "prettier-ignore-end",
  "toc",
  "/toc",
  "tocstop",
  "omit in toc",
  "omit from toc",
  "vale off",
  "vale on",
  "textlint-disable",
  "textlint-enable",
  "cspell:disable",
  "cspell:enable",
  "cspell:disable-next-line",
  "more",
  "truncate",
]);

/** markdownlint's inline directives, each followed by the rule numbers it applies to, or none (all). */
const MARKDOWNLINT_DIRECTIVES = new Set([
  "markdownlint-disable",
  "markdownlint-enable",
  "markdownlint-disable-line",
  "markdownlint-disable-next-line",
  "markdownlint-disable-file",
  "markdownlint-enable-file",
  "markdownlint-capture",
  "markdownlint-restore",
]);

const MARKDOWNLINT_RULE = /^md\d{3}$/;

/** Longer than any directive above with a dozen rule numbers: a longer comment is not read as one. */
const LONGEST_DIRECTIVE = 160;

/** Whether the text of a comment is one of the tool directives above, and nothing else. */
export function isToolDirective(inside: string): boolean {
  if (inside.length > LONGEST_DIRECTIVE) return false;
  const words = inside.trim().toLowerCase().split(/\s+/);
  if (TOOL_DIRECTIVES.has(words.join(" "))) return true;
  const [directive = "", ...rules] = words;
  return MARKDOWNLINT_DIRECTIVES.has(directive) && rules.every((rule) => MARKDOWNLINT_RULE.test(rule));
}

/**
 * The first `length` characters of `text` with its white space collapsed to single spaces and trimmed,
 * and an ellipsis when there are more: `excerpt(text.replace(/\s+/g, " ").trim(), length)`, reading only
 * as far as it keeps (an unclosed comment runs to the end of the file).
 */
export function collapsedStart(text: string, length: number): string {
  let kept = "";
  let count = 0;
  let space = false;
  for (const character of text) {
    if (character.length === 1 && isSpace(character.charCodeAt(0))) {
      if (count > 0) space = true;
      continue;
    }
    for (const next of space ? [" ", character] : [character]) {
      if (count === length) return `${kept}…`;
      kept += next;
      count++;
    }
    space = false;
  }
  return kept;
}
