import type { Catalog, Scope } from "../catalog/index.js";
import { createMcpServer, type ServerInfo } from "../mcp/index.js";
import type { SearchIndex } from "../search/index.js";
import { ExchangeTransport } from "./exchange.js";

export interface CeilingServersOptions {
  readonly catalog: Catalog;
  readonly index: SearchIndex;
  readonly info: ServerInfo;
  readonly onInternalError: (error: unknown, tool: string) => void;
}

/**
 * One MCP server per ceiling, built the first time a client with that ceiling calls and then shared by
 * every request with it: the catalog never changes while serving, and building a server (tools, schemas,
 * validators) cost more than answering. Keyed weakly by the scope, so a ceiling the resolver forgets
 * takes its server with it.
 */
export class CeilingServers {
  readonly #servers = new WeakMap<Scope, Promise<ExchangeTransport>>();

  constructor(private readonly options: CeilingServersOptions) {}

  /** The transport of the server bound to `scope`. */
  for(scope: Scope): Promise<ExchangeTransport> {
    let server = this.#servers.get(scope);
    if (server === undefined) {
      server = this.#connect(scope);
      this.#servers.set(scope, server);
    }
    return server;
  }

  async #connect(scope: Scope): Promise<ExchangeTransport> {
    const { catalog, index, info, onInternalError } = this.options;
    const server = createMcpServer(info, { catalog, index, scope, onInternalError });
    const transport = new ExchangeTransport();
    await server.connect(transport);
    return transport;
  }
}
