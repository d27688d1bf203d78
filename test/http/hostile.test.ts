import net from "node:net";
import { gzipSync } from "node:zlib";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeStandardCatalog, SECRET, type StandardCatalog } from "../helpers/fixtures.js";
import { wireRequest } from "../helpers/requests.js";
import {
  ERAS,
  httpSettings,
  post,
  type RawAnswer,
  type RunningServer,
  send,
  startServer,
} from "../helpers/server.js";

/**
 * Hostile input, generated: whatever a client sends, the server answers with a 4xx or a JSON-RPC
 * answer, never a 5xx, never a stack trace, and never anything from outside the served catalog.
 */

let tree: StandardCatalog;
let server: RunningServer;
/** The same catalog with ALLOWED_HOSTS set. */
let guarded: RunningServer;
beforeAll(async () => {
  tree = await makeStandardCatalog();
  server = await startServer(tree.skillsDir);
  guarded = await startServer(tree.skillsDir, [], httpSettings({ ALLOWED_HOSTS: "x,a,localhost" }));
});
afterAll(async () => {
  await server.close();
  await guarded.close();
  await tree.remove();
});

const RUNS = 250;
/** Traces of a leaked stack or of the server's files. */
const INTERNALS = /\n\s+at |node_modules|\.[jt]s:\d+|\/src\//;
/** Contents that are on disk but not served: outside the skills folder, hidden, or /etc/passwd. */
const UNSERVED = [SECRET, "TOKEN=hidden", "root:x:0:0"];

function expectHarmless(answer: RawAnswer): void {
  expect(answer.status).toBeLessThan(500);
  expect(answer.text).not.toMatch(INTERNALS);
  for (const content of UNSERVED) expect(answer.text).not.toContain(content);
  if (answer.status === 200) {
    // A batch is answered with an array of messages, one for each of its requests.
    const messages: unknown[] = Array.isArray(answer.json) ? answer.json : [answer.json];
    expect(messages.length).toBeGreaterThan(0);
    for (const message of messages) expect(message).toMatchObject({ jsonrpc: "2.0" });
  } else if (answer.status !== 202 && answer.status !== 204) {
    expect(answer.json).toMatchObject({ jsonrpc: "2.0", error: { code: expect.any(Number) } });
  }
}

const PATH_PIECES = [
  "..",
  ".",
  "",
  "/",
  "\\",
  "\0",
  "%2e%2e",
  "~",
  "outside",
  "secret.txt",
  "skills",
  "alpha",
  "two",
  "beta",
  "shared",
  "link-out.md",
  "link-abs.md",
  ".env",
  ".hidden",
  "secret.md",
  "/etc/passwd",
  "SKILL.md",
  "_manifest",
  "references",
  "guide.md",
];
const pathLike = fc
  .array(fc.constantFrom(...PATH_PIECES), { minLength: 1, maxLength: 8 })
  .chain((pieces) => fc.constantFrom(pieces.join("/"), pieces.join(""), pieces.join("\\")));
const text = fc.oneof(
  fc.string(),
  fc.string({ unit: "grapheme", maxLength: 50 }),
  fc.string({ unit: "binary", maxLength: 50 }),
  fc.string({ minLength: 1000, maxLength: 5000 }),
  pathLike,
  fc.constantFrom(
    "alpha/two",
    "beta/tools",
    "tools",
    "hammer",
    "shared-name",
    "alpha/shared-name",
    " hammer ",
  ),
);
const wrongType = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.boolean(),
  fc.constant(null),
  fc.array(text, { maxLength: 3 }),
  fc.dictionary(fc.string(), text, { maxKeys: 3 }),
  fc.jsonValue({ maxDepth: 4 }),
);
const argumentValue = fc.oneof({ weight: 4, arbitrary: text }, { weight: 1, arbitrary: wrongType });
const toolName = fc.oneof(
  fc.constantFrom("list_packs", "list_skills", "read_skill", "read_pack_file"),
  fc.string(),
  fc.constant("__proto__"),
);
const toolArguments = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.dictionary(fc.constantFrom("skill", "file", "pack", "query", "extra"), argumentValue),
  },
  { weight: 1, arbitrary: wrongType },
);

