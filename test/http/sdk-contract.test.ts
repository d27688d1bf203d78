import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import {
  createMcpHandler,
  isJSONRPCErrorResponse,
  isJSONRPCNotification,
  isJSONRPCRequest,
  isJSONRPCResultResponse,
  type JSONRPCRequest,
  McpServer,
  SUPPORTED_PROTOCOL_VERSIONS,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import { SkillsExtension } from "@modelcontextprotocol/server/ext/skills";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { mcpDepsOf } from "../../scripts/in-memory-client.js";
import type { Scope } from "../../src/catalog/index.js";
import { McpEndpoint, McpEndpoints } from "../../src/http/mcp-endpoint.js";
import {
  acceptAsTheSdkReadsIt,
  advisingHeaderRefusal,
  answerEnding,
  batchedHandshakeOf,
  CHECKED_HEADERS,
  classify,
  countingBatch,
  isJsonRpcMessage,
  legacyRequestOf,
  MAX_BATCH_MESSAGES,
  modernRequestOf,
  namingAccept,
  namingEnvelopeInBatch,
  namingNameEncoding,
  namingUnclaimedEnvelope,
  plainLegacyRequestOf,
  plainModernRequestOf,
  quotingHeaderMismatch,
  repeatedIdOf,
  ServerConnection,
  unsupportedVersionOf,
} from "../../src/http/sdk-contract.js";
import {
  answersInParamsWords,
  MODERN_REVISION,
  namingEnvelopeKey,
  namingEnvelopeVersion,
  namingMissingEnvelope,
  requestsAsMeant,
  type ServerFactory,
  serverFactoryFor,
} from "../../src/mcp/index.js";
import { RESOURCE_TEMPLATES } from "../../src/mcp/server.js";
import { makeStandardCatalog, type StandardCatalog } from "../helpers/fixtures.js";
import { type WireEra, wireRequest } from "../helpers/requests.js";

/**
 * Each assumption sdk-contract.ts names, held against the SDK itself: the endpoint, which hands most
 * requests to its servers without the SDK's entries, must answer every request exactly as those entries
 * would, byte for byte, status included.
 */

const COMMON_HEADERS = { accept: "application/json, text/event-stream", "content-type": "application/json" };
const LEGACY_HEADERS = { ...COMMON_HEADERS, "mcp-protocol-version": "2025-11-25" };

/** A request of `era` as its client sends it: body and headers. */
function asSent(era: WireEra, method: string, params?: Record<string, unknown>, id: string | number = 7) {
  const { body, headers } = wireRequest(era, id, method, params);
  const sent: Record<string, string> = {
    ...(era === "legacy" ? LEGACY_HEADERS : COMMON_HEADERS),
    ...headers,
  };
  return { body, headers: sent };
}

/** What the endpoint answers: status, content type and bytes. */
interface Seen {
  readonly status: number;
  readonly contentType: string;
  readonly text: string;
}

/**
 * The request as Node hands it over: Node strips the spaces and tabs around each header's value, as the
 * web's Headers the SDK's entries read do, so a header written " list_packs" arrives as "list_packs".
 */
function rawRequest(headers: IncomingHttpHeaders): IncomingMessage {
  const received: IncomingHttpHeaders = { host: "127.0.0.1" };
  for (const [name, value] of Object.entries(headers))
    received[name] = typeof value === "string" ? value.replace(/^[ \t]+|[ \t]+$/g, "") : value;
  const headersDistinct = Object.fromEntries(
    Object.entries(received).map(([name, value]) => [name, Array.isArray(value) ? value : [value]]),
  );
  return { method: "POST", url: "/mcp", headers: received, headersDistinct } as IncomingMessage;
}

function webRequest(headers: Record<string, string>): Request {
  return new Request("http://127.0.0.1/mcp", { method: "POST", headers: new Headers(headers) });
}

async function seen(response: Response): Promise<Seen> {
  return {
    status: response.status,
    contentType: response.headers.get("content-type") ?? "",
    text: await response.text(),
  };
}

/**
 * What the SDK's own entries answer: `createMcpHandler` for 2026-07-28 requests and what the SDK
 * refuses, its stateless transport (answering JSON) for 2025-era requests, each with a new server; with
 * its refusal of params in the endpoint's words, which say the same in one line (see inParamsWords, whose
 * assumption the requests of tools/call without params, with a wrong name or with arguments that are a
 * string hold), and its refusal of an Mcp-Name that cannot go in a header as it is saying how to write it
 * (see namingNameEncoding), and its refusal of the revision an envelope names saying what an envelope
 * names (see namingEnvelopeVersion), and its refusal of a missing envelope saying what it holds (see
 * namingMissingEnvelope), and its refusal of an Mcp-Method that differs from the body's quoting both (see
 * quotingHeaderMismatch), and its 406 naming the Accept sent, under the request's id (see namingAccept). The endpoint answers otherwise than the SDK here, on purpose: the SDK refuses the params
 * of `initialize`, which its own handler checks, as an internal error (-32603, its schema's issues as
 * JSON), and the endpoint as invalid params (-32602), as MCP has it.
 */
async function sdkAnswer(
  newServer: ServerFactory,
  headers: Record<string, string>,
  body: unknown,
): Promise<Seen> {
  const answered = await sdkEntryAnswer(newServer, headers, body);
  let parsed: unknown;
  try {
    parsed = JSON.parse(answered.text);
  } catch {
    return answered;
  }
  const worded = namingUnclaimedEnvelope(
    namingAccept(
      namingEnvelopeKey(
        namingMissingEnvelope(
          namingEnvelopeVersion(
            namingNameEncoding(
              namingEnvelopeInBatch(
                countingBatch(
                  advisingHeaderRefusal(
                    quotingHeaderMismatch(answersInParamsWords(parsed, body), body),
                    body,
                  ),
                  body,
                ),
                body,
              ),
              body,
            ),
            body,
          ),
        ),
      ),
      headers.accept,
      body,
    ),
    body,
    headers,
  );
  return worded === parsed ? answered : { ...answered, text: JSON.stringify(worded) };
}

async function sdkEntryAnswer(
  newServer: ServerFactory,
  headers: Record<string, string>,
  body: unknown,
): Promise<Seen> {
  if (classify(headers, body).kind !== "legacy") {
    const handler = createMcpHandler(newServer, { legacy: "reject" });
    return seen(await handler.fetch(webRequest(headers), { parsedBody: body }));
  }
  const server: McpServer = newServer();
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await server.connect(transport);
  const answer = await seen(await transport.handleRequest(webRequest(headers), { parsedBody: body }));
  await Promise.all([transport.close(), server.close()]);
  return answer;
}

async function endpointAnswer(endpoint: McpEndpoint, headers: IncomingHttpHeaders, body: unknown) {
  const { answer } = await endpoint.answer(rawRequest(headers), body);
  return { status: answer.status, contentType: answer.contentType, text: inSdkWords(answer.body.toString()) };
}

/**
 * An answer of the endpoint with each "Method not found" as the SDK words it: the endpoint adds the
 * method and those served (see namingMethods), and must answer as the SDK does in all else.
 */
function inSdkWords(text: string): string {
  return text.replaceAll(
    /"Method not found: (?:[^"\\]|\\.)*; this server serves [^"]*"/g,
    '"Method not found"',
  );
}

