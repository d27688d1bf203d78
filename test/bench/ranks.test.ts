import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rankingWith } from "../../bench/ranking-overrides.js";
import { rankChanges, readRanks, writeRanks } from "../../bench/ranks.js";
import type { LabeledQuery } from "../../bench/scoring.js";
import { DEFAULT_RANKING } from "../../src/search/index.js";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "ranks-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const query = (id: string): LabeledQuery => ({
  id,
  query: id,
  expected: ["a/x"],
  alsoOk: [],
  difficulty: "easy",
});

describe("ranks", () => {
  it("are written as run and read back, a miss as null", () => {
    const file = path.join(dir, "run.json");
    writeRanks(file, [
      { query: query("q-1"), rank: 2, first: "a/y", shown: 10, ndcg: 0.63 },
      { query: query("q-2"), rank: undefined, first: "a/z", shown: 10, ndcg: 0 },
    ]);
    expect(readRanks(file)).toEqual(
      new Map<string, number | null>([
        ["q-1", 2],
        ["q-2", null],
      ]),
    );
  });

  it("refuse a file that cannot be read, saying so once", () => {
    const file = path.join(dir, "absent.json");
    expect(() => readRanks(file)).toThrow(`${file} cannot be read: there is no such file (ENOENT)`);
  });

  it("refuse a file whose ranks are not 1-10 or null, naming the file and the ids", async () => {
    const file = path.join(dir, "bad.json");
    await writeFile(file, JSON.stringify({ "q-1": 0, "q-2": 11, "q-3": "1", "q-4": 3 }));
    expect(() => readRanks(file)).toThrow(
      `${file}: a rank is 1-10, or null for a miss; not so for q-1, q-2, q-3`,
    );
  });

  it("compare request by request, a miss below every rank shown", () => {
    const before = new Map<string, number | null>([
      ["a", 4],
      ["b", null],
      ["c", 1],
      ["d", 2],
    ]);
    const after = new Map<string, number | null>([
      ["a", 3],
      ["b", 10],
      ["c", null],
      ["d", 2],
    ]);
    expect(rankChanges(before, after)).toEqual({
      higher: ["a 4→3", "b past 10→10"],
      lower: ["c 1→past 10"],
      same: 1,
    });
  });

  it("refuse to compare runs of different requests", () => {
    expect(() => rankChanges(new Map([["a", 1]]), new Map([["b", 1]]))).toThrow(
      "the two runs hold different requests: only before, a; only after, b",
    );
    const many = new Map(Array.from({ length: 8 }, (_, i): [string, number] => [`q-${i}`, 1]));
    expect(() => rankChanges(many, new Map())).toThrow(
      "only before, q-0, q-1, q-2, q-3, q-4 and 3 more; only after, none",
    );
  });
});

describe("rankingWith", () => {
  it("changes only the numbers named", () => {
    const ranking = rankingWith("description=2, b.body=0.9, k1=1.5");
    expect(ranking).toEqual({
      weights: { ...DEFAULT_RANKING.weights, description: 2 },
      lengthNormalization: { ...DEFAULT_RANKING.lengthNormalization, body: 0.9 },
      k1: 1.5,
    });
    expect(rankingWith("")).toEqual(DEFAULT_RANKING);
  });

  it("refuses a key set twice", () => {
    expect(() => rankingWith("description=2,description=3")).toThrow("description is set twice");
  });

  it("refuses unknown keys and bad numbers, listing the keys", () => {
    for (const bad of ["desc=2", "body=-1", "k1=fast", "name", "name=1=2", "b.body=1.5", "k1=Infinity"]) {
      expect(() => rankingWith(bad)).toThrow(
        /bad ranking setting .*keys name, description, place, headings, body/,
      );
    }
  });
});
