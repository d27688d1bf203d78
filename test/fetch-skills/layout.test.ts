import { describe, expect, it } from "vitest";
import { locateSources } from "../../scripts/fetch-skills/layout.js";

describe("locateSources", () => {
  it("gives each key and table the line it is written on", () => {
    const text =
      'title = "x"\r\n# a comment\r\n\r\n[[source]]\r\nname = "a"\r\nref = "1"\r\n[[source]]\nname = "b"\nmeta.owner = "me"\n[source.extra]\nx = 1\n[other]\ny = 2';
    const layout = locateSources(text);
    expect(layout?.rootKeys).toEqual(
      new Map([
        ["title", 1],
        ["source", 4],
        ["other", 12],
      ]),
    );
    expect(layout?.sources.map((source) => source.line)).toEqual([4, 7]);
    expect(layout?.sources[0]?.keys.get("ref")).toEqual({
      line: 6,
      start: text.indexOf('"1"'),
      end: text.indexOf('"1"') + 3,
    });
    expect(layout?.sources[1]?.keyLines).toEqual(
      new Map([
        ["name", 8],
        ["meta", 9],
        ["extra", 10],
      ]),
    );
  });

  it("numbers the lines of a file of many keys", () => {
    const keys = Array.from({ length: 2000 }, (_, i) => `k${i} = ${i}\n`).join("");
    const layout = locateSources(`\n${keys}`);
    expect(layout?.rootKeys.size).toBe(2000);
    for (const [key, line] of layout?.rootKeys ?? []) expect(line).toBe(Number(key.slice(1)) + 2);
  });
});