let tree: StandardCatalog;
let newServer: ServerFactory;
let everything: Scope;

beforeAll(async () => {
  tree = await makeStandardCatalog();
  const deps = await mcpDepsOf(tree.skillsDir);
  newServer = serverFactoryFor(deps, deps.catalog.everything);
  everything = deps.catalog.everything;
});
afterAll(() => tree.remove());

/** Every kind of answer a server gives, in each era: results of each surface, tool errors, refusals. */
function requestsOf(era: WireEra): [string, { body: unknown; headers: Record<string, string> }][] {
  const toolCall = (name: string, args: Record<string, unknown>) =>
    asSent(era, "tools/call", { name, arguments: args });
  return [
    ["tools/list", asSent(era, "tools/list")],
    ["list_packs", toolCall("list_packs", {})],
    ["a search", toolCall("list_skills", { query: "drive nails" })],
    ["a skill", toolCall("read_skill", { skill: "alpha/two" })],
    ["a pack file", toolCall("read_pack_file", { pack: "beta", file: "shared/guide.md" })],
    ["a missing skill", toolCall("read_skill", { skill: "alpha/nope" })],
    ["arguments of the wrong type", toolCall("list_skills", { query: 5 })],
    ["an unknown tool", toolCall("delete_everything", {})],
    ["prompts/list", asSent(era, "prompts/list")],
    ["prompts/get", asSent(era, "prompts/get", { name: "beta/hammer" })],
    ["skills/list", asSent(era, "skills/list")],
    ["resources/read", asSent(era, "resources/read", { uri: "skill://alpha/two/references/guide.md" })],
    ["a hostile resource", asSent(era, "resources/read", { uri: "skill://alpha/two/%2e%2e/%2e%2e/x" })],
    ["a missing resource", asSent(era, "resources/read", { uri: "skill://alpha/nope/SKILL.md" })],
    ["an unknown method", asSent(era, "nothing/here")],
    ["tools/call without params", asSent(era, "tools/call")],
    [
      "arguments that are a string",
      asSent(era, "tools/call", { name: "list_skills", arguments: '{"query":"saw"}' }),
    ],
    [
      "a prompt's arguments that are a string",
      asSent(era, "prompts/get", { name: "beta/hammer", arguments: '{"a":"b"}' }),
    ],
    ["a listing's cursor that is a number", asSent(era, "resources/templates/list", { cursor: 5 })],
    ["a string id", asSent(era, "tools/list", undefined, "request-1")],
    ["ping", asSent(era, "ping")],
    ["server/discover", asSent(era, "server/discover")],
    [
      "initialize",
      asSent(era, "initialize", {
        protocolVersion: "2025-06-18",
        capabilities: {},
        clientInfo: { name: "test", version: "1" },
      }),
    ],
    ["initialize without params", asSent(era, "initialize")],
    [
      "initialize without capabilities",
      asSent(era, "initialize", {
        protocolVersion: "2025-06-18",
        clientInfo: { name: "test", version: "1" },
      }),
    ],
  ];
}

/** Requests the SDK's entries refuse or answer themselves, which the endpoint must leave to them. */
function leftToTheSdk(): [string, { body: unknown; headers: Record<string, string> }][] {
  const search = asSent("legacy", "tools/call", { name: "list_skills", arguments: { query: "saw" } });
  const modern = asSent("modern", "tools/call", { name: "list_skills", arguments: { query: "saw" } });
  const { "mcp-name": _name, ...withoutName } = modern.headers;
  const { "mcp-method": _method, ...withoutMethod } = modern.headers;
  const { "mcp-protocol-version": _version, ...withoutVersion } = modern.headers;
  return [
    ["a 2025 batch", { ...search, body: [search.body, { ...search.body, id: 8 }] }],
    ["a 2025 notification", { ...search, body: { jsonrpc: "2.0", method: "notifications/initialized" } }],
    ["a posted response", { ...search, body: { jsonrpc: "2.0", id: 1, result: {} } }],
    ["a message the JSON-RPC schema refuses", { ...search, body: { ...search.body, extra: true } }],
    [
      "an Accept without event streams",
      { ...search, headers: { ...search.headers, accept: "application/json" } },
    ],
    [
      "an unsupported protocol version",
      { ...search, headers: { ...search.headers, "mcp-protocol-version": "1999-01-01" } },
    ],
    ["2026-07-28 without Mcp-Name", { ...modern, headers: withoutName }],
    ["2026-07-28 without Mcp-Method", { ...modern, headers: withoutMethod }],
    ["2026-07-28 without MCP-Protocol-Version", { ...modern, headers: withoutVersion }],
    [
      "2026-07-28 with another Mcp-Name",
      { ...modern, headers: { ...modern.headers, "mcp-name": "read_skill" } },
    ],
    [
      "2026-07-28 with Mcp-Name in Base64",
      { ...modern, headers: { ...modern.headers, "mcp-name": "=?base64?bGlzdF9za2lsbHM=?=" } },
    ],
    [
      "2026-07-28 with an invalid Base64 Mcp-Name",
      { ...modern, headers: { ...modern.headers, "mcp-name": "=?base64?!!!?=" } },
    ],
    [
      "2026-07-28 naming another revision",
      {
        headers: { ...modern.headers, "mcp-protocol-version": "2099-01-01" },
        body: {
          ...modern.body,
          params: {
            ...modern.body.params,
            _meta: {
              ...(modern.body.params?._meta as object),
              "io.modelcontextprotocol/protocolVersion": "2099-01-01",
            },
          },
        },
      },
    ],
    [
      "a 2026-07-28 notification",
      {
        headers: { ...modern.headers, "mcp-method": "notifications/initialized" },
        body: {
          jsonrpc: "2.0",
          method: "notifications/initialized",
          params: { _meta: modern.body.params?._meta },
        },
      },
    ],
    ["a 2026-07-28 body with 2025 headers", { ...modern, headers: LEGACY_HEADERS }],
    ["a 2025 batch holding a 2026-07-28 request", { ...search, body: [search.body, modern.body] }],
    [
      "a 2026-07-28 notification with another Mcp-Method",
      {
        headers: { ...modern.headers, "mcp-method": "tools/list" },
        body: {
          jsonrpc: "2.0",
          method: "notifications/initialized",
          params: { _meta: modern.body.params?._meta },
        },
      },
    ],
    [
      "an envelope without its protocol version, and an Accept of JSON alone",
      {
        headers: { ...COMMON_HEADERS, accept: "application/json", "mcp-method": "tools/list" },
        body: {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/list",
          params: { _meta: { "io.modelcontextprotocol/clientCapabilities": {} } },
        },
      },
    ],
    [
      "initialize with MCP-Protocol-Version: 2026-07-28",
      {
        headers: { ...search.headers, "mcp-protocol-version": "2026-07-28" },
        body: {
          jsonrpc: "2.0",
          id: 1,
          method: "initialize",
          params: {
            protocolVersion: "2025-11-25",
            capabilities: {},
            clientInfo: { name: "t", version: "1" },
          },
        },
      },
    ],
  ];
}

