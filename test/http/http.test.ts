import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeStandardCatalog, type StandardCatalog } from "../helpers/fixtures.js";
import { wireRequest } from "../helpers/requests.js";
import { call, post, type RunningServer, send, startServer } from "../helpers/server.js";
import { skillMd } from "../helpers/skill-tree.js";

let tree: StandardCatalog;
let server: RunningServer;

beforeAll(async () => {
  tree = await makeStandardCatalog();
  server = await startServer(tree.skillsDir);
});
afterAll(async () => {
  await server.close();
  await tree.remove();
});

const listSkills = {
  jsonrpc: "2.0",
  id: 7,
  method: "tools/call",
  params: { name: "list_skills", arguments: {} },
};

function ping(id: number) {
  return { jsonrpc: "2.0", id, method: "ping" };
}

describe("GET /health", () => {
  it("reports the whole loaded catalog, the version and the fetched sources", async () => {
    const response = await fetch(`${server.url}/health`, { headers: { "x-skill-pack": "gamma" } });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      status: "ok",
      version: "test",
      packs: ["alpha", "beta", "gamma"],
      skills: 9,
      skillsExtension: { skills: 9, leftOut: 0 },
      unsafeSkills: { leftOut: 0, served: 0 },
      invocationFlags: { disableModelInvocation: 0, notUserInvocable: 0 },
      sources: [{ name: "alpha", ref: "a".repeat(40) }],
    });
  });
});

