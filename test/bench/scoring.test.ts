import { describe, expect, it } from "vitest";
import { judge, type LabeledQuery, summarize } from "../../bench/scoring.js";

const query: LabeledQuery = {
  id: "q-1",
  query: "make small container images",
  expected: ["beta/docker-expert"],
  alsoOk: ["gamma/containers"],
  difficulty: "easy",
};

describe("judge", () => {
  it("ranks the first result holding a right id, counting each place once", () => {
    expect(judge(query, [["alpha/x"], ["alpha/y"], ["gamma/containers"]]).rank).toBe(3);
  });

  it("finds a right id among the copies one line stands for", () => {
    const outcome = judge(query, [["alpha/x"], ["alpha/docker-expert", "beta/docker-expert"]]);
    expect(outcome).toMatchObject({ rank: 2, first: "alpha/x" });
  });

  it("counts a result again only if it names an id not seen before", () => {
    const results = [["alpha/x", "beta/x"], ["beta/x"], ["alpha/x"], ["beta/docker-expert"]];
    expect(judge(query, results).rank).toBe(2);
  });

  it("misses when no result holds a right id", () => {
    expect(judge(query, [["alpha/x"]]).rank).toBeUndefined();
  });

  it("gains from each right result by its place, over the gain of the right ones ranked first", () => {
    // Two right ids: the ideal ranks both first, 1 + 1/log2(3); this ranks them second and fourth.
    const outcome = judge(query, [["alpha/x"], ["beta/docker-expert"], ["alpha/y"], ["gamma/containers"]]);
    expect(outcome.ndcg).toBeCloseTo((1 / Math.log2(3) + 1 / Math.log2(5)) / (1 + 1 / Math.log2(3)));
  });

  it("counts the distinct results shown, and averages them over the queries", () => {
    const fewer = judge(query, [["alpha/x", "beta/x"], ["beta/x"], ["gamma/containers"]]);
    expect(fewer.shown).toBe(2);
    expect(summarize([fewer, judge(query, [["alpha/x"], ["alpha/y"], ["alpha/z"], ["alpha/w"]])]).shown).toBe(
      3,
    );
  });
});
