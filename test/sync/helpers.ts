import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { createMcpHandler, type McpServer } from "@modelcontextprotocol/server";
import { pino } from "pino";
import { mcpDepsOf } from "../../scripts/in-memory-client.js";
import { buildApp } from "../../src/http/index.js";
import type { Era } from "../../src/sync/connection.js";
import { type SyncOptions, syncSkills } from "../../src/sync/index.js";
import { LOCK_FILE, type Lock } from "../../src/sync/lock.js";
import type { Progress } from "../../src/sync/progress.js";
import type { SyncReport } from "../../src/sync/sync.js";
import { httpSettings } from "../helpers/server.js";

export interface Served {
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

/**
 * The real server on the skills folder `dir`, over HTTP on 127.0.0.1, at `port` (0: a free one). The
 * catalog is read once, as the server reads it at startup: serve the folder again to see a change, on
 * the same port, so that sync sees the same server. `env` holds settings of both (API_KEYS, UNSAFE_SKILLS).
 */
export async function serveCatalog(dir: string, port = 0, env: Record<string, string> = {}): Promise<Served> {
  const app = await buildApp({
    mcp: await mcpDepsOf(dir, { version: "test", env }),
    logger: pino({ level: "silent" }),
    settings: httpSettings(env),
  });
  await app.listen({ host: "127.0.0.1", port });
  const address = app.server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return { url: `http://127.0.0.1:${address.port}/mcp`, port: address.port, close: () => app.close() };
}

/**
 * A server made with the SDK alone, over HTTP on 127.0.0.1: `factory` builds the McpServer of each
 * request, so a test decides exactly what it declares and answers, hostile answers included.
 * `closeIdle` ends its connections that wait for a next request, as its keep-alive timeout does.
 */
export async function serveMcp(factory: () => McpServer): Promise<Served & { closeIdle(): void }> {
  const handler = createMcpHandler(factory);
  const server = http.createServer((request, response) => {
    void answer(handler.fetch, request, response);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no TCP address");
  return {
    url: `http://127.0.0.1:${address.port}/mcp`,
    port: address.port,
    closeIdle: () => server.closeIdleConnections(),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await handler.close();
    },
  };
}

async function answer(
  fetch: (request: Request) => Promise<Response>,
  request: http.IncomingMessage,
  response: http.ServerResponse,
): Promise<void> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) headers.set(name, Array.isArray(value) ? value.join(", ") : value);
  }
  const body = request.method === "POST" ? Buffer.concat(chunks) : undefined;
  const reply = await fetch(
    new Request(`http://127.0.0.1${request.url}`, { method: request.method, headers, body }),
  );
  response.writeHead(reply.status, Object.fromEntries(reply.headers));
  if (reply.body !== null) {
    for await (const chunk of reply.body) {
      if (!response.write(chunk)) await new Promise((resolve) => response.once("drain", resolve));
    }
  }
  response.end();
}

/** Progress kept as lines, for tests to read. */
export function recordedProgress(): Progress & { readonly lines: string[] } {
  const lines: string[] = [];
  return {
    lines,
    note: (text) => lines.push(text),
    skill: (done, total, name, outcome) => lines.push(`[${done}/${total}] ${name}: ${outcome}`),
    finish: () => undefined,
  };
}

/** Syncs from `url` into `folder` as the command line would, in `era`, with progress kept in the result. */
export async function sync(
  url: string,
  folder: string,
  options: Partial<Omit<SyncOptions, "server" | "folder">> & {
    readonly headers?: Record<string, string>;
    readonly era?: Era;
  } = {},
): Promise<SyncReport & { readonly lines: string[] }> {
  const progress = recordedProgress();
  const { headers = {}, ...rest } = options;
  const report = await syncSkills({
    server: { url: new URL(url), headers },
    scope: { packs: [], headers: [] },
    folder,
    mode: "sync",
    allowUnsafe: false,
    era: "auto",
    progress,
    ...rest,
  });
  return { ...report, lines: progress.lines };
}

/** Every file below `dir` by its `/`-separated path, as text; hidden ones (the lock, staging) only when asked. */
export async function readTree(dir: string, hidden = false): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const relative = path.relative(dir, path.join(entry.parentPath, entry.name)).split(path.sep).join("/");
    if (!hidden && relative.split("/").some((segment) => segment.startsWith("."))) continue;
    files[relative] = await readFile(path.join(dir, relative), "utf8");
  }
  return Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1)));
}

export async function readLockIn(folder: string): Promise<Lock> {
  return JSON.parse(await readFile(path.join(folder, LOCK_FILE), "utf8")) as Lock;
}

/** A new empty temporary folder, and how to remove it. */
export async function tempFolder(): Promise<{ readonly dir: string; remove(): Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), "skills-mcp-sync-"));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}