describe("/mcp over HTTP", () => {
  it("is stateless: no session id, and any request works without initialize", async () => {
    const response = await post(`${server.url}/mcp`, listSkills);
    expect(response.status).toBe(200);
    expect(response.headers.get("mcp-session-id")).toBeNull();
    expect(response.headers.get("content-type")).toContain("application/json");
    expect(response.json).toMatchObject({ id: 7, result: { content: [{ type: "text" }] } });
  });

  // Regression: a batch of the handshake and a ping was told "Only one initialization request is
  // allowed", which it broke not: the handshake must come alone.
  it("refuses a batch holding initialize, saying to send the handshake alone", async () => {
    const initialize = {
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "a", version: "1" } },
    };
    const response = await post(`${server.url}/mcp`, [initialize, { jsonrpc: "2.0", id: 2, method: "ping" }]);
    expect(response.status).toBe(400);
    expect(response.json).toEqual({
      jsonrpc: "2.0",
      error: {
        code: -32600,
        message:
          "Invalid Request: initialize must be sent alone, not in a batch (this one holds 2 messages); send it in a POST of its own, then the others.",
      },
      id: null,
    });
  });

  // Regression: a batch that the SDK's transport answers (one holding a notification, or a method not
  // served) with two requests under one id got one answer: the other was lost without a word.
  it.each([
    ["beside a notification", [{ jsonrpc: "2.0", method: "notifications/initialized" }]],
    ["beside a method not served", [{ jsonrpc: "2.0", id: 2, method: "nothing/here" }]],
    ["alone", []],
  ])("refuses a batch of two requests under one id, %s, naming them", async (_, others) => {
    const ping = { jsonrpc: "2.0", id: "a", method: "ping" };
    const response = await post(`${server.url}/mcp`, [ping, ...others, { ...ping, method: "tools/list" }]);
    expect(response.status).toBe(400);
    expect(response.json).toEqual({
      jsonrpc: "2.0",
      error: {
        code: -32600,
        message: `Invalid Request: the batch's requests at index 0 and ${others.length + 1} (counting from 0) share the id "a"; give each request of a batch an id of its own, which its answer carries.`,
      },
      id: null,
    });
  });

  // Regression: an empty batch was told "Invalid request: an empty batch.", and not what to send instead.
  it("refuses an empty batch, saying what a POST holds", async () => {
    const response = await post(`${server.url}/mcp`, []);
    expect([response.status, response.json]).toEqual([
      400,
      {
        jsonrpc: "2.0",
        error: {
          code: -32600,
          message:
            "Invalid Request: an empty batch; POST one JSON-RPC message (a JSON object), or a batch of 1 to 100 (a JSON array of them; 2025 protocol versions only).",
        },
        id: null,
      },
    ]);
  });

  // Regression: a body naming "tools/list " under Mcp-Method: tools/list was told that it "names method
  // tools/list  but the Mcp-Method header names tools/list", the values unquoted and the blank unseen.
  it.each([
    ["a trailing blank", "tools/list ", '"tools/list "'],
    ["a newline", "tools/list\n", '"tools/list{U+000A}"'],
  ])("quotes the body's method and Mcp-Method when they differ by %s", async (_, method, shown) => {
    const { body, headers } = wireRequest("modern", 4, method);
    const refused = await post(`${server.url}/mcp`, body, { ...headers, "mcp-method": "tools/list" });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({
      id: 4,
      error: {
        code: -32020,
        message: `Bad Request: the request headers and body disagree: the body names method ${shown} but the Mcp-Method header names "tools/list"; Mcp-Method repeats what the body names, character for character`,
        data: {
          mismatch: {
            header: "tools/list",
            body: `the body names method ${shown} but the Mcp-Method header names "tools/list"`,
          },
        },
      },
    });
  });

  // The same of an envelope naming "2026-07-28 " under MCP-Protocol-Version: 2026-07-28.
  it("quotes the envelope's version and MCP-Protocol-Version when they differ by a blank", async () => {
    const { body, headers } = wireRequest("modern", 5, "tools/list", {
      _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28 " },
    });
    const refused = await post(`${server.url}/mcp`, body, headers);
    expect([refused.status, refused.json]).toMatchObject([
      400,
      {
        id: 5,
        error: {
          code: -32020,
          message:
            'Bad Request: the request headers and body disagree: the body envelope names protocol version "2026-07-28 " but the MCP-Protocol-Version header names "2026-07-28"; MCP-Protocol-Version repeats what the body names, character for character',
        },
      },
    ]);
  });

  // Regression: a header that repeats the body sent twice (a proxy adding Mcp-Name beside the client's own),
  // which HTTP joins into "list_skills, list_skills", was told only to repeat what the body names, as it did.
  // (Two copies reach the server as one value so joined, which is what is sent here.)
  it.each([
    ["Mcp-Method", wireRequest("modern", 7, "tools/list"), "mcp-method", '"tools/list"'],
    ["MCP-Protocol-Version", wireRequest("modern", 7, "tools/list"), "mcp-protocol-version", '"2026-07-28"'],
    [
      "Mcp-Name",
      wireRequest("modern", 7, "tools/call", { name: "list_skills", arguments: {} }),
      "mcp-name",
      '"list_skills"',
    ],
  ])(
    "says %s was sent more than once, when it holds the body's value twice",
    async (name, request, key, value) => {
      const sent = request.headers[key] ?? "";
      const refused = await post(`${server.url}/mcp`, request.body, {
        ...request.headers,
        [key]: `${sent}, ${sent}`,
      });
      expect(refused.status).toBe(400);
      expect(refused.json).toMatchObject({
        id: 7,
        error: {
          code: -32020,
          message: expect.stringMatching(
            `^Bad Request: the request headers and body disagree: .*${value} but the ${name} header names .*; ${name} holds what the body names 2 times, as HTTP joins a header sent more than once into one value; send it once$`,
          ),
        },
      });
    },
  );

  // Regression: a method, a version or a name of 120 characters that differed from its header in the last
  // was quoted, both times, as the same first 100 characters; and data.mismatch.body kept the SDK's bare
  // words (and a name whole, however long) beside a message quoting both.
  const long = "a".repeat(120);
  it.each([
    ["Mcp-Method", wireRequest("modern", 6, `${long}y`), { "mcp-method": `${long}x` }, "names method "],
    [
      "MCP-Protocol-Version",
      wireRequest("modern", 6, "tools/list", {
        _meta: { "io.modelcontextprotocol/protocolVersion": `${long}y` },
      }),
      { "mcp-protocol-version": `${long}x` },
      "envelope names protocol version ",
    ],
    [
      "Mcp-Name",
      wireRequest("modern", 6, "tools/call", { name: `${long}y`, arguments: {} }),
      { "mcp-name": `${long}x` },
      "carries params.name=",
    ],
  ])(
    "shows where the body and %s part, past the quote's cut, in the message and the data",
    async (name, request, header, names) => {
      const refused = await post(`${server.url}/mcp`, request.body, { ...request.headers, ...header });
      const said = `the body ${names}"…${"a".repeat(20)}y" but the ${name} header names "…${"a".repeat(20)}x" (they differ at character 121)`;
      expect([refused.status, refused.json]).toMatchObject([
        400,
        {
          id: 6,
          error: {
            code: -32020,
            message: `Bad Request: the request headers and body disagree: ${said}; ${name} repeats what the body names, character for character`,
            data: { mismatch: { header: Object.values(header)[0], body: said } },
          },
        },
      ]);
    },
  );

  // Regression: a 2026-07-28 request without one of the headers that repeat its body was told that the
  // header "is absent", the body's value bare, and not what to send.
  it.each([
    ["Mcp-Method", wireRequest("modern", 8, "tools/list"), 'names method "tools/list"', "tools/list"],
    [
      "MCP-Protocol-Version",
      wireRequest("modern", 8, "tools/list"),
      'envelope names protocol version "2026-07-28"',
      "2026-07-28",
    ],
    [
      "Mcp-Name",
      wireRequest("modern", 8, "tools/call", { name: "list_packs", arguments: {} }),
      'carries params.name="list_packs"',
      "list_packs",
    ],
  ])("says which %s header to send when it is left out", async (name, request, names, value) => {
    const headers = Object.fromEntries(
      Object.entries(request.headers).filter(([header]) => header !== name.toLowerCase()),
    );
    const refused = await post(`${server.url}/mcp`, request.body, headers);
    const said = `the body ${names} but the required ${name} header is absent`;
    expect([refused.status, refused.json]).toMatchObject([
      400,
      {
        id: 8,
        error: {
          code: -32020,
          message: `Bad Request: the request headers and body disagree: ${said}; send ${name}: ${value}`,
          data: { mismatch: { header: "(missing)", body: said } },
        },
      },
    ]);
  });

  // Regression: a 2026-07-28 call of a name outside ASCII with Mcp-Name sent as it is (its UTF-8 bytes) was
  // told that the header names "liste_Ã©", and one without the header not how to write it.
  it.each([
    ["sent as it is", Buffer.from("liste_é").toString("latin1")],
    ["left out", undefined],
  ])("tells a 2026-07-28 client how to write an Mcp-Name outside ASCII, %s", async (_, header) => {
    const json = { "content-type": "application/json", accept: "application/json, text/event-stream" };
    const call = wireRequest("modern", 1, "tools/call", { name: "liste_é", arguments: {} });
    const { "mcp-name": _name, ...headers } = call.headers;
    const sent = header === undefined ? headers : { ...headers, "mcp-name": header };
    const refused = await send(`${server.url}/mcp`, {
      method: "POST",
      headers: { ...json, ...sent },
      body: JSON.stringify(call.body),
    });
    expect(refused.status).toBe(400);
    expect(refused.json).toMatchObject({
      error: {
        code: -32020,
        message: expect.stringMatching(
          /Mcp-Name.*\. A value outside printable ASCII, with blanks at either end or beginning "=\?base64\?" goes in the header as =\?base64\?<its UTF-8 bytes in base64>\?=: here, Mcp-Name: =\?base64\?bGlzdGVfw6k=\?=$/,
        ),
      },
    });
    const told = await send(`${server.url}/mcp`, {
      method: "POST",
      headers: { ...json, ...headers, "mcp-name": "=?base64?bGlzdGVfw6k=?=" },
      body: JSON.stringify(call.body),
    });
    expect(told.status).toBe(200);
    expect(told.json).toMatchObject({ result: { isError: true } });
  });

  // Regression: a 2026-07-28 notification whose Mcp-Method or MCP-Protocol-Version differs from its body was
  // told both bare, where a request's are quoted, and not that the header repeats the body.
  it.each([
    [
      "Mcp-Method",
      { "mcp-method": "tools/list" },
      'the notification body names method "notifications/initialized" but the Mcp-Method header names "tools/list"',
    ],
    [
      "MCP-Protocol-Version",
      { "mcp-protocol-version": "2025-11-25" },
      'the notification envelope names protocol version "2026-07-28" but the MCP-Protocol-Version header names "2025-11-25"',
    ],
  ])("quotes a notification's %s that differs from its body", async (name, headers, said) => {
    const notification = wireRequest("modern", 0, "notifications/initialized");
    const { id: _id, ...body } = notification.body;
    const refused = await post(`${server.url}/mcp`, body, { ...notification.headers, ...headers });
    expect([refused.status, refused.json]).toMatchObject([
      400,
      {
        id: null,
        error: {
          code: -32020,
          message: `Bad Request: the request headers and body disagree: ${said}; ${name} repeats what the body names, character for character`,
          data: { mismatch: { body: said } },
        },
      },
    ]);
  });

  // Regression: a 2026-07-28 client that left the protocol version out of its envelope (and its header) was
  // read as a 2025 one, and refused for its Accept in 2025's words alone, which did not say why nor what
  // makes the request one of 2026-07-28.
  it("says what a request with an envelope but no protocol version lacks to speak 2026-07-28", async () => {
    const meta = {
      "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const refused = await send(`${server.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", "mcp-method": "tools/list" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/list", params: { _meta: meta } }),
    });
    expect([refused.status, refused.json]).toMatchObject([
      406,
      {
        id: 4,
        error: {
          code: -32000,
          message: expect.stringMatching(
            /^Not Acceptable: Accept was "application\/json"; .* This request is read as a 2025 one: its params\._meta holds io\.modelcontextprotocol\/clientInfo and io\.modelcontextprotocol\/clientCapabilities but not io\.modelcontextprotocol\/protocolVersion, and no MCP-Protocol-Version header was sent\. To speak 2026-07-28, where this server takes Accept: application\/json alone \(the specification asks clients to list text\/event-stream too\), add "io\.modelcontextprotocol\/protocolVersion": "2026-07-28" to params\._meta and send the headers MCP-Protocol-Version: 2026-07-28 and Mcp-Method: tools\/list\.$/,
          ),
        },
      },
    ]);
  });

  // Regression: the same request accepting both JSON and event streams was served as a 2025 one without a
  // word, so a 2026-07-28 client that left the version out got 2025's answers (server/discover not found,
  // results without resultType). No 2025 client sends those keys: only 2026-07-28 defines them.
  it.each([
    [
      "tools/list",
      {
        "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
        "io.modelcontextprotocol/clientCapabilities": {},
      },
      "io.modelcontextprotocol/clientInfo and io.modelcontextprotocol/clientCapabilities, keys",
      "those keys",
    ],
    [
      "server/discover",
      { "io.modelcontextprotocol/logLevel": "debug" },
      "io.modelcontextprotocol/logLevel, a key",
      "that key",
    ],
  ])(
    "refuses a %s with an envelope but no protocol version, saying what it lacks",
    async (method, meta, holds, them) => {
      const refused = await send(`${server.url}/mcp`, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 6, method, params: { _meta: meta } }),
      });
      expect([refused.status, refused.json]).toEqual([
        400,
        {
          jsonrpc: "2.0",
          id: 6,
          error: {
            code: -32602,
            message: `Invalid params: the request's params._meta holds ${holds} of a 2026-07-28 per-request envelope, but not io.modelcontextprotocol/protocolVersion, which that envelope requires, and no MCP-Protocol-Version header was sent. To speak 2026-07-28, add "io.modelcontextprotocol/protocolVersion": "2026-07-28" to params._meta and send the headers MCP-Protocol-Version: 2026-07-28 and Mcp-Method: ${method}; a 2025 request carries no envelope (initialize negotiates its version): leave ${them} out.`,
            data: { envelope: { missing: ["io.modelcontextprotocol/protocolVersion"] } },
          },
        },
      ]);
    },
  );

  // What still reads as 2025: _meta keys no envelope has, a 2025 MCP-Protocol-Version, and the handshake.
  it.each([
    ["a progress token", {}, { progressToken: 1 }, "tools/list"],
    [
      "an envelope key under MCP-Protocol-Version: 2025-11-25",
      { "mcp-protocol-version": "2025-11-25" },
      { "io.modelcontextprotocol/clientCapabilities": {} },
      "tools/list",
    ],
  ])("serves as 2025 a request with %s", async (_, headers, meta, method) => {
    const served = await post(
      `${server.url}/mcp`,
      { jsonrpc: "2.0", id: 8, method, params: { _meta: meta } },
      headers,
    );
    expect([served.status, served.json]).toMatchObject([
      200,
      { id: 8, result: { tools: expect.any(Array) } },
    ]);
  });

  it("says nothing of 2026-07-28 to an initialize with envelope keys, the handshake being 2025's", async () => {
    const refused = await send(`${server.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 5,
        method: "initialize",
        params: {
          protocolVersion: "2025-11-25",
          capabilities: {},
          clientInfo: { name: "test", version: "1" },
          _meta: { "io.modelcontextprotocol/clientCapabilities": {} },
        },
      }),
    });
    expect(refused.status).toBe(406);
    expect((refused.json as { error: { message: string } }).error.message).toMatch(
      /^Not Acceptable: Accept was "application\/json"; .*do too\)\.$/,
    );
  });

  // Regression: an Mcp-Name written =?base64?…?= around what is no base64 was told only that it "carries an
  // invalid Base64 sentinel value", and initialize sent with MCP-Protocol-Version: 2026-07-28 (a client
  // that sets it on every request) that it "was sent with a modern MCP-Protocol-Version header": neither
  // said what to send.
  it.each([
    [
      "an Mcp-Name that is no base64",
      wireRequest("modern", 3, "tools/call", { name: "list_packs", arguments: {} }),
      { "mcp-name": "=?base64?!!!?=" },
      'the Mcp-Name header "=?base64?!!!?=" begins as a base64-encoded value does, but what follows =?base64? is not base64 ended by ?=',
      "send Mcp-Name: list_packs, as it is: only a value outside printable ASCII, with blanks at either end or beginning =?base64?, goes in the header as =?base64?<its UTF-8 bytes in base64>?=",
    ],
    [
      "initialize with MCP-Protocol-Version: 2026-07-28",
      wireRequest("legacy", 3, "initialize", {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "test", version: "1" },
      }),
      { "mcp-protocol-version": "2026-07-28" },
      'an initialize request (the 2025 handshake) was sent with MCP-Protocol-Version: "2026-07-28", a revision without a handshake',
      "send initialize without MCP-Protocol-Version (its params.protocolVersion negotiates the version); or, to speak 2026-07-28, send no initialize: each request carries its params._meta envelope, and server/discover tells what this server serves",
    ],
  ])("says what to send, refusing %s", async (_, request, headers, said, advice) => {
    const refused = await post(`${server.url}/mcp`, request.body, { ...request.headers, ...headers });
    expect([refused.status, refused.json]).toMatchObject([
      400,
      {
        id: 3,
        error: {
          code: -32020,
          message: `Bad Request: the request headers and body disagree: ${said}; ${advice}`,
          data: { mismatch: { body: said } },
        },
      },
    ]);
  });

  it('answers a batch whose requests differ in their ids\' types, 1 and "1"', async () => {
    const response = await post(`${server.url}/mcp`, [
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { jsonrpc: "2.0", id: "1", method: "nothing/here" },
    ]);
    expect(response.status).toBe(200);
    expect(response.json).toEqual([
      { jsonrpc: "2.0", id: 1, result: {} },
      { jsonrpc: "2.0", id: "1", error: expect.objectContaining({ code: -32601 }) },
    ]);
  });

  // Regression: OPTIONS /mcp was answered 404 "No route OPTIONS /mcp", as if /mcp were not there; then
  // only "this stateless server answers POST only", not what to send nor why a GET gets no stream.
  it.each(["GET", "DELETE", "PUT", "PATCH", "OPTIONS"])("answers %s with 405", async (method) => {
    const response = await fetch(`${server.url}/mcp`, { method });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expect(await response.json()).toMatchObject({
      jsonrpc: "2.0",
      error: {
        code: -32600,
        message:
          "Method not allowed: /mcp takes POST only; send each JSON-RPC message (or a 2025 batch of them) in a POST. This stateless server opens no event stream to GET and keeps no session to DELETE.",
      },
    });
  });

  // Regression: TRACE /mcp was answered 404 "No route TRACE /mcp", as if /mcp were not there. (fetch
  // sends no TRACE.)
  it("answers TRACE with 405", async () => {
    const response = await send(`${server.url}/mcp`, { method: "TRACE" });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expect(response.json).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 } });
  });

  // Regression: a body was read first, so a PUT of text or of broken JSON got 415 or 400, not 405.
  it.each([
    ["PUT", "text/plain", "hello"],
    ["PATCH", "application/json", "{not json"],
    ["DELETE", "application/json", "{}"],
    ["PUT", "application/json", "x".repeat(70_000)],
  ])("answers %s with a body of type %s with 405 all the same", async (method, type, body) => {
    const response = await fetch(`${server.url}/mcp`, { method, headers: { "content-type": type }, body });
    expect(response.status).toBe(405);
    expect(response.headers.get("allow")).toBe("POST");
    expect(await response.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 } });
  });

  // Regression: an empty body was -32600 Invalid Request, where a body of one space was -32700.
  it.each(["{not json", "", " "])(
    "answers malformed JSON (%j) with a JSON-RPC parse error and no stack trace",
    async (sent) => {
      const response = await post(`${server.url}/mcp`, sent);
      expect(response.status).toBe(400);
      expect(response.json).toMatchObject({ jsonrpc: "2.0", error: { code: -32700 }, id: null });
      expect(JSON.stringify(response.json)).not.toMatch(/at .*\.js|node_modules/);
    },
  );

  // Regression: each was told "Body is not valid JSON but content-type is set to 'application/json'"
  // (Fastify's words), which named neither the common mistake nor what to send; stdio names them.
  it.each([
    ["{not json", "the body is not JSON; POST one JSON-RPC message (a JSON object, as"],
    ["", "the body is empty; POST one JSON-RPC message"],
    [" ", "the body is empty; POST one JSON-RPC message"],
    [
      '{"jsonrpc":"2.0","id":1,"method":"ping"}\n{"jsonrpc":"2.0","id":2,"method":"ping"}',
      "the body holds a whole JSON value and more after it; send several messages as a batch (one JSON array of them), or each in a POST of its own.",
    ],
    ['{"jsonrpc":"2.0","id":1,"method":"ping"', "the body is not JSON"],
  ])("says what is wrong with a body that is not JSON (%j), and what to send", async (sent, said) => {
    const response = await post(`${server.url}/mcp`, sent);
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({
      jsonrpc: "2.0",
      error: { code: -32700, message: expect.stringContaining(`Parse error: ${said}`) },
      id: null,
    });
  });

  // Regression: each of these was answered "Bad Request: the request body is not a valid JSON-RPC
  // message", the SDK's words for every fault, which left the client to guess which member was wrong.
  it.each([
    ["a string", "hello", "the body is a string, where a JSON-RPC message is an object"],
    ["no jsonrpc", { id: 1, method: "ping" }, '"jsonrpc" must be "2.0", and is missing.'],
    ["jsonrpc 1.0", { jsonrpc: "1.0", id: 1, method: "ping" }, '"jsonrpc" must be "2.0", not "1.0".'],
    [
      "a method that is a number",
      { jsonrpc: "2.0", id: 1, method: 5 },
      '"method" must be a string, not a number.',
    ],
    [
      "a null id",
      { jsonrpc: "2.0", id: null, method: "ping" },
      "not null (a notification has no id at all).",
    ],
    ["a fractional id", { jsonrpc: "2.0", id: 1.5, method: "ping" }, '"id" must be a string or an integer'],
    [
      "params null",
      { jsonrpc: "2.0", id: 1, method: "tools/list", params: null },
      '"params" must be an object, not null',
    ],
    ["params an array", { jsonrpc: "2.0", id: 1, method: "tools/list", params: [] }, "not an array"],
    [
      "_meta null",
      { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: null } },
      '"params._meta" must be an object',
    ],
    // Regression: these two were still the SDK's words for every fault.
    [
      "a progress token that is an object",
      { jsonrpc: "2.0", id: 1, method: "tools/list", params: { _meta: { progressToken: {} } } },
      '"params._meta.progressToken" must be a string or an integer, not an object.',
    ],
    [
      "a related task without its id",
      {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/list",
        params: { _meta: { "io.modelcontextprotocol/related-task": {} } },
      },
      '"params._meta["io.modelcontextprotocol/related-task"]" must be an object whose "taskId" is a string.',
    ],
    [
      "a member JSON-RPC has not",
      { jsonrpc: "2.0", id: 1, method: "ping", extra: 1 },
      '"extra" is no member',
    ],
    // Regression: still the SDK's words for every fault, where stdio said as little.
    [
      "a method and a result",
      { jsonrpc: "2.0", id: 1, method: "ping", result: {} },
      'a message with a "method" is a request or a notification, which holds no "result"',
    ],
  ])("says what is wrong with a message of the wrong shape: %s", async (_, body, said) => {
    const eras: Record<string, string>[] = [
      {},
      { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" },
    ];
    for (const headers of eras) {
      const response = await post(
        `${server.url}/mcp`,
        typeof body === "string" ? JSON.stringify(body) : body,
        headers,
      );
      expect(response.status).toBe(400);
      const { error } = response.json as { error: { code: number; message: string } };
      expect(error.code).toBe(-32600);
      expect(error.message).toContain(said);
    }
  });

  // Regression: the SDK's words for every fault, "the request body is not a valid JSON-RPC message".
  // (2026-07-28 takes no response at all, and says so first.)
  it("says a response that holds both a result and an error holds one or the other", async () => {
    const response = { jsonrpc: "2.0", id: 1, result: {}, error: { code: 1, message: "x" } };
    const said = 'a response holds either "result" or "error", not both.';
    expect((await post(`${server.url}/mcp`, response)).json).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: `Invalid Request: ${said}` },
    });
    const batch = await post(`${server.url}/mcp`, [{ jsonrpc: "2.0", id: 2, method: "ping" }, response]);
    expect(batch.status).toBe(400);
    expect(batch.json).toMatchObject({
      error: {
        message: `Invalid Request: the batch's message at index 1 (counting from 0) is invalid: ${said}`,
      },
    });
  });

  // Regression: a response of any other wrong shape got the SDK's "the request body is not a valid JSON-RPC
  // message", naming nothing.
  it.each([
    [
      "an extra member",
      { jsonrpc: "2.0", id: 99, result: {}, params: {} },
      '"params" is no member of a JSON-RPC response: a response holds jsonrpc, id and result or error, nothing else.',
    ],
    [
      "no id",
      { jsonrpc: "2.0", result: {} },
      '"id" is missing: a response carries the id of the request it answers.',
    ],
    [
      "a result that is no object",
      { jsonrpc: "2.0", id: 1, result: 5 },
      '"result" must be an object, not a number.',
    ],
    [
      "an error without its code",
      { jsonrpc: "2.0", id: 1, error: { message: "x" } },
      '"error.code" must be an integer, and is missing.',
    ],
  ])("says what is wrong with a response of the wrong shape: %s", async (_, response, said) => {
    expect((await post(`${server.url}/mcp`, response)).json).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: { code: -32600, message: `Invalid Request: ${said}` },
    });
    const batch = await post(`${server.url}/mcp`, [{ jsonrpc: "2.0", id: 2, method: "ping" }, response]);
    expect(batch.status).toBe(400);
    expect(batch.json).toMatchObject({
      error: {
        message: `Invalid Request: the batch's message at index 1 (counting from 0) is invalid: ${said}`,
      },
    });
  });

  // Regression: a number past 2^53 - 1 was said to be the one JSON.parse read it as, which the client never
  // sent: 9007199254740993 as 9007199254740992, and 1e400 as null.
  it.each([
    ['{"jsonrpc":"2.0","id":9007199254740993,"method":"ping"}', '"id" must be a string or an integer'],
    ['{"jsonrpc":"2.0","id":1e400,"method":"ping"}', '"id" must be a string or an integer'],
    ['{"jsonrpc":"2.0","id":-1e400,"method":"ping"}', '"id" must be a string or an integer'],
    ['{"jsonrpc":1e400,"id":1,"method":"ping"}', '"jsonrpc" must be "2.0"'],
  ])("says a number too large is too large, not another number: %s", async (body, said) => {
    const response = await post(`${server.url}/mcp`, body);
    const { error } = response.json as { error: { code: number; message: string } };
    expect([response.status, error.code]).toEqual([400, -32600]);
    expect(error.message).toContain(said);
    expect(error.message).toMatch(/, not a number past 2\^53 - 1 in size\.$/);
  });

  // Regression: they were 404 "No route POST /health", where /mcp answers a method it does not take 405.
  it("answers a method /health and /metrics do not take with 405 and Allow: GET, HEAD", async () => {
    // A body that is not JSON is refused for the method, not the body. (Node sends DELETE's body unframed.)
    for (const [method, path, body] of [
      ["POST", "/health", "not json"],
      ["DELETE", "/metrics", undefined],
      ["PUT", "/health/", "not json"],
    ] as const) {
      const headers = { "content-type": "application/json" };
      const response = await send(`${server.url}${path}`, { method, headers, body });
      expect([response.status, response.headers.get("allow")], `${method} ${path}`).toEqual([
        405,
        "GET, HEAD",
      ]);
      expect(response.json).toEqual({
        jsonrpc: "2.0",
        id: null,
        error: {
          code: -32600,
          message: `Method not allowed: ${path.replace(/\/$/, "")} answers GET (and HEAD) only; MCP is served at POST /mcp.`,
        },
      });
    }
    for (const path of ["/health", "/metrics"]) {
      expect((await send(`${server.url}${path}`, { method: "HEAD" })).status, path).toBe(200);
    }
  });

  it("serves /mcp/ as /mcp, and answers any other route with a JSON-RPC error naming /mcp", async () => {
    expect((await post(`${server.url}/mcp/`, listSkills)).json).toMatchObject({ id: 7, result: {} });
    const response = await post(`${server.url}/api/mcp?pack=x`, listSkills);
    expect(response.status).toBe(404);
    expect(response.json).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: {
        code: -32600,
        message:
          "No route POST /api/mcp: MCP is served at POST /mcp; GET /health and GET /metrics report on the server.",
      },
    });
  });

  // Regression: a request without an envelope naming a version after 2026-07-28 that the server does not
  // speak was told it lacked `_meta` (-32602), as if adding one would do; with an envelope, or on a
  // notification, the same version was refused as unsupported, with the revision to use instead.
  // Regression: without an envelope it listed 2026-07-28 alone, as the SDK's refusal of an envelope does,
  // though such a request may be a 2025 client's, and the 2025 versions are served too.
  it("refuses a protocol version it does not speak as unsupported, naming the versions it speaks", async () => {
    const served = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"];
    for (const version of ["2099-01-01", "2026-07-29", "banana"]) {
      const { body } = wireRequest("modern", 7, "tools/list");
      const headers = { "mcp-protocol-version": version, "mcp-method": "tools/list" };
      const refusal = (message: string, supported: string[]) => ({
        jsonrpc: "2.0",
        id: 7,
        error: { code: -32022, message, data: { supported, requested: version } },
      });
      const bare = await post(`${server.url}/mcp`, { jsonrpc: "2.0", id: 7, method: "tools/list" }, headers);
      expect([bare.status, bare.json], version).toEqual([
        400,
        refusal(
          `Unsupported protocol version: ${version} (supported versions: ${served.join(", ")})`,
          served,
        ),
      ]);
      // An envelope speaks 2026-07-28, the one revision it may name: the SDK's refusal.
      const meta = { ...(body.params?._meta as object), "io.modelcontextprotocol/protocolVersion": version };
      const enveloped = await post(`${server.url}/mcp`, { ...body, params: { _meta: meta } }, headers);
      expect([enveloped.status, enveloped.json], version).toEqual([
        400,
        refusal(
          `Unsupported protocol version in the request's _meta envelope: "${version}" (an envelope names 2026-07-28).`,
          ["2026-07-28"],
        ),
      ]);
    }
  });

  // Regression: a request naming 2026-07-28 in its header without its envelope was told only the keys
  // missing ("envelope key(s): _meta"), not what the envelope holds.
  it("refuses a 2026-07-28 request without its envelope, saying what the envelope holds", async () => {
    const headers = { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" };
    const told =
      '. A 2026-07-28 request carries params._meta holding io.modelcontextprotocol/protocolVersion "2026-07-28" ' +
      "and io.modelcontextprotocol/clientCapabilities (an object, {} for none); a 2025 request names a 2025 " +
      "version in MCP-Protocol-Version, or none";
    for (const [params, missing] of [
      [undefined, "_meta"],
      [
        { _meta: { "io.modelcontextprotocol/clientCapabilities": {} } },
        "io.modelcontextprotocol/protocolVersion",
      ],
    ] as const) {
      const answer = await post(
        `${server.url}/mcp`,
        { jsonrpc: "2.0", id: 9, method: "tools/list", params },
        headers,
      );
      expect([answer.status, answer.json], missing).toEqual([
        400,
        {
          jsonrpc: "2.0",
          id: 9,
          error: {
            code: -32602,
            message: `Invalid params: the MCP-Protocol-Version header names protocol revision 2026-07-28, but the request is missing the required per-request envelope key(s): ${missing}${told}`,
            data: { envelope: { missing: [missing] } },
          },
        },
      ]);
    }
  });

  // Regression: the SDK said "Unsupported protocol version: 2025-11-25" of a version this server serves,
  // and nothing of why (an envelope is 2026-07-28's) or what to send instead.
  it("refuses a 2025 version named in an envelope, saying it is served without one", async () => {
    const { body } = wireRequest("modern", 8, "tools/list");
    const meta = {
      ...(body.params?._meta as object),
      "io.modelcontextprotocol/protocolVersion": "2025-11-25",
    };
    const headers = { "mcp-protocol-version": "2025-11-25", "mcp-method": "tools/list" };
    const answer = await post(`${server.url}/mcp`, { ...body, params: { _meta: meta } }, headers);
    expect([answer.status, answer.json]).toEqual([
      400,
      {
        jsonrpc: "2.0",
        id: 8,
        error: {
          code: -32022,
          message:
            `Unsupported protocol version in the request's _meta envelope: "2025-11-25" (an envelope names ` +
            "2026-07-28); 2025-11-25 is served without the envelope, as the 2025 handshake speaks it.",
          data: { supported: ["2026-07-28"], requested: "2025-11-25" },
        },
      },
    ]);
  });

  // Regression: media types are case-insensitive (RFC 9110), but the SDK's 2025 transport refused with 406
  // a client that wrote Accept in capitals.
  it("serves a 2025 client that writes Accept's media types in capitals", async () => {
    const response = await post(
      `${server.url}/mcp`,
      { jsonrpc: "2.0", id: 3, method: "tools/list" },
      { accept: "Application/JSON, Text/Event-Stream", "mcp-protocol-version": "2025-11-25" },
    );
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ id: 3, result: { tools: expect.any(Array) } });
  });

  // Regression: curl, Node's fetch and Python's requests send `Accept: */*`, which accepts both JSON and
  // event streams (RFC 9110), but the SDK's 2025 transport refused it with 406, as it refuses text/html.
  it("serves a 2025 client whose Accept is a range that takes both, and refuses one that does not", async () => {
    const ping = { jsonrpc: "2.0", id: 4, method: "ping" };
    for (const accept of ["*/*", "application/*, text/*", "text/html;q=0.9, */*;q=0.8"]) {
      const response = await post(`${server.url}/mcp`, ping, { accept });
      expect([response.status, response.json], accept).toEqual([200, { jsonrpc: "2.0", id: 4, result: {} }]);
    }
    // A weight of 0 refuses a type that the header still names (application/json, text/event-stream;q=0).
    for (const accept of [
      "text/html",
      "application/json",
      "*/*;q=0",
      "*/*, text/event-stream;q=0",
      "application/json, text/event-stream;q=0",
      "text/event-stream, application/json;q=0",
    ]) {
      const response = await post(`${server.url}/mcp`, ping, { accept });
      expect(response.status, accept).toBe(406);
    }
  });

  // Regression: the SDK's 406 said only "Client must accept both application/json and text/event-stream",
  // under "id": null though the request had one, and not what Accept it was sent (Text/HTML, here, which
  // the SDK was handed in lower case); then it named the header to send last, after the rule, and not why.
  it("refuses an Accept that does not take both under the request's id, echoing the header as sent", async () => {
    const wanted = (sent: string, id: string | number | null) => ({
      jsonrpc: "2.0",
      id,
      error: {
        code: -32000,
        message: `Not Acceptable: ${sent}; send Accept: application/json, text/event-stream. A client of the 2025 protocol versions must accept both, as Streamable HTTP may answer a POST with one JSON message or with a stream of events (ranges that take them, */* or application/*, text/*, do too).`,
      },
    });
    const ping = { jsonrpc: "2.0", id: "p-7", method: "ping" };
    const refused = await post(`${server.url}/mcp`, ping, { accept: "Text/HTML" });
    expect([refused.status, refused.json]).toEqual([406, wanted('Accept was "Text/HTML"', "p-7")]);
    const batch = await post(`${server.url}/mcp`, [ping, { ...ping, id: 8 }], { accept: "application/json" });
    expect([batch.status, batch.json]).toEqual([406, wanted('Accept was "application/json"', null)]);
    const none = await send(`${server.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ ...ping, id: 3 }),
    });
    expect([none.status, none.json]).toEqual([406, wanted("no Accept header was sent", 3)]);
  });

  // 2026-07-28 gives a notification's `_meta` no envelope (NotificationParams: only subscriptionId), and
  // defines no client notification over HTTP: one whose `_meta` would spoil a request's envelope is still a
  // notification the server takes (202), as MCP has it. What the SDK's classification reads of it (the
  // version, against the header) is still checked.
  it("takes a 2026-07-28 notification whose _meta would not do as a request's envelope", async () => {
    const headers = { "mcp-protocol-version": "2026-07-28", "mcp-method": "notifications/cancelled" };
    const notification = (meta: Record<string, unknown>) => ({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId: 1, _meta: meta },
    });
    const version = { "io.modelcontextprotocol/protocolVersion": "2026-07-28" };
    for (const meta of [
      version,
      { ...version, "io.modelcontextprotocol/clientCapabilities": "x" },
      {
        ...version,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": 5,
      },
    ]) {
      const response = await post(`${server.url}/mcp`, notification(meta), headers);
      expect([response.status, response.text], JSON.stringify(meta)).toEqual([202, ""]);
    }
    const named = await post(
      `${server.url}/mcp`,
      notification({ "io.modelcontextprotocol/protocolVersion": 5 }),
      headers,
    );
    expect(named.status).toBe(400);
    expect(named.json).toMatchObject({
      error: { code: -32602, message: expect.stringContaining("io.modelcontextprotocol/protocolVersion") },
    });
  });

  // Regression: a version that sorts before 2026-07-28 (a 2025 client's typo, or a version dropped) got
  // the SDK's -32000 under "id": null, which a client cannot match to its request, while one after it was
  // refused under the request's id with the versions to use.
  it("refuses an unsupported version before 2026-07-28 under the request's id, listing every version it speaks", async () => {
    const supported = ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05", "2024-10-07"];
    for (const [version, id] of [
      ["2024-01-01", 7],
      ["2025-13-01", "seven"],
    ] as const) {
      const response = await post(
        `${server.url}/mcp`,
        { jsonrpc: "2.0", id, method: "tools/list" },
        { "mcp-protocol-version": version },
      );
      expect([response.status, response.json], version).toEqual([
        400,
        {
          jsonrpc: "2.0",
          id,
          error: {
            code: -32022,
            message: `Unsupported protocol version: ${version} (supported versions: ${supported.join(", ")})`,
            data: { supported, requested: version },
          },
        },
      ]);
    }
    const empty = await post(
      `${server.url}/mcp`,
      { jsonrpc: "2.0", id: 8, method: "tools/list" },
      { "mcp-protocol-version": "" },
    );
    expect([empty.status, empty.json]).toMatchObject([
      400,
      {
        id: 8,
        error: {
          code: -32022,
          message: `Unsupported protocol version: the MCP-Protocol-Version header is empty (supported versions: ${supported.join(", ")})`,
        },
      },
    ]);
    const batch = await post(`${server.url}/mcp`, [ping(1), ping(2)], {
      "mcp-protocol-version": "2024-01-01",
    });
    expect([batch.status, batch.json]).toMatchObject([400, { id: null, error: { code: -32022 } }]);
    // The handshake negotiates: it is answered with the version the server would rather speak.
    const handshake = await post(
      `${server.url}/mcp`,
      {
        jsonrpc: "2.0",
        id: 1,
        method: "initialize",
        params: { protocolVersion: "2024-01-01", capabilities: {}, clientInfo: { name: "x", version: "1" } },
      },
      { "mcp-protocol-version": "2024-01-01" },
    );
    expect(handshake.json).toMatchObject({ id: 1, result: { protocolVersion: "2025-11-25" } });
  });

  // Regression: MCP-Protocol-Version sent twice (a proxy adding it beside the client's) reached the SDK joined
  // as "2025-11-25, 2025-11-25", and the client was told that version is unsupported while the list of
  // supported ones named it.
  it("says a protocol version header sent twice was sent twice", async () => {
    for (const versions of [
      ["2025-11-25", "2025-11-25"],
      ["2025-11-25", "2025-06-18"],
      ["2026-07-28", "2026-07-28"],
    ]) {
      const response = await send(`${server.url}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "mcp-protocol-version": [...versions],
        },
        body: JSON.stringify({ jsonrpc: "2.0", id: 4, method: "tools/list" }),
      });
      const { error } = response.json as {
        error: { code: number; message: string; data: { supported: [] } };
      };
      expect([response.status, error.code], versions.join()).toEqual([400, -32022]);
      expect(error.message).toMatch(
        `Unsupported protocol version: MCP-Protocol-Version was sent 2 times (${versions.join(", ")}); send it once, naming one version`,
      );
      // Every version served: a request without an envelope may speak any of them.
      expect(error.data.supported).toHaveLength(6);
    }
  });

  // Regression: a 2025 batch holding a 2026-07-28 request (its envelope in params._meta) was told only that
  // batches may not contain such requests: not which member, nor how to send it.
  it("refuses a batch holding a request with an envelope, naming the member and what to send", async () => {
    const modern = wireRequest("modern", 2, "tools/list").body;
    const refused = await post(`${server.url}/mcp`, [ping(1), modern]);
    expect([refused.status, refused.json]).toEqual([
      400,
      {
        jsonrpc: "2.0",
        error: {
          code: -32600,
          message:
            "Bad Request: JSON-RPC batches may not contain requests for protocol revision 2026-07-28 or later: the message at index 1 (counting from 0) carries a per-request envelope (its params._meta holds io.modelcontextprotocol/protocolVersion), as a 2026-07-28 request does, and that revision takes one request per POST. Send it in a POST of its own, with the headers MCP-Protocol-Version: 2026-07-28 and Mcp-Method; or, to send it in a 2025 batch, leave the envelope out.",
        },
        id: null,
      },
    ]);
  });

  // Regression: a batch of 101 pings and 2 cancellations was told it holds 101, the count once the
  // cancellations (which the endpoint leaves out) were dropped, not the 103 messages the client sent.
  it("counts a batch over 100 as sent, saying which messages the limit does not count", async () => {
    const cancelled = { jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 0 } };
    const pings = Array.from({ length: 101 }, (_, id) => ping(id));
    const refused = await post(`${server.url}/mcp`, [...pings, cancelled, cancelled]);
    expect([refused.status, refused.json]).toEqual([
      400,
      {
        jsonrpc: "2.0",
        error: {
          code: -32600,
          message:
            "Invalid Request: Batch must not exceed 100 messages (this one holds 103, of which 2 are notifications/cancelled, which are not counted); send at most 100 messages in a POST, and the rest in another.",
        },
        id: null,
      },
    ]);
  });

  // Regression: a 2025 batch of more than 100 messages under a version this server does not speak was
  // refused for its version, where the SDK's entry refuses it for its size first: a request wrong in
  // several ways is refused first for what the SDK refuses first (docs/security.md).
  it("refuses a request wrong in several ways for what the SDK refuses first", async () => {
    const pings = (count: number) => Array.from({ length: count }, (_, id) => ping(id));
    const refusal = async (body: unknown, version: string) => {
      const response = await post(`${server.url}/mcp`, body, { "mcp-protocol-version": version });
      return [response.status, (response.json as { error?: unknown }).error];
    };
    expect(await refusal(pings(101), "2024-01-01")).toEqual([
      400,
      {
        code: -32600,
        message:
          "Invalid Request: Batch must not exceed 100 messages (this one holds 101); send at most 100 messages in a POST, and the rest in another.",
      },
    ]);
    expect(await refusal(pings(100), "2024-01-01")).toMatchObject([400, { code: -32022 }]);
    // A member that is no message, before the size and the version: the SDK classifies a body first.
    expect(await refusal([...pings(100), "x"], "2024-01-01")).toMatchObject([
      400,
      { code: -32600, message: expect.stringContaining("at index 100") },
    ]);
    // Under 2026-07-28, which takes no batch, a batch is refused as one, whatever it holds.
    expect(await refusal([...pings(100), "x"], "2026-07-28")).toMatchObject([
      400,
      { code: -32600, message: expect.stringContaining("not a batch") },
    ]);
  });

  // Regression: a refused request whose id is past 2^53 was answered under the id JSON read it as
  // (9007199254740993 as 9007199254740992), which a client can match to another of its requests; and a
  // fractional id, which MCP does not allow, was echoed where JSON-RPC asks null.
  it("answers a refused request whose id MCP does not allow under a null id, never another id", async () => {
    for (const id of ["9007199254740993", "1.5"]) {
      const response = await post(`${server.url}/mcp`, `{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
      expect([response.status, response.json], id).toMatchObject([
        400,
        { id: null, error: { code: -32600 } },
      ]);
    }
  });

  // Regression: a batch with a member of the wrong shape was answered "Bad Request: JSON-RPC batch contains
  // an invalid message", naming neither the member nor what is wrong with it.
  it.each([
    [
      "params that are a number",
      [ping(1), { ...ping(2), params: 5 }, "x"],
      'the batch\'s message at index 1 (counting from 0) is invalid: "params" must be an object, not a number',
    ],
    [
      "a string",
      [ping(1), ping(2), "x"],
      "at index 2 (counting from 0) is invalid: it is a string, where a JSON-RPC message is an object",
    ],
    ["no jsonrpc", [{ id: 1, method: "ping" }], 'at index 0 (counting from 0) is invalid: "jsonrpc" must be'],
  ])("says which member of a batch is wrong, and how: %s", async (_, body, said) => {
    const response = await post(`${server.url}/mcp`, body);
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 }, id: null });
    const { message } = (response.json as { error: { message: string } }).error;
    expect(message).toMatch(/^Invalid Request: the batch's message at index \d/);
    expect(message).toContain(said);
  });

  // Regression: a method the server does not serve was answered "Method not found", naming neither it nor
  // what is served, so a client that mistyped one had to guess.
  it.each(["legacy", "modern"] as const)(
    "names a method it does not serve, and those it serves (%s)",
    async (era) => {
      const { body, headers } = wireRequest(era, 9, "tools/lists");
      const response = await post(`${server.url}/mcp`, body, headers);
      const before = {
        status: response.status,
        code: (response.json as { error: { code: number } }).error.code,
      };
      expect(before).toEqual({ status: era === "legacy" ? 200 : 404, code: -32601 });
      expect(response.json).toMatchObject({ id: 9 });
      const { message } = (response.json as { error: { message: string } }).error;
      expect(message).toMatch(/^Method not found: "tools\/lists"; this server serves /);
      expect(message).toContain("tools/list, tools/call");
    },
  );

  // Regression: server/discover sent as README names it but without the envelope (curl, a hand-written
  // client) was answered as a 2025 request, listing initialize among what is served and not saying that
  // server/discover is served too, to a request that speaks 2026-07-28.
  it.each([
    [
      "legacy",
      "server/discover",
      /server\/discover is a method of protocol revision 2026-07-28.*params\._meta.*MCP-Protocol-Version/,
    ],
    [
      "modern",
      "initialize",
      /initialize is a method of the 2025 handshake.*without the envelope, or ask server\/discover/,
    ],
  ] as const)("says how to reach a method of the other era (%s: %s)", async (era, method, said) => {
    const { body, headers } = wireRequest(era, 7, method, {});
    const response = await post(`${server.url}/mcp`, body, headers);
    const { code, message } = (response.json as { error: { code: number; message: string } }).error;
    expect(code).toBe(-32601);
    expect(message).toMatch(said);
    const modern = wireRequest("modern", 8, "server/discover", {});
    const discovered = await post(`${server.url}/mcp`, modern.body, modern.headers);
    expect(discovered.json).toMatchObject({ id: 8, result: { supportedVersions: ["2026-07-28"] } });
  });

  it("names a method it does not serve in a batch, answering the other members", async () => {
    const response = await post(`${server.url}/mcp`, [ping(1), { ...ping(2), method: "tools/lists" }]);
    expect(response.status).toBe(200);
    const answers = response.json as {
      id: number;
      result?: unknown;
      error?: { code: number; message: string };
    }[];
    expect(answers.map((answer) => [answer.id, answer.error?.code])).toEqual([
      [1, undefined],
      [2, -32601],
    ]);
    expect(answers[1]?.error?.message).toMatch(
      /^Method not found: "tools\/lists"; this server serves .*tools\/list/,
    );
  });

  // Regression: answered by the SDK's entries rather than by the scope's server, a request for a method
  // not served was told only "Method not found": in a 2025 batch that holds a notification, and in a
  // 2026-07-28 request with an Mcp-Name header that its body does not name.
  it.each([
    [
      "a batch holding a notification",
      [
        { jsonrpc: "2.0", method: "notifications/initialized" },
        { ...ping(2), method: "tools/lists" },
      ],
      {},
    ],
    [
      "a 2026-07-28 request with an Mcp-Name header",
      wireRequest("modern", 2, "tools/lists").body,
      { ...wireRequest("modern", 2, "tools/lists").headers, "mcp-name": "x" },
    ],
  ])("names a method it does not serve in %s", async (_, body, headers) => {
    const response = await post(`${server.url}/mcp`, body, headers);
    const answers = [response.json].flat() as { id: number; error?: { code: number; message: string } }[];
    expect(answers.map((answer) => [answer.id, answer.error?.code])).toEqual([[2, -32601]]);
    expect(answers[0]?.error?.message).toMatch(
      /^Method not found: "tools\/lists"; this server serves .*tools\/list/,
    );
  });

  it.each(["legacy", "modern"] as const)("serves each method it names as served (%s)", async (era) => {
    const asked = wireRequest(era, 1, "no/such");
    const refusal = await post(`${server.url}/mcp`, asked.body, asked.headers);
    const { message } = (refusal.json as { error: { message: string } }).error;
    const served = message
      .replace(/^.*; this server serves /, "")
      .replace(/\.$/, "")
      .split(", ");
    // Regression: the Skills extension's methods were left off, so a host that mistyped skills/get was
    // told this server does not serve it.
    expect(served).toEqual(
      expect.arrayContaining(["tools/list", "skills/list", "skills/get", "resources/directory/read"]),
    );
    for (const method of served) {
      const { body, headers } = wireRequest(era, 2, method, {});
      const response = await post(`${server.url}/mcp`, body, headers);
      expect([method, (response.json as { error?: { code: number } }).error?.code]).not.toEqual([
        method,
        -32601,
      ]);
    }
  });

  // Regression: with the 2026-07-28 header, a batch or a posted response was refused as "Unsupported
  // protocol version: 2026-07-28", a revision this server speaks, instead of for what it is.
  it.each([
    [
      "a batch",
      [{ jsonrpc: "2.0", id: 1, method: "tools/list" }],
      "not a batch; send each in a POST of its own",
    ],
    ["a batch of notifications", [{ jsonrpc: "2.0", method: "notifications/initialized" }], "not a batch"],
    ["a response", { jsonrpc: "2.0", id: 1, result: {} }, "takes no JSON-RPC responses from clients"],
    // Regression: told what was wrong with the member, a client fixed it, only to be told 2026-07-28
    // takes no batches.
    [
      "a batch with a malformed member",
      [{ jsonrpc: "2.0", id: 1, method: "tools/list" }, { id: 2, method: "ping" }, "x"],
      "not a batch; send each in a POST of its own",
    ],
  ])("refuses %s sent as 2026-07-28 for what it is", async (_, body, said) => {
    const response = await post(`${server.url}/mcp`, body, { "mcp-protocol-version": "2026-07-28" });
    expect(response.status).toBe(400);
    const { error } = response.json as { error: { code: number; message: string } };
    expect(error.code).toBe(-32600);
    expect(error.message).toContain(said);
    expect(error.message).not.toContain("Unsupported protocol version");
  });

  it("answers a wrong content type with 415", async () => {
    const response = await fetch(`${server.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "text/plain" },
      body: "x",
    });
    expect(response.status).toBe(415);
    expect(await response.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 } });
  });
});

