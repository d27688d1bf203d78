import { describe, expect, it } from "vitest";
import { quoted } from "../src/visible.js";

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
