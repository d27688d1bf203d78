import { existsSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { askedByAgent, readAgentQueries } from "../../bench/asked-by-agent.js";
import { type LabeledQuery, readQueries } from "../../bench/scoring.js";
import { ROOT } from "../helpers/process.js";

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
let written = 0;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "asked-by-agent-"));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function agentFile(content: string): Promise<string> {
  written++;
  const file = path.join(dir, `agent-${written}.json`);
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
    expect(() => askedByAgent(requests, readAgentQueries(file))).toThrow(
      "no agent query for q-2: it needs one for every request of the set",
    );
  });

  it("refuses a file that is not an object of non-empty queries, naming the file and the ids", async () => {
    const array = await agentFile("[]");
    expect(() => readAgentQueries(array)).toThrow(`${array}: expected a JSON object`);
    const broken = await agentFile('{"q-1": "x"');
    expect(() => readAgentQueries(broken)).toThrow(`${broken} is not JSON: `);
    const blank = await agentFile(JSON.stringify({ "q-1": " ", "q-2": 3 }));
    expect(() => readAgentQueries(blank)).toThrow("these ids need a query (non-empty text): q-1, q-2");
  });
});

describe("the agents' queries kept in bench/queries/asked-by-agents", () => {
  const agents = ["current-1", "current-2", "naming-tools-1", "naming-tools-2"].map((name) =>
    path.join(ROOT, "bench/queries/asked-by-agents", `${name}.json`),
  );
  const check = (set: string) => {
    for (const agent of agents)
      expect(() => askedByAgent(readQueries(set), readAgentQueries(agent))).not.toThrow();
  };

  it("hold a query for every request of the project's two query sets", () => {
    expect.hasAssertions();
    check(path.join(ROOT, "bench/queries/second-set.json"));
    check(path.join(ROOT, "bench/queries/file-names.json"));
  });

  it("hold a query for every request of the set over the other collections", () => {
    const set = readQueries(path.join(ROOT, "bench/queries/other-collections.json"));
    const agent = path.join(ROOT, "bench/queries/asked-by-agents/other-collections-current.json");
    expect(() => askedByAgent(set, readAgentQueries(agent))).not.toThrow();
  });

  const devSet = path.join(ROOT, "../shared/bench/queries.json");
  it.skipIf(!existsSync(devSet))("hold a query for every request of the dev set (../shared/bench)", () => {
    expect.hasAssertions();
    check(devSet);
  });
});
