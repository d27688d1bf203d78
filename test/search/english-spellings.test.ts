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
      ["centred", "centered"],
      ["centring", "centering"],
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
      ["centered", "centred"],
    ];
    for (const [american, british] of pairs) expect(otherSpellings(american)).toContain(british);
  });

  // No rule of endings reaches these: their stems differ, and a short list names them.
  it("spells the words whose stems differ either way, forms and compounds included", () => {
    const pairs: [string, string][] = [
      ["grey", "gray"],
      ["greyscale", "grayscale"],
      ["plough", "plow"],
      ["ploughed", "plowed"],
      ["mouldy", "moldy"],
      ["sceptical", "skeptical"],
      ["tyres", "tires"],
    ];
    for (const [british, american] of pairs) {
      expect(otherSpellings(british)).toContain(american);
      expect(otherSpellings(american)).toContain(british);
    }
  });

  it("leaves words no rule fits, too short or too long, or not plain letters", () => {
    for (const word of ["raise", "noise", "user", "tour", "data", "k8s", "colour-", "x".repeat(40)]) {
      expect(otherSpellings(word)).toEqual([]);
    }
  });
});
