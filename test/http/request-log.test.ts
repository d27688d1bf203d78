/**
 * The request log line an operator reads to find who is refused or failing: with TRUST_PROXY set, the
 * client is the address its proxies name, as the rate limit counts it. A request refused before it was
 * read (too slow, not HTTP, a path that cannot be decoded) has its line too; shedding warns sparingly.
 */
import { unlink } from "node:fs/promises";
import net from "node:net";
import path from "node:path";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { buildApp, SHED_QUIET_MS } from "../../src/http/index.js";
import { loadStartupConfig, mcpDepsFor, prepare } from "../../src/startup/index.js";
import { makeStandardCatalog, type StandardCatalog } from "../helpers/fixtures.js";
import { wireRequest, wireToolCall } from "../helpers/requests.js";
import { httpSettings } from "../helpers/server.js";

const KEY = "request-log-key-0123456789";

let tree: StandardCatalog;
beforeAll(async () => {
  tree = await makeStandardCatalog();
});
afterAll(async () => {
  await tree.remove();
});

/** An app whose log lines are kept, fed requests in memory unless a test needs a socket. */
async function appLogging(env: Record<string, string>, level = "info", skillsDir = tree.skillsDir) {
  const lines: Record<string, unknown>[] = [];
  const warnings = () => lines.filter((line) => line.level === 40);
  const logger = pino({ level }, { write: (line: string) => lines.push(JSON.parse(line)) });
  const config = loadStartupConfig({ SKILLS_DIR: skillsDir });
  const prepared = await prepare(config, pino({ level: "silent" }));
  const app = await buildApp({
    mcp: mcpDepsFor(prepared, config, logger, { name: "skills-mcp", version: "test" }),
    logger,
    settings: httpSettings(env),
  });
  return { app, lines, warnings, requests: () => lines.filter((line) => line.msg === "request") };
}

const ping = { jsonrpc: "2.0", id: 1, method: "ping" };
const headers = { "content-type": "application/json", accept: "application/json, text/event-stream" };

describe("the request log line", () => {
  it("names the client that a proxy forwards, for a refused request", async () => {
    const { app, requests } = await appLogging({ API_KEYS: KEY, TRUST_PROXY: "1" });
    try {
      const answer = await app.inject({
        method: "POST",
        url: "/mcp",
        remoteAddress: "10.0.0.7",
        headers: { ...headers, "x-forwarded-for": "203.0.113.9" },
        payload: ping,
      });
      expect(answer.statusCode).toBe(401);
      expect(requests()).toEqual([expect.objectContaining({ status: 401, ip: "203.0.113.9" })]);
    } finally {
      await app.close();
    }
  });

  it("names the connection's address without TRUST_PROXY, whatever X-Forwarded-For claims", async () => {
    const { app, requests } = await appLogging({ RATE_LIMIT_PER_MINUTE: "1" });
    try {
      for (let sent = 0; sent < 2; sent++) {
        await app.inject({
          method: "POST",
          url: "/mcp",
          remoteAddress: "198.51.100.4",
          headers: { ...headers, "x-forwarded-for": "203.0.113.9" },
          payload: ping,
        });
      }
      expect(requests()).toEqual([expect.objectContaining({ status: 429, ip: "198.51.100.4" })]);
    } finally {
      await app.close();
    }
  });
});

/** Writes `bytes` on a new connection to `port` and gives what the server answered once it closes. */
function exchange(port: number, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1", () => socket.write(bytes));
    let answer = "";
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString();
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(answer));
    socket.setTimeout(5000, () => socket.destroy());
  });
}

