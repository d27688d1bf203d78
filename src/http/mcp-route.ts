import type { Socket } from "node:net";
import rateLimit from "@fastify/rate-limit";
import underPressure from "@fastify/under-pressure";
import { ProtocolError } from "@modelcontextprotocol/server";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { ByteBudget } from "../budget/index.js";
import { formatSize, type Scope, SelectorError } from "../catalog/index.js";
import type { HttpSettings } from "../config/index.js";
import { fileBytesOf, type McpDeps, serverFactoryFor } from "../mcp/index.js";
import type { Answer } from "./answer-cache.js";
import { hostGuard, registerApiKeys, registerCors } from "./guard.js";
import { describeCall, JSON_RPC, jsonRpcError, requestId } from "./json-rpc.js";
import { McpEndpoints } from "./mcp-endpoint.js";
import { type Metrics, type Outcome, toolLabel } from "./metrics.js";
import { RequestOrigins } from "./request-origins.js";
import { type CallerScope, headerText, ScopeResolver } from "./scope.js";
import {
  acceptInLowerCase,
  invalidMessageProblem,
  modernMisfitOf,
  type UnsupportedVersion,
  unsupportedVersionOf,
} from "./sdk-contract.js";

export interface McpRouteOptions {
  readonly mcp: McpDeps;
  readonly settings: HttpSettings;
  readonly metrics: Metrics;
  /** Bytes of kept answers over all scopes; the default suits production. */
  readonly answerCacheBytes?: number;
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
  readonly scope: string | undefined;
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

/**
 * How many bytes of files the answers being made or sent may hold at once, over every request: one read
 * of the largest file a read carries. An answer spells its file again several times before it is sent (as
 * text or base64, as JSON, as bytes), some five times its size in all, so that parallel reads of large
 * files would otherwise take memory without bound (32 reads of a 15 MB file took a server past 1 GB).
 * A `skills/list` page weighs its entries, whose manifests may be large. Other requests never wait.
 */
const ANSWER_FILE_BYTES = 8 * 1024 * 1024;

const selectorSchema = { type: "string", maxLength: 1000 } as const;
/** Fastify reads a single `?pack=` as a list of one (its validator coerces to arrays). */
const selectorsSchema = { type: "array", items: selectorSchema, maxItems: 32 } as const;

/**
 * `POST /mcp`: MCP's Streamable HTTP, stateless, answering JSON, in both protocol eras, so that any
 * replica can answer any request. In order, a request passes the host check, load shedding, the rate limit
 * and the API key (before its body is read), then a batch is charged its other messages against the rate
 * limit, its scope is resolved from its header and query, and a server of the SDK bound to that scope
 * answers it, unless the same request was answered before. GET and DELETE (event streams and sessions)
 * are not offered.
 */
export async function mcpRoutes(app: FastifyInstance, options: McpRouteOptions): Promise<void> {
  const { settings, metrics, mcp } = options;
  const scopes = new ScopeResolver(mcp.catalog.everything);
  const fileBytes = new ByteBudget(ANSWER_FILE_BYTES);
  // A tool that fails inside a server is logged under the reqId of the POST it came in, as its request line.
  const origins = new RequestOrigins();
  const endpoints = new McpEndpoints(
    (scope) => serverFactoryFor(mcp, scope, (call) => ({ reqId: origins.reqIdOf(call) })),
    (error) => {
      // The SDK reports each request it refuses (a protocol error for the client); the request's own log
      // line says so already. Anything else went wrong in the server.
      const refusal = error instanceof ProtocolError || error.message.startsWith("Rejected");
      app.log[refusal ? "debug" : "error"]({ err: error }, "MCP handler");
    },
    { answerCacheBytes: options.answerCacheBytes, origins },
  );
  app.decorateRequest("mcpCall", null);

  if (settings.allowedHosts.length > 0) app.addHook("onRequest", hostGuard(settings.allowedHosts));
  if (settings.allowedOrigins.length > 0) {
    // @fastify/cors answers an OPTIONS to any path, and one that is no preflight (no Origin or no
    // Access-Control-Request-Method) with its own 400 in plain text. Only /mcp takes a browser's requests:
    // an OPTIONS to any other path is answered as without CORS (a 404 naming the routes), and one to /mcp
    // that is no preflight is a method /mcp does not take.
    app.addHook("onRequest", (request, reply, done) => {
      if (request.method !== "OPTIONS") {
        done();
        return;
      }
      if (request.routeOptions.url !== "/mcp") {
        reply.callNotFound();
        return;
      }
      const { origin, "access-control-request-method": asked } = request.headers;
      if (origin && asked) {
        done();
        return;
      }
      notAllowed(reply);
    });
    await registerCors(app, settings.allowedOrigins);
  }
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
  // The plugin counts one per request, before the body is read; a batch is charged its other messages
  // once read, or batches of a hundred would cost a client a hundredth of what their messages cost.
  const chargeBatch = settings.rateLimitPerMinute > 0 ? batchCharger(app) : undefined;
  const queuedAnswerBytes: QueuedAnswerBytes = new WeakMap();
  if (settings.apiKeys.length > 0) await registerApiKeys(app, settings.apiKeys);

  app.post<McpRequest>(
    "/mcp",
    {
      schema: {
        headers: { type: "object", properties: { "x-skill-pack": selectorSchema } },
        querystring: { type: "object", properties: { pack: selectorsSchema } },
      },
      // Before the body is read: one in a content coding was read as if it were not (a gzip body was
      // told it is not JSON, a brotli one declared but not compressed was served as plain).
      preParsing: (request, reply, _payload, done) => {
        const codings = codingsOf(request.headers["content-encoding"]);
        if (codings.length === 0) {
          done();
          return;
        }
        reply
          .code(415)
          .header("accept-encoding", "identity")
          .send(
            jsonRpcError(
              JSON_RPC.invalidRequest,
              `Unsupported content encoding: ${codings.join(", ").slice(0, 100)}; send the JSON-RPC message uncompressed, without Content-Encoding.`,
            ),
          );
      },
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
      const { body } = request;
      // Pipelined after a request whose connection was lost for answers it did not take: nothing to do.
      if (request.raw.socket.destroyed) return reply.code(503).send();
      acceptInLowerCase(request.raw.headers);
      if (chargeBatch !== undefined && Array.isArray(body) && body.length > 1) {
        const retryAfter = await chargeBatch(request, body.length - 1);
        if (retryAfter !== undefined) {
          return reply
            .code(429)
            .header("retry-after", retryAfter)
            .send(
              jsonRpcError(
                JSON_RPC.invalidRequest,
                `Rate limit exceeded, retry in ${retryAfter} seconds: each of the ${body.length} messages of this batch counts against the limit of ${settings.rateLimitPerMinute} a minute.`,
              ),
            );
        }
      }
      // A shape of ?pack= the client meant as a ceiling (?pack[]=a) must not go unread and show everything.
      const unknown = Object.keys(request.query).find((name) => name !== "pack");
      if (unknown !== undefined) {
        return reply
          .code(400)
          .send(
            jsonRpcError(
              JSON_RPC.invalidRequest,
              `Unknown query parameter ${JSON.stringify(unknown.slice(0, 100))}: /mcp takes only pack, repeated (?pack=a&pack=b) or as a comma list (?pack=a,b).`,
              requestId(body),
            ),
          );
      }
      if (Array.isArray(body) && body.length === 0) {
        return reply
          .code(400)
          .send(jsonRpcError(JSON_RPC.invalidRequest, "Invalid request: an empty batch."));
      }
      if (nestedDeeperThan(body, MAX_NESTING)) {
        return reply
          .code(400)
          .send(
            jsonRpcError(
              JSON_RPC.invalidRequest,
              `Invalid Request: JSON nested deeper than ${MAX_NESTING} levels; an MCP message needs a few.`,
              requestId(body),
            ),
          );
      }
      // Before the shape of a batch's members: a 2026-07-28 batch is refused whatever they hold.
      const misfit = modernMisfitOf(request.headers, body);
      if (misfit !== undefined) {
        return reply.code(400).send(jsonRpcError(JSON_RPC.invalidRequest, misfit));
      }
      const problem = invalidMessageProblem(request.headers, body);
      if (problem !== undefined) {
        return reply
          .code(400)
          .send(jsonRpcError(JSON_RPC.invalidRequest, `Invalid Request: ${problem}`, requestId(body)));
      }
      const unsupported = unsupportedVersionOf(request.headers, body);
      if (unsupported !== undefined) {
        const { requested, supported } = unsupported;
        return reply
          .code(400)
          .send(
            jsonRpcError(
              JSON_RPC.unsupportedProtocolVersion,
              unsupportedVersionMessage(
                unsupported,
                request.raw.headersDistinct["mcp-protocol-version"]?.length ?? 1,
              ),
              requestId(body),
              { supported, requested },
            ),
          );
      }
      const sent = request.headers["x-skill-pack"];
      // Node joins repeated headers with commas, which would read as a list: a ceiling that a proxy adds
      // beside the client's own header would widen to both.
      const copies = sent?.includes(",") ? (request.raw.headersDistinct["x-skill-pack"]?.length ?? 1) : 1;
      if (copies > 1) {
        return reply
          .code(400)
          .send(
            jsonRpcError(
              JSON_RPC.invalidRequest,
              `X-Skill-Pack was sent ${copies} times: send it once, with a comma list for several selectors (X-Skill-Pack: a,b); a proxy that sets it must replace the client's header, not add one.`,
              requestId(body),
            ),
          );
      }
      const header = sent === undefined ? undefined : headerText(sent);
      const query = request.query.pack?.join(",");
      // Read by the request's log line rather than bound to a child logger, which costs as much again.
      const { rpc, tool } = describeCall(body);
      const call: McpCall = { rpc, tool, scope: describeScope(header, query), failed: false };
      request.mcpCall = call;
      let caller: CallerScope;
      try {
        caller = scopes.resolve(header, query);
      } catch (error) {
        if (!(error instanceof SelectorError)) throw error;
        return reply.code(400).send(jsonRpcError(JSON_RPC.invalidRequest, error.message, requestId(body)));
      }
      // The era is told by the headers and the body, which the key holds: a kept answer needs no telling.
      const asked = endpoints.request(caller, request.raw, body, request.id);
      if (asked.kept !== undefined) return send(reply, asked.kept, queuedAnswerBytes);
      const weight = fileBytesOfBody(mcp, caller.scope, body);
      if (weight > fileBytes.limit) {
        return reply
          .code(400)
          .send(
            jsonRpcError(
              JSON_RPC.invalidRequest,
              `Invalid request: this batch may read ${formatSize(weight)} of files and skill entries, and one request may read at most ${formatSize(fileBytes.limit)}; send its reads in smaller batches.`,
            ),
          );
      }
      if (weight > 0) {
        // Held until the answer is sent or its connection lost: a client that does not read its answer
        // holds it in memory as surely as one being made.
        const free = await fileBytes.take(weight);
        reply.raw.once("close", free);
        if (reply.raw.closed) free();
      }
      const { answer, failed } = await asked.answer();
      // A client that stops taking an answer that holds a file loses its connection, and its share.
      if (weight > 0) reply.raw.setTimeout(settings.requestTimeoutMs);
      call.failed = failed;
      return send(reply, answer, queuedAnswerBytes);
    },
  );

  app.route({
    // OPTIONS too: the resource exists, so a method it does not take is a 405 naming POST, not a 404. A
    // browser's CORS preflight is answered before this, when ALLOWED_ORIGINS lists its origin.
    method: ["GET", "DELETE", "PUT", "PATCH", "OPTIONS"],
    url: "/mcp",
    // Answered before the body is read (after the API key): a PUT or PATCH whose body is not JSON, or
    // too large, is still a method this route does not take, not a body it could not parse. (A route
    // needs its handler too.)
    preParsing: (_request, reply, _payload, _done) => {
      notAllowed(reply);
    },
    handler: (_request, reply) => notAllowed(reply),
  });
}

/** The content codings a `Content-Encoding` header names but `identity` (no coding). */
function codingsOf(header: string | undefined): string[] {
  if (header === undefined) return [];
  return header
    .split(",")
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== "" && coding !== "identity");
}

