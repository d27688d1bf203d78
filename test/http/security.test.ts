import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeStandardCatalog, type StandardCatalog } from "../helpers/fixtures.js";
import { call, ERAS, httpSettings, post, type RunningServer, startServer } from "../helpers/server.js";

const ping = { jsonrpc: "2.0", id: 3, method: "ping" };
const KEY = "n8n-key-0123456789abcdef";
const OTHER_KEY = "ci-key-0123456789abcdef";

let tree: StandardCatalog;
beforeAll(async () => {
  tree = await makeStandardCatalog();
});
afterAll(() => tree.remove());

describe("browser protection with the defaults", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(tree.skillsDir);
  });
  afterAll(() => server.close());

  it("refuses any request carrying an Origin header with 403 and a JSON-RPC error", async () => {
    for (const origin of [
      "http://evil.example.com",
      "null",
      `http://127.0.0.1:${new URL(server.url).port}`,
    ]) {
      const response = await post(`${server.url}/mcp`, ping, { origin });
      expect(response.status).toBe(403);
      expect(response.json).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 }, id: null });
      expect(JSON.stringify(response.json)).toContain("ALLOWED_ORIGINS");
    }
    expect(
      (await fetch(`${server.url}/health`, { headers: { origin: "http://evil.example.com" } })).status,
    ).toBe(403);
  });

  it("serves requests without Origin, as agents, n8n and curl send them, whatever their Host", async () => {
    expect((await post(`${server.url}/mcp`, ping)).status).toBe(200);
    // Behind a proxy or on another name: no ALLOWED_HOSTS, no check of the Host.
    for (const host of ["skills.example.com", "10.1.2.3:8000", "localhost"]) {
      expect((await post(`${server.url}/mcp`, ping, { host })).status, host).toBe(200);
    }
    const client = await server.connect();
    expect((await call(client, "list_packs")).isError).toBe(false);
  });
});

