import { describe, expect, it } from "vitest";
import { judge, type LabeledQuery } from "../../bench/scoring.js";

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
});