describe("hostile input (property-based)", () => {
  it("tool arguments: paths, names, selectors, huge and unicode strings, wrong types", async () => {
    await fc.assert(
      fc.asyncProperty(toolName, toolArguments, async (name, args) => {
        const body = JSON.stringify({
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name, arguments: args },
        });
        const answer = await post(`${server.url}/mcp`, body);
        expectHarmless(answer);
        // A "__proto__" key is valid JSON, read as any other key (see below).
        expect(answer.status).toBe(200);
      }),
      { numRuns: RUNS },
    );
  });

  it("headers and query parameters: ceilings, content types, accept, protocol versions", async () => {
    // expectHarmless asserts, in each run of the property.
    expect.hasAssertions();
    const headerValue = fc.oneof(
      fc.string({ unit: fc.constantFrom(..."abcz-/,. *?%\t~_".split("")), maxLength: 40 }),
      fc.string({ unit: "binary-ascii", maxLength: 40 }).map((value) => value.replace(/[^\t\x20-\x7e]/g, "")),
      fc.constantFrom("alpha", "beta/tools", "tools", "alpha, gamma", "", ",", "x".repeat(2000)),
    );
    const query = fc.oneof(
      fc.string().map((value) => `?pack=${encodeURIComponent(value)}`),
      fc.constantFrom("?pack=%zz", "?pack[]=alpha", "?pack=alpha&pack=beta", "?pack", "?=&&=", "?pack=%00"),
    );
    const contentType = fc.constantFrom(
      "application/json",
      "application/json; charset=utf-8",
      "APPLICATION/JSON",
      "text/plain",
      "application/x-www-form-urlencoded",
      "multipart/form-data; boundary=x",
      "application/jsonx",
      "",
    );
    const accept = fc.constantFrom(
      "application/json, text/event-stream",
      "application/json",
      "text/event-stream",
      "*/*",
      "",
    );
    await fc.assert(
      fc.asyncProperty(
        headerValue,
        query,
        contentType,
        accept,
        headerValue,
        async (pack, q, type, acc, version) => {
          const headers: Record<string, string> = { "x-skill-pack": pack, "mcp-protocol-version": version };
          if (type !== "") headers["content-type"] = type;
          if (acc !== "") headers.accept = acc;
          const answer = await send(`${server.url}/mcp${q}`, {
            method: "POST",
            headers,
            body: JSON.stringify({
              jsonrpc: "2.0",
              id: 1,
              method: "tools/call",
              params: { name: "list_skills" },
            }),
          });
          expectHarmless(answer);
        },
      ),
      { numRuns: RUNS },
    );
  });

  it("raw bodies: any JSON value, batches of anything, and bytes that are not JSON", async () => {
    // expectHarmless asserts, in each run of the property.
    expect.hasAssertions();
    const message = fc.oneof(
      fc.record({
        jsonrpc: fc.constantFrom("2.0", "1.0", 2),
        id: fc.oneof(fc.integer(), fc.string(), fc.constant(null)),
        method: fc.oneof(
          fc.constantFrom("initialize", "ping", "tools/list", "tools/call", "notifications/initialized"),
          fc.string(),
        ),
        params: wrongType,
      }),
      fc.record({ jsonrpc: fc.constant("2.0"), method: fc.string() }),
      wrongType,
    );
    const body = fc.oneof(
      message.map((value) => JSON.stringify(value)),
      fc.array(message, { maxLength: 4 }).map((value) => JSON.stringify(value)),
      fc.json({ maxDepth: 5 }),
      fc.string({ unit: "binary", maxLength: 200 }),
      fc.constantFrom(
        "[]",
        "[[]]",
        "{",
        '{"jsonrpc":"2.0"',
        "null",
        '"x"',
        "0",
        "[1,2,3]",
        '{"__proto__":{"x":1}}',
      ),
    );
    await fc.assert(
      fc.asyncProperty(body, async (raw) => {
        expectHarmless(await post(`${server.url}/mcp`, raw));
      }),
      { numRuns: RUNS },
    );
  });
});