/**
 * 2026-07-28 requests written the plain way but for their envelope, which the endpoint hands the scope's
 * server (see plainModernRequestOf): the server refuses each as it is delivered, and the SDK's entry answers.
 */
function wrongEnvelopes(): [string, { body: unknown; headers: Record<string, string> }][] {
  const search = asSent("modern", "tools/call", { name: "list_skills", arguments: { query: "saw" } });
  const meta = search.body.params?._meta as Record<string, unknown>;
  const withMeta = (changed: Record<string, unknown>) => ({
    ...search,
    body: { ...search.body, params: { ...search.body.params, _meta: changed } },
  });
  const { "io.modelcontextprotocol/clientCapabilities": _capabilities, ...withoutCapabilities } = meta;
  return [
    ["2026-07-28 without clientCapabilities", withMeta(withoutCapabilities)],
    [
      "2026-07-28 with clientInfo a string",
      withMeta({ ...meta, "io.modelcontextprotocol/clientInfo": "me" }),
    ],
    [
      "2026-07-28 with a log level no one knows",
      withMeta({ ...meta, "io.modelcontextprotocol/logLevel": "loud" }),
    ],
  ];
}

describe("the endpoint answers as the SDK's own entries do", () => {
  const cases = [
    ...requestsOf("legacy").map(([name, request]) => [`2025: ${name}`, request] as const),
    ...requestsOf("modern").map(([name, request]) => [`2026-07-28: ${name}`, request] as const),
    ...leftToTheSdk(),
    ...wrongEnvelopes(),
  ];

  it.each(cases)("%s", async (_, { headers, body }) => {
    const endpoint = new McpEndpoint(newServer, () => {});
    expect(await endpointAnswer(endpoint, headers, body)).toEqual(await sdkAnswer(newServer, headers, body));
  });

  // Assumption: a server keeps nothing of one request for the next. The endpoint's two servers answer
  // every request of their scope, many at once; each answer must still be a new server's.
  it("answers every request over the scope's servers as new servers answer it, many at once, twice", async () => {
    const endpoint = new McpEndpoint(newServer, () => {});
    const expected = await Promise.all(
      cases.map(([, { headers, body }]) => sdkAnswer(newServer, headers, body)),
    );
    for (let round = 0; round < 2; round++) {
      const answers = await Promise.all(
        cases.map(([, { headers, body }]) => endpointAnswer(endpoint, headers, body)),
      );
      expect(answers).toEqual(expected);
    }
  });
});

// A place the endpoint answers otherwise than the SDK's entries, on purpose (see sdkAnswer): the
// params of a method whose handler is the SDK's own are refused as an internal error with a dump of the
// schema's issues, and the endpoint refuses them as invalid params, in one line.
it.each([["initialize without params", asSent("legacy", "initialize")]])(
  "%s: the SDK answers -32603 and its schema's issues, the endpoint -32602 in one line",
  async (_, sent) => {
    const sdk = JSON.parse((await sdkEntryAnswer(newServer, sent.headers, sent.body)).text);
    expect(sdk.error.code).toBe(-32603);
    expect(JSON.parse(sdk.error.message)[0]).toMatchObject({ path: expect.arrayContaining(["params"]) });
    const endpoint = await endpointAnswer(new McpEndpoint(newServer, () => {}), sent.headers, sent.body);
    const { error } = JSON.parse(endpoint.text);
    expect(error.code).toBe(-32602);
    expect(error.message).toMatch(/^Invalid params for initialize: [^\n]+$/);
  },
);

// The other place, on purpose (see unclaimedEnvelopeRefusal): a request holding keys of a 2026-07-28
// envelope but not its protocol version, without MCP-Protocol-Version, the SDK reads as 2025 (the version
// key alone claims an envelope) and its transport serves; the endpoint refuses it, as 2026-07-28 refuses
// an envelope missing its version.
it("serves as 2025 an envelope without its protocol version, where the endpoint refuses it", async () => {
  const headers = COMMON_HEADERS;
  const body = {
    jsonrpc: "2.0",
    id: 3,
    method: "tools/list",
    params: { _meta: { "io.modelcontextprotocol/clientCapabilities": {} } },
  };
  expect(classify(headers, body)).toMatchObject({ kind: "legacy", reason: "no-claim" });
  const sdk = await sdkEntryAnswer(newServer, headers, body);
  expect([sdk.status, JSON.parse(sdk.text)]).toMatchObject([
    200,
    { id: 3, result: { tools: expect.any(Array) } },
  ]);
  const endpoint = await endpointAnswer(new McpEndpoint(newServer, () => {}), headers, body);
  expect([endpoint.status, JSON.parse(endpoint.text)]).toMatchObject([
    400,
    {
      id: 3,
      error: { code: -32602, data: { envelope: { missing: ["io.modelcontextprotocol/protocolVersion"] } } },
    },
  ]);
});

// Assumption (server.ts answers resources/templates/list itself, to refuse a cursor as the paged lists
// do): the Skills extension registers one template, which McpServer lists as RESOURCE_TEMPLATES says.
it.each(["legacy", "modern"] as const)(
  "McpServer lists the Skills extension's template as the server gives it (%s)",
  async (era) => {
    const nothing = {
      list: async () => ({ skills: [] }),
      get: async () => undefined,
      read: async () => undefined,
    };
    const mcp = new McpServer(
      { name: "extension-only", version: "1" },
      era === "modern"
        ? { supportedProtocolVersions: [...SUPPORTED_PROTOCOL_VERSIONS, MODERN_REVISION] }
        : {},
    );
    new SkillsExtension({ source: nothing }).attach(mcp);
    const connection = await ServerConnection.open(mcp, era);
    const request = wireRequest(era, 1, "resources/templates/list").body as JSONRPCRequest;
    const { message } = await connection.exchange(request);
    expect(message).toHaveProperty("result.resourceTemplates", RESOURCE_TEMPLATES.resourceTemplates);
  },
);