describe("many clients at once", () => {
  const listSkillsText = (answer: unknown) =>
    (answer as { result: { content: { text: string }[] } }).result.content[0]?.text ?? "";

  it("gives each request its own answer, whatever ids and ceilings concurrent clients use", async () => {
    const ceilings = ["alpha", "gamma", "beta/docs", ""];
    const answers = await Promise.all(
      Array.from({ length: 60 }, (_, index) => {
        const ceiling = ceilings[index % ceilings.length] ?? "";
        const id = index % 3 === 0 ? "same" : 1;
        return post(`${server.url}/mcp`, { ...listSkills, id }, { "x-skill-pack": ceiling }).then(
          (answer) => ({ ceiling, id, answer }),
        );
      }),
    );
    const first: Record<string, string> = {
      alpha: "one: ",
      gamma: "drill: ",
      "beta/docs": "editor: ",
      "": "drill: ",
    };
    for (const { ceiling, id, answer } of answers) {
      expect(answer.json).toMatchObject({ jsonrpc: "2.0", id });
      expect(listSkillsText(answer.json).startsWith(first[ceiling] ?? "?")).toBe(true);
    }
    expect(listSkillsText(answers.find((entry) => entry.ceiling === "alpha")?.answer.json)).not.toContain(
      "drill",
    );
  });

  it("answers a batch with an array in the order asked, with the client's ids", async () => {
    const answer = await post(`${server.url}/mcp`, [
      { jsonrpc: "2.0", id: "b", method: "ping" },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { ...listSkills, id: 2 },
    ]);
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject([
      { id: "b", result: {} },
      { id: 2, result: { content: [{ text: expect.stringMatching(/^drill: /) }] } },
    ]);
  });

  // Regression: a batch holding one request was answered with a bare object, which JSON-RPC clients that
  // match a batch to its answer (and 2025-03-26 clients, which may batch) refuse.
  it("answers a batch of one request with an array of one, notifications beside it or not", async () => {
    const initialized = { jsonrpc: "2.0", method: "notifications/initialized" };
    for (const [id, batch] of [
      ["b", [{ jsonrpc: "2.0", id: "b", method: "ping" }]],
      [4, [{ ...listSkills, id: 4 }, initialized]],
    ] as const) {
      const answer = await post(`${server.url}/mcp`, batch);
      expect(answer.status).toBe(200);
      expect(answer.json).toEqual([expect.objectContaining({ jsonrpc: "2.0", id })]);
    }
  });

  it("lets no client cancel another's request, nor its own in a stateless POST", async () => {
    const cancellations = Array.from({ length: 500 }, (_, requestId) => ({
      jsonrpc: "2.0",
      method: "notifications/cancelled",
      params: { requestId, reason: "hostile" },
    }));
    const reads = Array.from({ length: 20 }, (_, id) =>
      post(`${server.url}/mcp`, {
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "read_skill", arguments: { skill: "hammer" } },
      }),
    );
    const cancelling = Array.from({ length: 5 }, () =>
      post(`${server.url}/mcp`, cancellations.slice(0, 100)),
    );
    const ownBatch = post(`${server.url}/mcp`, [{ ...listSkills, id: 3 }, cancellations[3]]);
    const answers = await Promise.all(reads);
    for (const answer of answers) {
      expect(answer.json).toMatchObject({
        result: { content: [{ text: expect.stringContaining("hammer") }] },
      });
    }
    for (const answer of await Promise.all(cancelling)) expect(answer.status).toBe(202);
    expect((await ownBatch).json).toMatchObject([{ id: 3, result: {} }]);
  });
});

