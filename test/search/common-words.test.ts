import { readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { COMMON_WORDS_FILE, commonWordsModule, wordListFolder } from "../../scripts/common-words.js";
import { isCommonWord, sortedWordsInclude } from "../../src/search/common-words.js";

describe("isCommonWord", () => {
  it("knows common words and their forms, American and British, not mistakes", () => {
    for (const word of ["meal", "plants", "loaf", "door", "analyze", "aardvark", "zucchinis"]) {
      expect(isCommonWord(word)).toBe(true);
    }
    for (const word of ["neighbour", "analyse", "colours", "tyre", "licence"]) {
      expect(isCommonWord(word)).toBe(true);
    }
    for (const word of ["kubrnetes", "laod", "neighbuor", "", "meal plants"]) {
      expect(isCommonWord(word)).toBe(false);
    }
  });

  it("reads a list that is what `npm run common-words` makes of the installed word lists", () => {
    const file = path.join(import.meta.dirname, "../..", COMMON_WORDS_FILE);
    expect(readFileSync(file, "utf8")).toBe(commonWordsModule(wordListFolder()));
  });
});

describe("sortedWordsInclude", () => {
  it("finds exactly the words of any sorted list", () => {
    const word = fc.stringMatching(/^[a-c]{1,4}$/);
    fc.assert(
      fc.property(fc.uniqueArray(word, { maxLength: 30 }), word, (listed, sought) => {
        const sorted = [...listed].sort();
        expect(sortedWordsInclude(sorted.join(" "), sought)).toBe(sorted.includes(sought));
        for (const known of sorted) expect(sortedWordsInclude(sorted.join(" "), known)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
