import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WordScanner, type WordSink, wordHashes, words } from "../../src/search/scanner.js";
import {
  compoundEnd,
  foldedSpelling,
  forEachCompound,
  forEachWordOfCompound,
  referenceWords,
  SPACELESS_CHARACTER,
  withinMarksLimit,
} from "../../src/search/terms.js";

/**
 * The scanner splits catalogs character by character for speed; what it must split them into is defined
 * by `referenceWords`. These check the two agree on text mixing everything
 * the fast path treats specially.
 */
const PIECES = [
  ..."abcxyzABCXYZ0189".split(""),
  "-",
  "_",
  "'",
  "’",
  " ",
  "\n",
  ".",
  ",",
  "#",
  "--",
  "n8n",
  "don't",
  "Customer's",
  "é",
  "ß",
  "İ",
  "Σ",
  "ς",
  "Ä",
  "ǅ",
  "ẞ",
  "ﬀ",
  "straße",
  "ÉCOLE",
  "naïve",
  "Ω",
  "ж",
  "中文",
  "可視化",
  "データ",
  "٣",
  "Ⅻ",
  "\u0301",
  "e\u0301",
  "Résumé",
  "ﬁle",
  "ＡＰＩ",
  "１２",
  "हिन्दी",
  "\u093f\u0951".repeat(20),
  "½",
  "⑴",
  "ı",
  "Øre",
  "ﷺ",
  "😀",
  "𝒜",
  "—",
  "\u00a0",
  "\u00ad",
  "\u200c",
  "\u200d",
  "docu\u00adment",
  "می\u200cخواهم",
  "the",
  "and",
  "nodes",
];

/**
 * The regular expression that found compounds before `compoundEnd`, whose backtracking took a stack growing
 * with the compound (17-26 MiB for 600,000 characters): what the loop must find, kept as its oracle.
 */
function oldCompound(apostrophe: string, flags: string): RegExp {
  const ignorable = "\\u00AD\\u200C\\u200D";
  const part = `[\\p{L}\\p{N}][\\p{L}\\p{N}\\p{M}]*(?:[${ignorable}]+[\\p{L}\\p{N}][\\p{L}\\p{N}\\p{M}]*)*`;
  const elision = `(?:${apostrophe}\\p{L}[\\p{L}\\p{M}]*(?:[${ignorable}]+\\p{L}[\\p{L}\\p{M}]*)*)*`;
  return new RegExp(`${part}${elision}(?:[-_]${part}${elision})*`, flags);
}

/** What a compound is made of and what ends one, in every kind (astral, lone surrogate halves included). */
const COMPOUND_PIECES = [
  ..."aZé5ßﬁ中".split(""),
  "٣", // a digit of another script
  "Ⅻ", // a letter number
  "½", // another number
  "\u0301", // nonspacing marks
  "\u093f",
  "\u0903", // a spacing mark
  "\u20dd", // an enclosing mark
  "\u00ad",
  "\u200c",
  "\u200d",
  "'",
  "’",
  "-",
  "_",
  " ",
  ".",
  "😀",
  "𝒜", // an astral letter
  "𝟘", // an astral digit
  "\u{1d167}", // an astral mark
  "\u{10330}", // an astral letter of another script
  "\u{10107}", // an astral number
  "\u{11000}", // an astral spacing mark
  "\u{e0100}", // an astral mark of plane 14
  "\u{e0041}", // an astral tag: none of them
  "\u{20000}", // a letter of plane 2
  "\u{50000}", // unassigned
  "\u{f0000}", // private use
  "\ud835", // halves of a surrogate pair, alone or meeting
  "\udc9c",
];

