import net from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { makeStandardCatalog, type StandardCatalog } from "../helpers/fixtures.js";
import { httpSettings, post, type RunningServer, startServer } from "../helpers/server.js";
import { makeTree, skillMd, type TempTree } from "../helpers/skill-tree.js";

const ping = { jsonrpc: "2.0", id: 1, method: "ping" };

let tree: StandardCatalog;
beforeAll(async () => {
  tree = await makeStandardCatalog();
});
afterAll(() => tree.remove());

// Regression: the refusal was -32600 Invalid Request, which tells a client not to send the request again;
// it is sound and only early, so the code is the server error of load shedding, which says retry later.
describe("rate limit", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(tree.skillsDir, [], httpSettings({ RATE_LIMIT_PER_MINUTE: "5" }));
  });
  afterAll(() => server.close());

  it("answers a client over its limit with 429, Retry-After and a JSON-RPC error; /health is not limited", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await post(`${server.url}/mcp`, ping)).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200]);
    const limited = await post(`${server.url}/mcp`, ping);
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(limited.json).toMatchObject({
      jsonrpc: "2.0",
      error: { code: -32000, message: expect.stringMatching(/^Rate limit exceeded, retry in /) },
    });
    for (let i = 0; i < 10; i++) expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });
});

// Regression: a batch counted as one request, so batches of a hundred lists cost a client a hundredth of
// what its messages cost, and stalled other clients while the limit never came near.
describe("rate limit of batches", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(tree.skillsDir, [], httpSettings({ RATE_LIMIT_PER_MINUTE: "5" }));
  });
  afterAll(() => server.close());

  const batchOf = (size: number) => Array.from({ length: size }, (_, i) => ({ ...ping, id: i + 1 }));

  it("counts each message of a batch against the limit", async () => {
    const first = await post(`${server.url}/mcp`, batchOf(3));
    expect(first.status).toBe(200);
    expect(first.json).toHaveLength(3);
    // 3 counted, 3 more would make 6 of 5.
    const limited = await post(`${server.url}/mcp`, batchOf(3));
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(limited.json).toMatchObject({
      jsonrpc: "2.0",
      error: {
        code: -32000,
        message: expect.stringMatching(
          /^Rate limit exceeded, retry in \d+ seconds: each of the 3 messages of this batch counts against the limit of 5 a minute\.$/,
        ),
      },
    });
    expect((await post(`${server.url}/mcp`, ping)).status).toBe(429);
  });

  it("refuses a batch larger than the limit from a client that sent nothing yet", async () => {
    const other = await startServer(tree.skillsDir, [], httpSettings({ RATE_LIMIT_PER_MINUTE: "5" }));
    try {
      expect((await post(`${other.url}/mcp`, batchOf(6))).status).toBe(429);
    } finally {
      await other.close();
    }
  });
});

// Regression: Node answers requests pipelined on a connection whether or not the client reads, so a
// client that sent a thousand small requests for a large kept answer on each of 64 connections and read
// nothing took a server past 2 GB.
describe("a client that does not take its answers", () => {
  let tree: TempTree;
  let server: RunningServer;
  beforeAll(async () => {
    // A page of prompts/list of some 100 KB: a hundred skills with long descriptions.
    const skills = Array.from({ length: 100 }, (_, i) => [
      `big/skill-${i}/SKILL.md`,
      skillMd(`skill-${i}`, `Does thing ${i}. ${"Says at length what it does. ".repeat(33)}`),
    ]);
    tree = await makeTree(Object.fromEntries(skills));
    server = await startServer(tree.dir);
  });
  afterAll(async () => {
    await server.close();
    await tree.remove();
  });

  it("loses its connection once its answers waiting to be taken pass 8 MiB, and others are served", async () => {
    const { port } = new URL(server.url);
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "prompts/list" });
    const request = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const socket = net.connect(Number(port), "127.0.0.1");
    socket.on("error", () => {});
    socket.pause();
    // 500 answers of some 100 KB, 50 MB in all: far more than the buffers of the sockets between hold.
    socket.write(request.repeat(500));
    // Time for the server to answer what it read; then the client takes what it was sent.
    await new Promise((resolve) => setTimeout(resolve, 2000));
    let answers = 0;
    let tail = "";
    const closed = await new Promise<boolean>((resolve) => {
      socket.on("data", (chunk: Buffer) => {
        const text = tail + chunk.toString("latin1");
        answers += text.split("HTTP/1.1 200 OK").length - 1;
        tail = text.slice(-20);
      });
      socket.on("close", () => resolve(true));
      setTimeout(() => resolve(false), 8000);
      socket.resume();
    });
    socket.destroy();
    expect(closed).toBe(true);
    expect(answers).toBeGreaterThan(0);
    expect(answers).toBeLessThan(500);
    expect((await post(`${server.url}/mcp`, ping)).status).toBe(200);
  });
});

