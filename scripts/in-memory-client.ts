/**
 * The server of a catalog in this process, and an SDK client on it through an in-memory transport: for
 * `npm run tokens`, the search benchmark and tests, which want the real server without HTTP.
 */
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { type Catalog, readSkillDocument, type Scope } from "../src/catalog/index.js";
import { inspectCatalog } from "../src/inspection/index.js";
import { buildMcpDeps, createMcpServer, type McpDeps } from "../src/mcp/index.js";
import { buildIndex, type SearchIndex } from "../src/search/index.js";

/** What main.ts builds the servers of a catalog from: its inspection, its search index, its resources. */
export async function mcpDepsOf(
  catalog: Catalog,
  index?: SearchIndex,
  version = "in-memory",
): Promise<McpDeps> {
  const { inspection } = await inspectCatalog(catalog.everything.skills, catalog.files);
  return buildMcpDeps({
    info: { name: "skills-mcp", version },
    catalog,
    index: index ?? buildIndex(catalog.everything.skills, readSkillDocument),
    inspection,
    onInternalError: (error) => console.error(error),
  });
}

/** A client connected (2025 handshake) to the server of `deps` within `scope` (default: everything). */
export async function connectInMemory(
  deps: McpDeps,
  scope: Scope = deps.catalog.everything,
): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const client = new Client({ name: "in-memory", version: "1" });
  await Promise.all([createMcpServer(deps, scope).connect(serverSide), client.connect(clientSide)]);
  return client;
}
