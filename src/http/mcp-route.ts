import rateLimit from "@fastify/rate-limit";
import underPressure from "@fastify/under-pressure";
import type { FastifyInstance } from "fastify";
import { type Catalog, type Scope, SelectorError } from "../catalog/index.js";
import type { HttpSettings } from "../config/index.js";
import type { ServerInfo } from "../mcp/index.js";
import type { SearchIndex } from "../search/index.js";
import { CeilingResolver } from "./ceiling.js";
import { CeilingServers } from "./ceiling-servers.js";
import { isRefusal, readMessages } from "./exchange.js";
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
  /** `?pack=` may be repeated: each is a selector or a comma list, as in the header. */
  Querystring: { pack?: string[] };
}

/** What the log line and the metrics say about one POST /mcp; filled in as the request goes along. */
export interface McpCall {
  /** The JSON-RPC method and, for tools/call, the tool. */
  readonly rpc: string | undefined;
  readonly tool: string | undefined;
  /** The X-Skill-Pack header and ?pack= as given, when there are any. */
  readonly ceiling: string | undefined;
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
/** Fastify reads a single `?pack=` as a list of one (its validator coerces to arrays). */
const selectorsSchema = { type: "array", items: selectorSchema, maxItems: 32 } as const;

/**
 * `POST /mcp`: stateless Streamable HTTP with JSON responses, so any replica can answer any request.
 * Each request is answered by the MCP server bound to the caller's ceiling, built once per ceiling; GET
 * and DELETE (SSE streams and sessions) are not offered. In order, a request passes the host check, load
 * shedding, the rate limit and the API key (before its body is read), then the ceiling and the
 * transport's rules.
 */
export async function mcpRoutes(app: FastifyInstance, options: McpRouteOptions): Promise<void> {
  const { settings, metrics } = options;
  const ceilings = new CeilingResolver(options.catalog.everything);
  const servers = new CeilingServers({
    catalog: options.catalog,
    index: options.index,
    info: options.info,
    onInternalError: (error, tool) => app.log.error({ err: error, tool }, "tool failed"),
  });
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
    // Headers only on the 429, so that answers to /mcp keep the headers they have always had.
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
        querystring: { type: "object", properties: { pack: selectorsSchema } },
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
      const query = request.query.pack?.join(",");
      // Read by the request's log line rather than bound to a child logger, which costs as much again.
      const { rpc, tool } = describeCall(request.body);
      const call: McpCall = { rpc, tool, ceiling: describeCeiling(header, query), failed: false };
      request.mcpCall = call;
      let scope: Scope;
      try {
        scope = ceilings.resolve(header, query);
      } catch (error) {
        if (!(error instanceof SelectorError)) throw error;
        return reply
          .code(400)
          .send(jsonRpcError(JSON_RPC.invalidRequest, error.message, requestId(request.body)));
      }
      const messages = readMessages(request.headers, request.body);
      if (isRefusal(messages)) return reply.code(messages.status).send(messages.body);
      const answer = await (await servers.for(scope)).answer(messages);
      // Notifications only: accepted, and nothing to answer.
      if (answer.status === 202) return reply.code(202).send();
      call.failed = answer.failed;
      return reply.header("content-type", "application/json").send(answer.body);
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

function describeCeiling(header: string | undefined, query: string | undefined): string | undefined {
  const parts = [header ? `header=${header}` : "", query ? `query=${query}` : ""].filter(Boolean);
  return parts.length > 0 ? parts.join(" ") : undefined;
}