// Where /mcp answers otherwise than the SDK's entries before its endpoint, on purpose: its route reads
// a request as meant (requestsAsMeant, as stdio does): a null or empty cursor as none, null
// arguments as none, the arguments of an unknown tool left out. The SDK's entries, handed the request as
// sent, refuse it; handed it as read, they answer it as the endpoint does.
describe.each(["legacy", "modern"] as const)("a request /mcp reads as meant (%s)", (era) => {
  it.each([
    ["an empty cursor", asSent(era, "prompts/list", { cursor: "" })],
    ["a null cursor", asSent(era, "tools/list", { cursor: null })],
    ["null arguments", asSent(era, "tools/call", { name: "list_packs", arguments: null })],
    ["an unknown tool's arguments", asSent(era, "tools/call", { name: "nope", arguments: "x" })],
  ])("%s: the SDK's entries refuse it as sent, and answer it as read", async (_, { headers, body }) => {
    const asSentBySdk = JSON.parse((await sdkAnswer(newServer, headers, body)).text);
    expect(asSentBySdk.error).toMatchObject({ code: -32602 });
    const read = requestsAsMeant(body);
    const endpoint = await endpointAnswer(new McpEndpoint(newServer, () => {}), headers, read);
    expect(JSON.parse(endpoint.text)).toHaveProperty("result");
    expect(endpoint).toEqual(await sdkAnswer(newServer, headers, read));
  });
});

// Assumption: a 2025 batch of plain requests, which the endpoints answer member by member from their kept
// answers and the scope's server, is answered as the SDK's transport answers it, and one of more than
// MAX_BATCH_MESSAGES messages is refused as it refuses it.
describe("the endpoints answer a 2025 batch as the SDK's transport does", () => {
  const batches = (): [string, unknown[]][] => {
    const toolCall = (id: number, name: string, args: Record<string, unknown>) =>
      asSent("legacy", "tools/call", { name, arguments: args }, id).body;
    const mixed = [
      toolCall(1, "list_skills", { query: "drive nails" }),
      toolCall(2, "read_skill", { skill: "alpha/two" }),
      toolCall(3, "read_skill", { skill: "alpha/nope" }),
      toolCall(4, "delete_everything", {}),
      asSent("legacy", "prompts/list", undefined, "five").body,
      asSent("legacy", "resources/read", { uri: "skill://alpha/two/references/guide.md" }, 6).body,
      asSent("legacy", "tools/list", undefined, 7).body,
    ];
    const lists = (size: number) =>
      Array.from({ length: size }, (_, id) => asSent("legacy", "prompts/list", undefined, id).body);
    return [
      ["of every kind of answer", mixed],
      // (Under one id twice, the SDK answers once, and not as a batch; the endpoints answer each.)
      ["of the same request twice", [mixed[1], { ...mixed[1], id: 8 }]],
      [`of ${MAX_BATCH_MESSAGES} messages`, lists(MAX_BATCH_MESSAGES)],
      [`of ${MAX_BATCH_MESSAGES + 1} messages`, lists(MAX_BATCH_MESSAGES + 1)],
      ["with an unknown method", [mixed[0], asSent("legacy", "nothing/here", undefined, 9).body]],
    ];
  };

  it.each(batches())("a batch %s, twice", async (_, body) => {
    const endpoints = new McpEndpoints(
      () => newServer,
      () => {},
    );
    const scope = { scope: everything, key: "" };
    const expected = await sdkAnswer(newServer, LEGACY_HEADERS, body);
    for (let round = 0; round < 2; round++) {
      const asked = endpoints.request(scope, rawRequest(LEGACY_HEADERS), body);
      const { answer } = await asked.answer();
      expect({
        status: answer.status,
        contentType: answer.contentType,
        text: inSdkWords(answer.body.toString()),
      }).toEqual(expected);
    }
  });
});

// Assumption (MAX_BATCH_MESSAGES, unsupportedVersionOf): the SDK's 2025 transport refuses a batch for its
// size before it looks at the protocol version; the endpoint, which words the version's refusal itself,
// refuses it there and not before.
it("refuses a 2025 batch for its size before its protocol version, as the SDK's transport does", async () => {
  const headers = { ...COMMON_HEADERS, "mcp-protocol-version": "2024-01-01" };
  const pings = (count: number) =>
    Array.from({ length: count }, (_, id) => ({ jsonrpc: "2.0", id, method: "ping" }));
  const refused = async (body: unknown) =>
    (JSON.parse((await sdkAnswer(newServer, headers, body)).text) as { error: { message: string } }).error;
  expect(await refused(pings(MAX_BATCH_MESSAGES + 1))).toMatchObject({
    message: expect.stringMatching(
      /^Invalid Request: Batch must not exceed 100 messages \(this one holds 10[12]\); /,
    ),
  });
  expect(unsupportedVersionOf(headers, pings(MAX_BATCH_MESSAGES + 1))).toBeUndefined();
  expect(await refused(pings(MAX_BATCH_MESSAGES))).toMatchObject({
    message: expect.stringContaining("Unsupported protocol version"),
  });
  expect(unsupportedVersionOf(headers, pings(MAX_BATCH_MESSAGES))).toMatchObject({ requested: "2024-01-01" });
});

// Assumption (countingBatch): the SDK's 2025 transport refuses a batch over MAX_BATCH_MESSAGES in these
// words, which say neither how many it held nor what to do; the endpoint adds both.
it("refuses a 2025 batch over its size in the words countingBatch rewords", async () => {
  const pings = Array.from({ length: MAX_BATCH_MESSAGES + 1 }, (_, id) => ({
    jsonrpc: "2.0",
    id,
    method: "ping",
  }));
  const { status, text } = await sdkEntryAnswer(newServer, COMMON_HEADERS, pings);
  expect([status, JSON.parse(text)]).toEqual([
    400,
    {
      jsonrpc: "2.0",
      error: {
        code: -32600,
        message: `Invalid Request: Batch must not exceed ${MAX_BATCH_MESSAGES} messages`,
      },
      id: null,
    },
  ]);
});

// Assumption (quotingHeaderMismatch): the SDK refuses a 2026-07-28 notification whose Mcp-Method or
// MCP-Protocol-Version differs from its body in these words, the values bare.
it.each([
  [
    { "mcp-method": "tools/list" },
    "the notification body names method notifications/initialized but the Mcp-Method header names tools/list",
  ],
  [
    { "mcp-protocol-version": "2025-11-25" },
    "the notification envelope names protocol version 2026-07-28 but the MCP-Protocol-Version header names 2025-11-25",
  ],
])("refuses a notification with %o in the words quotingHeaderMismatch quotes", async (changed, said) => {
  const { headers, body } = asSent("modern", "notifications/initialized");
  const { id: _id, ...notification } = body;
  const { status, text } = await sdkEntryAnswer(newServer, { ...headers, ...changed }, notification);
  const sdk = JSON.parse(text);
  expect([status, sdk.error.message, sdk.error.data.mismatch.body]).toEqual([
    400,
    `Bad Request: the request headers and body disagree: ${said}`,
    said,
  ]);
  expect(quotingHeaderMismatch(sdk, notification)).not.toEqual(sdk);
});