describe("client ceilings", () => {
  it("limits every tool to the X-Skill-Pack header", async () => {
    const client = await server.connect({ headers: { "X-Skill-Pack": "beta/tools" } });
    expect((await call(client, "list_packs")).text).toMatch(
      /^beta: 2 skills, 2 pack files — [^\n]*\n {2}tools: 2\nNext/,
    );
    expect((await call(client, "list_skills")).text).toMatch(/^hammer: .*\nsaw: .*\nNext/);
    const hidden = await call(client, "read_skill", { skill: "drill" });
    const missing = await call(client, "read_skill", { skill: "zzzz" });
    expect(hidden.isError).toBe(true);
    expect(hidden.text.replace("drill", "zzzz")).toBe(missing.text);
    expect((await call(client, "read_pack_file", { pack: "alpha" })).text).toContain(
      'No pack "alpha". Packs: beta.',
    );
    expect((await call(client, "read_pack_file", { pack: "beta", file: "shared/guide.md" })).isError).toBe(
      false,
    );
  });

  it("never lets the pack argument widen the ceiling", async () => {
    const client = await server.connect({ headers: { "X-Skill-Pack": "gamma" } });
    const wider = await call(client, "list_skills", { pack: "beta" });
    expect(wider.isError).toBe(true);
    expect(wider.text).toContain("Packs: gamma.");
    expect(wider.text).not.toContain("beta/");
    expect((await call(client, "list_skills", { pack: "tools" })).text).toMatch(/^drill: /);
  });

  it("takes a comma list in the header, and unqualified names once they are unique within it", async () => {
    const client = await server.connect({ headers: { "X-Skill-Pack": "alpha, gamma" } });
    expect((await call(client, "list_skills")).text).toMatch(/^drill: .*\none: .*\nshared-name: .*\ntwo: /);
    expect((await call(client, "read_skill", { skill: "shared-name" })).text).toContain("Alpha's copy");
  });

  it("accepts the ceiling as ?pack= for clients that can only set a URL", async () => {
    const client = await server.connect({ query: "?pack=docs" });
    expect((await call(client, "list_skills")).text).toMatch(/^editor: .*\nwriter: .*\nNext/);
  });

  it("takes ?pack= repeated as a list, as it takes a comma list", async () => {
    const client = await server.connect({ query: "?pack=docs&pack=gamma" });
    expect((await call(client, "list_skills")).text).toMatch(/^drill: .*\neditor: .*\nwriter: .*\nNext/);
  });

  it("shows what both allow when header and ?pack= are given", async () => {
    const client = await server.connect({ headers: { "X-Skill-Pack": "beta" }, query: "?pack=tools" });
    expect((await call(client, "list_skills")).text).toMatch(/^hammer: .*\nsaw: .*\nNext/);
  });

  // A ceiling added by a proxy beside the client's own header would otherwise widen to both.
  it("refuses X-Skill-Pack sent twice, saying to send one comma list", async () => {
    const twice = await send(`${server.url}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "x-skill-pack": ["beta/tools", "alpha"],
      },
      body: JSON.stringify(listSkills),
    });
    expect(twice.status).toBe(400);
    expect(twice.json).toEqual({
      jsonrpc: "2.0",
      id: 7,
      error: {
        code: -32600,
        message:
          "X-Skill-Pack was sent 2 times: send it once, with a comma list for several selectors (X-Skill-Pack: a,b); a proxy that sets it must replace the client's header, not add one.",
      },
    });
    expect(twice.text).not.toContain("one:");
  });

  it("ignores an empty header", async () => {
    const client = await server.connect({ headers: { "X-Skill-Pack": "" } });
    expect((await call(client, "list_packs")).text).toMatch(/^alpha: .*\n.*beta: /s);
  });

  it("rejects a header that matches nothing with 400 naming it and the valid selectors", async () => {
    const response = await post(`${server.url}/mcp`, listSkills, { "x-skill-pack": "n8n" });
    expect(response.status).toBe(400);
    expect(response.json).toMatchObject({
      jsonrpc: "2.0",
      id: 7,
      error: { code: -32600, message: expect.stringMatching(/"n8n".*alpha, beta, gamma, beta\/docs/) },
    });
  });

  // Regression: Fastify's words for its schema ("headers/x-skill-pack must NOT have more than 1000
  // characters", "querystring/pack must NOT have more than 32 items"), under "id": null.
  it.each([
    [
      "an X-Skill-Pack too long",
      "",
      { "x-skill-pack": "a".repeat(1001) },
      "X-Skill-Pack is longer than 1000 characters; a selector is a pack, a group or pack/group, and several go in a comma list.",
    ],
    [
      "a ?pack= too long",
      `?pack=${"a".repeat(1001)}`,
      {},
      "a ?pack= is longer than 1000 characters; a selector is a pack, a group or pack/group, and several go in a comma list.",
    ],
    [
      "too many ?pack=",
      `?${"pack=alpha&".repeat(33)}`,
      {},
      "?pack= is given more than 32 times; give fewer, or one comma list (?pack=a,b).",
    ],
  ])("refuses %s, saying what the limit is for, under the request's id", async (_, query, headers, said) => {
    const response = await post(
      `${server.url}/mcp${query}`,
      { jsonrpc: "2.0", id: 9, method: "ping" },
      headers,
    );
    expect(response.status).toBe(400);
    expect(response.json).toEqual({
      jsonrpc: "2.0",
      id: 9,
      error: { code: -32600, message: `Invalid Request: ${said}` },
    });
  });

  describe("a selector outside ASCII", () => {
    let unicode: StandardCatalog;
    let unicodeServer: RunningServer;
    beforeAll(async () => {
      unicode = await makeStandardCatalog({
        "skills/café/menu/SKILL.md": skillMd("menu", "Write a menu."),
        "skills/gamma/日本語/brew-tea/SKILL.md": skillMd("brew-tea", "Brew tea."),
      });
      unicodeServer = await startServer(unicode.skillsDir);
    });
    afterAll(async () => {
      await unicodeServer.close();
      await unicode.remove();
    });
    /** The header's value as bytes on the wire: Node's client writes each character as one byte. */
    const bytes = (text: string, encoding: BufferEncoding) => Buffer.from(text, encoding).toString("latin1");
    const listed = async (header: string) => {
      const answer = await send(`${unicodeServer.url}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "x-skill-pack": header,
        },
        // A body given as text would make Node write the headers with it, in UTF-8.
        body: Buffer.from(JSON.stringify(listSkills)),
      });
      return answer.json;
    };

    it("is read in UTF-8, as curl and most clients send it", async () => {
      expect(JSON.stringify(await listed(bytes("gamma/日本語", "utf8")))).toContain("brew-tea: Brew tea.");
      expect(JSON.stringify(await listed(bytes("café", "utf8")))).toContain("menu: Write a menu.");
    });

    it("is read in Latin-1 when its bytes are not UTF-8, as fetch sends é", async () => {
      expect(JSON.stringify(await listed(bytes("café", "latin1")))).toContain("menu: Write a menu.");
    });

    it("is named as sent when it matches nothing", async () => {
      const refused = await listed(bytes("gamma/日本", "utf8"));
      expect(JSON.stringify(refused)).toContain('Unknown pack or group \\"gamma/日本\\"');
    });
  });

  // Regression (issue 24): ?pack[]=docs was ignored, and the client saw every pack.
  it.each([
    ["?pack[]=docs", "pack[]"],
    ["?pack[0]=docs", "pack[0]"],
    ["?pack.x=docs", "pack.x"],
    ["?PACK=docs", "PACK"],
    ["?packs=docs", "packs"],
    ["?pack=docs&pack[]=gamma", "pack[]"],
    ["?pack=docs&debug=1", "debug"],
    ["?=docs", ""],
  ])("rejects %s with 400 naming the parameter and what is valid", async (query, name) => {
    const response = await post(`${server.url}/mcp${query}`, listSkills);
    expect(response.status).toBe(400);
    expect(response.json).toEqual({
      jsonrpc: "2.0",
      id: 7,
      error: {
        code: -32600,
        message: `Unknown query parameter ${JSON.stringify(name)}: /mcp takes only pack, repeated (?pack=a&pack=b) or as a comma list (?pack=a,b).`,
      },
    });
  });

  it("rejects an ambiguous group, a bad ?pack= and a header and query that share nothing", async () => {
    expect((await post(`${server.url}/mcp`, listSkills, { "x-skill-pack": "tools" })).status).toBe(400);
    expect((await post(`${server.url}/mcp?pack=nope`, listSkills)).status).toBe(400);
    const disjoint = await post(`${server.url}/mcp?pack=alpha`, listSkills, { "x-skill-pack": "gamma" });
    expect(disjoint.status).toBe(400);
    expect(JSON.stringify(disjoint.json)).toContain(
      'Unknown pack or group \\"alpha\\". Valid selectors: gamma, gamma/tools.',
    );
  });

  // A templated ceiling whose parts came out empty (`${A},${B}`) was read as no ceiling: every pack.
  // Each `?pack=` is quoted as sent: two empty ones were told as `","`, which nobody sent.
  it.each([
    [
      "header of one comma",
      "",
      { "x-skill-pack": "," },
      'in ",", only commas and spaces: name one, or leave it',
    ],
    [
      "header of commas and spaces",
      "",
      { "x-skill-pack": " , ,, " },
      'in ", ,,", only commas and spaces: name one, or leave it',
    ],
    ["?pack=,", "?pack=,", {}, 'in ",", only commas and spaces: name one, or leave it'],
    [
      "?pack=&pack=",
      "?pack=&pack=",
      {},
      'in the 2 values "", "", each empty or only commas and spaces: name one, or leave them',
    ],
    [
      "?pack=%20&pack=,",
      "?pack=%20&pack=,",
      {},
      'in the 2 values " ", ",", each empty or only commas and spaces: name one, or leave them',
    ],
    ["?pack=%20", "?pack=%20", {}, 'in " ", only commas and spaces: name one, or leave it'],
  ])(
    "refuses a %s, which names no selector, rather than serve every pack",
    async (_, query, headers, told) => {
      const response = await post(`${server.url}/mcp${query}`, listSkills, headers);
      expect(response.status).toBe(400);
      expect(response.json).toEqual({
        jsonrpc: "2.0",
        id: 7,
        error: {
          code: -32600,
          message: `No pack or group ${told} out for no narrowing. Valid selectors: alpha, beta, gamma, beta/docs, beta/tools, gamma/tools.`,
        },
      });
    },
  );

  it("reads an empty header or ?pack= as no narrowing", async () => {
    for (const [query, headers] of [
      ["?pack=", {}],
      ["", { "x-skill-pack": "" }],
    ] as const) {
      const response = await post(`${server.url}/mcp${query}`, listSkills, headers);
      expect(response.status, query).toBe(200);
    }
  });
});
