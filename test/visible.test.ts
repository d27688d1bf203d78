import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  codePoint,
  excerpt,
  firstUnseen,
  namedInProse,
  quoted,
  quotedApart,
  quotedName,
  visible,
} from "../src/shared/index.js";

// Input was quoted back four ways: JSON.stringify of its first 100 UTF-16 units (no ellipsis, a lone
// surrogate at the cut, a bidi override kept raw), of an excerpt (an ellipsis, the override still raw), the
// catalog's `"${visible(excerpt(…))}"` (escaped, but a quote inside left bare), and cut at 200. One now.
describe("quoted", () => {
  it("quotes as JSON does, each character no reader sees written out", () => {
    expect(quoted('a"b\\c')).toBe('"a\\"b\\\\c"');
    expect(quoted("a\nb\u202ec\u200bd")).toBe('"a{U+000A}b{U+202E}c{U+200B}d"');
  });

  it("cuts past `max` characters with an ellipsis, never inside one", () => {
    expect(quoted("x".repeat(100))).toBe(`"${"x".repeat(100)}"`);
    expect(quoted("x".repeat(101))).toBe(`"${"x".repeat(100)}…"`);
    expect(quoted(`${"a".repeat(99)}😀b`)).toBe(`"${"a".repeat(99)}😀…"`);
    expect(quoted("abcdef", 3)).toBe('"abc…"');
  });
});

// A catalog name in a call an answer suggests was written raw, `read_skill(skill="${name}")`: a name
// holding a quote ended its quote early, and a newline or bidi control rewrote the answer around it.
describe("quotedName", () => {
  it("is JSON's string, each unseen character as JSON's \\u escape, so that the call reads back the name", () => {
    expect(quotedName("pdf")).toBe('"pdf"');
    expect(quotedName('say "hi"\\')).toBe('"say \\"hi\\"\\\\"');
    expect(quotedName("a\nb\u202ec\u200bd\u{e0041}")).toBe('"a\\nb\\u202ec\\u200bd\\udb40\\udc41"');
    expect(quotedName("x".repeat(255))).toBe(`"${"x".repeat(255)}"`);
  });

  it("reads back, through JSON, as the name it quotes", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary" }), (name) => {
        const written = quotedName(name);
        expect(JSON.parse(written)).toBe(name);
        expect(visible(written)).toBe(written);
      }),
    );
  });
});

describe("namedInProse", () => {
  it("leaves a name of letters, digits and ._/:@+- bare, and quotes any other", () => {
    expect(namedInProse("n8n/code-nodes")).toBe("n8n/code-nodes");
    expect(namedInProse("café_2.0")).toBe("café_2.0");
    expect(namedInProse("a b")).toBe('"a b"');
    expect(namedInProse("a`b")).toBe('"a`b"');
    expect(namedInProse("a\u200bb")).toBe('"a\\u200bb"');
    // A combining mark is plain; one that is also default-ignorable (U+034F) is not.
    expect(namedInProse("e\u0301")).toBe("e\u0301");
    expect(namedInProse("e\u034f")).toBe('"e\\u034f"');
  });
});

// visible looks each character up before it runs its expression, which cost 15 ns a character: the two
// must tell the same of every character, alone, between letters, and of surrogates alone or paired.
describe("visible", () => {
  it("writes out exactly the characters its expression names, every code point tried", () => {
    const unseen = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cn}\p{Default_Ignorable_Code_Point}]/gu;
    const expected = (text: string) =>
      text.replace(unseen, (character) => `{${codePoint(character.codePointAt(0) ?? 0)}}`);
    const differ: string[] = [];
    for (let point = 0; point <= 0x10ffff; point++) {
      const text = `a${String.fromCodePoint(point)}b`;
      if (visible(text) !== expected(text)) differ.push(codePoint(point));
    }
    for (const text of [
      "\ud800",
      "x\udc00",
      "\udc00\ud800",
      "\ud800\ud800\udc00",
      "\udb40\udc41\udfff",
      "\u00e9\u200b",
    ]) {
      if (visible(text) !== expected(text)) differ.push(JSON.stringify(text));
    }
    expect(differ).toEqual([]);
  });
});

