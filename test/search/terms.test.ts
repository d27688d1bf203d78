import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { WordScanner, type WordSink, wordHashes, words } from "../../src/search/scanner.js";
import { foldedSpelling, referenceWords } from "../../src/search/terms.js";

/**
 * The scanner splits catalogs character by character for speed; what it must split them into is defined
 * by the regular expressions of `referenceWords`. These check the two agree on text mixing everything
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

describe("words", () => {
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
    const whole = (text: string) =>
      text
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
    fc.assert(
      fc.property(
        fc.integer({ min: 4000, max: 4100 }),
        fc.array(fc.constantFrom(...tricky), { minLength: 1, maxLength: 30 }),
        (lead, pieces) => {
          // Past 4,096 characters, where pieces are cut, and again past twice that.
          const text = `${"é".repeat(lead)}${pieces.join("").repeat(Math.ceil(5000 / pieces.length))}`;
          expect(foldedSpelling(text)).toBe(whole(text));
        },
      ),
      { numRuns: 300 },
    );
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
