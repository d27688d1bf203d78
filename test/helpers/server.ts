import http from "node:http";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import type { CallToolResult } from "@modelcontextprotocol/server";
import type { FastifyInstance } from "fastify";
import { pino } from "pino";
import { afterAll, beforeAll } from "vitest";
import type { HttpSettings } from "../../src/config/index.js";
import { buildApp, type LingeringCloses } from "../../src/http/index.js";
import { loadStartupConfig, mcpDepsFor, type Prepared, prepare } from "../../src/startup/index.js";
import { TEST_ENV } from "./process.js";
import { makeTree, type TempTree, type TreeEntry } from "./skill-tree.js";

/** The fixed tool surface, in the order tools/list gives it: the contract every client sees. */
export const THE_FOUR_TOOLS = ["list_packs", "list_skills", "read_skill", "read_pack_file"];

/**
 * The protocol era a client speaks: `legacy` opens with the 2025 initialize handshake (what most clients
 * do today), `modern` is pinned to 2026-07-28 (a per-request envelope, no handshake), `auto` probes with
 * server/discover and takes the newest both sides speak.
 */
export type Era = "legacy" | "modern" | "auto";
/** The two eras a server answers (auto ends in one of them). */
export const ERAS = ["legacy", "modern"] as const satisfies readonly Era[];

export interface ConnectOptions {
  readonly headers?: Record<string, string>;
  /** A query string for the endpoint, such as `?pack=alpha`. */
  readonly query?: string;
  readonly era?: Era;
}

export interface RunningServer {
  readonly url: string;
  readonly app: FastifyInstance;
  readonly prepared: Prepared;
  /** An SDK client on `/mcp`, in the era asked for (legacy by default), with headers and `?pack=`. */
  connect(options?: ConnectOptions): Promise<Client>;
  close(): Promise<void>;
}

/** A v2 SDK client on `endpoint` in `era`, connected. */
export async function connectTo(endpoint: URL, options: ConnectOptions = {}): Promise<Client> {
  const transport = new StreamableHTTPClientTransport(endpoint, {
    requestInit: { headers: options.headers },
  });
  const era = options.era ?? "legacy";
  const mode = era === "modern" ? { pin: "2026-07-28" } : era;
  const client = new Client({ name: "test", version: "1" }, { versionNegotiation: { mode } });
  await client.connect(transport);
  return client;
}

/**
 * HTTP settings as the environment `env` would give them (defaults for everything not in it), but load
 * shedding, which a machine busy with other work would trigger: the tests of shedding set it in `env`.
 */
export function httpSettings(env: Record<string, string> = {}): HttpSettings {
  return loadStartupConfig({ ...TEST_ENV, ...env }).http;
}

/**
 * Prepares `dir` and serves it on 127.0.0.1 on a free port, as main.ts would: `packs` as SKILL_PACKS,
 * `settings` the HTTP edge's, `env` any other setting (PROMPTS, UNSAFE_SKILLS…) as the environment gives it,
 * `lingering` the connections closed lingering after a refused body, to see them and bound them, `extend`
 * what a test adds to the app before it listens (a route that answers when the test says).
 */
export async function startServer(
  dir: string,
  packs: readonly string[] = [],
  settings: HttpSettings = httpSettings(),
  env: Record<string, string> = {},
  lingering?: LingeringCloses,
  extend?: (app: FastifyInstance) => void,
): Promise<RunningServer> {
  const config = loadStartupConfig({ ...env, SKILLS_DIR: dir, SKILL_PACKS: packs.join(",") });
  const silent = pino({ level: "silent" });
  const prepared = await prepare(config, silent);
  // What the operator's log would say of a tool or a read that failed inside the server, on console.error.
  const errors = pino({ level: "error" }, { write: (line: string) => console.error(line) });
  const app = await buildApp({
    mcp: mcpDepsFor(prepared, config, errors, { name: "skills-mcp", version: "test" }),
    logger: silent,
    settings,
    unsafeSkills: prepared.unsafeSkills,
    lingering,
  });
  extend?.(app);
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  const url = `http://127.0.0.1:${address.port}`;
  const clients: Client[] = [];
  return {
    url,
    app,
    prepared,
    async connect(options = {}) {
      const client = await connectTo(new URL(`/mcp${options.query ?? ""}`, url), options);
      clients.push(client);
      return client;
    },
    async close() {
      await Promise.all(clients.map((client) => client.close()));
      await app.close();
    },
  };
}

/**
 * Serves `entries` (see makeTree) to the tests of the enclosing suite: written, started and connected to
 * before them, stopped and removed after, with the settings `env` adds. Its `server` and `client` are
 * there once the tests run.
 */
export function serveTree(
  entries: Record<string, TreeEntry>,
  era: Era = "legacy",
  env: Record<string, string> = {},
): {
  readonly server: RunningServer;
  readonly client: Client;
} {
  let tree: TempTree | undefined;
  let served: { server: RunningServer; client: Client } | undefined;
  beforeAll(async () => {
    tree = await makeTree(entries);
    const server = await startServer(tree.dir, [], httpSettings(), env);
    served = { server, client: await server.connect({ era }) };
  });
  afterAll(async () => {
    await served?.server.close();
    await tree?.remove();
  });
  const running = () => {
    if (served === undefined) throw new Error("serveTree's server runs only while its suite's tests do");
    return served;
  };
  return {
    get server() {
      return running().server;
    },
    get client() {
      return running().client;
    },
  };
}

/** Calls a tool and returns its text and whether it is an error, the two things a model sees. */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ text: string; isError: boolean }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content.map((part) => (part.type === "text" ? part.text : "")).join("");
  return { text, isError: result.isError === true };
}

/** An HTTP answer as a test looks at it: status, headers, and the body parsed as JSON when it is JSON. */
export interface RawAnswer {
  readonly status: number;
  readonly json: unknown;
  readonly text: string;
  readonly headers: Headers;
}

/**
 * Sends one request with node:http, which, unlike fetch, sends any header as given (Host included)
 * and any body bytes. A fresh connection each time.
 */
export function send(
  url: string,
  /** A header given a list of values is sent once for each. */
  options: { method?: string; headers?: Record<string, string | string[]>; body?: string | Buffer } = {},
): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method: options.method ?? "GET",
      headers: options.headers,
      agent: false,
    });
    request.on("error", reject);
    request.on("response", (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const text = Buffer.concat(chunks).toString();
        let json: unknown;
        try {
          json = JSON.parse(text);
        } catch {
          json = text;
        }
        const headers = new Headers();
        for (const [name, value] of Object.entries(response.headers)) {
          if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
        }
        resolve({ status: response.statusCode ?? 0, json, text, headers });
      });
    });
    request.end(options.body);
  });
}

/** Posts a raw JSON-RPC body, for what the SDK client would never send. */
export function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<RawAnswer> {
  return send(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}