describe("compounds", () => {
  const compoundsOf = (text: string, curly: boolean) => {
    const found: [number, number][] = [];
    forEachCompound(text, curly, (start, end) => found.push([start, end]));
    return found;
  };
  const oldCompoundsOf = (text: string, apostrophe: string) =>
    [...text.matchAll(oldCompound(apostrophe, "gu"))].map((match) => [
      match.index,
      match.index + match[0].length,
    ]);

  it("are found where the regular expression found them, from any position, on any mix", () => {
    const sticky = { curly: oldCompound("['’]", "uy"), straight: oldCompound("'", "uy") };
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...COMPOUND_PIECES), { maxLength: 30 }), (pieces) => {
        const text = pieces.join("");
        expect(compoundsOf(text, true)).toEqual(oldCompoundsOf(text, "['’]"));
        expect(compoundsOf(text, false)).toEqual(oldCompoundsOf(text, "'"));
        // From each character's start: inside a surrogate pair, the expression stepped back to the pair's
        // start (and the scanner never starts there).
        for (let at = 0; at <= text.length; at += (text.codePointAt(at) ?? 0) > 0xffff ? 2 : 1) {
          sticky.curly.lastIndex = at;
          sticky.straight.lastIndex = at;
          expect(compoundEnd(text, at, true)).toBe(at + (sticky.curly.exec(text)?.[0].length ?? 0));
          expect(compoundEnd(text, at, false)).toBe(at + (sticky.straight.exec(text)?.[0].length ?? 0));
        }
      }),
      { numRuns: 3000 },
    );
  });

  it("are found where the regular expression found them, for each character of the astral planes that hold some", () => {
    // Each astral character as a compound's start, after an apostrophe (a letter only) and after a letter
    // (a mark too), twice: when first classified and when its kind is remembered. The planes that hold
    // characters whole (1, 2, 3 and 14), the start of the others (unassigned, or for private use), and lone
    // surrogates, remembered with them.
    const ranges = [[0xd800, 0xe000]];
    for (let plane = 1; plane <= 16; plane++) {
      ranges.push([plane * 0x10000, plane * 0x10000 + ([1, 2, 3, 14].includes(plane) ? 0x10000 : 0x400)]);
    }
    for (const [start = 0, end = 0] of ranges) {
      const characters: string[] = [];
      for (let code = start; code < end; code++) {
        const character = String.fromCodePoint(code);
        characters.push(`${character}'${character} a${character} `);
      }
      const text = characters.join("");
      // Compared as one string: toEqual over 200,000 pairs took seconds.
      const expected = oldCompoundsOf(text, "'").join(" ");
      expect(compoundsOf(text, false).join(" ")).toBe(expected);
      expect(compoundsOf(text, false).join(" ")).toBe(expected);
    }
  });

  it("are found whole past the length at which the regular expression overflowed its stack", () => {
    // 8 million characters of a letter and its accent: a RangeError (Maximum call stack size exceeded).
    expect(compoundEnd("e\u0301".repeat(4_000_000), 0, true)).toBe(8_000_000);
  });

  it("are found whole however long, where the regular expression found them", () => {
    for (const unit of ["a\u00ad", "ß-", "a’b-", "e\u0301", "𝒜'", "数据"]) {
      const text = `${unit.repeat(20_000)} ${unit}`;
      expect(compoundsOf(text, true)).toEqual(oldCompoundsOf(text, "['’]"));
    }
  });
});

/**
 * Folding as it was defined, every text normalized whole (the marks past 30 in a row dropped by the
 * regular expression that did it).
 */
function wholeFolding(text: string): string {
  return text
    .replace(/([\p{M}\uFF9E\uFF9F]{30})[\p{M}\uFF9E\uFF9F]+/gu, "$1")
    .normalize("NFKC")
    .toLowerCase()
    .normalize("NFD")
    .replace(/(\p{Script=Latin})\p{M}+/gu, "$1")
    .normalize("NFC")
    .replace(
      /[ßæœøłđı]/g,
      (letter) => ({ ß: "ss", æ: "ae", œ: "oe", ø: "o", ł: "l", đ: "d", ı: "i" })[letter] ?? letter,
    );
}

/**
 * Characters whose folding depends on their neighbours, or that are folded one at a time: astral letters
 * whose NFKC is a Latin one (which an accent after it composes with), Chinese of both planes, Hangul jamo
 * that compose into syllables, Latin letters and their accents, marks of every class (a vowel sign that
 * composes with the vowel before it), compatibility forms, astral capitals, a final sigma, lone surrogate
 * halves.
 */