// Assumption (advisingHeaderRefusal): the SDK refuses initialize under a 2026-07-28 header, and an Mcp-Name
// that is no base64 inside =?base64?…?=, in these words, which the endpoint adds what to send to.
it.each([
  [
    "initialize under a 2026-07-28 header",
    { ...LEGACY_HEADERS, "mcp-protocol-version": "2026-07-28" },
    asSent("legacy", "initialize", { protocolVersion: "2025-11-25", capabilities: {} }).body,
    "an initialize request (legacy handshake) was sent with a modern MCP-Protocol-Version header",
    "2026-07-28",
  ],
  [
    "an Mcp-Name that is no base64",
    { ...asSent("modern", "tools/call", { name: "list_packs" }).headers, "mcp-name": "=?base64?!!!?=" },
    asSent("modern", "tools/call", { name: "list_packs" }).body,
    "the Mcp-Name header carries an invalid Base64 sentinel value",
    "=?base64?!!!?=",
  ],
])("refuses %s in the words advisingHeaderRefusal rewords", async (_, headers, body, said, header) => {
  const { status, text } = await sdkEntryAnswer(newServer, headers, body);
  const sdk = JSON.parse(text);
  expect([status, sdk.error]).toEqual([
    400,
    {
      code: -32020,
      message: `Bad Request: the request headers and body disagree: ${said}`,
      data: { mismatch: { header, body: said } },
    },
  ]);
  expect(advisingHeaderRefusal(sdk, body)).not.toEqual(sdk);
});

// Assumption (namingEnvelopeInBatch): the SDK refuses a batch holding a message with a per-request envelope
// in these words, at the first such member, whatever version it names; the endpoint names that member.
it.each(["2026-07-28", "2025-11-25"])(
  "refuses a batch holding a message whose envelope names %s in the words namingEnvelopeInBatch rewords",
  async (version) => {
    const enveloped = {
      jsonrpc: "2.0",
      id: 2,
      method: "ping",
      params: { _meta: { "io.modelcontextprotocol/protocolVersion": version } },
    };
    const body = [{ jsonrpc: "2.0", id: 1, method: "ping" }, enveloped, { ...enveloped, id: 3 }];
    const { status, text } = await sdkEntryAnswer(newServer, COMMON_HEADERS, body);
    const sdk = JSON.parse(text);
    expect([status, sdk]).toEqual([
      400,
      {
        jsonrpc: "2.0",
        error: {
          code: -32600,
          message:
            "Bad Request: JSON-RPC batches may not contain requests for protocol revision 2026-07-28 or later",
        },
        id: null,
      },
    ]);
    expect(namingEnvelopeInBatch(sdk, body)).toMatchObject({
      error: { message: expect.stringContaining(": the message at index 1 (counting from 0) carries") },
    });
  },
);

// Assumption (batchedHandshakeOf): the SDK's 2025 transport refuses a batch holding the handshake and
// another message, after the batch's size and before the protocol version; the endpoint words it there.
it("refuses a 2025 batch holding initialize and more, as the SDK's transport does, where it does", async () => {
  const initialize = {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "a", version: "1" } },
  };
  const pings = (count: number) =>
    Array.from({ length: count }, (_, id) => ({ jsonrpc: "2.0", id: id + 1, method: "ping" }));
  const refused = async (headers: Record<string, string>, body: unknown) => {
    const { status, text } = await sdkAnswer(newServer, headers, body);
    return { status, error: (JSON.parse(text) as { error: unknown }).error };
  };
  const old = { ...COMMON_HEADERS, "mcp-protocol-version": "2024-01-01" };
  for (const headers of [COMMON_HEADERS, LEGACY_HEADERS, old]) {
    expect(await refused(headers, [initialize, ...pings(1)])).toEqual({
      status: 400,
      error: { code: -32600, message: "Invalid Request: Only one initialization request is allowed" },
    });
    expect(batchedHandshakeOf(headers, [initialize, ...pings(1)])).toBe(2);
  }
  expect((await refused(COMMON_HEADERS, [initialize, ...pings(MAX_BATCH_MESSAGES)])).error).toMatchObject({
    message: expect.stringMatching(
      /^Invalid Request: Batch must not exceed 100 messages \(this one holds 10[12]\); /,
    ),
  });
  expect(batchedHandshakeOf(COMMON_HEADERS, [initialize, ...pings(MAX_BATCH_MESSAGES)])).toBeUndefined();
  expect(batchedHandshakeOf(COMMON_HEADERS, [initialize])).toBeUndefined();
  expect(batchedHandshakeOf(COMMON_HEADERS, initialize)).toBeUndefined();
});

// Assumption (repeatedIdOf): the SDK's 2025 transport answers one of two requests of a batch under one id,
// refusing nothing; the endpoint refuses such a batch where the SDK reads its messages.
it("finds two requests of a 2025 batch under one id, of which the SDK answers one", async () => {
  const batch = [
    { jsonrpc: "2.0", id: 1, method: "ping" },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    { jsonrpc: "2.0", id: 1, method: "tools/list" },
  ];
  const { status, text } = await sdkAnswer(newServer, COMMON_HEADERS, batch);
  expect(status).toBe(200);
  // One answer, which it sends bare (see asBatchAnswer).
  expect([JSON.parse(text)].flat()).toHaveLength(1);
  expect(repeatedIdOf(COMMON_HEADERS, batch)).toEqual({ id: 1, first: 0, again: 2 });
  expect(repeatedIdOf(LEGACY_HEADERS, batch)).toEqual({ id: 1, first: 0, again: 2 });
  // 406 comes first, and a batch of distinct ids (1 and "1" differ) is no such batch.
  expect(repeatedIdOf({ ...COMMON_HEADERS, accept: "application/json" }, batch)).toBeUndefined();
  expect(repeatedIdOf(COMMON_HEADERS, [batch[0], { ...batch[2], id: "1" }])).toBeUndefined();
});

// Assumption (namingNameEncoding): the SDK refuses a missing or differing Mcp-Name with -32020, naming the
// header, and reads =?base64?…?= as the base64 of the value's UTF-8 bytes.
it("refuses an Mcp-Name outside ASCII sent as it is, and reads it base64-encoded, as namingNameEncoding says", async () => {
  const call = wireRequest("modern", 1, "tools/call", { name: "liste_é", arguments: {} });
  const { "mcp-name": _name, ...headers } = call.headers;
  const answerTo = async (name: string | undefined) => {
    const sent = { ...COMMON_HEADERS, ...headers, ...(name === undefined ? {} : { "mcp-name": name }) };
    const { status, text } = await sdkEntryAnswer(newServer, sent, call.body);
    return { status, answer: JSON.parse(text) as { error?: { code: number; message: string } } };
  };
  for (const name of [undefined, Buffer.from("liste_é").toString("latin1")]) {
    const { status, answer } = await answerTo(name);
    expect(status).toBe(400);
    expect(answer.error).toMatchObject({ code: -32020, message: expect.stringContaining("Mcp-Name") });
    expect((namingNameEncoding(answer, call.body) as typeof answer).error?.message).toMatch(
      /: here, Mcp-Name: =\?base64\?bGlzdGVfw6k=\?=$/,
    );
  }
  expect((await answerTo("=?base64?bGlzdGVfw6k=?=")).status).toBe(200);
  // A name that goes in a header as it is is told nothing more.
  const plain = { jsonrpc: "2.0", id: 1, error: { code: -32020, message: "Mcp-Name differs" } };
  expect(namingNameEncoding(plain, { ...call.body, params: { name: "list_packs" } })).toBe(plain);
});

