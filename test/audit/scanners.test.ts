import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { repeated } from "../../bench/hostile-text.js";
import { encodedRuns } from "../../src/audit/blobs.js";
import { commentsOutsideSpans, inlineCode } from "../../src/audit/code-spans.js";
import { htmlLinks, markdownLinks } from "../../src/audit/links.js";
import type { Link } from "../../src/audit/references.js";
import { linkDefinitions, referenceLinks } from "../../src/audit/references.js";
import type { Steps } from "../../src/audit/scan.js";

/** The code spans of `line`, in order, as the audit reads them within a line. */
function* codeSpans(line: string, steps?: Steps): Generator<{ start: number; end: number }> {
  for (const { start, end } of inlineCode(line, 0, line.length, false, steps)) yield { start, end };
}

/** Where the first `<!--` of `line` outside its code spans starts, or -1, as the audit reads it in a line. */
function commentOutsideCode(line: string, steps?: Steps): number {
  return commentsOutsideSpans(line, 0, line.length, steps).next().value ?? -1;
}

/**
 * Issue 24: the audit's link rules were regular expressions that backtrack, quadratic (and worse) on text
 * an attacker writes (`[a](http://x` repeated, `<a href=x ` repeated), and the encoded-blob one overflowed
 * the stack on a long run. Scanners replace them. These tests pin that the scanners find exactly what the
 * regular expressions found, and that their work, counted in characters looked at, grows linearly.
 */