/** 405 naming POST, the one method `/mcp` takes. */
function notAllowed(reply: FastifyReply): FastifyReply {
  return reply
    .code(405)
    .header("allow", "POST")
    .send(
      jsonRpcError(JSON_RPC.invalidRequest, "Method not allowed: this stateless server answers POST only."),
    );
}

/**
 * Counts `messages` more requests of the client against the rate limit, in the plugin's own counts; the
 * seconds until the client may send again once over it, else undefined.
 */
function batchCharger(
  app: FastifyInstance,
): (request: FastifyRequest, messages: number) => Promise<number | undefined> {
  const count = app.createRateLimit();
  return async (request, messages) => {
    for (let counted = 0; counted < messages; counted++) {
      const limit = await count(request);
      if (!limit.isAllowed && limit.isExceeded) return limit.ttlInSeconds;
    }
    return undefined;
  };
}

/**
 * Bytes of answers a connection may have waiting behind the one being sent, for its client to take them.
 * Node answers requests sent one after another on a connection (pipelined) without waiting for the client
 * to read: a kept `prompts/list` of some 27 KB asked in 50 bytes, sent a thousand times on each of 64
 * connections that never read, took a server past 2 GB.
 */
const QUEUED_ANSWER_BYTES = 8 * 1024 * 1024;
/** The bytes of answers each connection has been given and not yet taken. */
type QueuedAnswerBytes = WeakMap<Socket, number>;