describe("malformed requests get the error that says what was wrong", () => {
  it.each([
    ["malformed JSON", "{not json", 400, -32700],
    ["an empty batch", "[]", 400, -32600],
    ["a batch of garbage", "[1, 2, 3]", 400, -32600],
    ["JSON that is not a message", '"hello"', 400, -32600],
    ["an object that is no message, whatever its keys", '{"__proto__":{"admin":true}}', 400, -32600],
  ])("%s", async (_what, body, status, code) => {
    const answer = await post(`${server.url}/mcp`, body);
    expect(answer.status).toBe(status);
    expect(answer.json).toMatchObject({ jsonrpc: "2.0", error: { code }, id: null });
  });

  it("a batch of malformed requests: an error for each, in one array", async () => {
    const answer = await post(
      `${server.url}/mcp`,
      '[{"jsonrpc":"2.0","id":"","method":"","params":{}},{"jsonrpc":"2.0","id":" ","method":"initialize","params":{}}]',
    );
    expect(answer.status).toBe(200);
    expect(answer.json).toEqual([
      expect.objectContaining({ jsonrpc: "2.0", id: "", error: expect.objectContaining({ code: -32601 }) }),
      expect.objectContaining({ jsonrpc: "2.0", id: " ", error: expect.any(Object) }),
    ]);
  });

  it("an unknown method: a JSON-RPC Method not found error for its id", async () => {
    const answer = await post(`${server.url}/mcp`, { jsonrpc: "2.0", id: 9, method: "no/such-method" });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({ jsonrpc: "2.0", id: 9, error: { code: -32601 } });
  });

  it.each([
    ["tools/call", { name: "read_skill", arguments: "hammer" }, "arguments"],
    ["tools/call", undefined, "params"],
    ["tools/call", { name: 5 }, "name"],
  ])("%s with params %j: Invalid params for its id, naming %s", async (method, params, field) => {
    const answer = await post(`${server.url}/mcp`, { jsonrpc: "2.0", id: 4, method, params });
    expect(answer.status).toBe(200);
    expect(answer.json).toMatchObject({
      jsonrpc: "2.0",
      id: 4,
      error: {
        code: -32602,
        message: expect.stringMatching(`^Invalid params for ${method}: ${field}(:| must) `),
      },
    });
    expect(answer.text).not.toMatch(/\bat .*\.(js|ts):\d+/);
  });

  // Regression: the SDK answered these -32603, an internal error, where JSON-RPC asks -32602
  // (typescript-sdk#2284); the listings check their own params, as resources/read and prompts/get do.
  it.each([
    ["tools/list", { cursor: 5 }],
    ["prompts/list", { cursor: 5 }],
    ["resources/list", { cursor: 5 }],
  ])(
    "%s with params %j: Invalid params for its id naming the cursor, with no stack trace",
    async (method, params) => {
      const answer = await post(`${server.url}/mcp`, { jsonrpc: "2.0", id: 4, method, params });
      expect(answer.status).toBe(200);
      expect(answer.json).toMatchObject({
        jsonrpc: "2.0",
        id: 4,
        error: {
          code: -32602,
          message: `Invalid params for ${method}: cursor: Invalid input: expected string, received number`,
        },
      });
      expect(answer.text).not.toMatch(/\bat .*\.(js|ts):\d+/);
    },
  );

  it("initialize without params: invalid params for its id, saying what initialize needs, with no stack trace", async () => {
    const answer = await post(`${server.url}/mcp`, { jsonrpc: "2.0", id: 4, method: "initialize" });
    // The SDK called this an internal error (-32603), its message a dump of its schema's issues.
    expect(answer.json).toMatchObject({
      jsonrpc: "2.0",
      id: 4,
      error: {
        code: -32602,
        message: expect.stringMatching(/^Invalid params for initialize: params: .*initialize needs params/),
      },
    });
    expect(answer.text).not.toMatch(/\bat .*\.(js|ts):\d+/);
  });

  it("notifications only: 202 Accepted with no body, as MCP says", async () => {
    const answer = await post(`${server.url}/mcp`, [{ jsonrpc: "2.0", method: "notifications/initialized" }]);
    expect(answer.status).toBe(202);
    expect(answer.text).toBe("");
  });

  it("a wrong content type: 415 naming application/json", async () => {
    const answer = await send(`${server.url}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "a=1",
    });
    expect(answer.status).toBe(415);
    expect(answer.json).toMatchObject({
      error: {
        code: -32600,
        message:
          'Unsupported content type "application/x-www-form-urlencoded": send the JSON-RPC message as application/json.',
      },
    });
  });

  // Regression: the refusal named no content type, so a client whose library set one of its own (or none)
  // could not tell what it had sent.
  it("a body without a content type: 415 saying there is none", async () => {
    const answer = await send(`${server.url}/mcp`, {
      method: "POST",
      body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
    });
    expect(answer.status).toBe(415);
    expect(answer.json).toMatchObject({
      error: {
        code: -32600,
        message:
          "Unsupported content type none (no Content-Type): send the JSON-RPC message as application/json.",
      },
    });
  });

  // Regression: a gzip body was told it is not JSON (-32700), and a body declared brotli but sent plain was
  // served as if nothing had been declared.
  it("a content coding: 415 saying to send the body uncompressed, before the body is read", async () => {
    const message = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping" });
    for (const [coding, body] of [
      ["gzip", gzipSync(message)],
      ["br", message],
      ["identity, GZIP", gzipSync(message)],
      // Over MAX_BODY_BYTES: refused for its coding, not its size, since it is never read.
      ["gzip", "x".repeat(100_000)],
    ] as const) {
      const answer = await send(`${server.url}/mcp`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          "content-encoding": coding,
        },
        body,
      });
      expect([answer.status, answer.headers.get("accept-encoding")], coding).toEqual([415, "identity"]);
      expect(answer.json).toMatchObject({
        error: { code: -32600, message: expect.stringContaining("Unsupported content encoding: ") },
      });
    }
    const identity = await post(`${server.url}/mcp`, message, { "content-encoding": "identity" });
    expect(identity.json).toMatchObject({ id: 1, result: {} });
  });

  // Regression: a body declared in another charset was read as UTF-8 whatever it said: one in UTF-16 was
  // told it is not JSON, and one in latin-1 served with its accented letters turned to U+FFFD.
  it.each(["legacy", "modern"] as const)(
    "a charset other than UTF-8: 415 saying to send UTF-8 (%s)",
    async (era) => {
      const { body, headers } = wireRequest(era, 1, "tools/list");
      const accept = era === "legacy" ? "application/json, text/event-stream" : "application/json";
      const message = JSON.stringify(body);
      for (const [charset, bytes] of [
        ["utf-16", Buffer.from(message, "utf16le")],
        ["UTF-16LE", Buffer.from(message, "utf16le")],
        ["iso-8859-1", Buffer.from(message, "latin1")],
        ['"utf-16"', message],
      ] as const) {
        const contentType = `application/json; charset=${charset}`;
        const answer = await send(`${server.url}/mcp`, {
          method: "POST",
          headers: { ...headers, accept, "content-type": contentType },
          body: bytes,
        });
        expect(answer.status, charset).toBe(415);
        expect(answer.json, charset).toMatchObject({
          error: {
            code: -32600,
            message: `Unsupported charset "${charset.replaceAll('"', "")}" in Content-Type ${JSON.stringify(contentType)}: MCP messages are UTF-8; send the JSON-RPC message encoded in UTF-8, as Content-Type: application/json (with charset=utf-8, or none).`,
          },
        });
      }
      for (const charset of ["utf-8", "UTF-8", '"utf-8"', "utf8"]) {
        const answer = await send(`${server.url}/mcp`, {
          method: "POST",
          headers: { ...headers, accept, "content-type": `application/json; charset=${charset}` },
          body: message,
        });
        expect([answer.status, answer.json], charset).toMatchObject([
          200,
          { id: 1, result: { tools: expect.any(Array) } },
        ]);
      }
    },
  );

  // Regression: a body (labelled UTF-8, or not labelled) holding bytes that are not UTF-8 was decoded with
  // each turned to U+FFFD and served: a list_skills query with 0xC3 0x28 in it searched for "\uFFFD(".
  it.each(["legacy", "modern"] as const)(
    "a body that is not UTF-8: 400, -32700, saying where and that MCP messages are UTF-8 (%s)",
    async (era) => {
      const request = (query: string) =>
        wireRequest(era, 1, "tools/call", { name: "list_skills", arguments: { query } });
      const { body, headers } = request("caf@xyz");
      const accept = era === "legacy" ? "application/json, text/event-stream" : "application/json";
      const text = Buffer.from(JSON.stringify(body));
      const at = text.indexOf("@");
      for (const [bad, shown] of [
        [[0xc3, 0x28], "0xC3 0x28 0x78 0x79"],
        [[0xe9], "0xE9 0x78 0x79 0x7A"],
        // A surrogate, and an overlong "/": shaped as UTF-8's sequences are, but none.
        [[0xed, 0xa0, 0x80], "0xED 0xA0 0x80 0x78"],
        [[0xc0, 0xaf], "0xC0 0xAF 0x78 0x79"],
      ] as const) {
        const bytes = Buffer.concat([text.subarray(0, at), Buffer.from(bad), text.subarray(at + 1)]);
        for (const contentType of ["application/json", "application/json; charset=utf-8"]) {
          const answer = await send(`${server.url}/mcp`, {
            method: "POST",
            headers: { ...headers, accept, "content-type": contentType },
            body: bytes,
          });
          expect([answer.status, answer.json], shown).toMatchObject([
            400,
            {
              id: null,
              error: {
                code: -32700,
                message: `Parse error: the body is not UTF-8 from byte offset ${at} (counting from 0; the bytes there are ${shown}); MCP messages are UTF-8: send the JSON-RPC message encoded in UTF-8.`,
              },
            },
          ]);
        }
      }
      // UTF-8's own characters of two to four bytes are served as before.
      const utf8 = request("caf\u00e9 \u20ac \u{1F600}");
      const served = await send(`${server.url}/mcp`, {
        method: "POST",
        headers: { ...utf8.headers, accept, "content-type": "application/json" },
        body: Buffer.from(JSON.stringify(utf8.body)),
      });
      expect([served.status, served.json]).toMatchObject([200, { id: 1, result: {} }]);
    },
  );

  // Regression: a body of bytes that are neither UTF-8 nor JSON (a gzip body sent without Content-Encoding)
  // was told only that it is not UTF-8, as if encoding it anew would make it a message.
  it.each([
    [
      "gzip sent as it is",
      gzipSync('{"jsonrpc":"2.0","id":1,"method":"ping"}'),
      "1 (counting from 0; the bytes there are 0x8B 0x08 0x00 0x00), and, with each such byte read as U+FFFD, is not JSON; POST one JSON-RPC message (a JSON object, as",
    ],
    [
      "a Latin-1 byte between members",
      Buffer.concat([Buffer.from('{"jsonrpc":"2.0",'), Buffer.from([0xe9]), Buffer.from('"id":1}')]),
      "17 (counting from 0; the bytes there are 0xE9 0x22 0x69 0x64), and, with each such byte read as U+FFFD, is not JSON; POST one JSON-RPC message (a JSON object, as",
    ],
    [
      "two Latin-1 messages as one",
      Buffer.concat([Buffer.from('{"id":"caf'), Buffer.from([0xe9]), Buffer.from('"}\n{"id":2}')]),
      "10 (counting from 0; the bytes there are 0xE9 0x22 0x7D 0x0A), and, with each such byte read as U+FFFD, holds a whole JSON value and more after it; send several messages as a batch",
    ],
  ])("a body neither UTF-8 nor JSON (%s): 400, -32700, saying both", async (_, body, said) => {
    const answer = await send(`${server.url}/mcp`, {
      method: "POST",
      headers: { accept: "application/json, text/event-stream", "content-type": "application/json" },
      body,
    });
    expect([answer.status, answer.json]).toMatchObject([
      400,
      {
        id: null,
        error: {
          code: -32700,
          message: expect.stringContaining(`Parse error: the body is not UTF-8 from byte offset ${said}`),
        },
      },
    ]);
  });

  it("an Accept header without text/event-stream: 406 saying what to accept", async () => {
    const answer = await post(
      `${server.url}/mcp`,
      { jsonrpc: "2.0", id: 1, method: "ping" },
      { accept: "application/json" },
    );
    expect(answer.status).toBe(406);
    expect(answer.json).toMatchObject({ error: { message: expect.stringContaining("text/event-stream") } });
  });

  it("JSON nested thousands deep: 400 saying so, for its id, and the server answers on", async () => {
    const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;
    const call = (depth: number) =>
      `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_skills","arguments":{"query":${nested(depth)}}}}`;
    for (const body of [
      call(5000),
      `{"jsonrpc":"2.0","id":7,"method":"tools/list","params":{"x":${nested(5000)}}}`,
    ]) {
      const answer = await post(`${server.url}/mcp`, body);
      expect(answer.status).toBe(400);
      expect(answer.json).toMatchObject({
        id: 7,
        error: { code: -32600, message: expect.stringContaining("nested deeper than 64 levels") },
      });
    }
    const shallow = await post(`${server.url}/mcp`, call(50));
    expect(shallow.json).toMatchObject({ id: 7, result: { isError: true } });
  });

  it("too many argument members: a tool error, before validation walks them", async () => {
    const args = Object.fromEntries(Array.from({ length: 100 }, (_, i) => [`k${i}`, i]));
    const answer = await post(`${server.url}/mcp`, {
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "read_skill", arguments: { skill: "hammer", ...args } },
    });
    expect(answer.json).toMatchObject({
      result: { isError: true, content: [{ text: expect.stringContaining("maximum of 16") }] },
    });
    // Nothing said of each key: a note naming them all would send back what was sent.
    const [{ text }] = (answer.json as { result: { content: [{ text: string }] } }).result.content;
    expect(text).toBe(
      "Too many arguments for read_skill: 101, where the maximum of 16 is more than any tool takes.",
    );
  });
});