/** The regular expressions the scanners replace: the definition of what they must find. */
const MARKDOWN_LINK =
  /\[([^\]\n]{1,300})\]\(\s*<?(https?:\/\/[^\s)>]+)>?(?:\s+(?:"[^"\n]*"|'[^'\n]*'))?\s*\)/gi;
const HTML_LINK = /<a\s[^>]*?href\s*=\s*["']?(https?:\/\/[^"'\s>]+)["']?[^>]*>([\s\S]{1,300}?)<\/a\s*>/gi;
const ENCODED_RUN = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{1024,}={0,2}/g;

/**
 * Code spans as CommonMark reads them within a line, by its definition and in quadratic time: a run of
 * backticks outside a span, its first backtick not escaped by a backslash, opens a span that the next run
 * of exactly as many backticks closes; with none, the run is text.
 */
function referenceSpans(line: string): { start: number; end: number }[] {
  const spans: { start: number; end: number }[] = [];
  const runEnd = (from: number) => {
    let end = from;
    while (line[end] === "`") end++;
    return end;
  };
  for (let at = 0; at < line.length; ) {
    if (line[at] === "\\") at += 2;
    else if (line[at] !== "`") at++;
    else {
      const end = runEnd(at);
      let closer = end;
      while (closer < line.length && !(line[closer] === "`" && runEnd(closer) - closer === end - at)) {
        closer = line[closer] === "`" ? runEnd(closer) : closer + 1;
      }
      if (closer < line.length) spans.push({ start: at, end: runEnd(closer) });
      at = closer < line.length ? runEnd(closer) : end;
    }
  }
  return spans;
}

function linksByRegex(text: string, pattern: RegExp, shown: 1 | 2, target: 1 | 2): Link[] {
  return [...text.matchAll(pattern)].map((match) => ({
    shown: match[shown] ?? "",
    target: match[target] ?? "",
    offset: match.index,
  }));
}

/** Texts made of the pieces the patterns look for, in any order: where a scanner would go wrong. */
function piecesOf(pieces: readonly string[]): fc.Arbitrary<string> {
  return fc.array(fc.constantFrom(...pieces), { maxLength: 40 }).map((parts) => parts.join(""));
}

const SPACES = [" ", "  ", "\t", "\n", "\r\n", "\u00a0", "\u2028", "\ufeff"];
const LINK_PIECES = [
  ...SPACES,
  ...["[", "]", "(", ")", "](", "<", ">", '"', "'", "!", "x", "a.com", "/", ":", "`"],
  ...["http://", "https://", "HTTPS://", "http:/", "<a ", "<A\n", "<a", "href", "HREF", "=", "</a>"],
  ...["</a >", "</A\t>", "</a", "[a](http://x", "<a href=x ", '"t"', "y".repeat(150)],
];
const SPAN_PIECES = ["`", "``", "```", "a", " ", "<!--", "<!", "--", "`a`", "``b``", "\\", "\\`"];
const BASE64 = Buffer.from("skills from strangers ".repeat(50)).toString("base64");
const BLOB_PIECES = [BASE64.slice(0, 1000), BASE64.slice(0, 30), "=", "==", " ", "\n", "-", "_", "é"];

describe("the audit's scanners find what the regular expressions they replace found", () => {
  it("Markdown links", () => {
    fc.assert(
      fc.property(piecesOf(LINK_PIECES), (text) => {
        expect([...markdownLinks(text)]).toEqual(linksByRegex(text, MARKDOWN_LINK, 1, 2));
      }),
      { numRuns: 3000 },
    );
  });

  it("HTML links", () => {
    fc.assert(
      fc.property(piecesOf(LINK_PIECES), (text) => {
        expect([...htmlLinks(text)]).toEqual(linksByRegex(text, HTML_LINK, 2, 1));
      }),
      { numRuns: 3000 },
    );
  });

  // Regression: spans were what `/(`+)[^`][\s\S]*?\1/g` matches, which pairs a run with part of a longer
  // one and reads an escaped backtick as one: `` `` <!-- x --> ` `` hid a comment from the audit that
  // CommonMark shows no span around, and so hides.
  it("code spans as CommonMark reads them, and the first <!-- outside them", () => {
    fc.assert(
      fc.property(piecesOf(SPAN_PIECES), (line) => {
        const spans = referenceSpans(line);
        expect([...codeSpans(line)]).toEqual(spans);
        let blanked = line;
        for (const { start, end } of spans)
          blanked = blanked.slice(0, start) + " ".repeat(end - start) + blanked.slice(end);
        expect(commentOutsideCode(line)).toBe(blanked.indexOf("<!--"));
      }),
      { numRuns: 3000 },
    );
  });

  it("runs of base64 or hex", () => {
    fc.assert(
      fc.property(piecesOf(BLOB_PIECES), (text) => {
        const found = encodedRuns(text, 0, text.length).map(({ start, end }) => [start, end]);
        const expected = [...text.matchAll(ENCODED_RUN)].map((m) => [m.index, m.index + m[0].length]);
        expect(found).toEqual(expected);
      }),
      { numRuns: 1000 },
    );
  });
});

/** Each scanner, and texts built to make a backtracking regular expression retry the same stretch. */
const SCANS: Record<
  string,
  { scan: (text: string, steps: Steps) => unknown; texts: Record<string, string> }
> = {
  "Markdown links": {
    scan: (text, steps) => [...markdownLinks(text, steps)],
    texts: {
      "a link's start repeated": "[a](http://x",
      "an opening bracket": "[",
      "an opening bracket after a link's start": "[a](http://x [",
      "a destination of spaces": "[a](     ",
      "an unclosed title": '[a](http://x "',
      links: "[a.com](http://b.com) ",
    },
  },
  "HTML links": {
    scan: (text, steps) => [...htmlLinks(text, steps)],
    texts: {
      "a link's start repeated": "<a href=x ",
      "a tag's start with an address": "<a href=http://x ",
      "a tag without its closing": '<a href="http://x">y',
      "a closing without its >": '<a href="http://x">y</a    ',
      "an href without =": "<a href ",
      links: '<a href="http://b.com">a.com</a> ',
    },
  },
  "reference links and their definitions": {
    scan: (text, steps) => {
      // A definition, so that the links are looked for at all.
      const defined = `[a]: https://b.com\n\n${text}`;
      return [...referenceLinks(defined, linkDefinitions(defined, steps), 300, steps)];
    },
    texts: {
      "a definition's start": "[a]:",
      "a label's start": "[a][",
      "opening brackets": "[",
      "brackets around a long label": `[${"y".repeat(200)}][`,
      "a definition and a link": "[a.com]: https://b.com\n[a.com][a.com] ",
      "definitions on one line each": "[a.com]:\n",
      "a fence": "```\n[a.com] ",
    },
  },
  "code spans": {
    scan: (text, steps) => [...codeSpans(text, steps)],
    texts: {
      backticks: "`",
      "a span's start": "``a",
      spans: "`a` ",
      "shorter runs": "```a``b`c",
      "escaped backticks": "\\\\`\\`",
    },
  },
  "comments outside code spans": {
    scan: (text, steps) => commentOutsideCode(`${text}<!--`, steps),
    texts: { "a span's start": "``a", spans: "`a` ", "a comment in a span": "`<!--` " },
  },
  "base64 runs": {
    scan: (text, steps) => encodedRuns(text, 0, text.length, steps),
    texts: { "one run": "QUJD", "runs just too short": `${"A".repeat(1023)} `, padding: "A=" },
  },
};

/** `unit` repeated to `size` characters, and closed so that the last tag or link can end. */
function closedRepeat(unit: string, size: number): string {
  return `${repeated(unit, size)}>)`;
}

describe("the audit's scanners look at each character a bounded number of times", () => {
  for (const [scanner, { scan, texts }] of Object.entries(SCANS)) {
    it.each(Object.entries(texts))(`${scanner}: %s repeated, at 64 KiB and at 1 MiB`, (_, unit) => {
      const work = (size: number) => {
        const steps = { count: 0 };
        scan(closedRepeat(unit, size), steps);
        return steps.count;
      };
      const small = work(64 * 1024);
      const large = work(1024 * 1024);
      // Sixteen times the text, sixteen times the work (a quadratic scanner would do 256 times); and at
      // most a few looks at each character.
      expect(large / small).toBeLessThan(16.5);
      expect(large).toBeLessThan(5 * 1024 * 1024);
    });
  }
});
