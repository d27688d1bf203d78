import { describe, expect, it } from "vitest";
import { otherSpellings } from "../../src/search/english-spellings.js";

describe("otherSpellings", () => {
  it("spells British words the American way, forms included", () => {
    const pairs: [string, string][] = [
      ["colourful", "colorful"],
      ["behavioural", "behavioral"],
      ["organisations", "organizations"],
      ["serialising", "serializing"],
      ["analysed", "analyzed"],
      ["centres", "centers"],
      ["licence", "license"],
      ["catalogued", "cataloged"],
      ["paediatric", "pediatric"],
      ["programmes", "programs"],
      ["judgement", "judgment"],
    ];
    for (const [british, american] of pairs) expect(otherSpellings(british)).toContain(american);
  });

  it("spells American words the British way", () => {
    const pairs: [string, string][] = [
      ["neighbors", "neighbours"],
      ["tokenize", "tokenise"],
      ["analyze", "analyse"],
      ["meter", "metre"],
      ["defense", "defence"],
      ["dialog", "dialogue"],
    ];
    for (const [american, british] of pairs) expect(otherSpellings(american)).toContain(british);
  });

  it("leaves words no rule fits, too short or too long, or not plain letters", () => {
    for (const word of ["raise", "noise", "user", "tour", "data", "k8s", "colour-", "x".repeat(40)]) {
      expect(otherSpellings(word)).toEqual([]);
    }
  });
});
