import path from "node:path";
import { deserializeMessage } from "@modelcontextprotocol/client";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ROOT, stdioServerProcess } from "../helpers/process.js";
import { post, type RunningServer, startServer } from "../helpers/server.js";

const SKILLS_DIR = path.join(ROOT, "examples/skills");

/*
 * JSON-RPC 2.0 answers a request whose id could not be read under `"id": null`. /mcp does; stdio leaves
 * the id out, as MCP's schema has it (JSONRPCErrorResponse's id is optional, a string or an integer, never
 * null) and as the SDK's client reads a line: one under `"id": null` is no message to it, so its user would
 * see a schema error instead of the refusal. This holds both, and the reason: when an SDK release reads
 * `"id": null`, the last test fails, and stdio may then write it too.
 */
describe("a refusal whose id could not be read, over HTTP and over stdio", () => {
  let http: RunningServer;
  beforeAll(async () => {
    http = await startServer(SKILLS_DIR);
  });
  afterAll(() => http.close());

  const lines = ['{"jsonrpc":"2.0","id":1,"method":"ping"', '{"jsonrpc":"2.0","id":1.5,"method":"ping"}'];

  it("is under id null over HTTP, and without an id over stdio, read by the SDK's client", async () => {
    for (const line of lines) expect((await post(`${http.url}/mcp`, line)).json).toHaveProperty("id", null);
    const stdio = stdioServerProcess({ PATH: process.env.PATH ?? "", SKILLS_DIR, NODE_OPTIONS: "" });
    try {
      for (const line of lines) stdio.write(`${line}\n`);
      await vi.waitFor(() => expect(stdio.answers()).toHaveLength(2), { timeout: 30_000 });
      for (const answer of stdio.answers()) expect(answer).not.toHaveProperty("id");
      for (const line of stdio.stdout().split("\n").filter(Boolean))
        expect(() => deserializeMessage(line), line).not.toThrow();
    } finally {
      await stdio.end();
    }
  });

  it("would not be read by the SDK's client under id null over stdio", () => {
    const refusal = { jsonrpc: "2.0", error: { code: -32700, message: "Parse error" } };
    expect(() => deserializeMessage(JSON.stringify(refusal))).not.toThrow();
    expect(() => deserializeMessage(JSON.stringify({ ...refusal, id: null }))).toThrow();
  });
});
