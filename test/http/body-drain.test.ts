import { execFile, execFileSync } from "node:child_process";
import net from "node:net";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LingeringCloses } from "../../src/http/index.js";
import { makeStandardCatalog, type StandardCatalog } from "../helpers/fixtures.js";
import { httpSettings, type RunningServer, startServer } from "../helpers/server.js";

const MIB = 1024 * 1024;
const run = promisify(execFile);

/** Whether python3 is here to run as a client. */
const hasPython = (() => {
  try {
    execFileSync("python3", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();
const HEAD = "POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n";

let tree: StandardCatalog;
beforeAll(async () => {
  tree = await makeStandardCatalog();
});
afterAll(() => tree.remove());

// Regression: a body over MAX_BODY_BYTES was answered 413 as it was cut off, and the connection closed with
// the rest of it unread, which makes the kernel reset it: a client that writes its whole body before
// reading the answer (Python's http.client) got a broken pipe or a reset, never the 413.
describe("a body over MAX_BODY_BYTES from a client that writes it whole before reading", () => {
  let server: RunningServer;
  beforeAll(async () => {
    // Bodies over 4 MiB are refused, and up to 16 MiB of one is read; a request timeout longer than any
    // test, so that a drain ends by its bytes or its body, never by its time.
    server = await startServer(
      tree.skillsDir,
      [],
      httpSettings({ MAX_BODY_BYTES: String(4 * MIB), REQUEST_TIMEOUT_MS: "600000" }),
    );
  });
  afterAll(() => server.close());

  // 12 MiB: more than the buffers of the two sockets on loopback hold, so an unread rest is reset.
  const size = 12 * MIB;

  it("gets the 413 naming its size, its Content-Length's body read first", async () => {
    const { written, answer } = await writeWholeThenRead(server.url, [
      `${HEAD}Content-Length: ${size}\r\n\r\n`,
      ...pieces(size),
    ]);
    expect(written).toBe(true);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain(`and it is ${size} bytes (its Content-Length)`);
  });

  it("gets the 413 for a chunked body, read to its last chunk", async () => {
    const { written, answer } = await writeWholeThenRead(server.url, [
      `${HEAD}Transfer-Encoding: chunked\r\n\r\n`,
      ...pieces(size).map((piece) => `${piece.length.toString(16)}\r\n${piece}\r\n`),
      "0\r\n\r\n",
    ]);
    expect(written).toBe(true);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain("more than that arrived before it was cut off");
  });
});

describe("the bounds of reading a refused body", () => {
  let server: RunningServer;
  beforeAll(async () => {
    // Bodies over 4 KiB are refused, and up to 1 MiB of one is read; a request timeout longer than any
    // test, so that only the byte bound or the body's Content-Length ends the wait for the answer.
    server = await startServer(
      tree.skillsDir,
      [],
      httpSettings({ MAX_BODY_BYTES: "4096", REQUEST_TIMEOUT_MS: "600000" }),
    );
  });
  afterAll(() => server.close());

  it("answers at once a Content-Length over what it would read, without waiting for any of it", async () => {
    const answer = await answerTo(server.url, `${HEAD}Content-Length: ${64 * MIB}\r\n\r\n`);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
  });

  it("answers at once an Expect: 100-continue client, which holds its body back", async () => {
    const answer = await answerTo(
      server.url,
      `${HEAD}Content-Length: 100000\r\nExpect: 100-continue\r\n\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).not.toContain("100 Continue");
  });

  it("reads no more than its bound of a chunked body that never ends, then closes the connection", async () => {
    const socket = net.connect(Number(new URL(server.url).port), "127.0.0.1");
    let answer = "";
    socket.on("data", (chunk: Buffer) => {
      answer += chunk.toString();
    });
    const piece = "x".repeat(64 * 1024);
    const chunk = `${piece.length.toString(16)}\r\n${piece}\r\n`;
    const most = 64 * MIB;
    let sent = 0;
    const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
    socket.on("error", () => {});
    socket.write(`${HEAD}Transfer-Encoding: chunked\r\n\r\n`);
    while (sent < most && !socket.destroyed && answer === "") {
      sent += piece.length;
      if (!socket.write(chunk)) {
        await new Promise<void>((resolve) => {
          socket.once("drain", resolve);
          socket.once("close", resolve);
        });
      }
    }
    await closed;
    expect(sent).toBeLessThan(most);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
  });
});

// Regression: past the bound read before the 413, the connection closed with the rest unread, and the
// kernel's reset reached a client that writes its whole body before reading first: Node's fetch failed
// (EPIPE), as Python's http.client did (BrokenPipeError), for a body of 8 times the bound.
describe("a body far past what is read before its 413, from a client that writes it whole before reading", () => {
  let server: RunningServer;
  beforeAll(async () => {
    // Bodies over 4 KiB are refused, and up to 1 MiB of one is read before the 413.
    server = await startServer(
      tree.skillsDir,
      [],
      httpSettings({ MAX_BODY_BYTES: "4096", REQUEST_TIMEOUT_MS: "600000" }),
    );
  });
  afterAll(() => server.close());

  const size = 8 * MIB;

  // In a process of its own, as a client is: sharing the server's event loop, fetch got its 413 even so.
  it("gets the 413 in Node's fetch", async () => {
    const script = `fetch(process.argv[1], { method: "POST", headers: { "content-type": "application/json" }, body: Buffer.alloc(${size}, "x") })
      .then(async (response) => console.log(response.status, await response.text()), (error) => console.log("failed", error.cause?.code));`;
    const { stdout } = await run(process.execPath, ["-e", script, `${server.url}/mcp`]);
    expect(stdout).toMatch(/^413 /);
    expect(stdout).toContain(`and it is ${size} bytes (its Content-Length)`);
  });

  it.skipIf(!hasPython)("gets the 413 in Python's http.client", async () => {
    const script = [
      "import http.client, sys, urllib.parse",
      "url = urllib.parse.urlsplit(sys.argv[1])",
      "connection = http.client.HTTPConnection(url.hostname, url.port)",
      "try:",
      `    connection.request("POST", "/mcp", body=b"x" * ${size}, headers={"Content-Type": "application/json"})`,
      "    print(connection.getresponse().status)",
      "except OSError as error:",
      "    print('failed', repr(error))",
    ].join("\n");
    const { stdout } = await run("python3", ["-c", script, server.url]);
    expect(stdout.trim()).toBe("413");
  });

  it("gets the 413 on a raw connection, its Content-Length's body and its chunked body alike", async () => {
    const declared = await writeWholeThenRead(server.url, [
      `${HEAD}Content-Length: ${size}\r\n\r\n`,
      ...pieces(size),
    ]);
    expect(declared.written).toBe(true);
    expect(declared.answer).toMatch(/^HTTP\/1\.1 413 /);
    const chunked = await writeWholeThenRead(server.url, [
      `${HEAD}Transfer-Encoding: chunked\r\n\r\n`,
      ...pieces(size).map((piece) => `${piece.length.toString(16)}\r\n${piece}\r\n`),
      "0\r\n\r\n",
    ]);
    expect(chunked.written).toBe(true);
    expect(chunked.answer).toMatch(/^HTTP\/1\.1 413 /);
  });
});

describe("the bounds of a connection read on after its 413", () => {
  /** A server refusing bodies over 4 KiB, whose refused connections linger within `bounds`. */
  async function lingeringServer(bounds: ConstructorParameters<typeof LingeringCloses>[0]) {
    const lingering = new LingeringCloses(bounds);
    const server = await startServer(
      tree.skillsDir,
      [],
      httpSettings({ MAX_BODY_BYTES: "4096", REQUEST_TIMEOUT_MS: "600000" }),
      {},
      lingering,
    );
    // Each connection's close as the server sees it: a client that half-closed learns of it only by writing.
    const closes: Promise<void>[] = [];
    server.app.server.on("connection", (socket: net.Socket) => {
      closes.push(new Promise((resolve) => socket.once("close", () => resolve())));
    });
    return { server, lingering, allClosed: () => Promise.all(closes) };
  }

  it("cuts a client that never stops sending once its time is up", async () => {
    const { server, lingering, allClosed } = await lingeringServer({
      totalMs: 300,
      idleMs: 60_000,
      most: 64,
    });
    try {
      const most = 64 * 1024 * MIB;
      const socket = refused(server.url, most);
      const piece = Buffer.alloc(64 * 1024, "x");
      let sent = 0;
      while (sent < most && socket.alive()) {
        sent += piece.length;
        await socket.send(piece);
      }
      await Promise.all([socket.closed, allClosed()]);
      expect(socket.answer()).toMatch(/^HTTP\/1\.1 413 /);
      expect(sent).toBeLessThan(most);
      expect(lingering.count).toBe(0);
    } finally {
      await server.close();
    }
  });

  it("cuts a client that sends nothing more, and keeps its side open, once its idle time is up", async () => {
    const { server, lingering, allClosed } = await lingeringServer({
      totalMs: 60_000,
      idleMs: 200,
      most: 64,
    });
    try {
      const socket = refused(server.url, 64 * MIB);
      await socket.ended;
      expect(lingering.count).toBe(1);
      await allClosed();
      expect(socket.answer()).toMatch(/^HTTP\/1\.1 413 /);
      expect(lingering.count).toBe(0);
    } finally {
      await server.close();
    }
  });

  it("lets no more than its most linger at once; past it, closes at once", async () => {
    const { server, lingering, allClosed } = await lingeringServer({
      totalMs: 60_000,
      idleMs: 60_000,
      most: 2,
    });
    try {
      const sockets = [0, 1, 2].map(() => refused(server.url, 64 * MIB));
      await Promise.all(sockets.map((socket) => socket.ended));
      for (const socket of sockets) expect(socket.answer()).toMatch(/^HTTP\/1\.1 413 /);
      expect(lingering.count).toBe(2);
      // A client that ends its side ends its connection's lingering.
      for (const socket of sockets) socket.end();
      await allClosed();
      expect(lingering.count).toBe(0);
    } finally {
      await server.close();
    }
  });

  // Regression: the stop waited out each lingering connection's bounds (5 s), past SHUTDOWN_DRAIN_MS and
  // past the 2.5 s grace, whose end then called them clients that never finished their requests.
  it("closes at once when the server stops", async () => {
    const { server, lingering, allClosed } = await lingeringServer({
      totalMs: 600_000,
      idleMs: 600_000,
      most: 64,
    });
    const socket = refused(server.url, 64 * MIB);
    await socket.ended;
    expect(lingering.count).toBe(1);
    // Bounds of ten minutes: a stop that waits for them times the test out.
    await Promise.all([server.close(), allClosed()]);
    expect(socket.answer()).toMatch(/^HTTP\/1\.1 413 /);
    expect(lingering.count).toBe(0);
  });
});

describe("a refused body that stops arriving", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(
      tree.skillsDir,
      [],
      httpSettings({ MAX_BODY_BYTES: "4096", REQUEST_TIMEOUT_MS: "500" }),
    );
  });
  afterAll(() => server.close());

  // Read until the request timed out, it would be answered 408, as a slow request, not 413.
  it("is answered 413 once half the request timeout has passed, and its connection closed", async () => {
    const chunk = "x".repeat(5000);
    const answer = await answerTo(
      server.url,
      `${HEAD}Transfer-Encoding: chunked\r\n\r\n${chunk.length.toString(16)}\r\n${chunk}\r\n`,
    );
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
  });
});

/**
 * A connection sending a POST whose Content-Length, `declared`, is over what is read before its 413, and
 * the start of its body; its side kept open when the server shuts down its own, as a client still sending.
 */
function refused(url: string, declared: number) {
  const socket = net.connect({ port: Number(new URL(url).port), host: "127.0.0.1", allowHalfOpen: true });
  let answer = "";
  socket.on("data", (chunk: Buffer) => {
    answer += chunk.toString();
  });
  socket.on("error", () => {});
  const ended = new Promise<void>((resolve) => socket.once("end", resolve));
  const closed = new Promise<void>((resolve) => socket.once("close", resolve));
  socket.write(`${HEAD}Content-Length: ${declared}\r\n\r\n${"x".repeat(8192)}`);
  return {
    ended,
    closed,
    answer: () => answer,
    alive: () => !socket.destroyed,
    end: () => socket.end(),
    /** Writes `piece`, waiting for the kernel to take it or for the connection to go. */
    send: (piece: Buffer) =>
      new Promise<void>((resolve) => {
        if (socket.write(piece)) resolve();
        else {
          socket.once("drain", resolve);
          socket.once("close", resolve);
        }
      }),
  };
}

/** `size` bytes of body, in pieces of 64 KiB. */
function pieces(size: number): string[] {
  const piece = "x".repeat(64 * 1024);
  return Array.from({ length: size / piece.length }, () => piece);
}

/**
 * Writes `parts` on a raw connection, reading nothing until all of them are written (as Python's
 * http.client does), then reads until the server closes it: whether every write went through, and what
 * arrived.
 */
async function writeWholeThenRead(
  url: string,
  parts: string[],
): Promise<{ written: boolean; answer: string }> {
  const socket = net.connect(Number(new URL(url).port), "127.0.0.1");
  socket.pause();
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  let failed = false;
  socket.on("error", () => {
    failed = true;
  });
  for (const part of parts) {
    if (failed || socket.destroyed) break;
    if (!socket.write(part)) {
      await new Promise<void>((resolve) => {
        socket.once("drain", resolve);
        socket.once("close", resolve);
      });
    }
  }
  // Every byte handed to the kernel, or the connection gone.
  await new Promise<void>((resolve) => {
    if (socket.destroyed) resolve();
    else socket.write("", () => resolve());
  });
  const written = !failed && !socket.destroyed;
  let answer = "";
  socket.on("data", (chunk: Buffer) => {
    answer += chunk.toString();
  });
  socket.resume();
  await closed;
  return { written: written && !failed, answer };
}

/** Sends `head` on a raw connection, reading as it goes; what arrived once the server closes it. */
async function answerTo(url: string, head: string): Promise<string> {
  const socket = net.connect(Number(new URL(url).port), "127.0.0.1");
  let answer = "";
  socket.on("data", (chunk: Buffer) => {
    answer += chunk.toString();
  });
  socket.on("error", () => {});
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  socket.write(head);
  await closed;
  return answer;
}
