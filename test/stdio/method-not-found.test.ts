import path from "node:path";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ROOT, stdioServerProcess } from "../helpers/process.js";
import { wireRequest } from "../helpers/requests.js";
import { post, type RunningServer, startServer } from "../helpers/server.js";

const SKILLS_DIR = path.join(ROOT, "examples/skills");

// Regression: over stdio a method the server does not serve was answered with the SDK's bare "Method not
// found", where /mcp names the method and those it serves; a client that mistyped one over stdio had to
// guess which of its requests was wrong and what to send instead.
describe("a method the server does not serve, over stdio and over HTTP", () => {
  let http: RunningServer;
  beforeAll(async () => {
    http = await startServer(SKILLS_DIR);
  });
  afterAll(() => http.close());

  // It was quoted by JSON alone, its first 100 UTF-16 units with no mark of the cut: a bidi override came
  // back raw, to reorder the line it was quoted in, and an emoji at the cut as a lone surrogate.
  it("is quoted as every input is: cut with an ellipsis, what no reader sees written out", async () => {
    const asked = wireRequest("legacy", 9, `tools/\u202elist${"x".repeat(88)}😀${"y".repeat(300)}`);
    const overHttp = await post(`${http.url}/mcp`, asked.body, asked.headers);
    const said = (overHttp.json as { error: { message: string } }).error.message;
    expect(said).toMatch(
      new RegExp(`^Method not found: "tools/\\{U\\+202E\\}list${"x".repeat(88)}😀…"; this server serves `),
    );
  });

  it.each(["legacy", "modern"] as const)("is refused in the same words on both (%s)", async (era) => {
    const asked = wireRequest(era, 9, "tools/lists");
    const overHttp = await post(`${http.url}/mcp`, asked.body, asked.headers);
    const said = (overHttp.json as { error: { message: string } }).error.message;
    expect(said).toMatch(/^Method not found: "tools\/lists"; this server serves .*tools\/list, tools\/call/);

    const stdio = stdioServerProcess({ PATH: process.env.PATH ?? "", SKILLS_DIR, NODE_OPTIONS: "" });
    try {
      stdio.write(`${JSON.stringify(asked.body)}\n`);
      // Asked again once the session has its server: named whether it opens the session or not.
      stdio.write(`${JSON.stringify(wireRequest(era, 10, "tools/lists").body)}\n`);
      await vi.waitFor(() => expect(stdio.answers()).toHaveLength(2), { timeout: 30_000 });
      expect(stdio.answers()).toEqual([
        { jsonrpc: "2.0", id: 9, error: { code: -32601, message: said } },
        { jsonrpc: "2.0", id: 10, error: { code: -32601, message: said } },
      ]);
    } finally {
      await stdio.end();
    }
  });

  // Regression: a notification sent with an id (a request, then) was told only that its method is not
  // served, which a client that sends notifications/initialized believes it is.
  it.each(["legacy", "modern"] as const)("says that a notification has no id, on both (%s)", async (era) => {
    const asked = wireRequest(era, 3, "notifications/initialized");
    const overHttp = await post(`${http.url}/mcp`, asked.body, asked.headers);
    const said = (overHttp.json as { error: { message: string } }).error.message;
    expect(said).toMatch(
      /^Method not found: "notifications\/initialized"; this server serves .*\. A notification is sent without an "id", and gets no answer\.$/,
    );
    const stdio = stdioServerProcess({ PATH: process.env.PATH ?? "", SKILLS_DIR, NODE_OPTIONS: "" });
    try {
      stdio.write(`${JSON.stringify(wireRequest(era, 1, "tools/list").body)}\n`);
      stdio.write(`${JSON.stringify(asked.body)}\n`);
      await vi.waitFor(() => expect(stdio.answers()).toHaveLength(2), { timeout: 30_000 });
      expect(stdio.answers().find((answer) => answer.id === 3)).toEqual({
        jsonrpc: "2.0",
        id: 3,
        error: { code: -32601, message: said },
      });
    } finally {
      await stdio.end();
    }
  });
});

// Regression: over stdio the era is the connection's, settled by its first message, and a request that
// spoke the other era was told to do what it had done: server/discover with the envelope, on a connection
// opened with initialize, "send it with params._meta holding …"; ping without it, on one opened in
// 2026-07-28, "send it without the envelope".
describe("a method of the other era than the stdio connection's, sent in that era", () => {
  it.each([
    [
      "legacy",
      wireRequest("modern", 2, "server/discover"),
      /server\/discover is a method of protocol revision 2026-07-28, and this connection speaks the 2025 handshake, as its first message did .*open a new connection whose first request carries the envelope\.$/,
    ],
    [
      "modern",
      wireRequest("legacy", 2, "ping"),
      /ping is a method of the 2025 handshake, and this connection speaks 2026-07-28, as its first request did .*ask server\/discover instead, with the envelope, or open a new connection whose first request is initialize\.$/,
    ],
  ] as const)("is told the connection speaks the other (opened in %s)", async (era, asked, said) => {
    const stdio = stdioServerProcess({ PATH: process.env.PATH ?? "", SKILLS_DIR, NODE_OPTIONS: "" });
    try {
      stdio.write(`${JSON.stringify(wireRequest(era, 1, "tools/list").body)}\n`);
      stdio.write(`${JSON.stringify(asked.body)}\n`);
      await vi.waitFor(() => expect(stdio.answers()).toHaveLength(2), { timeout: 30_000 });
      const refused = stdio.answers().find((answer) => answer.id === 2);
      expect(refused?.error?.code).toBe(-32601);
      expect(refused?.error?.message).toMatch(said);
    } finally {
      await stdio.end();
    }
  });
});