/** Characters JSON leaves raw that end a line, control a terminal or reorder text in a log viewer. */
const UNSEEN_RAW = /[\u0080-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

describe("what a client sent, in the request log line", () => {
  it("is written as {U+…} where no reader sees it: no line separator, C1 control or bidi override", async () => {
    const { app, requests } = await appLogging({});
    try {
      const answer = await app.inject({
        method: "POST",
        url: "/mcp",
        // A header as curl sends it, in UTF-8: CSI is the bytes C2 9B.
        headers: { ...headers, "x-skill-pack": Buffer.from("alpha\u009b31m", "utf8").toString("latin1") },
        payload: {
          jsonrpc: "2.0",
          id: 1,
          method: "tools/call",
          params: { name: "read\u2028_\u202eskill", arguments: {} },
        },
      });
      expect(answer.statusCode).toBe(400);
      const [line] = requests();
      expect(line).toMatchObject({
        rpc: "tools/call",
        tool: "read{U+2028}_{U+202E}skill",
        scope: "header=alpha{U+009B}31m",
      });
      expect(JSON.stringify(requests())).not.toMatch(UNSEEN_RAW);
    } finally {
      await app.close();
    }
  });
});

describe("what a refused or failed request was told, in its log line", () => {
  let logging: Awaited<ReturnType<typeof appLogging>>;
  let url: string;
  beforeAll(async () => {
    logging = await appLogging({});
    // Over a socket: a read holding a file sets a timeout on its answer, which inject does not take.
    await logging.app.listen({ host: "127.0.0.1", port: 0 });
    const address = logging.app.server.address();
    if (address === null || typeof address === "string") throw new Error("no TCP address");
    url = `http://127.0.0.1:${address.port}/mcp`;
  });
  afterAll(async () => {
    await logging.app.close();
  });

  /** The request line of one POST of `body`. */
  async function lineOf(body: unknown, sent: Record<string, string> = headers) {
    const before = logging.requests().length;
    await fetch(url, { method: "POST", headers: sent, body: JSON.stringify(body) }).then((a) => a.text());
    await vi.waitFor(() => expect(logging.requests().length).toBe(before + 1));
    return logging.requests()[before];
  }

  it.each(["legacy", "modern"] as const)("is a tool's refusal, in %s", async (era) => {
    const call = wireToolCall(era, 1, "read_skill", { skill: "nope" });
    expect(await lineOf(call.body, { ...headers, ...call.headers })).toMatchObject({
      status: 200,
      tool: "read_skill",
      error: expect.stringMatching(/^No skill "nope"\. /),
    });
  });

  it("is the JSON-RPC error of a refusal at the edge", async () => {
    expect(await lineOf(ping, { "content-type": "application/json", accept: "text/html" })).toMatchObject({
      status: 406,
      error: expect.stringMatching(/^Not Acceptable/),
    });
  });

  it("is the failing member's, for a batch", async () => {
    const batch = [ping, wireToolCall("legacy", 2, "read_skill", { skill: "alpha/nope" }).body];
    expect(await lineOf(batch)).toMatchObject({
      status: 200,
      error: expect.stringMatching(/^No skill "alpha\/nope"/),
    });
  });

  // Regression: a failed answer was parsed once more for its line (up to 64 KiB of it), after the endpoint
  // had parsed it, or made it, already.
  it.each([
    ["a method not found, answered by the SDK's entry", { jsonrpc: "2.0", id: 2, method: "nothing/here" }, 1],
    ["a tool's refusal", wireToolCall("legacy", 2, "read_skill", { skill: "nope" }).body, 0],
    [
      "a batch's failing member",
      [ping, wireToolCall("legacy", 2, "read_skill", { skill: "alpha/nope" }).body],
      0,
    ],
  ])("is read from the answer no more than the endpoint read it: %s", async (_, body, reads) => {
    const parse = vi.spyOn(JSON, "parse");
    try {
      expect(await lineOf(body)).toMatchObject({
        error: expect.stringMatching(/^(Method not found|No skill)/),
      });
      // The answers, not the request (which names a method) nor the log lines.
      const answers = parse.mock.calls.filter(
        ([json]) => typeof json === "string" && json.includes('"jsonrpc"') && !json.includes('"method"'),
      );
      expect(answers).toHaveLength(reads);
    } finally {
      parse.mockRestore();
    }
  });

  // Regression: a refusal the server made itself was serialized, then parsed back for its line.
  it.each([
    ["an unknown query parameter", "?x=1", "POST", /^Unknown query parameter "x"/],
    ["a selector that matches nothing", "?pack=nope", "POST", /^Unknown pack or group "nope"/],
    ["a method /mcp does not take", "", "GET", /^Method not allowed/],
  ])("is not read back from a refusal of the server's own: %s", async (_, query, method, said) => {
    const before = logging.requests().length;
    const parse = vi.spyOn(JSON, "parse");
    try {
      const body = method === "POST" ? JSON.stringify(ping) : undefined;
      await fetch(`${url}${query}`, { method, headers, body }).then((answer) => answer.text());
      await vi.waitFor(() => expect(logging.requests().length).toBe(before + 1));
      expect(logging.requests()[before]).toMatchObject({ error: expect.stringMatching(said) });
      // The answer, not the request (which names a method) nor the log lines.
      const answers = parse.mock.calls.filter(
        ([json]) => typeof json === "string" && json.includes('"jsonrpc"') && !json.includes('"method"'),
      );
      expect(answers).toHaveLength(0);
    } finally {
      parse.mockRestore();
    }
  });

  // The answer was read for its line only up to 64 KiB: a larger batch's line said nothing of its failure.
  it("is the failing member's, for a batch whose answer is larger than 64 KiB", async () => {
    const lists = Array.from({ length: 99 }, (_, id) => ({
      jsonrpc: "2.0",
      id: id + 10,
      method: "tools/list",
    }));
    const batch = [...lists, wireToolCall("legacy", 2, "read_skill", { skill: "alpha/nope" }).body];
    const before = logging.requests().length;
    const answer = await fetch(url, { method: "POST", headers, body: JSON.stringify(batch) });
    expect((await answer.arrayBuffer()).byteLength).toBeGreaterThan(64 * 1024);
    await vi.waitFor(() => expect(logging.requests().length).toBe(before + 1));
    expect(logging.requests()[before]).toMatchObject({
      error: expect.stringMatching(/^No skill "alpha\/nope"/),
    });
  });

  it("is cut, and shows what no reader sees, as the client wrote it", async () => {
    // As long as a skill may be named: the refusal quoting it is longer than a line carries.
    const skill = `x\u202e${"y".repeat(298)}`;
    const line = await lineOf(wireToolCall("legacy", 1, "read_skill", { skill }).body);
    expect(line?.error).toEqual(expect.stringContaining('No skill "x{U+202E}yyy'));
    expect(String(line?.error).length).toBeLessThanOrEqual(301);
    expect(JSON.stringify(line)).not.toMatch(UNSEEN_RAW);
  });
});

describe("an answered request", () => {
  it("has a line only at debug, with its method, tool and address", async () => {
    const call = {
      jsonrpc: "2.0",
      id: 2,
      method: "tools/call",
      params: { name: "list_packs", arguments: {} },
    };
    for (const level of ["info", "debug"]) {
      const { app, requests } = await appLogging({}, level);
      try {
        const answer = await app.inject({ method: "POST", url: "/mcp", headers, payload: call });
        expect(answer.statusCode).toBe(200);
        expect(requests()).toEqual(
          level === "info"
            ? []
            : [
                expect.objectContaining({
                  status: 200,
                  rpc: "tools/call",
                  tool: "list_packs",
                  ip: "127.0.0.1",
                }),
              ],
        );
      } finally {
        await app.close();
      }
    }
  });
});

describe("a call that failed inside the server", () => {
  let failing: StandardCatalog;
  let logging: Awaited<ReturnType<typeof appLogging>>;
  let url: string;
  beforeAll(async () => {
    failing = await makeStandardCatalog();
    logging = await appLogging({}, "info", failing.skillsDir);
    // Gone since startup: every read of the skill fails inside the server.
    await unlink(path.join(failing.skillsDir, "alpha/one/SKILL.md"));
    // Over a socket: a read holding a file sets a timeout on its answer, which inject does not take.
    await logging.app.listen({ host: "127.0.0.1", port: 0 });
    const address = logging.app.server.address();
    if (address === null || typeof address === "string") throw new Error("no TCP address");
    url = `http://127.0.0.1:${address.port}/mcp`;
  });
  afterAll(async () => {
    await logging.app.close();
    await failing.remove();
  });

  const post = (body: unknown, sent: Record<string, string> = {}) =>
    fetch(url, {
      method: "POST",
      headers: { ...headers, ...sent },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(5000),
    }).then((answer) => answer.text());
  const failures = () => logging.lines.filter((line) => line.msg === "tool failed");
  const readOne = (id: number) => wireToolCall("legacy", id, "read_skill", { skill: "one" }).body;

  it("has its error line under the reqId of its request's line, each request its own", async () => {
    // Two at once, so that each error line must find its own request.
    const before = logging.requests().length;
    await Promise.all([post(readOne(1)), post(readOne(2))]);
    await vi.waitFor(() => expect(logging.requests().length).toBe(before + 2));
    const requestIds = logging.requests().map((line) => line.reqId);
    expect(new Set(requestIds).size).toBe(requestIds.length);
    expect(failures().map((line) => line.reqId)).toEqual(expect.arrayContaining(requestIds.slice(before)));
    expect(failures()).toHaveLength(2);
  });

  const modernRead = wireRequest("modern", 5, "resources/read", { uri: "skill://alpha/one/SKILL.md" });
  const modernCall = wireToolCall("modern", 6, "read_skill", { skill: "one" });
  const initialized = { jsonrpc: "2.0", method: "notifications/initialized" };
  it.each([
    [
      "2025, a batch of plain requests, by the scope's server",
      [readOne(3), wireRequest("legacy", 4, "prompts/get", { name: "one" }).body],
      {},
      2,
    ],
    ["2026-07-28, a plain request, by the scope's server", modernRead.body, modernRead.headers, 1],
    ["2025, a batch with a notification, by the SDK's transport", [initialized, readOne(7)], {}, 1],
    [
      "2026-07-28, its name encoded, by createMcpHandler",
      modernCall.body,
      { ...modernCall.headers, "mcp-name": `=?base64?${Buffer.from("read_skill").toString("base64")}?=` },
      1,
    ],
  ] as const)("has it under its request's reqId: %s", async (_, body, sent, failed) => {
    const [requestsBefore, failuresBefore] = [logging.requests().length, failures().length];
    expect(await post(body, sent)).toMatch(/inside the server/);
    await vi.waitFor(() => expect(logging.requests().length).toBe(requestsBefore + 1));
    const { reqId } = logging.requests()[requestsBefore] ?? {};
    expect(reqId).toEqual(expect.any(String));
    expect(
      failures()
        .slice(failuresBefore)
        .map((line) => line.reqId),
    ).toEqual(Array(failed).fill(reqId));
  });
});

describe("a request refused before it was read", () => {
  it("has its log line, with the status and the client's address, when too slow, not HTTP or no path", async () => {
    const { app, requests } = await appLogging({ REQUEST_TIMEOUT_MS: "300" });
    try {
      await app.listen({ host: "127.0.0.1", port: 0 });
      const address = app.server.address();
      if (address === null || typeof address === "string") throw new Error("no TCP address");
      const slow = await exchange(
        address.port,
        "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
      );
      expect(slow).toMatch(/^HTTP\/1\.1 408 /);
      const garbled = await exchange(address.port, "POST /mcp HTTP/1.1\r\nX-Skill-Pack: a\u0001b\r\n\r\n");
      expect(garbled).toMatch(/^HTTP\/1\.1 400 /);
      const undecodable = await exchange(
        address.port,
        "GET /mcp%zz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n",
      );
      expect(undecodable).toMatch(/^HTTP\/1\.1 400 /);
      expect(requests()).toEqual([
        expect.objectContaining({ level: 30, status: 408, remoteAddress: "127.0.0.1" }),
        expect.objectContaining({ level: 30, status: 400, remoteAddress: "127.0.0.1" }),
        expect.objectContaining({ level: 30, status: 400, url: "/mcp%zz", remoteAddress: "127.0.0.1" }),
      ]);
    } finally {
      await app.close();
    }
  });
});

// Regression: a client that went away while the rest of its body over MAX_BODY_BYTES was read (before its
// 413) left no log line and no count: the refusal was answered on a closed connection, which Fastify never
// reports as an answer.
describe("a body over MAX_BODY_BYTES whose client goes away while the rest is read", () => {
  it("is logged and counted as a 413", async () => {
    const { app, requests } = await appLogging({ MAX_BODY_BYTES: "4096", REQUEST_TIMEOUT_MS: "600000" });
    try {
      await app.listen({ host: "127.0.0.1", port: 0 });
      const address = app.server.address();
      if (address === null || typeof address === "string") throw new Error("no TCP address");
      const accepted: net.Socket[] = [];
      app.server.on("connection", (connection: net.Socket) => accepted.push(connection));
      const socket = net.connect(address.port, "127.0.0.1");
      socket.on("error", () => {});
      const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
      // 100 KB of a declared 200 KB: over the limit, and within what the server reads of a refused body.
      const sent = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 200000\r\n\r\n${"x".repeat(100_000)}`;
      socket.write(sent);
      // Once the server has read all of it, it is past the limit and reading on for the rest, which the
      // client never sends: it goes.
      await vi.waitFor(() => expect(accepted[0]?.bytesRead).toBe(sent.length));
      socket.destroy();
      await closed;
      await vi.waitFor(() => expect(requests()).toHaveLength(1));
      expect(requests()).toEqual([
        expect.objectContaining({ method: "POST", url: "/mcp", status: 413, ip: "127.0.0.1" }),
      ]);
      const metrics = await app.inject({ method: "GET", url: "/metrics" });
      expect(metrics.body).toMatch(
        /^skills_mcp_http_requests_total\{route="\/mcp",method="POST",status="413"\} 1$/m,
      );
    } finally {
      await app.close();
    }
  });
});

describe("an overloaded server", () => {
  it("logs each shed request, but warns only the first 10 times, then the 100th, with the count", async () => {
    // Any process uses more than 1 MiB, so the server is "overloaded" from its first sample on.
    const { app, requests, warnings } = await appLogging({ SHED_RSS_MB: "1", SHED_EVENT_LOOP_DELAY_MS: "0" });
    try {
      const shed = () => app.inject({ method: "POST", url: "/mcp", headers, payload: ping });
      await vi.waitFor(async () => expect((await shed()).statusCode).toBe(503), {
        timeout: 5000,
        interval: 50,
      });
      for (let sent = 1; sent < 120; sent++) expect((await shed()).statusCode).toBe(503);
      // Those answered before shedding began (200) have no line at info.
      expect(requests().map((line) => line.status)).toEqual(Array(120).fill(503));
      expect(warnings().map((line) => [line.msg, line.shed])).toEqual(
        [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 100].map((count) => ["overloaded: request shed", count]),
      );
      // Three settings shed alike: the warning names the one passed, its limit and what was measured.
      expect(warnings()[0]?.over).toEqual([
        { setting: "SHED_RSS_MB", limit: 1, measured: expect.any(Number) },
      ]);
    } finally {
      await app.close();
    }
  });

  it("warns of a new overload after a quiet spell as of the first, counted afresh", async () => {
    // Only the clock of the log's count is moved; the sampling of load runs on real timers.
    vi.useFakeTimers({ toFake: ["Date"] });
    const { app, warnings } = await appLogging({ SHED_RSS_MB: "1", SHED_EVENT_LOOP_DELAY_MS: "0" });
    try {
      const shed = () => app.inject({ method: "POST", url: "/mcp", headers, payload: ping });
      await vi.waitFor(async () => expect((await shed()).statusCode).toBe(503), {
        timeout: 5000,
        interval: 50,
      });
      for (let sent = 1; sent < 20; sent++) expect((await shed()).statusCode).toBe(503);
      // Still one overload a moment later: said on sparingly.
      vi.setSystemTime(Date.now() + SHED_QUIET_MS / 2);
      for (let sent = 0; sent < 3; sent++) expect((await shed()).statusCode).toBe(503);
      expect(warnings().map((line) => line.shed)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      vi.setSystemTime(Date.now() + SHED_QUIET_MS + 1000);
      for (let sent = 0; sent < 3; sent++) expect((await shed()).statusCode).toBe(503);
      expect(warnings().map((line) => line.shed)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 1, 2, 3]);
    } finally {
      vi.useRealTimers();
      await app.close();
    }
  });
});
