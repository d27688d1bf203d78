import { describe, expect, it } from "vitest";
import { withTypo } from "../../bench/typos.js";
import { oneMistakeApart } from "../../src/search/spelling.js";

describe("withTypo", () => {
  const request = "Harden our deploy script so it stops at the first failing command";

  it("mistypes one word of five letters or more by one mistake, keeping its first letter", () => {
    for (let seed = 0; seed < 200; seed++) {
      const { text, word } = withTypo(request, `seed-${seed}`);
      expect(word).toBeDefined();
      if (word === undefined) continue;
      expect(request.split(" ")).toContain(word.from);
      expect(word.from.length).toBeGreaterThanOrEqual(5);
      expect(word.to[0]).toBe(word.from[0]);
      expect(word.to !== word.from && oneMistakeApart(word.from, word.to)).toBe(true);
      expect(text).toBe(request.replace(new RegExp(`\\b${word.from}\\b`), word.to));
    }
  });

  it("mistypes the same way for the same seed, and differently across seeds", () => {
    expect(withTypo(request, "dev-01")).toEqual(withTypo(request, "dev-01"));
    const texts = new Set(Array.from({ length: 50 }, (_, seed) => withTypo(request, String(seed)).text));
    expect(texts.size).toBeGreaterThan(25);
  });

  it("leaves a request without a long enough word as it is", () => {
    expect(withTypo("fix the bug in my app", "x")).toEqual({ text: "fix the bug in my app" });
  });
});