const FOLDING_PIECES = [
  ..."aeoAZ5-'’ ".split(""),
  "𝒜",
  "𝐀",
  "𝟘",
  "𝔄",
  "\u{1d6ba}", // mathematical bold capital sigma
  "数",
  "\u{20000}",
  "\u{2f800}", // a compatibility ideograph
  "ᄀ",
  "ᅡ",
  "ᆨ",
  "가",
  "각",
  "é",
  "\u0301",
  "\u0316",
  "\u0345",
  "\u0334",
  "\u0bbe",
  "\u0bc6",
  "\u{1133e}",
  "\u{11347}",
  "\u{1d165}",
  "ǿ",
  "ø",
  "ß",
  "ẞ",
  "İ",
  "ı",
  "Σ",
  "ﬁ",
  "ｶ",
  "ﾞ",
  "Ⅻ",
  "½",
  "\u{10400}", // a Deseret capital
  "\u{10330}",
  "😀",
  "\u{e0041}",
  "\ud835",
  "\udc9c",
];

describe("folding", () => {
  it("folds any text as the normalizations did whole, short or long", () => {
    // What a character at a time gets wrong: halfwidth voiced marks past 30 (which NFKC makes marks), an
    // accent after a letter that NFKC makes Latin, compatibility jamo that NFKC makes a syllable of.
    for (const text of [`ｶ${"ﾞ".repeat(40)}`, "𝒜\u0301", "ㄱㅏ", "ㄱㅏㄱ"]) {
      expect(foldedSpelling(text)).toBe(wholeFolding(text));
    }
    const piece = fc.oneof(
      fc.constantFrom(...FOLDING_PIECES),
      fc.string({ unit: "binary", minLength: 1, maxLength: 3 }),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 40 }), (pieces) => {
        const text = pieces.join("");
        expect(foldedSpelling(text)).toBe(wholeFolding(text));
      }),
      { numRuns: 5000 },
    );
  });

  it("folds each character of every plane as the normalizations did, alone and twice", () => {
    // Twice: when first classified and when its kind is remembered. The planes that hold characters whole
    // (0, 1, 2, 3 and 14) and the start of the others (unassigned, or for private use).
    for (let plane = 0; plane <= 16; plane++) {
      const end = plane * 0x10000 + ([0, 1, 2, 3, 14].includes(plane) ? 0x10000 : 0x400);
      const folded: string[] = [];
      const expected: string[] = [];
      for (let code = plane * 0x10000; code < end; code++) {
        const character = String.fromCodePoint(code);
        for (const text of [character, `${character}${character}`]) {
          folded.push(foldedSpelling(text));
          expected.push(wholeFolding(text));
        }
      }
      // Compared as one string: toEqual over 130,000 strings took seconds.
      expect(folded.join(" ")).toBe(expected.join(" "));
    }
  });

  it("composes what NFC composes, as the normalizations did", () => {
    // Each character's decompositions, which NFKC composes again: Hangul jamo, a letter and its accents,
    // a vowel and the sign after it.
    for (let code = 0; code < 0x110000; code++) {
      const character = String.fromCodePoint(code);
      for (const text of new Set([character.normalize("NFD"), character.normalize("NFKD")])) {
        if (text !== character) expect(foldedSpelling(text)).toBe(wholeFolding(text));
      }
    }
  });
});