function send(reply: FastifyReply, answer: Answer, queuedAnswerBytes: QueuedAnswerBytes): FastifyReply {
  // Only an answer queued behind another on its connection is counted: Node gives it the socket once those
  // before it are sent, so a client that waits for each answer, the common case, pays nothing here.
  if (reply.raw.socket === null) {
    const { socket } = reply.request.raw;
    const queued = queuedAnswerBytes.get(socket) ?? 0;
    if (queued > 0 && queued + answer.body.length > QUEUED_ANSWER_BYTES) {
      // A client that does not take its answers loses its connection, with what it asked.
      socket.destroy();
      return reply.code(503).send();
    }
    queuedAnswerBytes.set(socket, queued + answer.body.length);
    reply.raw.once("close", () =>
      queuedAnswerBytes.set(socket, (queuedAnswerBytes.get(socket) ?? 0) - answer.body.length),
    );
  }
  reply.code(answer.status);
  // Notifications only: accepted, and nothing to answer.
  if (answer.body.length === 0) return reply.send();
  return reply.header("content-type", answer.contentType).send(answer.body);
}

/** Refusals at the HTTP edge (4xx, and 503 from load shedding) are "rejected"; other 5xx are errors. */
function outcomeOf(status: number, call: McpCall | null): Outcome {
  if (status >= 500 && status !== 503) return "error";
  if (status >= 400) return "rejected";
  return call?.failed ? "error" : "ok";
}

