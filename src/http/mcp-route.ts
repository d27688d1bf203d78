import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type Catalog, type Scope, SelectorError } from "../catalog/index.js";
import { createMcpServer, type ServerInfo } from "../mcp/index.js";
import type { SearchIndex } from "../search/index.js";
import { CeilingResolver } from "./ceiling.js";
import { describeCall, JSON_RPC, jsonRpcError, requestId } from "./json-rpc.js";

export interface McpRouteOptions {
  readonly catalog: Catalog;
  readonly index: SearchIndex;
  readonly info: ServerInfo;
}

interface McpRequest {
  Headers: { "x-skill-pack"?: string };
  Querystring: { pack?: string };
}

const selectorSchema = { type: "string", maxLength: 1000 } as const;

/**
 * `POST /mcp`: stateless Streamable HTTP with JSON responses, so any replica can answer any request.
 * Each request gets its own MCP server bound to the caller's ceiling; GET and DELETE (SSE streams and
 * sessions) are not offered.
 */
export async function mcpRoutes(app: FastifyInstance, options: McpRouteOptions): Promise<void> {
  const ceilings = new CeilingResolver(options.catalog.everything);

  app.post<McpRequest>(
    "/mcp",
    {
      schema: {
        headers: { type: "object", properties: { "x-skill-pack": selectorSchema } },
        querystring: { type: "object", properties: { pack: selectorSchema } },
      },
    },
    async (request, reply) => {
      const header = request.headers["x-skill-pack"];
      const query = request.query.pack;
      request.log = request.log.child({
        ...describeCall(request.body),
        ceiling: describeCeiling(header, query),
      });
      let scope: Scope;
      try {
        scope = ceilings.resolve(header, query);
      } catch (error) {
        if (!(error instanceof SelectorError)) throw error;
        return reply
          .code(400)
          .send(jsonRpcError(JSON_RPC.invalidRequest, error.message, requestId(request.body)));
      }
      await serveMcp(request, reply, options, scope);
    },
  );

  app.route({
    method: ["GET", "DELETE", "PUT", "PATCH"],
    url: "/mcp",
    handler: (_request, reply) =>
      reply
        .code(405)
        .header("allow", "POST")
        .send(
          jsonRpcError(
            JSON_RPC.invalidRequest,
            "Method not allowed: this stateless server answers POST only.",
          ),
        ),
  });
}

async function serveMcp(
  request: FastifyRequest,
  reply: FastifyReply,
  options: McpRouteOptions,
  scope: Scope,
): Promise<void> {
  const server = createMcpServer(options.info, {
    catalog: options.catalog,
    index: options.index,
    scope,
    onInternalError: (error, tool) => request.log.error({ err: error, tool }, "tool failed"),
  });
  const transport = new StreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  reply.hijack();
  reply.raw.on("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(request.raw, reply.raw, request.body);
}

function describeCeiling(header: string | undefined, query: string | undefined): string | undefined {
  const parts = [header ? `header=${header}` : "", query ? `query=${query}` : ""].filter(Boolean);
  return parts.length > 0 ? parts.join(" ") : undefined;
}