describe("words", () => {
  it("read ’ as ' in a compound longer than a piece as in a short one", () => {
    // Past 4,096 characters a loop reads it, not the regular expression (189 ms a MiB of `a’`).
    const wordsOf = (compound: string) => {
      const found: string[] = [];
      forEachWordOfCompound(compound, (word) => found.push(word));
      return found;
    };
    const long = `${"ab’cd-".repeat(1000)}e\u0301`;
    expect(wordsOf(long)).toEqual(wordsOf(long.replaceAll("’", "'")));
  });

  it("agree with the reference splitting on any mix of letters, digits, joiners and Unicode", () => {
    const scanner = new WordScanner();
    fc.assert(
      fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 40 }), (pieces) => {
        const text = pieces.join("");
        expect(words(text, scanner)).toEqual(referenceWords(text));
      }),
      { numRuns: 3000 },
    );
  });

  it("agree with the reference splitting for each character of the astral planes that hold some", () => {
    // Each astral character alone, after an apostrophe (a letter only) and after a letter (a mark too),
    // twice: when the scanner first classifies it and when it remembers its class. The planes that hold
    // characters whole (1, 2, 3 and 14), the start of the others (unassigned, or for private use).
    for (let plane = 1; plane <= 16; plane++) {
      const characters: string[] = [];
      const end = plane * 0x10000 + ([1, 2, 3, 14].includes(plane) ? 0x10000 : 0x400);
      for (let code = plane * 0x10000; code < end; code++) {
        const character = String.fromCodePoint(code);
        characters.push(`${character}'${character} a${character} `);
      }
      const text = characters.join("");
      // Compared as one string: toEqual over 200,000 words took seconds.
      const expected = referenceWords(text).join(" ");
      expect(words(text).join(" ")).toBe(expected);
      expect(words(text).join(" ")).toBe(expected);
    }
  });

  it("fold case, drop stop words and single letters, and split compounds", () => {
    expect(words("The N8N-Code-Nodes of a customer's workflow, don't")).toEqual([
      "n8n",
      "code",
      "nodes",
      "n8ncode",
      "codenodes",
      "n8ncodenodes",
      "customer",
      "workflow",
    ]);
  });

  it("spell words as people type them plainly: without Latin accents, in plain letters", () => {
    expect(words("Café naïve—déjà vu, Straße, İstanbul, Œuvre")).toEqual([
      "cafe",
      "naive",
      "deja",
      "vu",
      "strasse",
      "istanbul",
      "oeuvre",
    ]);
    expect(words("re\u0301sume\u0301")).toEqual(["resume"]);
    expect(words("ＡＰＩ ﬁle")).toEqual(["api", "file"]);
  });

  // A soft hyphen or a zero-width (non-)joiner inside a word split it in two: a skill saying
  // `Auf\u00ADlage` was not found by a request for `Auflage`, and one for `Auflage` missed it.
  it("read a soft hyphen or a zero-width joiner or non-joiner inside a word as absent", () => {
    expect(words("Auf\u00ADlage")).toEqual(words("Auflage"));
    expect(words("docu\u00ADment the work\u00AD\u00ADflow")).toEqual(["document", "workflow"]);
    expect(words("Deploy\u200Cment n8n-sub\u200Dworkflows")).toEqual(words("Deployment n8n-subworkflows"));
    expect(words("don't\u00ADs customer\u00AD's")).toEqual(words("don'ts customer 's"));
    expect(words("می\u200Cخواهم")).toEqual(["میخواهم"]);
    // Not inside a word: between words, or at either end, it is no letter and splits as before.
    expect(words("\u00ADword\u00AD next\u200C \u200Done")).toEqual(["word", "next"]);
    expect(words("pre\u00AD-flight")).toEqual(["pre", "flight"]);
  });

  it("read the soft hyphens and joiners inside a long compound as absent, astral letters around them kept", () => {
    // Past 4,096 characters (1,400 parts of two letters or more) they are taken out by a loop.
    const ignorable = fc.constantFrom("\u00ad", "\u200c", "\u200d");
    const letter = fc.constantFrom("a", "é", "ß", "数", "𝒜", "\u{10400}", "e\u0301");
    const part = fc
      .array(fc.tuple(letter, fc.option(ignorable, { nil: "" })), { minLength: 1, maxLength: 8 })
      .chain((pairs) => letter.map((last) => `${pairs.map(([a, b]) => a + b).join("")}${last}`));
    fc.assert(
      fc.property(fc.array(part, { minLength: 1400, maxLength: 1600 }), (parts) => {
        const text = parts.join("-");
        expect(words(text)).toEqual(words(text.replace(/[\u00AD\u200C\u200D]/g, "")));
      }),
      { numRuns: 30 },
    );
  });

  it("keep a word of another script whole, with the marks that are part of its letters", () => {
    expect(words("हिन्दी भाषा")).toEqual(["हिन्दी", "भाषा"]);
    expect(words("Ελληνικά")).toEqual(["ελληνικά"]);
  });

  it("keep at most 30 combining marks in a row, as Unicode's stream-safe text does, however many follow", () => {
    // Marks of two classes in turn: normalizing a run of them took time quadratic in its length.
    const marks = "\u093f\u0951".repeat(100_000);
    expect(words(`क${marks} river`)).toEqual([`क${marks.slice(0, 30)}`, "river"]);
    expect(words(`a${"\u0301\u0316".repeat(100_000)} après`)).toEqual(["apres"]);
    // Halfwidth ﾞ normalizes to a combining mark, so it counts as one.
    expect(words(`ｶ${"\u0301\uff9e".repeat(100_000)}`)).toEqual(words(`ｶ${"\u0301\uff9e".repeat(15)}`));
    expect(words("Tiếng Việt, བོད་ཡིག")).toEqual(["tieng", "viet", "བོད", "ཡིག"]);
  });

  it("drop the marks past 30 in a row as the regular expression that did it, however long the run", () => {
    // That expression, kept as the oracle: its backtracking took a stack growing with the run.
    const marks = "[\\p{M}\\uFF9E\\uFF9F]";
    const pastLimit = new RegExp(`(${marks}{30})${marks}+`, "gu");
    const piece = fc.oneof(
      fc.constantFrom("a", " ", "é", "\ud834", "\udd67", "\u{1d49c}", "\u{1f3fb}", "\u{e0041}"),
      fc
        .tuple(
          fc.constantFrom(
            ..."\u0301 \u0903 \u20dd \uff9e \uff9f \u{1d167} \u{11000} \u{e0100} \u{1e944}".split(" "),
          ),
          fc.nat({ max: 70 }),
        )
        .map(([mark, count]) => mark.repeat(count)),
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 8 }), (pieces) => {
        const text = pieces.join("");
        expect(withinMarksLimit(text)).toBe(text.replace(pastLimit, "$1"));
      }),
      { numRuns: 2000 },
    );
    // 8 million marks: a RangeError (Maximum call stack size exceeded) with the expression.
    expect(foldedSpelling("\u0301".repeat(8_000_000))).toBe("\u0301".repeat(30));
  });

  it("fold a long text a piece at a time as it would fold whole", () => {
    // Characters whose folding depends on their neighbours: marks (reordered, composed, dropped after a
    // Latin letter), Hangul jamo that compose into syllables, a final sigma, compatibility forms.
    const tricky = [
      ..."aeox-'’".split(""),
      "e\u0301",
      "\u0301",
      "\u0316",
      "\u0323\u0302",
      "ǿ",
      "ø",
      "ß",
      "ẞ",
      "é",
      "Σ",
      "σ",
      "𝚺",
      "ᄀ",
      "ᅡ",
      "ᆨ",
      "가",
      "ﬁ",
      "ｶ",
      "ﾞ",
      "İ",
      "ı",
      "数",
      "ж",
      "\u0306",
      "क",
      "\u0958",
      "\u093f\u0951",
      "\u0bc6",
      "\u0bbe",
      "ʰ",
      "😀",
      "\u{1d165}",
      "\u{1df00}\u0301",
      "\ud800",
      "\udc00",
    ];
    fc.assert(
      fc.property(
        fc.integer({ min: 4000, max: 4100 }),
        fc.array(fc.constantFrom(...tricky), { minLength: 1, maxLength: 30 }),
        (lead, pieces) => {
          // Past 4,096 characters, where pieces are cut, and again past twice that.
          const text = `${"é".repeat(lead)}${pieces.join("").repeat(Math.ceil(5000 / pieces.length))}`;
          expect(foldedSpelling(text)).toBe(wholeFolding(text));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("split around each Chinese or Japanese character of every plane, and no other", () => {
    // Each letter between two others: split around it when, folded, it is of those scripts (as the
    // expression that tested each character of a compound did), whole when not. The planes that hold
    // characters whole (0, 1, 2, 3 and 14), the start of the others.
    const scanner = new WordScanner();
    for (let plane = 0; plane <= 16; plane++) {
      const end = plane * 0x10000 + ([0, 1, 2, 3, 14].includes(plane) ? 0x10000 : 0x400);
      const found: string[] = [];
      const expected: string[] = [];
      for (let code = plane * 0x10000; code < end; code++) {
        const character = String.fromCodePoint(code);
        const folded = foldedSpelling(character);
        if (!/^\p{L}$/u.test(character) || !/^\p{L}$/u.test(folded)) continue;
        found.push(words(`q${character}q`, scanner).join(","));
        // A part of one character is a word when astral (two UTF-16 code units), as it always was.
        const part = folded.length > 1 ? `${folded},` : "";
        expected.push(
          SPACELESS_CHARACTER.test(folded) ? `${part}q${folded},${folded}q,q${folded}q` : `q${folded}q`,
        );
      }
      expect(found.join(" ")).toBe(expected.join(" "));
    }
  });

  it("split Chinese and Japanese into pairs of neighbouring characters, and keep the run", () => {
    expect(words("数据可视化")).toEqual(["数据", "据可", "可视", "视化", "数据可视化"]);
    expect(words("用Python生成图表")).toEqual([
      "python",
      "用python",
      "python生",
      "生成",
      "成图",
      "图表",
      "用python生成图表",
    ]);
    expect(words("データ 中文 한국어")).toEqual(["デー", "ータ", "データ", "中文", "한국어"]);
  });

  it("keep every pair of a long run of Chinese, and the run itself only up to 256 characters", () => {
    // A SKILL.md of one run of 300,000 kept it as a term.
    expect(words("数据".repeat(128)).at(-1)).toBe("数据".repeat(128));
    const past = words("数据".repeat(129));
    expect(past).toHaveLength(257);
    expect(new Set(past)).toEqual(new Set(["数据", "据数"]));
    expect(words(`a-${"数".repeat(254)}-b`).at(-1)).toBe(`a${"数".repeat(254)}b`);
    expect(words(`a-${"数".repeat(254)}-bc`).at(-1)).toBe("数bc");
    // The fast path's compounds alike.
    expect(words(`${"ab-".repeat(127)}ab`).at(-1)).toBe("ab".repeat(128));
    const compound = `${"ab-".repeat(128)}ab`;
    expect(words(compound).at(-1)).toBe("abab");
    expect(words(compound)).toEqual(referenceWords(compound));
  });

  it("drop a word longer than 256 characters, in any script, but keep the words around it", () => {
    // The longest word of the bench corpus has 217 (a protein sequence); a SKILL.md of one word of 1 MiB
    // was folded, stemmed and keyed whole.
    for (const letter of ["a", "A", "é", "ж", "ß"]) {
      const long = letter.repeat(300);
      expect(words(`river ${long} bank`)).toEqual(["river", "bank"]);
      expect(words(`river ${long} bank`)).toEqual(referenceWords(`river ${long} bank`));
    }
    expect(words("x".repeat(256))).toEqual(["x".repeat(256)]);
    expect(words(`${"x".repeat(256)}'s`)).toEqual([]);
    // Parts are kept, and pairs of parts as long as a word may be.
    expect(words(`${"x".repeat(200)}-${"y".repeat(56)}-${"z".repeat(57)}`)).toEqual([
      "x".repeat(200),
      "y".repeat(56),
      "z".repeat(57),
      `${"x".repeat(200)}${"y".repeat(56)}`,
      `${"y".repeat(56)}${"z".repeat(57)}`,
    ]);
  });

  it("drop numbers spelled out, but keep digits and the compounds numbers are part of", () => {
    expect(words("Six test files fail, one run in five, since Godot 4 gave error 404")).toEqual([
      "test",
      "files",
      "fail",
      "run",
      "since",
      "godot",
      "gave",
      "error",
      "404",
    ]);
    expect(words("two-factor login")).toEqual(["factor", "twofactor", "login"]);
  });

  it("hand over each word with the hashes of its folded spelling, whichever way it was written", () => {
    const seen: [string, number, number][] = [];
    const sink: WordSink = {
      span(text, start, end, hash, check, length) {
        expect(length).toBe(text.slice(start, end).replace(/[-_]/g, "").length);
        seen.push([text.slice(start, end), hash, check]);
      },
      word() {},
    };
    const text = "Sub-Workflows subworkflows SUB_WORKFLOWS it’s it's";
    new WordScanner().scan(text, 0, text.length, sink);
    const hashesOf = (spelling: string) =>
      seen.filter(([span]) => span === spelling).map(([, hash, check]) => [hash, check]);
    const joined = wordHashes("subworkflows", 0, 12);
    expect(hashesOf("Sub-Workflows")).toEqual([joined]);
    expect(hashesOf("subworkflows")).toEqual([joined]);
    expect(hashesOf("SUB_WORKFLOWS")).toEqual([joined]);
    expect(hashesOf("it’s")).toEqual(hashesOf("it's"));
  });
});
