/**
 * The server of a catalog in this process, and an SDK client on it through an in-memory transport: for
 * `npm run tokens`, the search benchmark and tests, which want the real server without HTTP.
 */
import { Client } from "@modelcontextprotocol/client";
import { InMemoryTransport } from "@modelcontextprotocol/server";
import { type Catalog, readSkillDocument, type Scope } from "../src/catalog/index.js";
import { inspectCatalog, withoutUnsafe } from "../src/inspection/index.js";
import { buildMcpDeps, type McpDeps, serverFactoryFor } from "../src/mcp/index.js";
import { buildIndex, type SearchIndex } from "../src/search/index.js";

export interface InMemoryOptions {
  /** The search index, when one is already built (or built with other rankings); built here otherwise. */
  readonly index?: SearchIndex;
  readonly version?: string;
  readonly prompts?: boolean;
  /** `CATALOG_PREVIEW`: on (the default) or off. */
  readonly catalogPreview?: boolean;
  readonly packDescriptions?: ReadonlyMap<string, string>;
}

/**
 * What main.ts builds the servers of a catalog from: its inspection, its search index, its resources;
 * the skills a high finding makes unsafe are left out, as the server leaves them out by default.
 */
export async function mcpDepsOf(loaded: Catalog, options: InMemoryOptions = {}): Promise<McpDeps> {
  const { inspection } = await inspectCatalog(loaded.everything.skills);
  const catalog = withoutUnsafe(loaded, inspection);
  return buildMcpDeps({
    info: { name: "skills-mcp", version: options.version ?? "in-memory" },
    catalog,
    index: options.index ?? buildIndex(catalog.everything.skills, readSkillDocument),
    inspection,
    prompts: options.prompts ?? true,
    catalogPreview: options.catalogPreview,
    packDescriptions: options.packDescriptions,
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
  await Promise.all([serverFactoryFor(deps, scope)().connect(serverSide), client.connect(clientSide)]);
  return client;
}
