/**
 * What each part of a request the answer cache cannot serve costs, in this process: the search itself,
 * a new server, the exchange over a scope's connection in each era, the SDK's entries that answer what
 * the connections do not (its stateless transport for 2025-era batches, createMcpHandler for the rest),
 * and the whole way through the endpoint. CPU microseconds a request (garbage collection included), the
 * least of a few rounds taken in turns, warm: the machine is shared, and the least is what a part costs
 * when nothing else runs.
 *
 *   npm run bench:parts -- [catalog folder] [requests a round=2000] [rounds=5]
 */
import type { IncomingMessage } from "node:http";
import {
  createMcpHandler,
  type JSONRPCRequest,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { tolerateClosedOutput } from "../scripts/closed-output.js";
import { mcpDepsOf } from "../scripts/in-memory-client.js";
import { McpEndpoint } from "../src/http/mcp-endpoint.js";
import { ServerConnection } from "../src/http/sdk-contract.js";
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

async function main(dir: string, count: number, rounds: number): Promise<void> {
  const deps = await mcpDepsOf(dir);
  const scope = deps.catalog.everything;
  let asked = 0;
  // A new search every time, as the throughput benchmark's "each new" row asks it.
  const query = () => `${TYPICAL_QUERY} q${++asked}`;
  const call = (): JSONRPCRequest => ({
    jsonrpc: "2.0",
    id: asked,
    method: "tools/call",
    params: { name: "list_skills", arguments: { query: query() } },
  });
  const modernCall = (): JSONRPCRequest => {
    const body = call();
    return { ...body, params: { ...body.params, _meta: MODERN_META } };
  };
  const raw = (headers: Record<string, string>) =>
    ({ method: "POST", url: "/mcp", headers }) as unknown as IncomingMessage;
  const webRequest = (headers: Record<string, string>) =>
    new Request("http://127.0.0.1/mcp", { method: "POST", headers: new Headers(headers) });
  const newServer = serverFactoryFor(deps, scope);
  const endpoint = new McpEndpoint(newServer, () => {});
  const connections = {
    legacy: await ServerConnection.open(newServer({ era: "legacy" }), "legacy"),
    modern: await ServerConnection.open(newServer({ era: "modern" }), "modern"),
  };
  const modernEntry = createMcpHandler(newServer, { legacy: "reject" });

  const parts: [string, () => unknown][] = [
    ["the search itself (the 10 best of the catalog)", () => deps.index.search(query(), scope, 10)],
    ["a new server, from its scope's factory", () => newServer({ era: "modern" })],
    ["a web Request as the SDK's entries take it", () => webRequest(LEGACY_HEADERS)],
    ["2025: over the scope's connection", () => connections.legacy.exchange(call())],
    ["2026-07-28: over the scope's connection", () => connections.modern.exchange(modernCall())],
    [
      "2025: a new server and a connection of its own",
      async () => (await ServerConnection.open(newServer(), "legacy")).exchange(call()),
    ],
    [
      "2025: the SDK's stateless transport (batches)",
      async () => {
        const fresh = newServer();
        const transport = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: undefined,
          enableJsonResponse: true,
        });
        await fresh.connect(transport);
        const response = await transport.handleRequest(webRequest(LEGACY_HEADERS), { parsedBody: call() });
        await response.arrayBuffer();
        await Promise.all([transport.close(), fresh.close()]);
      },
    ],
    [
      "2026-07-28: the SDK's createMcpHandler",
      async () => {
        const response = await modernEntry.fetch(webRequest(MODERN_HEADERS), { parsedBody: modernCall() });
        await response.arrayBuffer();
      },
    ],
    [
      "2025: the endpoint (era told, answered, serialized)",
      () => endpoint.answer(raw(LEGACY_HEADERS), call()),
    ],
    ["2026-07-28: the endpoint", () => endpoint.answer(raw(MODERN_HEADERS), modernCall())],
  ];
  console.log(
    `Each part of a new search, on ${dir} (${scope.skills.length} skills), CPU µs a request, least of ${rounds} rounds of ${count}:`,
  );
  const least = new Map<string, number>();
  for (let round = 0; round < rounds; round++) {
    for (const [name, part] of parts) {
      for (let i = 0; i < count / 4; i++) await part();
      const started = process.cpuUsage();
      for (let i = 0; i < count; i++) await part();
      const { user, system } = process.cpuUsage(started);
      least.set(name, Math.min(least.get(name) ?? Number.POSITIVE_INFINITY, (user + system) / count));
    }
  }
  for (const [name, micros] of least) console.log(`${name.padEnd(58)} ${micros.toFixed(1).padStart(7)}`);
}

tolerateClosedOutput();
const [dir = corpusAvailable() ? CORPUS_DIR : EXAMPLES_DIR, requests = "2000", rounds = "5"] =
  process.argv.slice(2);
main(dir, Number(requests), Number(rounds)).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