// The fetcher refuses a skills.toml value holding what visible writes out, and names the character.
describe("firstUnseen", () => {
  it("finds the first character visible writes out, past letters, spaces and astral characters", () => {
    expect(firstUnseen("https://host/a b.git")).toBeUndefined();
    expect(firstUnseen("😀 a\u202eb\u200bc")).toBe(0x202e);
    expect(firstUnseen("tag\u{e0041}")).toBe(0xe0041);
    expect(firstUnseen("line\u2028")).toBe(0x2028);
    expect(firstUnseen("soft\u00adhyphen")).toBe(0xad);
  });

  it("passes over the characters allowed, and finds the next", () => {
    const breaks = (code: number) => code === 0x0a || code === 0x09;
    expect(firstUnseen("a\n\tb", breaks)).toBeUndefined();
    expect(firstUnseen("a\n\u2066b", breaks)).toBe(0x2066);
  });
});

// Regression: a body's method and an Mcp-Method header of 120 characters that differ in their last were
// both quoted as the same first 100 characters, so the refusal showed two values alike.
describe("quotedApart", () => {
  it("quotes two texts as quoted does when the cut keeps where they differ", () => {
    expect(quotedApart("tools/list ", "tools/list")).toEqual({
      first: '"tools/list "',
      second: '"tools/list"',
    });
    expect(quotedApart(`${"a".repeat(99)}b${"c".repeat(50)}`, `${"a".repeat(99)}d`)).toEqual({
      first: `"${"a".repeat(99)}b…"`,
      second: `"${"a".repeat(99)}d"`,
    });
  });

  it("shows both from just before where they differ, and says where, when a cut would hide it", () => {
    const same = "a".repeat(120);
    expect(quotedApart(`${same}y`, `${same}x`)).toEqual({
      first: `"…${"a".repeat(20)}y"`,
      second: `"…${"a".repeat(20)}x"`,
      differsAt: 121,
    });
    expect(quotedApart(same, `${same}\n${"z".repeat(200)}`)).toEqual({
      first: `"…${"a".repeat(20)}"`,
      second: `"…${"a".repeat(20)}{U+000A}${"z".repeat(79)}…"`,
      differsAt: 121,
    });
  });

  it("counts and cuts characters, never inside a surrogate pair", () => {
    const same = "😀".repeat(110);
    expect(quotedApart(`${same}😀`, `${same}😁`)).toEqual({
      first: `"…${"😀".repeat(21)}"`,
      second: `"…${"😀".repeat(20)}😁"`,
      differsAt: 111,
    });
    // A lone surrogate is a character of its own, as excerpt counts it.
    const lone = "\udc00".repeat(110);
    expect(quotedApart(`${lone}a`, `${lone}b`).differsAt).toBe(111);
  });
});

/** What excerpt read a character at a time with the string's iterator: the definition of its cut. */
function excerptByCharacters(text: string, length: number): string {
  let count = 0;
  let end = 0;
  for (const character of text) {
    if (count === length) return `${text.slice(0, end)}…`;
    count++;
    end += character.length;
  }
  return text;
}

// The audit quotes a snippet for each hit, one every few words of a hostile line: excerpt reads UTF-16
// units, not the iterator's one-character strings, and must cut where the iterator did.
describe("excerpt", () => {
  it("cuts where counting the string's characters one by one cuts", () => {
    const units = fc.constantFrom("a", "é", "😀", "\ud800", "\udc00", "\u200b", " ");
    fc.assert(
      fc.property(
        fc.array(units, { maxLength: 40 }).map((parts) => parts.join("")),
        fc.nat(45),
        (text, length) => {
          expect(excerpt(text, length)).toBe(excerptByCharacters(text, length));
        },
      ),
      { numRuns: 3000 },
    );
  });
});
