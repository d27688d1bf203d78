import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeStandardCatalog, type StandardCatalog } from "../helpers/fixtures.js";
import { call, httpSettings, post, type RunningServer, startServer } from "../helpers/server.js";

let tree: StandardCatalog;
let server: RunningServer;
beforeAll(async () => {
  tree = await makeStandardCatalog();
  server = await startServer(tree.skillsDir, [], httpSettings({ API_KEYS: "metrics-key-0123456789" }));
});
afterAll(async () => {
  await server.close();
  await tree.remove();
});

const auth = { authorization: "Bearer metrics-key-0123456789" };

async function scrape(): Promise<string> {
  const response = await fetch(`${server.url}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toContain("text/plain");
  return response.text();
}

function sample(text: string, series: string): number {
  const line = text.split("\n").find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}

describe("GET /metrics", () => {
  it("counts requests by tool and outcome, with tool errors and refusals told apart", async () => {
    const before = await scrape();
    const client = await server.connect({ headers: auth });
    await call(client, "read_skill", { skill: "hammer" });
    await call(client, "read_skill", { skill: "hammer" });
    await call(client, "read_skill", { skill: "no-such-skill" });
    await call(client, "read_skill", { skill: 42 });
    await call(client, "not_a_tool");
    await post(`${server.url}/mcp`, { jsonrpc: "2.0", id: 1, method: "no/such-method" }, auth);
    await post(`${server.url}/mcp`, { jsonrpc: "2.0", id: 1, method: "ping" });
    await post(
      `${server.url}/mcp`,
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { ...auth, origin: "http://evil.example" },
    );
    const after = await scrape();
    const delta = (series: string) => sample(after, series) - sample(before, series);
    expect(delta('skills_mcp_requests_total{tool="read_skill",outcome="ok"}')).toBe(2);
    expect(delta('skills_mcp_requests_total{tool="read_skill",outcome="error"}')).toBe(2);
    expect(delta('skills_mcp_requests_total{tool="other",outcome="error"}')).toBe(2);
    expect(delta('skills_mcp_requests_total{tool="other",outcome="rejected"}')).toBe(2);
    expect(delta('skills_mcp_request_duration_seconds_count{tool="read_skill"}')).toBe(4);
  });

  it("reports the catalog size, the version and process metrics, and no unbounded label", async () => {
    const text = await scrape();
    expect(sample(text, "skills_mcp_catalog_skills")).toBe(9);
    expect(sample(text, "skills_mcp_catalog_packs")).toBe(3);
    expect(sample(text, 'skills_mcp_build_info{version="test"}')).toBe(1);
    expect(text).toMatch(/^process_resident_memory_bytes \d+/m);
    expect(text).toMatch(/^nodejs_eventloop_lag_seconds /m);
    const tools = new Set([...text.matchAll(/tool="([^"]*)"/g)].map((match) => match[1]));
    const fixed = ["list_packs", "list_skills", "read_skill", "read_pack_file", "other"];
    expect([...tools].filter((tool) => !fixed.includes(tool ?? ""))).toEqual([]);
    expect(tools).toContain("other");
  });
});
