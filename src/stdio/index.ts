import { StdioServerTransport, serveStdio as serveSdkStdio } from "@modelcontextprotocol/server/stdio";
import type { Logger } from "pino";
import { ZodError } from "zod";
import { ByteBudget } from "../budget/index.js";
import { fileBytesOf, MAX_READ_BYTES, type McpDeps, serverFactoryFor } from "../mcp/index.js";
import { BudgetedTransport } from "./budgeted-transport.js";

export interface StdioDeps {
  readonly mcp: McpDeps;
  readonly logger: Logger;
  /** Resolves on SIGTERM or SIGINT: the server stops as when the client hangs up. */
  readonly stopped: Promise<NodeJS.Signals>;
}

/**
 * Serves the same server over stdin/stdout for a local agent, in either protocol era (the SDK's entry
 * tells them apart by the first message). There is no header here, so the caller sees the whole loaded
 * catalog (still narrowed by SKILL_PACKS). Resolves when the client hangs up, or on a stop signal.
 */
export async function serveStdio(deps: StdioDeps): Promise<void> {
  const closed = new Promise<void>((resolve) => {
    process.stdin.once("end", resolve);
    process.stdin.once("close", resolve);
    deps.stopped.then((signal) => {
      deps.logger.info({ signal }, "stdio: stopping");
      resolve();
    });
  });
  const scope = deps.mcp.catalog.everything;
  // Answers holding files are made and queued for stdout 8 MiB of files at a time, as over HTTP.
  const transport = new BudgetedTransport(
    new StdioServerTransport(),
    new ByteBudget(MAX_READ_BYTES),
    (method, params) => fileBytesOf(deps.mcp, scope, method, params),
  );
  const handle = serveSdkStdio(serverFactoryFor(deps.mcp, scope), {
    transport,
    onerror: (error) => {
      // JSON that is no JSON-RPC message at all (a batch, which 2025-06-18 dropped, or a message missing
      // its members) is the client's mistake, which the SDK skips as it skips a line that is not JSON:
      // said in one line, not logged as a fault of ours with every issue of the SDK's schema.
      if (error instanceof ZodError && error.issues.every((issue) => issue.path.length === 0)) {
        deps.logger.warn("stdio: a line from the client is not a JSON-RPC message; skipped");
        return;
      }
      deps.logger.error({ err: error }, "stdio");
    },
  });
  await closed;
  await handle.close();
}