// The rules the endpoint copies to tell which 2026-07-28 requests it may hand its servers (the headers
// the SDK checks), tried on headers and bodies a client might send, whatever the SDK makes of them.
it("answers 2026-07-28 requests with any standard headers as createMcpHandler does", async () => {
  const endpoint = new McpEndpoint(newServer, () => {});
  const method = fc.constantFrom("tools/call", "resources/read", "prompts/get", "tools/list", "nothing/here");
  const value = fc.oneof(
    fc.constantFrom("list_packs", "read_skill", "skill://alpha/one/SKILL.md", "beta/hammer", " list_packs"),
    fc.string({ maxLength: 8 }),
    fc.integer(),
  );
  const header = (named: unknown) =>
    fc.oneof(
      fc.constant(undefined),
      fc.constant(typeof named === "string" ? named : "list_packs"),
      fc.constant(`=?base64?${Buffer.from(String(named)).toString("base64")}?=`),
      fc.string({ maxLength: 8 }).filter((text) => /^[\x21-\x7e]*$/.test(text)),
    );
  const request = method.chain((chosen) =>
    fc.record({
      method: fc.constant(chosen),
      name: fc.option(value, { nil: undefined }),
      uri: fc.option(value, { nil: undefined }),
      methodHeader: fc.constantFrom(chosen, undefined, "tools/list"),
      versionHeader: fc.constantFrom("2026-07-28", undefined, "2025-11-25"),
    }),
  );
  await fc.assert(
    fc.asyncProperty(
      request.chain((sent) =>
        fc.record({ sent: fc.constant(sent), nameHeader: header(sent.name ?? sent.uri) }),
      ),
      async ({ sent, nameHeader }) => {
        const params = {
          ...(sent.name !== undefined ? { name: sent.name } : {}),
          ...(sent.uri !== undefined ? { uri: sent.uri } : {}),
          ...(sent.method === "tools/call" ? { arguments: {} } : {}),
        };
        const { body } = asSent("modern", sent.method, params);
        const headers: Record<string, string> = { ...COMMON_HEADERS };
        if (sent.versionHeader !== undefined) headers["mcp-protocol-version"] = sent.versionHeader;
        if (sent.methodHeader !== undefined) headers["mcp-method"] = sent.methodHeader;
        if (nameHeader !== undefined) headers["mcp-name"] = nameHeader;
        expect(await endpointAnswer(endpoint, headers, body)).toEqual(
          await sdkAnswer(newServer, headers, body),
        );
      },
    ),
    { numRuns: 200 },
  );
});

// Assumption (acceptAsTheSdkReadsIt): the SDK's 2025 transport reads Accept's media types as written. When
// a release reads them as RFC 9110 asks (any case, ranges), the route's rewriting of the header can go.
describe("Accept, written otherwise than the SDK looks for it", () => {
  const { body } = asSent("legacy", "tools/list");

  it.each([
    "Application/JSON, Text/Event-Stream",
    "*/*",
    "application/*, text/*",
    "application/json, text/*;q=0.5",
  ])("%s is refused by the SDK's 2025 transport, and handed to it as the two types", async (accept) => {
    const sent = { ...LEGACY_HEADERS, accept };
    expect((await sdkAnswer(newServer, sent, body)).status).toBe(406);
    const headers: IncomingHttpHeaders = { ...sent };
    acceptAsTheSdkReadsIt(headers);
    expect(headers).toEqual(LEGACY_HEADERS);
    expect(await sdkAnswer(newServer, LEGACY_HEADERS, body)).toMatchObject({ status: 200 });
  });

  it.each([
    ["text/html", ""],
    ["Application/JSON", "application/json"],
    ["*/*;q=0", ""],
    ["*/*, text/event-stream;q=0", "application/json"],
    ["application/json, text/event-stream;q=0", "application/json"],
    ["text/event-stream, application/json;q=0", "text/event-stream"],
  ])("%s, which does not accept both, is handed to it as the types it accepts", async (accept, accepted) => {
    const headers: IncomingHttpHeaders = { ...LEGACY_HEADERS, accept };
    acceptAsTheSdkReadsIt(headers);
    expect(headers).toEqual({ ...LEGACY_HEADERS, accept: accepted });
    expect((await sdkAnswer(newServer, { ...LEGACY_HEADERS, accept: accepted }, body)).status).toBe(406);
  });
});

describe("which requests the endpoint hands its servers itself", () => {
  it.each(leftToTheSdk())("not %s", (_, { headers, body }) => {
    const outcome = classify(headers, body);
    expect(
      outcome.kind === "legacy" ? legacyRequestOf(headers, body) : modernRequestOf(headers, outcome),
    ).toBe(undefined);
  });

  it.each(
    [...requestsOf("legacy"), ...requestsOf("modern")].filter(([name]) => !name.startsWith("initialize")),
  )("%s, in either era", (_, { headers, body }) => {
    const outcome = classify(headers, body);
    const request =
      outcome.kind === "legacy" ? legacyRequestOf(headers, body) : modernRequestOf(headers, outcome);
    expect(request).toEqual(body);
  });
});

// Mostly what clients send, often one member off: each member valid more often than not.
const member = (...values: unknown[]) => fc.constantFrom(...values);
const mostly = (valid: fc.Arbitrary<unknown>, other: fc.Arbitrary<unknown>) =>
  fc.oneof({ arbitrary: valid, weight: 4 }, { arbitrary: other, weight: 1 });

/** A body as `fc.record` made it: a member undefined is left out, and `without` names one to drop. */
function assembled({ more, without, ...members }: Record<string, unknown>): Record<string, unknown> {
  const sent: Record<string, unknown> = { ...members, ...(more as object) };
  for (const [name, value] of Object.entries(sent)) if (value === undefined) delete sent[name];
  if (typeof without === "string") delete sent[without];
  return sent;
}

