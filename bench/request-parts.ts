/**
 * What each part of a request the answer cache cannot serve costs, in this process: the search itself,
 * building the request's MCP server, the exchange in each era (and the SDK's stateless transport, which
 * 2025-era batches take), and the whole way through the endpoint. Microseconds a request, averaged over
 * many, warm; under load each part also pays its share of garbage collection, which the throughput
 * benchmark's CPU figure includes.
 *
 *   npm run bench:parts -- [catalog folder] [requests=4000]
 */
import type { IncomingMessage } from "node:http";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { tolerateClosedOutput } from "../scripts/closed-output.js";
import { mcpDepsOf } from "../scripts/in-memory-client.js";
import { McpEndpoint } from "../src/http/mcp-endpoint.js";
import { answerSingle, singleRequestOf } from "../src/http/single-exchange.js";
import { serverFactoryFor } from "../src/mcp/index.js";
import { CORPUS_DIR, corpusAvailable, EXAMPLES_DIR } from "./catalogs.js";
import { type Era, MODERN_META, toolCall } from "./load.js";
import { TYPICAL_QUERY } from "./throughput.js";

/** The headers of the throughput benchmark's requests, and the host a client sends. */
const headersOf = (era: Era) => ({
  host: "127.0.0.1",
  ...toolCall("list_skills", {}, era).headers,
});
const LEGACY_HEADERS = headersOf("2025");
const MODERN_HEADERS = headersOf("2026-07-28");

async function main(dir: string, count: number): Promise<void> {
  const deps = await mcpDepsOf(dir);
  const scope = deps.catalog.everything;
  let asked = 0;
  // A new search every time, as the throughput benchmark's "each new" row asks it.
  const call = () => ({
    jsonrpc: "2.0",
    id: ++asked,
    method: "tools/call",
    params: { name: "list_skills", arguments: { query: `${TYPICAL_QUERY} q${asked}` } },
  });
  const modernCall = () => {
    const body = call();
    return { ...body, params: { ...body.params, _meta: MODERN_META } };
  };
  const raw = (headers: Record<string, string>) =>
    ({ method: "POST", url: "/mcp", headers }) as unknown as IncomingMessage;
  const newServer = serverFactoryFor(deps, scope);
  const endpoint = new McpEndpoint(newServer, () => {});

  const parts: [string, () => unknown][] = [
    [
      "the search itself (the 10 best of the catalog)",
      () => deps.index.search(call().params.arguments.query, scope, 10),
    ],
    ["the request's server, from its scope's factory", newServer],
    [
      "a web Request as the SDK takes it",
      () => new Request("http://127.0.0.1/mcp", { method: "POST", headers: new Headers(LEGACY_HEADERS) }),
    ],
    [
      "2025: one request through the single exchange",
      async () => {
        const request = singleRequestOf(LEGACY_HEADERS, call());
        if (request === undefined) throw new Error("the benchmark's request should take the single exchange");
        await answerSingle(newServer(), request);
      },
    ],
    [
      "2025: the SDK's stateless transport (batches), one exchange",
      async () => {
        const fresh = newServer();
        const transport = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        });
        await fresh.connect(transport);
        const request = new Request("http://127.0.0.1/mcp", {
          method: "POST",
          headers: new Headers(LEGACY_HEADERS),
        });
        const response = await transport.handleRequest(request, { parsedBody: call() });
        await response.arrayBuffer();
        await Promise.all([transport.close(), fresh.close()]);
      },
    ],
    ["2025: the endpoint, all of the above", () => endpoint.answer("legacy", raw(LEGACY_HEADERS), call())],
    [
      "2026-07-28: the endpoint (the SDK's createMcpHandler)",
      () => endpoint.answer("modern", raw(MODERN_HEADERS), modernCall()),
    ],
  ];
  console.log(
    `Each part of a new search, on ${dir} (${scope.skills.length} skills), µs a request over ${count}:`,
  );
  for (const [name, part] of parts) {
    for (let i = 0; i < count / 4; i++) await part();
    const started = performance.now();
    for (let i = 0; i < count; i++) await part();
    console.log(
      `${name.padEnd(58)} ${(((performance.now() - started) / count) * 1000).toFixed(1).padStart(7)}`,
    );
  }
}

tolerateClosedOutput();
const [dir = corpusAvailable() ? CORPUS_DIR : EXAMPLES_DIR, requests = "4000"] = process.argv.slice(2);
main(dir, Number(requests)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
