/**
 * The server of a skills folder in this process, and an SDK client on it through an in-memory transport: for
 * `npm run tokens`, the search benchmark and tests, which want the real server without HTTP.
 */
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { pino } from "pino";
import type { Scope } from "../src/catalog/index.js";
import { type McpDeps, serverFactoryFor } from "../src/mcp/index.js";
import { loadStartupConfig, mcpDepsFor, type Prepared, prepare } from "../src/startup/index.js";

interface InMemoryOptions {
  /** Settings as the server's environment would give them: SKILL_PACKS, PROMPTS, CATALOG_PREVIEW… */
  readonly env?: Readonly<Record<string, string>>;
  readonly version?: string;
}

/**
 * What the server builds its servers of `skillsDir` from, prepared as it prepares them (src/startup): the
 * same settings, the same saved index, the same skills left out as unsafe. Tool failures go to stderr.
 */
export async function mcpDepsOf(skillsDir: string, options: InMemoryOptions = {}): Promise<McpDeps> {
  return (await preparedDepsOf(skillsDir, options)).deps;
}

/** The same, with the folder as prepare left it: what the load found and read, the inspection, the timings. */
export async function preparedDepsOf(
  skillsDir: string,
  options: InMemoryOptions = {},
): Promise<{ readonly prepared: Prepared; readonly deps: McpDeps }> {
  const config = loadStartupConfig({ ...options.env, SKILLS_DIR: skillsDir });
  const logger = pino({ level: "error" }, pino.destination(2));
  const prepared = await prepare(config, logger);
  const info = { name: "skills-mcp", version: options.version ?? "in-memory" };
  return { prepared, deps: mcpDepsFor(prepared, config, logger, info) };
}

/** A client connected (2025 handshake) to the server of `deps` within `scope` (default: everything). */
export async function connectInMemory(
  deps: McpDeps,
  scope: Scope = deps.catalog.everything,
): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "in-memory", version: "1" });
  await Promise.all([serverFactoryFor(deps, scope)().connect(serverSide), client.connect(clientSide)]);
  return client;
}
