import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { logLines, ROOT, stdioServerProcess } from "../helpers/process.js";
import { post, type RunningServer, startServer } from "../helpers/server.js";

const SKILLS_DIR = path.join(ROOT, "examples/skills");

/** An object `depth` levels deep, as a hostile client sends one in a few kilobytes. */
function nested(depth: number): string {
  return `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`;
}

/** `initialize` whose client capabilities nest `depth` deep: the SDK's schema walks them recursively. */
function deepHandshake(id: number, depth: number): string {
  return `{"jsonrpc":"2.0","id":${id},"method":"initialize","params":{"protocolVersion":"2025-06-18","clientInfo":{"name":"raw","version":"1"},"capabilities":{"sampling":${nested(depth)}}}}`;
}

/**
 * A value nested 5,000 deep under a key that a second copy, JSON.parse's, replaces: a check of the parsed
 * message saw only the second, and both transports answered the ping.
 */
const HIDDEN_DEPTH = `{"jsonrpc":"2.0","id":5,"method":"ping","params":{"a":${nested(5000)},"a":1}}`;

// Regression: over stdio, a request nested thousands deep reached the SDK: `initialize` was served at 5,000
// levels, where /mcp refuses it as nested deeper than 64, and answered -32603 "Maximum call stack size
// exceeded" at 100,000 (its schema walks the capabilities recursively); a response so nested was logged as
// an error of ours with its stack.
describe("a message nested thousands deep, over stdio", () => {
  let http: RunningServer;
  beforeAll(async () => {
    http = await startServer(SKILLS_DIR);
  });
  afterAll(() => http.close());

  it("is refused as /mcp refuses it, and the connection answers on", async () => {
    const stdio = stdioServerProcess({ PATH: process.env.PATH ?? "", SKILLS_DIR, NODE_OPTIONS: "" });
    try {
      stdio.write(`${deepHandshake(1, 5000)}\n`);
      stdio.write(`{"jsonrpc":"2.0","id":2,"error":{"code":1,"message":"x","data":${nested(5000)}}}\n`);
      stdio.write(`${deepHandshake(3, 100_000)}\n`);
      stdio.write(`${deepHandshake(4, 3)}\n`);
      stdio.write(`${HIDDEN_DEPTH}\n`);
      await vi.waitFor(() => expect(stdio.answers()).toHaveLength(4), { timeout: 30_000 });
      const answers = new Map(stdio.answers().map((answer) => [answer.id, answer]));
      const overHttp = await post(`${http.url}/mcp`, deepHandshake(1, 5000));
      expect(overHttp.status).toBe(400);
      expect(answers.get(1)).toEqual(overHttp.json);
      expect(answers.get(3)).toEqual({ ...(overHttp.json as object), id: 3 });
      expect(answers.get(4)).toHaveProperty("result.serverInfo");
      const hidden = await post(`${http.url}/mcp`, HIDDEN_DEPTH);
      expect(hidden.status).toBe(400);
      expect(answers.get(5)).toEqual({ ...(overHttp.json as object), id: 5 });
      expect(hidden.json).toEqual({ ...(overHttp.json as object), id: 5 });
      await stdio.end();
      const log = logLines(stdio.stderr());
      expect(log.filter((line) => Number(line.level) >= 50)).toEqual([]);
      expect(log).toContainEqual(
        expect.objectContaining({
          level: 40,
          msg: "stdio: a notification or response from the client is nested too deep to read; skipped",
        }),
      );
    } finally {
      await stdio.end();
    }
  });
});