// Assumption: a request that plainly speaks 2025, told without the SDK's schemas, is one the SDK classifies
// as 2025 and its transport hands a server as it is.
describe("a JSON-RPC message, as the SDK tells one in a batch", () => {
  it("is what any of its four guards accepts, told by one parse, whatever a client sends", () => {
    // Each kind of message, mostly whole, else with a member dropped, added or of the wrong kind.
    const id = mostly(fc.oneof(fc.string({ maxLength: 4 }), fc.integer()), member(1.5, null, true, {}));
    const jsonrpc = mostly(member("2.0"), member("1.0", 2, null));
    const params = mostly(member(undefined, {}, { _meta: {} }), member({ _meta: null }, null, [], "params"));
    const error = mostly(
      fc.record(
        { code: fc.integer(), message: fc.string({ maxLength: 4 }), data: fc.anything() },
        {
          requiredKeys: ["code", "message"],
        },
      ),
      fc.oneof(member(null, "error"), fc.record({ code: member(1.5, "1"), message: member(2) })),
    );
    const more = mostly(
      member({}),
      member(
        { extra: 1 },
        { result: {} },
        { error: { code: 1, message: "" } },
        { method: "ping" },
        { id: 1 },
      ),
    );
    const without = (...names: string[]) => mostly(member(undefined), member(...names));
    const message = fc
      .oneof(
        fc.record({
          jsonrpc,
          id,
          method: member("tools/call", 5),
          params,
          more,
          without: without("id", "method"),
        }),
        fc.record({
          jsonrpc,
          method: member("notifications/initialized", null),
          params,
          more,
          without: without("method"),
        }),
        fc.record({
          jsonrpc,
          id,
          result: mostly(member({}, { content: [] }), member(null, [], 1)),
          more,
          without: without("id", "result"),
        }),
        fc.record({ jsonrpc, id: fc.oneof(id, member(undefined)), error, more, without: without("error") }),
      )
      .map(assembled);
    const fourGuards = (value: unknown) =>
      isJSONRPCRequest(value) ||
      isJSONRPCNotification(value) ||
      isJSONRPCResultResponse(value) ||
      isJSONRPCErrorResponse(value);
    fc.assert(
      fc.property(
        fc.oneof({ arbitrary: message, weight: 9 }, { arbitrary: fc.anything(), weight: 1 }),
        (value) => {
          expect(isJsonRpcMessage(value)).toBe(fourGuards(value));
        },
      ),
      { numRuns: 5000 },
    );
  });
});

describe("requests that plainly speak 2025", () => {
  const legacy = requestsOf("legacy");
  it.each(legacy.filter(([name]) => !name.startsWith("initialize")))(
    "are told without the SDK: %s",
    (_, sent) => {
      expect(plainLegacyRequestOf(sent.headers, sent.body)).toBe(sent.body);
    },
  );

  it.each([
    ...legacy.filter(([name]) => name.startsWith("initialize")),
    ...requestsOf("modern").map(([name, sent]) => [`2026-07-28: ${name}`, sent] as const),
    ...leftToTheSdk(),
  ])("are not %s", (_, { headers, body }) => {
    expect(plainLegacyRequestOf(headers, body)).toBe(undefined);
  });

  it("are what the SDK would hand its server unchanged, whatever a client sends", () => {
    const body = fc
      .record({
        jsonrpc: mostly(member("2.0"), member("1.0", 2)),
        id: mostly(fc.oneof(fc.string({ maxLength: 4 }), fc.integer()), member(1.5, 2 ** 53, null, true)),
        method: mostly(member("tools/call", "ping", "tools/list"), member("initialize", 5)),
        params: mostly(
          fc.oneof(
            fc.constant(undefined),
            fc.record({ name: member("list_skills"), arguments: fc.dictionary(fc.string(), fc.string()) }),
          ),
          fc.oneof(
            member(null, [], "params"),
            fc.record({
              _meta: member(
                {},
                null,
                { progressToken: 3 },
                { progressToken: [] },
                {
                  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                },
              ),
            }),
          ),
        ),
        more: mostly(
          fc.constant({}),
          member({ result: {} }, { error: { code: 1, message: "no" } }, { extra: true }),
        ),
        without: mostly(fc.constant(undefined), member("jsonrpc", "id", "method")),
      })
      .map(assembled);
    const headers = fc.record(
      {
        accept: mostly(
          member("application/json, text/event-stream"),
          member("application/json", "text/event-stream"),
        ),
        "content-type": mostly(
          member("application/json", "application/json; charset=utf-8"),
          member("text/plain"),
        ),
        "mcp-protocol-version": mostly(
          member("2025-11-25", "2025-06-18", "2024-11-05"),
          member("2026-07-28", "1999-01-01"),
        ),
        "mcp-method": member("tools/call", "ping"),
      },
      { requiredKeys: [] },
    ) as fc.Arbitrary<Record<string, string>>;
    let told = 0;
    fc.assert(
      fc.property(headers, body, (sentHeaders, sentBody) => {
        const plain = plainLegacyRequestOf(sentHeaders, sentBody);
        if (plain === undefined) return;
        told++;
        expect(classify(sentHeaders, sentBody).kind).toBe("legacy");
        expect(legacyRequestOf(sentHeaders, sentBody)).toEqual(plain);
      }),
      { numRuns: 5000 },
    );
    // The property holds of requests the fast way takes, not only of what it leaves to the SDK.
    expect(told).toBeGreaterThan(50);
  });
});

