import type { IncomingHttpHeaders } from "node:http";
import { type McpServer, WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mcpDepsOf } from "../../scripts/in-memory-client.js";
import { answerSingle, singleRequestOf } from "../../src/http/single-exchange.js";
import { serverFactoryFor } from "../../src/mcp/index.js";
import { makeStandardCatalog, type StandardCatalog } from "../helpers/fixtures.js";

const HEADERS: IncomingHttpHeaders = {
  accept: "application/json, text/event-stream",
  "content-type": "application/json",
  "mcp-protocol-version": "2025-11-25",
};

const request = (method: string, params?: Record<string, unknown>, id: string | number = 7) => ({
  jsonrpc: "2.0",
  id,
  method,
  ...(params !== undefined ? { params } : {}),
});
const toolCall = (name: string, args: Record<string, unknown>) =>
  request("tools/call", { name, arguments: args });

/** What the SDK's stateless Streamable HTTP transport answers: what the single exchange must match. */
async function sdkAnswer(server: McpServer, body: unknown): Promise<unknown> {
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  const headers = new Headers(HEADERS as Record<string, string>);
  const response = await transport.handleRequest(
    new Request("http://127.0.0.1/mcp", { method: "POST", headers }),
    { parsedBody: body },
  );
  expect(response.status).toBe(200);
  return response.json();
}

let tree: StandardCatalog;
let newServer: () => McpServer;

beforeAll(async () => {
  tree = await makeStandardCatalog();
  const deps = await mcpDepsOf(tree.skillsDir);
  newServer = serverFactoryFor(deps, deps.catalog.everything);
});
afterAll(() => tree.remove());

describe("one 2025-era request through the single exchange", () => {
  // Every kind of answer the server gives: results of each surface, tool errors and protocol errors.
  const requests: [string, ReturnType<typeof request>][] = [
    [
      "initialize",
      request("initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "test", version: "1" },
      }),
    ],
    ["initialize without params", request("initialize")],
    ["ping", request("ping")],
    ["tools/list", request("tools/list")],
    ["list_packs", toolCall("list_packs", {})],
    ["a search", toolCall("list_skills", { query: "drive nails" })],
    ["a skill", toolCall("read_skill", { skill: "alpha/two" })],
    ["a pack file", toolCall("read_pack_file", { pack: "beta", path: "shared/guide.md" })],
    ["a missing skill", toolCall("read_skill", { skill: "alpha/nope" })],
    ["arguments of the wrong type", toolCall("list_skills", { query: 5 })],
    ["an unknown tool", toolCall("delete_everything", {})],
    ["prompts/list", request("prompts/list")],
    ["prompts/get", request("prompts/get", { name: "beta/hammer" })],
    ["skills/list", request("skills/list")],
    ["resources/read", request("resources/read", { uri: "skill://alpha/two/references/guide.md" })],
    ["a hostile resource", request("resources/read", { uri: "skill://alpha/two/%2e%2e/%2e%2e/x" })],
    ["an unknown method", request("nothing/here")],
    ["tools/call without params", request("tools/call")],
    ["a string id", request("tools/list", undefined, "request-1")],
  ];

  it.each(requests)("%s: answered exactly as the SDK's stateless transport answers it", async (_, body) => {
    const single = singleRequestOf(HEADERS, body);
    expect(single).toEqual(body);
    if (single === undefined) return;
    // As it goes out: JSON, which leaves out what the SDK keeps on the object for itself.
    const answer = JSON.parse(JSON.stringify(await answerSingle(newServer(), single)));
    expect(answer).toMatchObject({ jsonrpc: "2.0", id: body.id });
    expect(answer).toEqual(await sdkAnswer(newServer(), body));
  });

  it("answers with the tools' own results", async () => {
    const single = singleRequestOf(HEADERS, toolCall("list_skills", { query: "drive nails" }));
    if (single === undefined) throw new Error("a plain search should take the single exchange");
    const answer = await answerSingle(newServer(), single);
    expect(answer).toMatchObject({
      result: { content: [{ type: "text", text: expect.stringContaining("hammer: Drive nails") }] },
    });
  });
});

describe("what the single exchange leaves to the SDK's transport", () => {
  const search = toolCall("list_skills", { query: "saw" });
  const cases: [string, IncomingHttpHeaders, unknown][] = [
    ["a batch", HEADERS, [search]],
    ["a notification", HEADERS, { jsonrpc: "2.0", method: "notifications/initialized" }],
    ["a response", HEADERS, { jsonrpc: "2.0", id: 1, result: {} }],
    ["a message the JSON-RPC schema refuses", HEADERS, { ...search, extra: true }],
    ["an Accept without event streams", { ...HEADERS, accept: "application/json" }, search],
    ["a body that is not JSON", { ...HEADERS, "content-type": "text/plain" }, search],
    ["an unsupported protocol version", { ...HEADERS, "mcp-protocol-version": "1999-01-01" }, search],
  ];

  it.each(cases)("%s", (_, headers, body) => {
    expect(singleRequestOf(headers, body)).toBeUndefined();
  });

  it("takes initialize whatever its version header, as the SDK negotiates the version in its body", () => {
    const initialize = request("initialize", {
      protocolVersion: "1999-01-01",
      capabilities: {},
      clientInfo: { name: "test", version: "1" },
    });
    const headers = { ...HEADERS, "mcp-protocol-version": "1999-01-01" };
    expect(singleRequestOf(headers, initialize)).toEqual(initialize);
  });

  it("takes a request without a version header, as the SDK assumes its default", () => {
    const { "mcp-protocol-version": _, ...headers } = HEADERS;
    expect(singleRequestOf(headers, search)).toEqual(search);
  });
});