/** The most bytes of files the answer to `body` may hold in `scope`: what each of its messages may read, summed. */
function fileBytesOfBody(mcp: McpDeps, scope: Scope, body: unknown): number {
  let bytes = 0;
  for (const message of Array.isArray(body) ? body : [body]) {
    const { method, params } = (message ?? {}) as { method?: unknown; params?: unknown };
    if (typeof method === "string") bytes += fileBytesOf(mcp, scope, method, params);
  }
  return bytes;
}

function describeScope(header: string | undefined, query: string | undefined): string | undefined {
  const parts = [header ? `header=${header}` : "", query ? `query=${query}` : ""].filter(Boolean);
  return parts.length > 0 ? parts.join(" ") : undefined;
}

/**
 * How deep a body's arrays and objects may nest: an MCP message nests five or six levels, and what reads
 * a message after this check (the SDK's schemas, the key of a kept answer) walks it recursively, so some
 * thousands of levels in a few kilobytes would overflow the stack.
 */
const MAX_NESTING = 64;

/** Whether `value` holds arrays or objects nested more than `limit` deep; walked without recursion. */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  // Only arrays and objects are stacked, with their depths beside them: a body is mostly strings.
  const containers: object[] = [];
  const depths: number[] = [];
  if (value !== null && typeof value === "object") {
    containers.push(value);
    depths.push(0);
  }
  for (let container = containers.pop(); container !== undefined; container = containers.pop()) {
    const depth = depths.pop() ?? 0;
    if (depth === limit) return true;
    for (const child of Object.values(container)) {
      if (child !== null && typeof child === "object") {
        containers.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/**
 * Node joins a header sent `copies` times with ", " (as the SDK's web Headers do), which names no version:
 * said as such, or a client sent "2025-11-25" twice read that 2025-11-25 is unsupported, and listed.
 */
function unsupportedVersionMessage({ requested, supported }: UnsupportedVersion, copies: number): string {
  const named =
    copies > 1
      ? `MCP-Protocol-Version was sent ${copies} times (${requested}); send it once, naming one version`
      : requested.trim() === ""
        ? "the MCP-Protocol-Version header is empty"
        : requested;
  // Only the 2026-07-28 refusal lists one version, its revision, which its data already names.
  const listed = supported.length > 1 ? ` (supported versions: ${supported.join(", ")})` : "";
  return `Unsupported protocol version: ${named}${listed}`;
}
