import http from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import autocannon from "autocannon";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { makeStandardCatalog, type StandardCatalog } from "../helpers/fixtures.js";
import { STANDARD_MIX } from "../helpers/load.js";
import { startServerProcess } from "../helpers/process.js";

let tree: StandardCatalog;
beforeAll(async () => {
  tree = await makeStandardCatalog();
});
afterAll(() => tree.remove());

/** The default SHUTDOWN_DRAIN_MS: the test proves the defaults. */
const DRAIN_MS = 2000;

/**
 * A tools/call whose body is sent in two halves: the server accepts it (headers read) before
 * shutdown, and its body arrives only after the server stopped accepting connections.
 */
function slowRequest(port: number): { finish(): void; response: Promise<{ status: number; body: string }> } {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "read_skill", arguments: { skill: "hammer" } },
  });
  const request = http.request({
    host: "127.0.0.1",
    port,
    method: "POST",
    path: "/mcp",
    agent: false,
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "content-length": Buffer.byteLength(body),
    },
  });
  const half = Math.floor(body.length / 2);
  request.write(body.slice(0, half));
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    request.on("error", reject);
    request.on("response", (res) => {
      let text = "";
      res.on("data", (chunk: Buffer) => {
        text += chunk.toString();
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
  });
  return { finish: () => request.end(body.slice(half)), response };
}

describe("SIGTERM under load", () => {
  it("fails readiness first, serves what was accepted without a 5xx, and exits 0 by itself once they are answered", async () => {
    const server = await startServerProcess({
      SKILLS_DIR: tree.skillsDir,
      SHUTDOWN_DRAIN_MS: String(DRAIN_MS),
    });
    const port = Number(new URL(server.url).port);
    const statuses = new Map<number, number>();
    const errors: { code: string; at: number }[] = [];
    let finish: (result: autocannon.Result) => void = () => {};
    const finished = new Promise<autocannon.Result>((resolve) => {
      finish = resolve;
    });
    const load = autocannon(
      { url: server.url, connections: 16, duration: 15, requests: [...STANDARD_MIX] },
      (_error, result) => finish(result),
    );
    let answeredAfterSigterm = 0;
    let sigtermAt = Number.POSITIVE_INFINITY;
    load.on("response", (_client, status) => {
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      if (Date.now() > sigtermAt) answeredAfterSigterm++;
    });
    load.on("reqError", (error: NodeJS.ErrnoException) =>
      errors.push({ code: error.code ?? error.message, at: Date.now() }),
    );

    await sleep(1000);
    const slow = [slowRequest(port), slowRequest(port), slowRequest(port)];
    await sleep(100);
    sigtermAt = Date.now();
    server.child.kill("SIGTERM");

    // Readiness fails once the signal is handled, while the server still answers. The signal reaches the
    // server's event loop in its turn among the load's requests: a /health asked before that is answered
    // as ready, so it is asked once the server says it is shutting down (the drain starts there; 10 s for
    // the signal's turn among 16 connections' requests on a busy machine).
    await vi.waitFor(() => expect(server.output()).toContain("shutting down: readiness fails"), {
      timeout: 10_000,
      interval: 10,
    });
    const health = await fetch(`${server.url}/health`);
    const healthAt = Date.now();
    expect(health.status).toBe(503);
    expect(await health.json()).toMatchObject({ status: "draining", skills: 9 });

    // The in-flight requests finish only after the listener closed.
    await vi.waitFor(() => expect(server.output()).toContain("closing: no new connections"), {
      timeout: DRAIN_MS + 2000,
      interval: 20,
    });
    const closedAt = logTime(server.output(), "closing: no new connections");
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();
    for (const request of slow) request.finish();
    const slowAnswers = await Promise.all(slow.map((request) => request.response));

    const code = await server.exited;
    const exitedAt = Date.now();
    load.stop();
    const result = await finished;

    const counts = Object.fromEntries(statuses);
    const errorCodes = [...new Set(errors.map((error) => error.code))];
    const errorsBeforeClose = errors.filter((error) => error.at < closedAt).length;
    console.log(
      `shutdown under load: ${result.requests.total} requests, statuses ${JSON.stringify(counts)}, ` +
        `${answeredAfterSigterm} answered after SIGTERM, readiness 503 after ${healthAt - sigtermAt} ms, ` +
        `listener closed after ${closedAt - sigtermAt} ms, exit ${code} after ${exitedAt - sigtermAt} ms, ` +
        `client connection errors after close: ${errors.length - errorsBeforeClose} (${errorCodes.join(", ") || "none"})`,
    );

    expect(code).toBe(0);
    // It stopped by itself once its requests were answered: no connection was closed on a client, and the
    // log ends with the line a clean stop ends with (how long that took is printed above, not asserted).
    expect(server.output()).not.toContain("closing the connections of clients that never finished");
    expect(Number.isNaN(logTime(server.output(), '"msg":"stopped"'))).toBe(false);
    expect(healthAt).toBeLessThan(closedAt);
    expect([...statuses.keys()].filter((status) => status >= 500)).toEqual([]);
    expect([...statuses.keys()]).toEqual([200]);
    expect(answeredAfterSigterm).toBeGreaterThan(0);
    expect(errorsBeforeClose).toBe(0);
    for (const answer of slowAnswers) {
      expect(answer.status).toBe(200);
      expect(answer.body).toContain("Drive nails with a hammer");
    }
  });
});

/** When the server logged `message` (pino's epoch milliseconds): the same clock as this process. */
function logTime(output: string, message: string): number {
  const line = output.split("\n").find((text) => text.includes(message));
  return line === undefined ? Number.NaN : (JSON.parse(line) as { time: number }).time;
}
