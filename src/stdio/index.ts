import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import type { Logger } from "pino";
import type { Catalog } from "../catalog/index.js";
import { createMcpServer, type ServerInfo } from "../mcp/index.js";
import type { SearchIndex } from "../search/index.js";

export interface StdioDeps {
  readonly catalog: Catalog;
  readonly index: SearchIndex;
  readonly info: ServerInfo;
  readonly logger: Logger;
}

/**
 * Serves the four tools over stdin/stdout for a local agent. There is no header here, so the caller
 * sees the whole loaded catalog (still narrowed by SKILL_PACKS). Resolves when the client hangs up.
 */
export async function serveStdio(deps: StdioDeps): Promise<void> {
  const server = createMcpServer(deps.info, {
    catalog: deps.catalog,
    index: deps.index,
    scope: deps.catalog.everything,
    onInternalError: (error, tool) => deps.logger.error({ err: error, tool }, "tool failed"),
  });
  const transport = new StdioServerTransport();
  const closed = new Promise<void>((resolve) => {
    transport.onclose = resolve;
    process.stdin.once("end", resolve);
  });
  await server.connect(transport);
  await closed;
  await server.close();
}