// Assumption: a request that plainly speaks 2026-07-28, told without the SDK's schemas, is one the SDK
// classifies as such and hands a server as it is, or one whose envelope the server itself refuses.
describe("requests that plainly speak 2026-07-28", () => {
  const modern = requestsOf("modern");
  it.each(modern.filter(([name]) => !name.startsWith("initialize")))(
    "are told without the SDK: %s",
    (_, sent) => {
      expect(plainModernRequestOf(sent.headers, sent.body)).toBe(sent.body);
    },
  );

  it.each(wrongEnvelopes())("are handed to the server, which refuses them itself: %s", async (_, sent) => {
    const request = plainModernRequestOf(sent.headers, sent.body);
    expect(request).toBe(sent.body);
    const connection = await ServerConnection.open(newServer({ era: "modern" }), "modern");
    expect((await connection.exchange(request as JSONRPCRequest)).refused).toBe(true);
  });

  it.each([
    ...modern.filter(([name]) => name.startsWith("initialize")),
    ...requestsOf("legacy").map(([name, sent]) => [`2025: ${name}`, sent] as const),
    ...leftToTheSdk(),
  ])("are not %s", (_, { headers, body }) => {
    expect(plainModernRequestOf(headers, body)).toBe(undefined);
  });

  it("are what the SDK would hand its server unchanged, or what the server refuses, whatever a client sends", async () => {
    const connection = await ServerConnection.open(newServer({ era: "modern" }), "modern");
    const envelope = asSent("modern", "ping").body.params?._meta as Record<string, unknown>;
    const version = "io.modelcontextprotocol/protocolVersion";
    const info = "io.modelcontextprotocol/clientInfo";
    const capabilities = "io.modelcontextprotocol/clientCapabilities";
    const level = "io.modelcontextprotocol/logLevel";
    const withKey = (key: string, value: unknown) => ({ ...envelope, [key]: value });
    const withoutKey = (key: string) =>
      Object.fromEntries(Object.entries(envelope).filter(([k]) => k !== key));
    // As often wrong as right: the wrong envelopes are the ones the server must refuse itself.
    const meta = fc.oneof(
      member(envelope, withKey(level, "debug")),
      member(
        withKey(version, "2025-11-25"),
        withKey(version, 5),
        withoutKey(info),
        withoutKey(capabilities),
        withKey(info, "me"),
        withKey(info, { name: 5 }),
        withKey(capabilities, null),
        withKey(capabilities, []),
        withKey(level, "loud"),
        withKey("progressToken", 3),
        withKey("progressToken", []),
        withKey("io.modelcontextprotocol/other", 1),
        {},
        null,
      ),
    );
    const body = fc
      .record({
        jsonrpc: mostly(member("2.0"), member("1.0")),
        id: mostly(fc.oneof(fc.string({ maxLength: 4 }), fc.integer()), member(1.5, 2 ** 53, null)),
        method: mostly(member("tools/call", "ping"), member("tools/list", "initialize", 5)),
        params: mostly(
          fc.record(
            { name: member("list_skills"), arguments: fc.dictionary(fc.string(), fc.string()), _meta: meta },
            { requiredKeys: ["_meta"] },
          ),
          member(undefined, null, [], { name: "list_skills" }),
        ),
        more: mostly(fc.constant({}), member({ result: {} }, { extra: true })),
        without: mostly(fc.constant(undefined), member("jsonrpc", "id", "method")),
      })
      .map(assembled);
    const headers = fc.record(
      {
        "content-type": mostly(member("application/json"), member("text/plain")),
        "mcp-protocol-version": mostly(member("2026-07-28"), member("2025-11-25", "2099-01-01")),
        "mcp-method": mostly(member("tools/call", "ping"), member("tools/list", "initialize")),
        "mcp-name": mostly(member("list_skills"), member("read_skill", "=?base64?bGlzdF9za2lsbHM=?=")),
      },
      // Without one of these the request is the SDK's (the cases above); each is sent, mostly right.
      { requiredKeys: ["content-type", "mcp-protocol-version", "mcp-method"] },
    ) as fc.Arbitrary<Record<string, string>>;
    let handedOver = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(headers, body, async (sentHeaders, sentBody) => {
        const plain = plainModernRequestOf(sentHeaders, sentBody);
        if (plain === undefined) return;
        const outcome = classify(sentHeaders, sentBody);
        const handed = outcome.kind === "modern" ? modernRequestOf(sentHeaders, outcome) : undefined;
        if (handed !== undefined) {
          handedOver++;
          expect(handed).toEqual(plain);
        } else {
          refused++;
          expect((await connection.exchange(plain)).refused).toBe(true);
        }
      }),
      { numRuns: 5000 },
    );
    // Both ways are taken: the property holds of what the fast way hands over, not only of what it leaves.
    expect(handedOver).toBeGreaterThan(50);
    expect(refused).toBeGreaterThan(10);
  });
});

// Assumption: the SDK checks a request against these headers and no others, so that a kept answer keyed
// by them (with the scope and the body) is the answer the SDK would give.
it("the SDK's entries read the headers the kept answers are keyed by, and no other", async () => {
  const get = vi.spyOn(Headers.prototype, "get");
  const has = vi.spyOn(Headers.prototype, "has");
  try {
    for (const [, { headers, body }] of [
      ...requestsOf("legacy"),
      ...requestsOf("modern"),
      ...leftToTheSdk(),
    ]) {
      await sdkAnswer(newServer, headers, body);
    }
    const read = new Set([...get.mock.calls, ...has.mock.calls].map(([name]) => name.toLowerCase()));
    // The content type of the answers the SDK writes is read back by the test, not by the SDK.
    expect([...read].sort()).toEqual([...CHECKED_HEADERS].sort());
  } finally {
    get.mockRestore();
    has.mockRestore();
  }
});

// Assumption: the SDK writes a result with its id last, which a kept answer's id is replaced by.
it.each(["legacy", "modern"] as const)("the SDK writes a %s-era result with its id last", async (era) => {
  for (const id of [7, "request-7"]) {
    const { headers, body } = asSent(era, "tools/list", undefined, id);
    const { text } = await sdkAnswer(newServer, headers, body);
    expect(text.endsWith(`,"jsonrpc":"2.0",${answerEnding(id)}`)).toBe(true);
  }
});

// Regression: an answer of the SDK's entries was parsed up to three times on the way out (to word its
// refusals of params, to tell whether it failed, to name a method not found): once is enough.
it.each([
  [
    "a method not found",
    { jsonrpc: "2.0", id: 2, method: "nothing/here" },
    'Method not found: \\"nothing/here\\"; ',
  ],
  [
    "a batch of notifications and requests",
    [
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "prompts/get", params: { name: 5, arguments: 5 } },
    ],
    "Invalid params for prompts/get: name: Invalid input: expected string, received number; arguments ",
  ],
])("reads an answer of the SDK's entries once: %s", async (_, body, said) => {
  const endpoint = new McpEndpoint(newServer, () => {});
  const parse = vi.spyOn(JSON, "parse");
  try {
    const { answer } = await endpoint.answer(rawRequest(LEGACY_HEADERS), body);
    expect(answer.body.toString()).toContain(said);
    const reads = parse.mock.calls.filter(([json]) => typeof json === "string" && json.includes('"id":2'));
    expect(reads).toHaveLength(1);
  } finally {
    parse.mockRestore();
  }
});

// Assumption (rejectionOf): createMcpHandler answers a request its classification refuses with the
// rejection as it is, and tells its onerror so. The endpoint answers such a request from its own
// classification; handed to createMcpHandler, the refusal was made twice (the endpoint's classification,
// then the entry's), the entry's answer a Response made and read back.
const refusedByClassification = [
  ...leftToTheSdk(),
  // Envelopes the server would refuse, with a key no envelope has: the endpoint classifies them itself.
  ...wrongEnvelopes().map(
    ([name, { headers, body }]): [string, { body: unknown; headers: Record<string, string> }] => {
      const sent = body as { params: { _meta: object } };
      const _meta = { ...sent.params._meta, "example.com/other": 1 };
      return [
        `${name}, and another _meta key`,
        { headers, body: { ...sent, params: { ...sent.params, _meta } } },
      ];
    },
  ),
].filter(([, { headers, body }]) => classify(headers, body).kind === "reject");

it.each(refusedByClassification)(
  "refuses as createMcpHandler does, from its own classification: %s",
  async (_, { headers, body }) => {
    const told: string[] = [];
    const entry = createMcpHandler(newServer, {
      legacy: "reject",
      onerror: (error) => told.push(error.message),
    });
    await entry.fetch(webRequest(headers), { parsedBody: body });
    // The entry's answer, in the endpoint's words where it words a refusal otherwise (see sdkAnswer).
    const sdk = await sdkAnswer(newServer, headers, body);
    const endpointTold: string[] = [];
    const endpoint = new McpEndpoint(newServer, (error) => endpointTold.push(error.message));
    const made = vi.spyOn(Response, "json");
    try {
      expect(await endpointAnswer(endpoint, headers, body)).toEqual({ ...sdk, text: inSdkWords(sdk.text) });
      expect(made).not.toHaveBeenCalled();
    } finally {
      made.mockRestore();
    }
    expect(endpointTold).toEqual(told);
  },
);