// Regression: a kept answer (the answer cache's) was sent without the timeout a new answer holding a file
// gets, so a client that pipelined a file's read and never read the answers kept its connection, and Node's
// buffer of what it was not taking, for good.
describe("a client that does not take a kept answer holding a file", () => {
  it("loses its connection once REQUEST_TIMEOUT_MS passes", async () => {
    const server = await startServer(tree.skillsDir, [], httpSettings({ REQUEST_TIMEOUT_MS: "500" }));
    try {
      const read = {
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: { name: "read_skill", arguments: { skill: "two", file: "big.txt" } },
      };
      // Answered once, so that every answer below is a kept one.
      expect((await post(`${server.url}/mcp`, read)).status).toBe(200);
      const closed = new Promise<void>((resolve) => {
        server.app.server.once("connection", (socket: net.Socket) => socket.once("close", () => resolve()));
      });
      const body = JSON.stringify(read);
      const request = `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
      const socket = net.connect(Number(new URL(server.url).port), "127.0.0.1");
      socket.on("error", () => {});
      socket.pause();
      // 30 answers of some 200 KB: more than the sockets' buffers hold, less than the 8 MiB that cuts a
      // connection by itself. Kept open for good, the connection times the test out.
      socket.write(request.repeat(30));
      await closed;
      socket.destroy();
      expect((await post(`${server.url}/mcp`, ping)).status).toBe(200);
    } finally {
      await server.close();
    }
  });
});

describe("load shedding", () => {
  let server: RunningServer;
  beforeAll(async () => {
    // Any process uses more than 1 MiB, so the server is "overloaded" from its first sample on.
    server = await startServer(
      tree.skillsDir,
      [],
      httpSettings({ SHED_RSS_MB: "1", SHED_EVENT_LOOP_DELAY_MS: "0" }),
    );
  });
  afterAll(() => server.close());

  it("answers /mcp with 503, Retry-After and a JSON-RPC error instead of taking the work; /health stays up", async () => {
    const shed = await vi.waitFor(
      async () => {
        const response = await post(`${server.url}/mcp`, ping);
        expect(response.status).toBe(503);
        return response;
      },
      { timeout: 5000, interval: 100 },
    );
    expect(shed.headers.get("retry-after")).toBe("5");
    expect(shed.json).toMatchObject({
      jsonrpc: "2.0",
      error: { code: -32000, message: "Server overloaded: retry in 5 seconds." },
    });
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
  });
});

describe("request size and time", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(
      tree.skillsDir,
      [],
      httpSettings({ MAX_BODY_BYTES: "4096", REQUEST_TIMEOUT_MS: "500" }),
    );
  });
  afterAll(() => server.close());

  // Regression: the 413 named the limit alone, not the size sent, so a client could not tell how far over it was.
  it("answers a body over MAX_BODY_BYTES with 413 naming the limit and the body's size", async () => {
    const body = { ...ping, params: { padding: "x".repeat(5000) } };
    const response = await post(`${server.url}/mcp`, body);
    expect(response.status).toBe(413);
    expect(response.json).toMatchObject({
      jsonrpc: "2.0",
      error: {
        code: -32600,
        message: `Request body is too large: the limit is 4096 bytes, and it is ${JSON.stringify(body).length} bytes (its Content-Length); send a smaller body (a batch's messages may go in several POSTs).`,
      },
    });
    expect((await post(`${server.url}/mcp`, { ...ping, params: { padding: "x".repeat(3000) } })).status).toBe(
      200,
    );
  });

  // Regression: a chunked body (no Content-Length) over the limit was told the limit alone; its size is
  // not known without reading the rest, which the server does not.
  it("answers a chunked body over MAX_BODY_BYTES with 413 saying more than the limit arrived", async () => {
    const { port } = new URL(server.url);
    const socket = net.connect(Number(port), "127.0.0.1");
    let answer = "";
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString();
    });
    const chunk = "x".repeat(5000);
    socket.write(
      "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" +
        `${chunk.length.toString(16)}\r\n${chunk}\r\n`,
    );
    // Retried until the whole body has arrived and parses.
    const told = await vi.waitFor(() => JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)), {
      timeout: 5000,
      interval: 50,
    });
    socket.destroy();
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(told).toMatchObject({
      error: {
        code: -32600,
        message:
          "Request body is too large: the limit is 4096 bytes, and more than that arrived before it was cut off (it was sent without Content-Length, so its size is unknown); send a smaller body (a batch's messages may go in several POSTs).",
      },
    });
  });

  // Regression: Node answered `Expect: 100-continue` with 100 Continue as the headers arrived, so a client
  // whose request was refused before its body is read began uploading a body no one would read.
  it("answers Expect: 100-continue over MAX_BODY_BYTES, or to no route, with its refusal and no 100 Continue", async () => {
    for (const [target, length, status] of [
      ["/mcp", 10_000_000, 413],
      ["/nowhere", 20, 404],
    ] as const) {
      const { answer } = await expectingContinue(
        server.url,
        `POST ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n` +
          `Content-Length: ${length}\r\nExpect: 100-continue\r\n\r\n`,
      );
      expect(answer).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      expect(answer).not.toContain("100 Continue");
    }
  });

  it("answers Expect: 100-continue within MAX_BODY_BYTES with 100 Continue, then serves the body", async () => {
    const body = JSON.stringify(ping);
    const { answer, socket } = await expectingContinue(
      server.url,
      "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n" +
        `Accept: application/json, text/event-stream\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\n\r\n`,
      (sent) => sent.write(body),
    );
    socket.destroy();
    expect(answer).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 /);
    expect(JSON.parse(answer.slice(answer.lastIndexOf("\r\n\r\n") + 4))).toMatchObject({ id: 1, result: {} });
  });

  it("drops a client that sends its request too slowly (slowloris) with 408", async () => {
    const { port } = new URL(server.url);
    const socket = net.connect(Number(port), "127.0.0.1");
    let answer = "";
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString();
    });
    socket.write(
      "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{",
    );
    // The server closes the connection itself: one it kept open would hold the test to its timeout.
    await new Promise<void>((resolve) => socket.on("close", () => resolve()));
    expect(answer).toMatch(/^HTTP\/1\.1 408 /);
    const body = answer.slice(answer.indexOf("\r\n\r\n") + 4);
    expect(JSON.parse(body)).toMatchObject({
      jsonrpc: "2.0",
      error: {
        code: -32600,
        message: "Request timeout: the whole request must arrive within 500 ms.",
      },
    });
  });
});