describe("ALLOWED_ORIGINS and ALLOWED_HOSTS", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(
      tree.skillsDir,
      [],
      httpSettings({
        ALLOWED_ORIGINS: "https://app.example.com",
        ALLOWED_HOSTS: "127.0.0.1,skills.example.com:8443",
      }),
    );
  });
  afterAll(() => server.close());

  it("serves a listed origin with the CORS header its browser needs, and answers its preflight", async () => {
    const response = await post(`${server.url}/mcp`, ping, { origin: "https://app.example.com" });
    expect(response.status).toBe(200);
    expect(response.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    const preflight = await fetch(`${server.url}/mcp`, {
      method: "OPTIONS",
      headers: { origin: "https://app.example.com", "access-control-request-method": "POST" },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-origin")).toBe("https://app.example.com");
    expect(preflight.headers.get("access-control-allow-headers")).toContain("x-skill-pack");
    const foreign = await fetch(`${server.url}/mcp`, {
      method: "OPTIONS",
      headers: { origin: "https://evil.example.com", "access-control-request-method": "POST" },
    });
    expect(foreign.status).toBe(403);
    expect(foreign.headers.get("access-control-allow-origin")).toBeNull();
  });

  // Regression: @fastify/cors answered these 400 "Invalid Preflight Request" in plain text, where every
  // other refusal is a JSON-RPC error and OPTIONS without ALLOWED_ORIGINS is a 405.
  it("answers an OPTIONS that is no preflight with 405 naming POST, as without CORS", async () => {
    const nonPreflights: Record<string, string>[] = [
      {},
      { origin: "https://app.example.com" },
      { "access-control-request-method": "POST" },
    ];
    for (const headers of nonPreflights) {
      const response = await fetch(`${server.url}/mcp`, { method: "OPTIONS", headers });
      expect(response.status, JSON.stringify(headers)).toBe(405);
      expect(response.headers.get("allow")).toBe("POST");
      expect(await response.json()).toMatchObject({ jsonrpc: "2.0", error: { code: -32600 } });
    }
  });

  // Regression: a preflight to any path was answered 204 with the CORS headers of /mcp, so a browser was
  // told it could POST to /mcp/x, /health or a path that does not exist; and an OPTIONS there that is no
  // preflight was a 400 in plain text. Only /mcp takes a browser's requests.
  it("answers a preflight to a path other than /mcp as without CORS: 404 naming the routes, 405 on /health", async () => {
    const preflight = { origin: "https://app.example.com", "access-control-request-method": "POST" };
    for (const [path, headers] of [
      ["/nope", preflight],
      ["/mcp/x", preflight],
      ["/nope", {}],
    ] as const) {
      const response = await fetch(`${server.url}${path}`, { method: "OPTIONS", headers });
      expect(response.status, path).toBe(404);
      expect(response.headers.get("access-control-allow-methods"), path).toBeNull();
      expect(await response.json()).toMatchObject({
        jsonrpc: "2.0",
        error: { code: -32600, message: expect.stringContaining(`No route OPTIONS ${path}`) },
      });
    }
    // Routes that take GET only: a method they do not take, with no CORS headers for a browser to act on.
    for (const path of ["/health", "/metrics"]) {
      const response = await fetch(`${server.url}${path}`, { method: "OPTIONS", headers: preflight });
      expect(response.status, path).toBe(405);
      expect(response.headers.get("allow"), path).toBe("GET, HEAD");
      for (const header of ["access-control-allow-origin", "access-control-allow-methods"])
        expect(response.headers.get(header), `${path} ${header}`).toBeNull();
    }
    const trailing = await fetch(`${server.url}/mcp/`, { method: "OPTIONS", headers: preflight });
    expect(trailing.status).toBe(204);
  });

  it("refuses a Host that is not listed on /mcp, and leaves /health to probes that use the pod address", async () => {
    expect((await post(`${server.url}/mcp`, ping)).status).toBe(200);
    expect((await post(`${server.url}/mcp`, ping, { host: "skills.example.com:8443" })).status).toBe(200);
    const rebound = await post(`${server.url}/mcp`, ping, { host: "evil.example.com" });
    expect(rebound.status).toBe(403);
    expect(rebound.json).toMatchObject({
      error: { message: expect.stringMatching(/^Host "evil\.example\.com" is not allowed: .*ALLOWED_HOSTS/) },
    });
    expect((await post(`${server.url}/mcp`, ping, { host: "skills.example.com:9999" })).status).toBe(403);
    expect((await fetch(`${server.url}/health`, { headers: { host: "10.1.2.3:8000" } })).status).toBe(200);
  });
});

describe("API keys", () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await startServer(tree.skillsDir, [], httpSettings({ API_KEYS: `${KEY},${OTHER_KEY}` }));
  });
  afterAll(() => server.close());

  it("answers /mcp without a key with 401, WWW-Authenticate and a JSON-RPC error", async () => {
    const response = await post(`${server.url}/mcp`, ping);
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toBe('Bearer realm="skills-mcp"');
    expect(response.json).toMatchObject({ jsonrpc: "2.0", error: { code: -32001 }, id: null });
  });

  it("asks for the key before refusing a method /mcp does not take", async () => {
    for (const init of [
      { method: "GET" },
      { method: "PUT", headers: { "content-type": "text/plain" }, body: "x" },
    ]) {
      expect((await fetch(`${server.url}/mcp`, init)).status).toBe(401);
      const keyed = await fetch(`${server.url}/mcp`, {
        ...init,
        headers: { ...init.headers, authorization: `Bearer ${KEY}` },
      });
      expect(keyed.status).toBe(405);
    }
  });

  it.each([
    `Bearer ${KEY.slice(0, -1)}`,
    `Bearer ${KEY}x`,
    `Bearer ${KEY.toUpperCase()}`,
    `Bearer ${KEY} extra`,
    `Basic ${Buffer.from(`user:${KEY}`).toString("base64")}`,
    KEY,
    "Bearer",
  ])("refuses %s as invalid", async (authorization) => {
    const response = await post(`${server.url}/mcp`, ping, { authorization });
    expect(response.status).toBe(401);
    expect(response.headers.get("www-authenticate")).toContain('error="invalid_token"');
    expect(response.json).toMatchObject({ jsonrpc: "2.0", error: { code: -32001 }, id: null });
  });

  it("reads the scheme in any case, as HTTP says", async () => {
    expect((await post(`${server.url}/mcp`, ping, { authorization: `bearer ${OTHER_KEY}` })).status).toBe(
      200,
    );
  });

  it.each(ERAS)(
    "serves each configured key to the SDK client in the %s era, as n8n's bearer credential sends it",
    async (era) => {
      for (const key of [KEY, OTHER_KEY]) {
        const client = await server.connect({
          era,
          headers: { Authorization: `Bearer ${key}`, "X-Skill-Pack": "gamma" },
        });
        expect((await call(client, "list_skills")).text).toContain("drill: ");
      }
    },
  );

  it("keeps /health and /metrics open", async () => {
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    expect((await fetch(`${server.url}/metrics`)).status).toBe(200);
  });
});
