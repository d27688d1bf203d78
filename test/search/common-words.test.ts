import { readFileSync, statSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { COMMON_WORDS_FILE, commonWordsModule, wordListFolder } from "../../scripts/common-words.js";
import { isCommonWord, sortedWordsInclude } from "../../src/search/common-words.js";
import { ROOT, runBuiltScript, runScript } from "../helpers/process.js";

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

describe("npm run common-words", () => {
  // It took no arguments and said nothing of them: any was ignored, and the file written.
  it.each([["--check"], ["src/search/other.ts"]])(
    "refuses %s with the usage, exit 2, writing nothing",
    async (argument) => {
      const written = statSync(path.join(ROOT, COMMON_WORDS_FILE)).mtimeMs;
      // Its bundle, built from the same sources (test/helpers/built-scripts.ts): under tsx, each process
      // compiled its modules anew. --help, below, runs it from source, as `npm run common-words` does.
      const { code, stdout, stderr } = await runBuiltScript("scripts/common-words.ts", [argument]);
      expect(code).toBe(2);
      expect(stdout).toBe("");
      expect(stderr).toMatch(
        /^common-words: (unknown option|unexpected argument).*; valid: --help \(-h\)\n\nUsage: npm run common-words\n/,
      );
      expect(statSync(path.join(ROOT, COMMON_WORDS_FILE)).mtimeMs).toBe(written);
    },
  );

  it("prints its usage on --help, writing nothing", async () => {
    const written = statSync(path.join(ROOT, COMMON_WORDS_FILE)).mtimeMs;
    const { code, stdout } = await runScript("scripts/common-words.ts", ["--help"]);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^Usage: npm run common-words\n\nWrites src\/search\/common-words-list.ts/);
    expect(statSync(path.join(ROOT, COMMON_WORDS_FILE)).mtimeMs).toBe(written);
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
