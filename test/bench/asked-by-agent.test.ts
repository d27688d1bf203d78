import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { askedByAgent, readAgentQueries } from "../../bench/asked-by-agent.js";
import { type LabeledQuery, readQueries } from "../../bench/scoring.js";

const requests: LabeledQuery[] = [
  {
    id: "q-1",
    query: "my deploy script ignores errors",
    expected: ["a/bash"],
    alsoOk: [],
    difficulty: "hard",
  },
  {
    id: "q-2",
    query: "plot sales by month",
    expected: ["a/charts"],
    alsoOk: ["b/charts"],
    difficulty: "easy",
  },
];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "asked-by-agent-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function agentFile(content: string): Promise<string> {
  const file = path.join(dir, `${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, content);
  return file;
}

describe("askedByAgent", () => {
  it("asks each request as the agent phrased it, keeping its labels", async () => {
    const file = await agentFile(
      JSON.stringify({
        "q-2": "line chart monthly sales",
        "q-1": "bash error handling set -e",
        "q-9": "unused",
      }),
    );
    expect(askedByAgent(requests, readAgentQueries(file))).toEqual([
      { ...requests[0], query: "bash error handling set -e" },
      { ...requests[1], query: "line chart monthly sales" },
    ]);
  });

  it("refuses an agent file that leaves a request out, naming it", async () => {
    const file = await agentFile(JSON.stringify({ "q-1": "bash error handling" }));
    expect(() => askedByAgent(requests, readAgentQueries(file))).toThrow("no agent query for: q-2");
  });

  it("refuses a file that is not an object of non-empty queries, naming the ids", async () => {
    await expect(agentFile("[]").then(readAgentQueries)).rejects.toThrow("expected a JSON object");
    const blank = await agentFile(JSON.stringify({ "q-1": " ", "q-2": 3 }));
    expect(() => readAgentQueries(blank)).toThrow("these ids need a query (non-empty text): q-1, q-2");
  });
});

describe("the agents' queries kept in bench/queries/asked-by-agents", () => {
  it("cover every request of the project's query sets", () => {
    const sets = ["second-set.json", "file-names.json"].map((name) => path.join("bench/queries", name));
    for (const agent of ["current-1", "current-2", "naming-tools-1", "naming-tools-2"]) {
      const queries = readAgentQueries(path.join("bench/queries/asked-by-agents", `${agent}.json`));
      for (const set of sets)
        expect(askedByAgent(readQueries(set), queries)).toHaveLength(readQueries(set).length);
    }
  });
});
