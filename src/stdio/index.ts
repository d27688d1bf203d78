import { serveStdio as serveSdkStdio } from "@modelcontextprotocol/server/stdio";
import type { Logger } from "pino";
import { type McpDeps, serverFactoryFor } from "../mcp/index.js";

export interface StdioDeps {
  readonly mcp: McpDeps;
  readonly logger: Logger;
}

/**
 * Serves the same server over stdin/stdout for a local agent, in either protocol era (the SDK's entry
 * tells them apart by the first message). There is no header here, so the caller sees the whole loaded
 * catalog (still narrowed by SKILL_PACKS). Resolves when the client hangs up.
 */
export async function serveStdio(deps: StdioDeps): Promise<void> {
  const closed = new Promise<void>((resolve) => {
    process.stdin.once("end", resolve);
    process.stdin.once("close", resolve);
  });
  const handle = serveSdkStdio(serverFactoryFor(deps.mcp, deps.mcp.catalog.everything), {
    onerror: (error) => deps.logger.error({ err: error }, "stdio"),
  });
  await closed;
  await handle.close();
}
