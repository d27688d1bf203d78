import { getEventListeners } from "node:events";
import http from "node:http";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ownSignalFetch } from "../../src/sync/connection.js";

let server: http.Server;
let url: string;
/** Requests the server holds unanswered, by their path: a read under way. */
let held: http.ServerResponse[];
beforeEach(async () => {
  held = [];
  server = http.createServer((request, response) => {
    if (request.url === "/held") held.push(response);
    else response.end('{"jsonrpc":"2.0","id":1,"result":{"skills":[]}}');
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  url = `http://127.0.0.1:${address.port}`;
});
afterEach(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

// Regression: past some 1,500 pages of skills/list, Node printed MaxListenersExceededWarning on stderr: the
// SDK's transport sends every request with one signal, and fetch left a listener on it for each request
// until that request was garbage collected.
describe("the requests of a connection, all sent with the transport's one signal", () => {
  it("leave no listener on it once their answers are read", async () => {
    const transport = new AbortController();
    const send = ownSignalFetch(fetch);
    for (let page = 0; page < 1_600; page++) {
      const response = await send(`${url}/mcp`, { method: "POST", body: "{}", signal: transport.signal });
      await response.text();
    }
    expect(getEventListeners(transport.signal, "abort")).toHaveLength(0);
  });

  it("leave no listener on it once an answer is cancelled unread", async () => {
    const transport = new AbortController();
    const response = await ownSignalFetch(fetch)(`${url}/mcp`, { method: "POST", signal: transport.signal });
    await response.body?.cancel();
    expect(getEventListeners(transport.signal, "abort")).toHaveLength(0);
  });

  it("are still aborted by it, the client closing", async () => {
    const transport = new AbortController();
    const sent = ownSignalFetch(fetch)(`${url}/held`, { method: "POST", signal: transport.signal });
    await expect.poll(() => held.length).toBe(1);
    transport.abort(new Error("closed"));
    await expect(sent).rejects.toThrow("closed");
    expect(getEventListeners(transport.signal, "abort")).toHaveLength(0);
  });
});
