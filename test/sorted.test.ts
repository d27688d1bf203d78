import { describe, expect, it } from "vitest";
import { firstPast } from "../src/shared/index.js";

describe("firstPast", () => {
  it("finds the first item past the point, in a list of any length", () => {
    for (let length = 0; length < 9; length++) {
      const sorted = Array.from({ length }, (_, i) => i);
      for (let point = 0; point <= length; point++) {
        expect(firstPast(sorted, (item) => item >= point)).toBe(point);
      }
    }
  });

  it("gives the first of equal items, as a search by name needs", () => {
    expect(firstPast(["a", "b", "b", "b", "c"], (item) => item >= "b")).toBe(1);
  });
});