// Regression: a body with a "__proto__" key anywhere (valid JSON: a tool's argument may be named so) was
// refused as unparsable, -32700, by Fastify's guard against prototype poisoning, and one with
// "constructor": {"prototype": …} likewise. Each is read as a key of any other name, and poisons nothing.
describe('a "__proto__" or "constructor" key: valid JSON, read as a key of any other name', () => {
  /**
   * The answer to `body` sent as written with `key` in place of its key "KEY" (an object literal would
   * set a prototype, which JSON.stringify leaves out), and `key` written "KEY" in the answer.
   */
  async function answerWithKey(key: string, body: object, headers: Record<string, string>) {
    const raw = JSON.stringify(body).replace('"KEY"', JSON.stringify(key));
    const answer = await post(`${server.url}/mcp`, raw, headers);
    return { status: answer.status, text: answer.text.replaceAll(key, "KEY") };
  }

  const cases = [
    // Unknown arguments: "__proto__" begins with "_" (passed over in silence), "constructor" does not.
    ["tools/call", { name: "list_packs", arguments: { KEY: { polluted: "yes" } } }, 200],
    ["tools/call", { name: "read_skill", arguments: { KEY: { skill: "hammer" } } }, 200],
    ["tools/call", { name: "read_skill", arguments: { skill: "hammer", KEY: { prototype: { x: 1 } } } }, 200],
    ["tools/list", { KEY: { cursor: 5 } }, 200],
  ] as const;
  it.each(
    ERAS.flatMap((era) => cases.map(([method, params, status]) => [era, method, params, status] as const)),
  )("%s %s %j", async (era, method, params, status) => {
    const { body, headers } = wireRequest(era, 3, method, params);
    for (const [key, other] of [
      ["__proto__", "__other__"],
      ["constructor", "constrictor"],
    ] as const) {
      const answer = await answerWithKey(key, body, headers);
      expect(answer).toEqual(await answerWithKey(other, body, headers));
      expect(answer.status).toBe(status);
    }
    expect(Object.prototype).not.toHaveProperty("polluted");
    expect(Object.prototype).not.toHaveProperty("x");
  });

  it.each(ERAS)("a member of the message named so is no member of a JSON-RPC message (%s)", async (era) => {
    const { body, headers } = wireRequest(era, 3, "tools/list");
    const answer = await answerWithKey("__proto__", { ...body, KEY: {} }, headers);
    expect(answer).toEqual(await answerWithKey("fooBar", { ...body, KEY: {} }, headers));
    expect(answer.status).toBe(400);
    expect(JSON.parse(answer.text)).toMatchObject({ id: 3, error: { code: -32600 } });
  });
});

