import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { logLines, ROOT, stdioServerProcess } from "../helpers/process.js";
import { post, type RunningServer, startServer } from "../helpers/server.js";

const SKILLS_DIR = path.join(ROOT, "examples/skills");

const HANDSHAKE =
  '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","clientInfo":{"name":"raw","version":"1"},"capabilities":{}}}';

/** Messages holding a key twice, each with the words its refusal names the key and its place in. */
const REPEATED = [
  {
    line: '{"jsonrpc":"2.0","id":2,"method":"tools/list","method":"ping"}',
    said: 'the key "method" appears twice in one object, at the message\'s top level',
  },
  {
    line: '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"list_skills","name":"read_skill","arguments":{"skill":"x"}}}',
    said: 'the key "name" appears twice in one object, in params;',
  },
  {
    line: '{"jsonrpc":"2.0","id":4,"method":"ping","params":{"_meta":{"a":1,"\\u0061":2}}}',
    said: 'the key "a" appears twice in one object, in params._meta;',
  },
  {
    line: '{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"list_skills","arguments":{"query":"x","query\\u202e":1,"query\\u202e":2}}}',
    said: 'the key "query{U+202E}" appears twice in one object, in params.arguments;',
  },
];

/** The id repeats: no id of it can be trusted. */
const REPEATED_ID = '{"jsonrpc":"2.0","id":6,"id":7,"method":"ping"}';

/** No key repeats, though strings hold what a key would look like: served. */
const LOOKALIKE =
  '{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"list_skills","arguments":{"query":"\\"name\\":{\\"name\\"} [\\\\\\"]","pack":null}}}';

// Regression: JSON.parse keeps the last of two copies of a key, so `"method":"tools/list","method":"ping"`
// ran ping, where a gateway that reads the first copy allowed tools/list: both transports served it.
describe("a message holding a key twice in one object, over HTTP and over stdio", () => {
  let http: RunningServer;
  beforeAll(async () => {
    http = await startServer(SKILLS_DIR);
  });
  afterAll(() => http.close());

  it("is refused -32600 naming the key and where it is, the same way on both", async () => {
    const stdio = stdioServerProcess({ PATH: process.env.PATH ?? "", SKILLS_DIR, NODE_OPTIONS: "" });
    try {
      stdio.write(`${HANDSHAKE}\n`);
      for (const { line } of REPEATED) stdio.write(`${line}\n`);
      stdio.write(`${REPEATED_ID}\n`);
      stdio.write(`${LOOKALIKE}\n`);
      stdio.write('{"jsonrpc":"2.0","id":90,"error":{"code":1,"message":"x","message":"y"}}\n');
      await vi.waitFor(() => expect(stdio.answers()).toHaveLength(REPEATED.length + 3), { timeout: 30_000 });
      const answers = stdio.answers();
      for (const [index, { line, said }] of REPEATED.entries()) {
        const id = index + 2;
        const overStdio = answers.find((answer) => answer.id === id);
        expect(overStdio).toEqual({
          jsonrpc: "2.0",
          id,
          error: { code: -32600, message: expect.stringContaining(said) },
        });
        const overHttp = await post(`${http.url}/mcp`, line);
        expect(overHttp.status).toBe(400);
        expect(overHttp.json).toEqual(overStdio);
      }
      const noId = answers.filter((answer) => !("id" in answer));
      expect(noId).toEqual([
        {
          jsonrpc: "2.0",
          error: { code: -32600, message: expect.stringContaining('the key "id" appears twice') },
        },
      ]);
      const overHttp = await post(`${http.url}/mcp`, REPEATED_ID);
      expect(overHttp.json).toEqual({ ...noId[0], id: null });
      expect(answers.find((answer) => answer.id === 8)).toHaveProperty("result.content");
      expect((await post(`${http.url}/mcp`, LOOKALIKE)).json).toHaveProperty("result.content");
      await stdio.end();
      expect(logLines(stdio.stderr())).toContainEqual(
        expect.objectContaining({
          level: 40,
          msg: "stdio: a notification or response from the client holds a key twice in one object; skipped",
        }),
      );
    } finally {
      await stdio.end();
    }
  });

  // JSON-RPC 2.0 answers each member of a batch, an invalid one with an error of its own; this server, as
  // the SDK does of a batch holding a member that is no message, refuses the batch whole (docs/security.md).
  it("refuses a 2025 batch whole when one of its messages holds a key twice, naming which", async () => {
    const call = (id: number, name: string) =>
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{${name},"arguments":{}}}`;
    const headers = { "mcp-protocol-version": "2025-03-26" };
    const batch = (name: string) => `[{"jsonrpc":"2.0","id":1,"method":"ping"},${call(2, name)}]`;
    const served = await post(`${http.url}/mcp`, batch('"name":"list_skills"'), headers);
    expect(served.status).toBe(200);
    expect(served.json).toHaveLength(2);
    const refused = await post(`${http.url}/mcp`, batch('"name":"read_skill","name":"list_skills"'), headers);
    expect(refused).toMatchObject({
      status: 400,
      json: {
        jsonrpc: "2.0",
        id: null,
        error: {
          code: -32600,
          message: expect.stringContaining('the key "name" appears twice in one object, in [1].params;'),
        },
      },
    });
  });
});
