import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeStandardCatalog, type StandardCatalog } from "../helpers/fixtures.js";
import { call, httpSettings, post, type RunningServer, send, startServer } from "../helpers/server.js";

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

/** The histogram's bounds, in seconds, as dashboards' histogram_quantile reads them. */
const DURATION_BOUNDS = [
  "0.0005",
  "0.001",
  "0.0025",
  "0.005",
  "0.01",
  "0.025",
  "0.05",
  "0.1",
  "0.25",
  "0.5",
  "1",
  "2.5",
];

/** The `le` and count of each bucket of `tool`'s request durations, in the order written. */
function durationBuckets(text: string, tool: string): { le: string; count: number }[] {
  const prefix = 'skills_mcp_request_duration_seconds_bucket{le="';
  const labels = `",tool="${tool}"} `;
  return text.split("\n").flatMap((line) => {
    const end = line.indexOf(labels);
    if (!line.startsWith(prefix) || end === -1) return [];
    return [{ le: line.slice(prefix.length, end), count: Number(line.slice(end + labels.length)) }];
  });
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
    const inf = 'skills_mcp_request_duration_seconds_bucket{le="+Inf",tool="read_skill"}';
    expect(delta(inf)).toBe(4);
    // The buckets' shape, whatever the requests took (a loaded machine may take seconds): every bound, in
    // order, each counting the requests at or under it, so never fewer than the one before, up to +Inf.
    const buckets = durationBuckets(after, "read_skill");
    expect(buckets.map(({ le }) => le)).toEqual([...DURATION_BOUNDS, "+Inf"]);
    const counts = buckets.map(({ count }) => count);
    expect(counts).toEqual(counts.toSorted((a, b) => a - b));
    expect(counts.at(-1)).toBe(sample(after, 'skills_mcp_request_duration_seconds_count{tool="read_skill"}'));
  });

  // Written at their first count, the series were not seen to grow by rate() or increase(): a replica's
  // first tool error raised no alert on the rate of errors.
  it("writes every tool and outcome from the start, at 0 until counted", async () => {
    const fresh = await startServer(tree.skillsDir, [], httpSettings({}));
    try {
      const text = await (await fetch(`${fresh.url}/metrics`)).text();
      const counted = [...text.matchAll(/^skills_mcp_requests_total\{(.*)\} (\d+)$/gm)];
      expect(counted.map(([, labels, value]) => `${labels} ${value}`)).toEqual(
        ["list_packs", "list_skills", "read_skill", "read_pack_file", "other"].flatMap((tool) =>
          ["ok", "error", "rejected"].map((outcome) => `tool="${tool}",outcome="${outcome}" 0`),
        ),
      );
    } finally {
      await fresh.close();
    }
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
    const families = [...text.matchAll(/^# TYPE (\S+) /gm)].map((match) => match[1]);
    expect(families.length).toBeGreaterThan(10);
    expect(new Set(families).size).toBe(families.length);
    expect(text).toMatch(/\n\n# HELP skills_mcp_requests_total /);
  });
});

// Regression: only POST /mcp was counted, so a client stuck on GET /mcp's 405, a probe's /health, a scan's
// 404s and the refusals before the MCP layer (400, 413, 429) showed nowhere in /metrics.
describe("GET /metrics, for every answer of the server", () => {
  let edge: RunningServer;
  beforeAll(async () => {
    edge = await startServer(
      tree.skillsDir,
      [],
      httpSettings({ RATE_LIMIT_PER_MINUTE: "8", MAX_BODY_BYTES: "4096" }),
    );
  });
  afterAll(async () => {
    await edge.close();
  });

  async function scrapeEdge(): Promise<string> {
    const response = await fetch(`${edge.url}/metrics`);
    expect(response.status).toBe(200);
    return response.text();
  }

  it("counts and times them by route, method and status, an unknown path folded into other", async () => {
    const before = await scrapeEdge();
    const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
    const answers = [
      await send(`${edge.url}/mcp`),
      await send(`${edge.url}/mcp`, { method: "DELETE" }),
      await send(`${edge.url}/health`),
      await send(`${edge.url}/health/?probe=1`),
      await send(`${edge.url}/no-such-path-1`),
      await send(`${edge.url}/no-such-path-2/mcp`, { method: "POST" }),
      await post(`${edge.url}/mcp`, "{not json"),
      await post(`${edge.url}/mcp`, { ...ping, params: { pad: "x".repeat(5000) } }),
      await send(`${edge.url}/mcp%zz`, { method: "POST" }),
      // Refused by Node before Fastify has a request: counted, not timed.
      await send(`${edge.url}/mcp`, { method: "POST", headers: { expect: "teapot" }, body: "{}" }),
      await send(`${edge.url}/health`, { headers: { "x-large": "x".repeat(20_000) } }),
    ];
    // Four /mcp requests above were counted by the rate limit (8 a minute): four more pass, the next is refused.
    for (let sent = 5; sent <= 9; sent++) answers.push(await post(`${edge.url}/mcp`, ping));
    expect(answers.map((answer) => answer.status)).toEqual([
      405, 405, 200, 200, 404, 404, 400, 413, 400, 417, 431, 200, 200, 200, 200, 429,
    ]);
    const after = await scrapeEdge();
    const delta = (series: string) => sample(after, series) - sample(before, series);
    const count = (labels: string) => delta(`skills_mcp_http_requests_total{${labels}}`);
    const timed = (labels: string) => delta(`skills_mcp_http_request_duration_seconds_count{${labels}}`);

    expect(count('route="/mcp",method="GET",status="405"')).toBe(1);
    expect(count('route="/mcp",method="DELETE",status="405"')).toBe(1);
    expect(count('route="/health",method="GET",status="200"')).toBe(2);
    expect(count('route="other",method="GET",status="404"')).toBe(1);
    expect(count('route="other",method="POST",status="404"')).toBe(1);
    expect(count('route="/mcp",method="POST",status="200"')).toBe(4);
    expect(count('route="/mcp",method="POST",status="400"')).toBe(1);
    expect(count('route="/mcp",method="POST",status="413"')).toBe(1);
    expect(count('route="/mcp",method="POST",status="429"')).toBe(1);
    expect(count('route="other",method="POST",status="400"')).toBe(1);
    expect(count('route="/mcp",method="POST",status="417"')).toBe(1);
    expect(count('route="other",method="other",status="431"')).toBe(1);
    expect(timed('route="/mcp",method="GET",status="405"')).toBe(1);
    expect(timed('route="/health",method="GET",status="200"')).toBe(2);
    expect(timed('route="/mcp",method="POST",status="413"')).toBe(1);
    expect(timed('route="/mcp",method="POST",status="429"')).toBe(1);
    expect(timed('route="other",method="POST",status="400"')).toBe(1);
    expect(timed('route="/mcp",method="POST",status="417"')).toBe(0);

    // The metrics of POST /mcp keep their names and labels.
    expect(delta('skills_mcp_requests_total{tool="other",outcome="rejected"}')).toBe(3);
    const routes = new Set([...after.matchAll(/route="([^"]*)"/g)].map((match) => match[1]));
    expect([...routes].sort()).toEqual(["/health", "/mcp", "/metrics", "other"]);
    expect(after).toMatch(/^# TYPE skills_mcp_http_request_duration_seconds histogram$/m);
  });
});
