import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  LogController,
} from "fastify";
import type { Catalog } from "../catalog/index.js";
import type { ServerInfo } from "../mcp/index.js";
import type { SearchIndex } from "../search/index.js";
import { healthRoutes } from "./health-route.js";
import { JSON_RPC, jsonRpcError } from "./json-rpc.js";
import { mcpRoutes } from "./mcp-route.js";

export interface AppDeps {
  readonly catalog: Catalog;
  readonly index: SearchIndex;
  readonly info: ServerInfo;
  readonly logger: FastifyBaseLogger;
}

/** The HTTP app: `/mcp` and `/health`. Never listens and never reads the environment. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  // One log line per request, written by the onResponse hook below with the tool and the ceiling.
  const app = Fastify({
    loggerInstance: deps.logger,
    logController: new LogController({ disableRequestLogging: true }),
  });

  // MCP speaks JSON only; without this, Fastify would parse text/plain bodies and hand them on.
  app.removeContentTypeParser("text/plain");

  app.addHook("onResponse", async (request, reply) => {
    request.log.info(
      {
        method: request.method,
        url: request.url,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
      },
      "request",
    );
  });

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode !== undefined && error.statusCode >= 400 ? error.statusCode : 500;
    if (status >= 500) request.log.error({ err: error }, "request failed");
    const message = status >= 500 ? "Internal server error" : error.message;
    const code =
      error.code === "FST_ERR_CTP_INVALID_JSON_BODY" ? JSON_RPC.parseError : JSON_RPC.invalidRequest;
    return reply.code(status).send(jsonRpcError(status >= 500 ? JSON_RPC.internalError : code, message));
  });

  await app.register(mcpRoutes, { catalog: deps.catalog, index: deps.index, info: deps.info });
  await app.register(healthRoutes, { catalog: deps.catalog, version: deps.info.version });
  return app;
}
