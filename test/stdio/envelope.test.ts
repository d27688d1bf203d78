import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ROOT, stdioServerProcess } from "../helpers/process.js";
import { wireRequest } from "../helpers/requests.js";
import { post, type RunningServer, startServer } from "../helpers/server.js";

const SKILLS_DIR = path.join(ROOT, "examples/skills");

const VERSION = "io.modelcontextprotocol/protocolVersion";
const INFO = "io.modelcontextprotocol/clientInfo";
const CAPABILITIES = "io.modelcontextprotocol/clientCapabilities";
const CLIENT = { name: "raw", version: "1" };

/** Envelopes that name another revision than 2026-07-28, or miss or spoil a key. */
const ENVELOPES: readonly Record<string, unknown>[] = [
  { [VERSION]: "2027-01-01", [INFO]: CLIENT, [CAPABILITIES]: {} },
  { [VERSION]: "2025-11-25", [INFO]: CLIENT, [CAPABILITIES]: {} },
  { [VERSION]: "2026-07-28", [INFO]: CLIENT },
  { [VERSION]: "2026-07-28", [INFO]: null, [CAPABILITIES]: {} },
  { [VERSION]: "2026-07-28", [INFO]: { name: "raw" }, [CAPABILITIES]: {} },
];

function listTools(id: number, meta: Record<string, unknown>) {
  return { jsonrpc: "2.0", id, method: "tools/list", params: { _meta: meta } };
}

// Regression: once a stdio connection spoke 2026-07-28, the SDK checked a request's envelope only against
// its schema: one naming 2027-01-01 or 2025-11-25 was served, where /mcp (and the connection's first
// message) refuse it with -32022, and one missing a key was refused without naming the key.
describe("a 2026-07-28 request with a wrong envelope, over stdio after the first", () => {
  let http: RunningServer;
  beforeAll(async () => {
    http = await startServer(SKILLS_DIR);
  });
  afterAll(() => http.close());

  it("is refused as /mcp refuses it", async () => {
    const stdio = stdioServerProcess({ PATH: process.env.PATH ?? "", SKILLS_DIR, NODE_OPTIONS: "" });
    try {
      stdio.write(`${JSON.stringify(wireRequest("modern", 1, "tools/list").body)}\n`);
      for (const [index, meta] of ENVELOPES.entries())
        stdio.write(`${JSON.stringify(listTools(10 + index, meta))}\n`);
      await vi.waitFor(() => expect(stdio.answers()).toHaveLength(ENVELOPES.length + 1), {
        timeout: 30_000,
      });
      const answers = new Map(stdio.answers().map((answer) => [answer.id, answer]));
      expect(answers.get(1)).toHaveProperty("result.tools");
      for (const [index, meta] of ENVELOPES.entries()) {
        const version = meta[VERSION] as string;
        const headers = { "mcp-protocol-version": version, "mcp-method": "tools/list" };
        const overHttp = await post(`${http.url}/mcp`, listTools(10 + index, meta), headers);
        expect(overHttp.status).toBe(400);
        expect(answers.get(10 + index), JSON.stringify(meta)).toEqual(overHttp.json);
      }
    } finally {
      await stdio.end();
    }
  });

  it("is refused so on a connection that probed with server/discover first", async () => {
    const stdio = stdioServerProcess({ PATH: process.env.PATH ?? "", SKILLS_DIR, NODE_OPTIONS: "" });
    try {
      stdio.write(`${JSON.stringify(wireRequest("modern", 1, "server/discover").body)}\n`);
      // Still probing: the SDK's entry refuses this one itself, as the connection's first request.
      stdio.write(`${JSON.stringify(listTools(2, ENVELOPES[0] ?? {}))}\n`);
      stdio.write(`${JSON.stringify(wireRequest("modern", 3, "tools/list").body)}\n`);
      stdio.write(`${JSON.stringify(listTools(4, ENVELOPES[0] ?? {}))}\n`);
      await vi.waitFor(() => expect(stdio.answers()).toHaveLength(4), { timeout: 30_000 });
      const answers = new Map(stdio.answers().map((answer) => [answer.id, answer]));
      expect(answers.get(1)).toHaveProperty("result.supportedVersions");
      expect(answers.get(3)).toHaveProperty("result.tools");
      for (const id of [2, 4])
        expect(answers.get(id)).toMatchObject({
          error: {
            code: -32022,
            message:
              'Unsupported protocol version in the request\'s _meta envelope: "2027-01-01" (an envelope names 2026-07-28).',
          },
        });
    } finally {
      await stdio.end();
    }
  });

  it("is served as before on a 2025 connection, which reads no envelope", async () => {
    const stdio = stdioServerProcess({ PATH: process.env.PATH ?? "", SKILLS_DIR, NODE_OPTIONS: "" });
    try {
      stdio.write(`${JSON.stringify(wireRequest("legacy", 1, "tools/list").body)}\n`);
      stdio.write(`${JSON.stringify(listTools(2, ENVELOPES[0] ?? {}))}\n`);
      await vi.waitFor(() => expect(stdio.answers()).toHaveLength(2), { timeout: 30_000 });
      for (const answer of stdio.answers()) expect(answer).toHaveProperty("result.tools");
    } finally {
      await stdio.end();
    }
  });
});

