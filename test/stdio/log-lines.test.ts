import { unlink } from "node:fs/promises";
import path from "node:path";
import { describe, expect, it, vi } from "vitest";
import { makeStandardCatalog } from "../helpers/fixtures.js";
import { logLines, ROOT, stdioServerProcess } from "../helpers/process.js";
import { wireRequest, wireToolCall } from "../helpers/requests.js";

/** `--stdio` on the bundled examples, with `env` besides and no other variable but PATH. */
function stdioServer(env: Record<string, string> = {}) {
  const server = stdioServerProcess({
    PATH: process.env.PATH ?? "",
    SKILLS_DIR: path.join(ROOT, "examples/skills"),
    NODE_OPTIONS: "",
    ...env,
  });
  return {
    ...server,
    write: (line: string) => server.write(`${line}\n`),
    log: () => logLines(server.stderr()),
    kill: () => void server.signal("SIGTERM"),
  };
}

describe("a stdio server's log, as a desktop host's log panel shows it", () => {
  // Regression: over stdio the log said neither when the server was ready to answer (HTTP logs `ready`, with
  // what the start took) nor why it stopped when the client closed stdin, the most common end of a session.
  it("says when it is ready, with what its start took, and that it stops because stdin closed", async () => {
    const server = stdioServer();
    try {
      server.write('{"jsonrpc":"2.0","id":1,"method":"ping"}');
      await vi.waitFor(() => expect(server.stdout()).toContain('"id":1'), { timeout: 30_000 });
      expect(await server.end()).toBe(0);
      const lines = server.log();
      expect(lines.find((line) => line.msg === "ready")).toMatchObject({
        level: 30,
        transport: "stdio",
        ms: expect.any(Number),
        catalogMs: expect.any(Number),
        index: expect.stringMatching(/^(built|loaded)$/),
      });
      expect(lines.at(-1)).toMatchObject({ level: 30, msg: "stdio: the client closed stdin; stopping" });
      expect(lines.filter((line) => line.msg === "stdio: the client closed stdin; stopping")).toHaveLength(1);
    } finally {
      server.kill();
    }
  });

  it("warns of a notification the SDK discards for its protocol revision, with the SDK's reason, as no error", async () => {
    // Told apart from errors of ours by the SDK's wording (it gives no code): an SDK that words it otherwise
    // fails here instead of logging each such notification as an error with a stack.
    const server = stdioServer();
    try {
      const meta = {
        "io.modelcontextprotocol/protocolVersion": "2099-01-01",
        "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
        "io.modelcontextprotocol/clientCapabilities": {},
      };
      server.write(
        JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized", params: { _meta: meta } }),
      );
      server.write('{"jsonrpc":"2.0","id":1,"method":"ping"}');
      await vi.waitFor(() => expect(server.stdout()).toContain('"id":1'), { timeout: 30_000 });
      expect(await server.end()).toBe(0);
      const lines = server.log();
      expect(lines.filter((line) => Number(line.level) >= 50)).toEqual([]);
      expect(lines.filter((line) => line.level === 40)).toEqual([
        expect.objectContaining({
          msg: "stdio: a message from the client was discarded by the SDK, and nothing answers it",
          reason: "Discarded a notification claiming unsupported protocol revision 2099-01-01",
        }),
      ]);
    } finally {
      server.kill();
    }
  });

  // Regression: a notification whose params are no object was warned of only as "not a JSON-RPC message",
  // and nothing answers a notification: its client was told nothing anywhere of what was wrong.
  it("warns once of each notification of the wrong shape, saying what is wrong, its method, and that nothing answers it", async () => {
    const server = stdioServer();
    try {
      server.write('{"jsonrpc":"2.0","method":"notifications/initialized","params":5}');
      server.write('{"jsonrpc":"2.0","method":"notifications/cancelled","params":[1]}');
      server.write('{"jsonrpc":"2.0","id":1,"method":"ping","params":"x"}');
      server.write('{"jsonrpc":"2.0","id":2,"method":"ping"}');
      await vi.waitFor(() => expect(server.stdout()).toContain('"id":2'), { timeout: 30_000 });
      expect(await server.end()).toBe(0);
      const warnings = server.log().filter((line) => Number(line.level) >= 40);
      const skipped = "stdio: a line from the client is not a JSON-RPC message; skipped";
      expect(warnings).toEqual([
        expect.objectContaining({
          level: 40,
          msg: skipped,
          method: "notifications/initialized",
          reason: '"params" must be an object, not a number; leave it out when there are none.',
          answered: false,
        }),
        expect.objectContaining({
          msg: skipped,
          method: "notifications/cancelled",
          reason: '"params" must be an object, not an array; leave it out when there are none.',
          answered: false,
        }),
        expect.objectContaining({ msg: skipped, method: "ping", answered: true }),
      ]);
    } finally {
      server.kill();
    }
  });

  // Regression: a response with a member besides jsonrpc, id and result was warned of only as "no JSON-RPC
  // request, notification or response", naming nothing, and nothing answers a response.
  it("warns of a response of the wrong shape, saying what is wrong, and answers nothing", async () => {
    const server = stdioServer();
    try {
      server.write('{"jsonrpc":"2.0","id":99,"result":{},"params":{}}');
      server.write('{"jsonrpc":"2.0","id":1,"method":"ping"}');
      await vi.waitFor(() => expect(server.stdout()).toContain('"id":1'), { timeout: 30_000 });
      expect(await server.end()).toBe(0);
      expect(server.stdout().trim().split("\n")).toHaveLength(1);
      expect(server.log().filter((line) => Number(line.level) >= 40)).toEqual([
        expect.objectContaining({
          level: 40,
          msg: "stdio: a line from the client is not a JSON-RPC message; skipped",
          reason:
            '"params" is no member of a JSON-RPC response: a response holds jsonrpc, id and result or error, nothing else.',
          answered: false,
        }),
      ]);
    } finally {
      server.kill();
    }
  });

  // Regression: a request sent without its id (a notification, by JSON-RPC) went without a word: nothing
  // answers it, and its client waited for an answer with nothing in the log to say why.
  it("warns of a request's method sent without an id, which nothing answers", async () => {
    const server = stdioServer();
    try {
      server.write('{"jsonrpc":"2.0","method":"tools/list"}');
      server.write('{"jsonrpc":"2.0","method":"notifications/initialized"}');
      server.write('{"jsonrpc":"2.0","id":1,"method":"ping"}');
      await vi.waitFor(() => expect(server.stdout()).toContain('"id":1'), { timeout: 30_000 });
      expect(await server.end()).toBe(0);
      expect(server.stdout().trim().split("\n")).toHaveLength(1);
      expect(server.log().filter((line) => Number(line.level) >= 40)).toEqual([
        expect.objectContaining({
          level: 40,
          msg: 'stdio: a message without an "id" names a request\'s method, so it is a notification, which nothing answers; send a request with an id',
          method: "tools/list",
          skipped: 1,
        }),
      ]);
    } finally {
      server.kill();
    }
  });

  it("ties a call that failed inside the server to the client's request by its JSON-RPC id", async () => {
    const failing = await makeStandardCatalog();
    const server = stdioServer({ SKILLS_DIR: failing.skillsDir });
    try {
      const call = (id: string) =>
        JSON.stringify(wireToolCall("modern", id, "read_skill", { skill: "one" }).body);
      server.write(JSON.stringify(wireRequest("modern", "before", "ping").body));
      await vi.waitFor(() => expect(server.stdout()).toContain('"id":"before"'), { timeout: 30_000 });
      // Gone since startup: the read fails inside the server.
      await unlink(path.join(failing.skillsDir, "alpha/one/SKILL.md"));
      server.write(call("call\u20287"));
      await vi.waitFor(() => expect(server.stdout()).toContain('"id":"call\u20287"'), { timeout: 30_000 });
      expect(await server.end()).toBe(0);
      expect(server.log().filter((line) => line.msg === "tool failed")).toEqual([
        expect.objectContaining({ level: 50, tool: "read_skill", rpcId: "call{U+2028}7" }),
      ]);
    } finally {
      server.kill();
      await failing.remove();
    }
  });

  it("keeps what a dependency prints with console.log off stdout, which carries only JSON-RPC", async () => {
    // Regression: with LOG_TOKENS set, yaml printed every token of every frontmatter it read to stdout: 112
    // lines that were no JSON-RPC before the first answer.
    const server = stdioServer({ LOG_TOKENS: "1" });
    try {
      server.write('{"jsonrpc":"2.0","id":1,"method":"ping"}');
      await vi.waitFor(() => expect(server.stdout()).toContain('"id":1'), { timeout: 30_000 });
      expect(await server.end()).toBe(0);
      expect(server.stdout()).toBe('{"result":{},"jsonrpc":"2.0","id":1}\n');
    } finally {
      server.kill();
    }
  });
});