// Regression: a REQUEST_TIMEOUT_MS over Node's default request timeout (300 s), which the setting allows up
// to 600 s, stopped the start with a RangeError from Node about headersTimeout.
describe("the longest request timeout", () => {
  it("starts and serves, with that timeout on its requests and their headers", async () => {
    const server = await startServer(tree.skillsDir, [], httpSettings({ REQUEST_TIMEOUT_MS: "600000" }));
    try {
      expect((await post(`${server.url}/mcp`, ping)).status).toBe(200);
      expect(server.app.server.requestTimeout).toBe(600_000);
      expect(server.app.server.headersTimeout).toBe(600_000);
    } finally {
      await server.close();
    }
  });
});

// A load balancer or proxy that keeps idle connections to the server longer than the server does may send
// a request on one the server is closing, and answer its client 502: the server must be able to outlast it.
describe("idle connections", () => {
  it("are kept KEEP_ALIVE_TIMEOUT_MS, as each answer tells the client, Fastify's 72 s by default", async () => {
    for (const [env, told] of [
      [{}, "timeout=72"],
      [{ KEEP_ALIVE_TIMEOUT_MS: "620000" }, "timeout=620"],
    ] as const) {
      const server = await startServer(tree.skillsDir, [], httpSettings(env));
      try {
        const answer = await fetch(`${server.url}/health`);
        await answer.text();
        expect(answer.headers.get("keep-alive")).toBe(told);
      } finally {
        await server.close();
      }
    }
  });
});

/**
 * Sends `head` (a request's headers, asking `Expect: 100-continue`) on a raw connection, and `onContinue`
 * its body once a 100 Continue arrives; resolves with all that arrived once an answer other than 100 has
 * arrived whole (its body parses).
 */
async function expectingContinue(
  url: string,
  head: string,
  onContinue: (socket: net.Socket) => void = () => {},
): Promise<{ answer: string; socket: net.Socket }> {
  const socket = net.connect(Number(new URL(url).port), "127.0.0.1");
  let answer = "";
  let continued = false;
  socket.on("data", (chunk: Buffer) => {
    answer += chunk.toString();
    if (!continued && answer.startsWith("HTTP/1.1 100 Continue\r\n\r\n")) {
      continued = true;
      onContinue(socket);
    }
  });
  socket.write(head);
  const final = () => answer.replace(/^HTTP\/1\.1 100 Continue\r\n\r\n/, "");
  // Retried until the answer after any 100 has arrived whole and its body parses.
  await vi.waitFor(() => JSON.parse(final().slice(final().indexOf("\r\n\r\n") + 4)), {
    timeout: 5000,
    interval: 50,
  });
  socket.destroy();
  return { answer, socket };
}