// Regression: an envelope key missing or wrong was named, in the schema's words ("missing", "expected
// object, received number"), but not what it holds, on either transport.
describe("a 2026-07-28 envelope with a key missing or wrong", () => {
  const REFUSED = "Invalid _meta envelope for protocol revision 2026-07-28: ";
  const TOLD: readonly (readonly [Record<string, unknown>, string])[] = [
    [
      { [VERSION]: "2026-07-28", [INFO]: CLIENT },
      `${CAPABILITIES}: missing; ${CAPABILITIES} holds the client's capabilities, an object ({} for none)`,
    ],
    [
      { [VERSION]: "2026-07-28", [INFO]: { name: "raw" }, [CAPABILITIES]: {} },
      `${INFO}.version: Invalid input: expected string, received undefined; ${INFO}, which may be left out, holds the client's name and version: {"name": "<client>", "version": "<its version>"}`,
    ],
  ];
  let http: RunningServer;
  beforeAll(async () => {
    http = await startServer(SKILLS_DIR);
  });
  afterAll(() => http.close());

  it("says what the key holds, over HTTP and over stdio, on the first request and after", async () => {
    const stdio = stdioServerProcess({ PATH: process.env.PATH ?? "", SKILLS_DIR, NODE_OPTIONS: "" });
    try {
      stdio.write(`${JSON.stringify(listTools(20, TOLD[0]?.[0] ?? {}))}\n`);
      stdio.write(`${JSON.stringify(wireRequest("modern", 1, "tools/list").body)}\n`);
      for (const [index, [meta]] of TOLD.entries())
        stdio.write(`${JSON.stringify(listTools(10 + index, meta))}\n`);
      await vi.waitFor(() => expect(stdio.answers()).toHaveLength(TOLD.length + 2), { timeout: 30_000 });
      const answers = new Map(stdio.answers().map((answer) => [answer.id, answer]));
      expect(answers.get(20)?.error?.message).toBe(`${REFUSED}${TOLD[0]?.[1]}`);
      for (const [index, [meta, said]] of TOLD.entries()) {
        const headers = { "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/list" };
        const overHttp = await post(`${http.url}/mcp`, listTools(10 + index, meta), headers);
        expect(overHttp.json).toMatchObject({ error: { code: -32602, message: `${REFUSED}${said}` } });
        expect(answers.get(10 + index)?.error?.message).toBe(`${REFUSED}${said}`);
      }
    } finally {
      await stdio.end();
    }
  });
});

// Regression: a request holding keys of an envelope but not its version settled a new stdio connection in
// 2025 and was served so, and on a 2026-07-28 connection was refused as "Invalid input: expected string,
// received undefined", naming no key; /mcp refuses it saying what it lacks.
describe("a request with an envelope but no protocol version, over stdio", () => {
  const UNCLAIMED = { [INFO]: CLIENT, [CAPABILITIES]: {} };
  const told = `Invalid params: the request's params._meta holds ${INFO} and ${CAPABILITIES}, keys of a 2026-07-28 per-request envelope, but not ${VERSION}, which that envelope requires. To speak 2026-07-28, add "${VERSION}": "2026-07-28" to params._meta; a 2025 request carries no envelope (initialize negotiates its version): leave those keys out.`;

  it("is refused as the connection's first request and on a 2026-07-28 connection, and served on a 2025 one", async () => {
    const modern = stdioServerProcess({ PATH: process.env.PATH ?? "", SKILLS_DIR, NODE_OPTIONS: "" });
    const legacy = stdioServerProcess({ PATH: process.env.PATH ?? "", SKILLS_DIR, NODE_OPTIONS: "" });
    try {
      modern.write(`${JSON.stringify(listTools(1, UNCLAIMED))}\n`);
      // Refused, it settled nothing: the connection opens in 2026-07-28 after it.
      modern.write(`${JSON.stringify(wireRequest("modern", 2, "tools/list").body)}\n`);
      modern.write(`${JSON.stringify(listTools(3, UNCLAIMED))}\n`);
      legacy.write(`${JSON.stringify(wireRequest("legacy", 1, "tools/list").body)}\n`);
      legacy.write(`${JSON.stringify(listTools(2, UNCLAIMED))}\n`);
      await vi.waitFor(() => expect(modern.answers()).toHaveLength(3), { timeout: 30_000 });
      await vi.waitFor(() => expect(legacy.answers()).toHaveLength(2), { timeout: 30_000 });
      const answers = new Map(modern.answers().map((answer) => [answer.id, answer]));
      expect(answers.get(2)).toHaveProperty("result.tools");
      for (const id of [1, 3])
        expect(answers.get(id)).toEqual({
          jsonrpc: "2.0",
          id,
          error: { code: -32602, message: told, data: { envelope: { missing: [VERSION] } } },
        });
      for (const answer of legacy.answers()) expect(answer).toHaveProperty("result.tools");
    } finally {
      await modern.end();
      await legacy.end();
    }
  });
});
