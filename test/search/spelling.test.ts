import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { wordHashes } from "../../src/search/scanner.js";
import { oneMistakeApart, SpellingList, type SpellingTable } from "../../src/search/spelling.js";

/** A table of `words`, the term of each being its position. */
function tableOf(...words: string[]): SpellingTable {
  const list = new SpellingList(words.length);
  for (const [term, word] of words.entries()) list.add(...wordHashes(word, 0, word.length), term);
  return list.table();
}

describe("closeTerms", () => {
  const table = tableOf("filing", "failing", "kubernetes", "wish", "deployment", "strasse");

  it("finds the words one letter left out, added, changed or swapped away, with their spelling", () => {
    expect(table.closeTerms("fsiling")).toEqual(
      new Map([
        [0, "filing"],
        [1, "failing"],
      ]),
    );
    for (const mistyped of ["kubrnetes", "kubernnetes", "kubernetse", "kubernetez", "kuberentes"]) {
      expect(table.closeTerms(mistyped)).toEqual(new Map([[2, "kubernetes"]]));
    }
    expect(table.closeTerms("deploymnet")).toEqual(new Map([[4, "deployment"]]));
    expect(table.closeTerms("kubrentes")).toEqual(new Map());
  });

  it("takes the first letter as typed", () => {
    expect(table.closeTerms("diling")).toEqual(new Map());
    expect(table.closeTerms("ufbernetes")).toEqual(new Map());
  });

  it("finds nothing for a word one mistake from a stop word, which it more likely is", () => {
    expect(table.closeTerms("wisj")).toEqual(new Map([[3, "wish"]]));
    expect(table.closeTerms("wich")).toEqual(new Map());
  });

  // A word of 3 letters is read only as a word skills write in capitals (`aww` as AWS): the table
  // finds its close words, the search judges them (test/search/index.test.ts).
  it("looks only at words of 3 to 32 letters a to z", () => {
    expect(tableOf("fil").closeTerms("fi")).toEqual(new Map());
    expect(tableOf("fila").closeTerms("fil")).toEqual(new Map([[0, "fila"]]));
    expect(table.closeTerms("strase")).toEqual(new Map([[5, "strasse"]]));
    expect(table.closeTerms("straße")).toEqual(new Map());
    const long = "a".repeat(32);
    expect(tableOf(long).closeTerms(`${long}b`)).toEqual(new Map());
    expect(tableOf(long).closeTerms(`${long.slice(1)}b`)).toEqual(new Map([[0, long]]));
  });

  it("finds exactly the catalog's words one mistake away that keep the first letter, on any words", () => {
    // Letters without vowels, so that no word here is one mistake from a stop word.
    const letter = fc.constantFrom(..."bcdf");
    const word = fc.stringMatching(/^[bcdf]{4,9}$/);
    // A catalog word made of the typed one by up to two edits, so that most catalogs hold near words.
    const edit = fc.tuple(fc.nat(), fc.nat(3), letter);
    const edited = (typed: string, edits: [number, number, string][]) =>
      edits.reduce((spelled, [place, kind, added]) => {
        const at = place % (spelled.length + 1);
        const [head, tail] = [spelled.slice(0, at), spelled.slice(at)];
        if (kind === 0) return head + tail.slice(1);
        if (kind === 1) return head + added + tail;
        if (kind === 2) return head + added + tail.slice(1);
        return head + tail.slice(1, 2) + tail.slice(0, 1) + tail.slice(2);
      }, typed);
    const byTerm = (found: Map<number, string>) => [...found].sort(([a], [b]) => a - b);
    fc.assert(
      fc.property(
        word,
        fc.array(word, { maxLength: 20 }),
        fc.array(fc.array(edit, { maxLength: 2 }), { maxLength: 20 }),
        (typed, others, edits) => {
          const near = edits.map((some) => edited(typed, some)).filter((spelled) => spelled.length >= 4);
          const words = [...new Set([...near, ...others])];
          const expected = words.flatMap((known, term) =>
            known !== typed && known[0] === typed[0] && oneMistakeApart(typed, known) ? [[term, known]] : [],
          );
          expect(byTerm(tableOf(...words).closeTerms(typed))).toEqual(expected);
        },
      ),
      { numRuns: 2000 },
    );
  });
});

describe("oneMistakeApart", () => {
  const word = fc.stringMatching(/^[a-d]{0,8}$/);

  it("agrees with the edits it names, on any pair of short words", () => {
    fc.assert(
      fc.property(word, word, (a, b) => {
        const edits = new Set<string>([a]);
        for (let at = 0; at <= a.length; at++) {
          edits.add(a.slice(0, at) + a.slice(at + 1));
          if (at + 1 < a.length) edits.add(a.slice(0, at) + a[at + 1] + a[at] + a.slice(at + 2));
          for (const letter of "abcd") {
            edits.add(a.slice(0, at) + letter + a.slice(at + 1));
            edits.add(a.slice(0, at) + letter + a.slice(at));
          }
        }
        expect(oneMistakeApart(a, b)).toBe(edits.has(b));
      }),
      { numRuns: 3000 },
    );
  });
});
