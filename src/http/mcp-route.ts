import rateLimit from "@fastify/rate-limit";
import underPressure from "@fastify/under-pressure";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type Catalog, type Scope, SelectorError } from "../catalog/index.js";
import type { HttpSettings } from "../config/index.js";
import { createMcpServer, type ServerInfo } from "../mcp/index.js";
import type { SearchIndex } from "../search/index.js";
import { CeilingResolver } from "./ceiling.js";
import { apiKeyGuard, corsPreflight, hostGuard } from "./guard.js";
import { describeCall, JSON_RPC, jsonRpcError, requestId } from "./json-rpc.js";
import { type Metrics, type Outcome, toolLabel } from "./metrics.js";

export interface McpRouteOptions {
  readonly catalog: Catalog;
  readonly index: SearchIndex;
  readonly info: ServerInfo;
  readonly settings: HttpSettings;
  readonly metrics: Metrics;
}

interface McpRequest {
  Headers: { "x-skill-pack"?: string };
  Querystring: { pack?: string };
}

/** What the metrics need to know about one POST /mcp; filled in as the request goes along. */
interface McpCall {
  tool: string | undefined;
  /** Whether the MCP server answered with a JSON-RPC error or a tool result with isError. */
  failed: boolean;
}

declare module "fastify" {
  interface FastifyRequest {
    mcpCall: McpCall | null;
  }
}

/** Seconds a shed client is told to wait. */
const SHED_RETRY_AFTER_SECONDS = 5;

const selectorSchema = { type: "string", maxLength: 1000 } as const;

/**
 * `POST /mcp`: stateless Streamable HTTP with JSON responses, so any replica can answer any request.
 * Each request gets its own MCP server bound to the caller's ceiling; GET and DELETE (SSE streams and
 * sessions) are not offered. In order, a request passes the host check, load shedding, the rate limit
 * and the API key (before its body is read), then the ceiling.
 */
export async function mcpRoutes(app: FastifyInstance, options: McpRouteOptions): Promise<void> {
  const { settings, metrics } = options;
  const ceilings = new CeilingResolver(options.catalog.everything);
  app.decorateRequest("mcpCall", null);

  if (settings.allowedHosts.length > 0) app.addHook("onRequest", hostGuard(settings.allowedHosts));
  if (
    settings.shedEventLoopDelayMs > 0 ||
    settings.shedEventLoopUtilization > 0 ||
    settings.shedRssBytes > 0
  ) {
    await app.register(underPressure, {
      maxEventLoopDelay: settings.shedEventLoopDelayMs,
      maxEventLoopUtilization: settings.shedEventLoopUtilization,
      eventLoopUtilizationMode: "interval",
      maxRssBytes: settings.shedRssBytes,
      retryAfter: SHED_RETRY_AFTER_SECONDS,
      message: `Server overloaded: retry in ${SHED_RETRY_AFTER_SECONDS} seconds.`,
    });
  }
  if (settings.rateLimitPerMinute > 0) {
    // Headers only on the 429: answers to /mcp are written after reply.hijack(), which would drop them.
    await app.register(rateLimit, {
      max: settings.rateLimitPerMinute,
      timeWindow: 60_000,
      addHeadersOnExceeding: {
        "x-ratelimit-limit": false,
        "x-ratelimit-remaining": false,
        "x-ratelimit-reset": false,
      },
    });
  }

  app.post<McpRequest>(
    "/mcp",
    {
      schema: {
        headers: { type: "object", properties: { "x-skill-pack": selectorSchema } },
        querystring: { type: "object", properties: { pack: selectorSchema } },
      },
      ...(settings.apiKeys.length > 0 ? { preParsing: apiKeyGuard(settings.apiKeys) } : {}),
      onResponse: (request, reply, done) => {
        metrics.record(
          toolLabel(request.mcpCall?.tool),
          outcomeOf(reply.statusCode, request.mcpCall),
          reply.elapsedTime / 1000,
        );
        done();
      },
    },
    async (request, reply) => {
      if (Array.isArray(request.body) && request.body.length === 0) {
        return reply
          .code(400)
          .send(jsonRpcError(JSON_RPC.invalidRequest, "Invalid request: an empty batch."));
      }
      const header = request.headers["x-skill-pack"];
      const query = request.query.pack;
      const call = describeCall(request.body);
      request.mcpCall = { tool: call.tool, failed: false };
      request.log = request.log.child({ ...call, ceiling: describeCeiling(header, query) });
      let scope: Scope;
      try {
        scope = ceilings.resolve(header, query);
      } catch (error) {
        if (!(error instanceof SelectorError)) throw error;
        return reply
          .code(400)
          .send(jsonRpcError(JSON_RPC.invalidRequest, error.message, requestId(request.body)));
      }
      await serveMcp(request, reply, options, scope, request.mcpCall);
    },
  );

  app.options("/mcp", corsPreflight);

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

/** Refusals at the HTTP edge (4xx, and 503 from load shedding) are "rejected"; other 5xx are errors. */
function outcomeOf(status: number, call: McpCall | null): Outcome {
  if (status >= 500 && status !== 503) return "error";
  if (status >= 400) return "rejected";
  return call?.failed ? "error" : "ok";
}

/** The SDK's transport, noting whether any answer it sends is an error, for the metrics. */
class ObservedTransport extends StreamableHTTPServerTransport {
  constructor(private readonly call: McpCall) {
    super({ sessionIdGenerator: undefined, enableJsonResponse: true });
  }

  override send(message: JSONRPCMessage, options?: Parameters<StreamableHTTPServerTransport["send"]>[1]) {
    if ("error" in message || ("result" in message && message.result.isError === true))
      this.call.failed = true;
    return super.send(message, options);
  }
}

async function serveMcp(
  request: FastifyRequest,
  reply: FastifyReply,
  options: McpRouteOptions,
  scope: Scope,
  call: McpCall,
): Promise<void> {
  const server = createMcpServer(options.info, {
    catalog: options.catalog,
    index: options.index,
    scope,
    onInternalError: (error, tool) => request.log.error({ err: error, tool }, "tool failed"),
  });
  const transport = new ObservedTransport(call);
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