/**
 * Sends `head` (a request line and headers, without the blank line) and `body` over a raw socket, as no
 * HTTP client would, and resolves with the status and the parsed body of the answer.
 */
function rawRequest(url: string, head: string, body = ""): Promise<{ status: number; json: unknown }> {
  return rawExchange(
    url,
    `${head}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}

/** Sends `request`, whole, over a raw socket, and resolves with the status and parsed body of the answer. */
function rawExchange(url: string, request: string | Buffer): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(new URL(url).port), "127.0.0.1");
    let answer = "";
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString();
    });
    socket.on("error", reject);
    socket.on("close", () => {
      const [, status = "0"] = /^HTTP\/1\.1 (\d{3})/.exec(answer) ?? [];
      const text = answer.slice(answer.indexOf("\r\n\r\n") + 4);
      let json: unknown = text;
      try {
        json = JSON.parse(text);
      } catch {
        // not JSON: the assertion on it says so
      }
      resolve({ status: Number(status), json });
    });
    socket.end(request);
  });
}

/** Sends `request` over a raw socket, and resolves with all that comes back before the server closes it. */
function rawAnswers(url: string, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(new URL(url).port), "127.0.0.1");
    let answer = "";
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString("latin1");
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(answer));
    // Not ended: the server closes it, after its answers (or its refusal).
    socket.write(Buffer.from(request, "latin1"));
  });
}

/** The status lines of the answers in `answer`, in order. */
function statusLines(answer: string): string[] {
  // An answer follows the body before it with no line break between.
  return answer.match(/HTTP\/1\.1 \d{3} [^\r]*(?=\r\n)/g) ?? [];
}

describe("malformed request lines and Host headers (raw sockets)", () => {
  const batch = JSON.stringify([{ jsonrpc: "2.0", id: 1, method: "ping" }]);
  const modern = wireRequest("modern", 1, "tools/list");
  const modernHead = Object.entries(modern.headers)
    .map(([name, value]) => `\r\n${name}: ${value}`)
    .join("");
  /** A 2025-era batch and an uncached 2026-07-28 request: where the SDK is given a web Request. */
  const requests = [
    ["a 2025-era batch", "", batch],
    ["a 2026-07-28 request", modernHead, JSON.stringify(modern.body)],
  ] as const;

  // Regression (issue 24): these answered 500 and logged a stack; ALLOWED_HOSTS did not stop them.
  it.each(["x:99999", "a b", "a@b", "[::1", "x:abc", "", "a/b", "a?b"])(
    "Host %j: 400 saying the Host header is not a host and port",
    async (host) => {
      for (const [what, headers, body] of requests) {
        for (const url of [server.url, guarded.url]) {
          const answer = await rawRequest(url, `POST /mcp HTTP/1.1\r\nHost: ${host}${headers}`, body);
          expect(answer.status, what).toBe(400);
          expect(answer.json, what).toEqual({
            jsonrpc: "2.0",
            error: {
              code: -32600,
              message: `Bad request: the Host header ${JSON.stringify(host)} is not a host name or address with an optional port (1 to 65535).`,
            },
            id: null,
          });
        }
      }
    },
  );

  it("two Host headers: 400, as HTTP asks", async () => {
    const answer = await rawRequest(server.url, "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nhost: evil", batch);
    expect(answer).toEqual({
      status: 400,
      json: {
        jsonrpc: "2.0",
        error: { code: -32600, message: "Bad request: more than one Host header; send one." },
        id: null,
      },
    });
  });

  it.each(["http://evil/mcp", "http://127.0.0.1/mcp", "http://a@b/mcp", "http://evil:99999/mcp", "*"])(
    "request target %s: 400 saying the target must be a path",
    async (target) => {
      for (const [what, headers, body] of requests) {
        const answer = await rawRequest(
          server.url,
          `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1${headers}`,
          body,
        );
        expect(answer.status, what).toBe(400);
        expect(answer.json, what).toMatchObject({
          jsonrpc: "2.0",
          error: {
            code: -32600,
            message: expect.stringMatching(/^Bad request: the request target .*POST \/mcp/),
          },
        });
      }
    },
  );

  // Regression: Node closed a CONNECT's connection without a word, as it does without a listener.
  it("CONNECT: 400 saying this server is not a proxy, and the connection closed", async () => {
    const answer = await rawRequest(server.url, "CONNECT evil:443 HTTP/1.1\r\nHost: evil:443");
    expect(answer).toEqual({
      status: 400,
      json: {
        jsonrpc: "2.0",
        error: {
          code: -32600,
          message:
            "Bad request: the request target must be a path, as in POST /mcp; this server is not a proxy and takes no CONNECT.",
        },
        id: null,
      },
    });
  });

  // Regression: Node answered 417 with an empty body, the one error that was no JSON-RPC error object.
  it("an Expect other than 100-continue: 417 with a JSON-RPC error", async () => {
    const answer = await rawRequest(
      server.url,
      "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nExpect: teapot",
      batch,
    );
    expect(answer).toEqual({
      status: 417,
      json: {
        jsonrpc: "2.0",
        error: {
          code: -32600,
          message: "Expectation failed: the only Expect this server takes is 100-continue.",
        },
        id: null,
      },
    });
  });

  // Regression: Node undid the chunks and handed on the gzip as it was, which was told it is not JSON (400).
  it("a transfer coding besides chunked: 501 naming it, and a chunked body alone served", async () => {
    const chunked = (codings: string, body: Buffer) =>
      rawExchange(
        server.url,
        Buffer.concat([
          Buffer.from(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
              `Accept: application/json, text/event-stream\r\nTransfer-Encoding: ${codings}\r\n` +
              `Connection: close\r\n\r\n${body.length.toString(16)}\r\n`,
          ),
          body,
          Buffer.from("\r\n0\r\n\r\n"),
        ]),
      );
    for (const codings of ["gzip, chunked", "GZIP ,chunked"]) {
      const answer = await chunked(codings, gzipSync(batch));
      expect(answer, codings).toEqual({
        status: 501,
        json: {
          jsonrpc: "2.0",
          error: {
            code: -32600,
            message: expect.stringMatching(
              /^Unsupported transfer coding ".*gzip.*" in Transfer-Encoding ".*": this server takes only chunked;/i,
            ),
          },
          id: null,
        },
      });
    }
    const refused = await chunked("x-custom, gzip, chunked", gzipSync(batch));
    expect(refused.status).toBe(501);
    expect(refused.json).toMatchObject({
      error: {
        message: expect.stringContaining(
          'coding "x-custom", "gzip" in Transfer-Encoding "x-custom, gzip, chunked"',
        ),
      },
    });
    const served = await chunked("chunked", Buffer.from(batch));
    expect(served).toMatchObject({ status: 200, json: [{ id: 1, result: {} }] });
  });

  // Regression: a coding not ended by chunked, whose body has no length to tell, was told only that the
  // request is not well-formed HTTP, where a coding ended by chunked is told what is wrong and what to send.
  it("a transfer coding not ended by chunked, or chunked twice: 400 saying chunked must come once and last, and what to send", async () => {
    const gzipped = gzipSync(batch);
    const heads: [string, string][] = [
      ["Transfer-Encoding: gzip", 'Transfer-Encoding "gzip" must end in chunked, or where the body ends'],
      ["Transfer-Encoding: chunked, gzip", "must name chunked once, and last, or where the body ends"],
      // Regression: told that a Transfer-Encoding must end in chunked, which these do.
      ["Transfer-Encoding: chunked, chunked", "must name chunked once, and last"],
      ["Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked", "must name chunked once, and last"],
      [
        `Transfer-Encoding: gzip\r\nContent-Length: ${gzipped.length}`,
        "both a Transfer-Encoding and a Content-Length",
      ],
    ];
    for (const [head, said] of heads) {
      // Its whole answer, read to the connection's close, is one JSON-RPC error: no second answer after it.
      const answer = await rawExchange(
        server.url,
        Buffer.concat([
          Buffer.from(
            "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
              `Accept: application/json, text/event-stream\r\n${head}\r\nConnection: close\r\n\r\n`,
          ),
          gzipped,
        ]),
      );
      expect(answer, head).toEqual({
        status: 400,
        json: {
          jsonrpc: "2.0",
          error: {
            code: -32600,
            message: expect.stringMatching(
              /^Bad request: .*[;:] send the JSON-RPC message with (Transfer-Encoding: chunked alone, or with a Content-Length|a Content-Length alone, or with Transfer-Encoding: chunked alone)\.$/,
            ),
          },
          id: null,
        },
      });
      expect(answer.json, head).toMatchObject({ error: { message: expect.stringContaining(said) } });
    }
  });

  // Regression: only /mcp refused it; /health and /metrics answered it with a raw 400 written as soon as
  // Node failed its body, read by a client as the answer to a request it had sent before on the connection,
  // and a 404 or 405 answered it as any other request, the connection kept alive.
  it("a transfer coding not ended by chunked, on every route: one 400, after the answers before it", async () => {
    const unframed = (line: string) =>
      `${line} HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: gzip\r\n\r\n${gzipSync(batch).toString("latin1")}`;
    for (const line of ["GET /health", "GET /metrics", "GET /nope", "POST /health", "GET /mcp"]) {
      const answer = await rawAnswers(server.url, unframed(line));
      expect(statusLines(answer), line).toEqual(["HTTP/1.1 400 Bad Request"]);
      expect(answer, line).toMatch(/\r\nconnection: close\r\n/i);
      expect(answer, line).toContain('Transfer-Encoding \\"gzip\\" must end in chunked');
    }
    const before = "GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
    for (const line of ["GET /metrics", "GET /nope", "POST /mcp"]) {
      const answer = await rawAnswers(server.url, `${before}${unframed(line)}`);
      expect(statusLines(answer), line).toEqual(["HTTP/1.1 200 OK", "HTTP/1.1 400 Bad Request"]);
      expect(answer, line).toContain('"status":"ok"');
    }
  });

  // Regression: told only that the request is not well-formed HTTP.
  it("a method HTTP has no name for: 400 saying so, and where MCP is served", async () => {
    for (const method of ["FOO", "post", "GETT"]) {
      const answer = await rawExchange(server.url, `${method} /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`);
      expect(answer, method).toEqual({
        status: 400,
        json: {
          jsonrpc: "2.0",
          error: {
            code: -32600,
            message:
              "Bad request: the request does not begin with a method HTTP knows, such as POST; MCP is served at POST /mcp.",
          },
          id: null,
        },
      });
    }
  });

  it("a path that cannot be decoded: 400 with a JSON-RPC error", async () => {
    const answer = await rawRequest(server.url, "POST /mcp%zz HTTP/1.1\r\nHost: 127.0.0.1", batch);
    expect(answer.status).toBe(400);
    expect(answer.json).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 } });
  });

  it("a well-formed request line and Host, IPv6 and a name with a port included, is answered", async () => {
    for (const host of ["127.0.0.1", "[::1]:8000", "skills-mcp.flow.svc.cluster.local:8000", "localhost"]) {
      for (const [what, headers, body] of requests) {
        const answer = await rawRequest(server.url, `POST /mcp HTTP/1.1\r\nHost: ${host}${headers}`, body);
        expect(answer.status, `${what}, ${host}`).toBe(200);
      }
    }
  });
});
