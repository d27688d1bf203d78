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
