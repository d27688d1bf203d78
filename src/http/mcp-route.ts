import { ProtocolError } from "@modelcontextprotocol/server";
import type { FastifyInstance, FastifyReply } from "fastify";
import { ByteBudget } from "../budget/index.js";
import { type Scope, SelectorError } from "../catalog/index.js";
import type { HttpSettings } from "../config/index.js";
import { fileBytesOf, type McpDeps, requestsAsMeant, serverFactoryFor } from "../mcp/index.js";
import { AnswerSender } from "./answer-sender.js";
import { describeCall } from "./json-rpc.js";
import { McpEndpoints } from "./mcp-endpoint.js";
import { registerMcpGuards } from "./mcp-guards.js";
import {
  charsetRefusal,
  contentCodingRefusal,
  type McpPost,
  type McpRequest,
  messageRefusal,
  NOT_ALLOWED,
  Refusal,
  refuse,
  selectorsOverLimits,
  tooMuchToRead,
  transferCodingRefusal,
  unknownSelector,
} from "./mcp-refusals.js";
import { type Metrics, type Outcome, toolLabel } from "./metrics.js";
import { RequestOrigins } from "./request-origins.js";
import { type CallerScope, headerText, ScopeResolver } from "./scope.js";
import { acceptAsTheSdkReadsIt } from "./sdk-contract.js";

interface McpRouteOptions {
  readonly mcp: McpDeps;
  readonly settings: HttpSettings;
  readonly metrics: Metrics;
  /** Bytes of kept answers over all scopes; the default suits production. */
  readonly answerCacheBytes?: number;
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
  /** The endpoint's answer and what it told when it failed, which its log line takes rather than parse it again. */
  told?: { readonly body: Buffer; readonly failure: string | undefined };
}

declare module "fastify" {
  interface FastifyRequest {
    mcpCall: McpCall | null;
  }
}

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
 * replica can answer any request. In order, a request passes the guards (the host check, load shedding,
 * the rate limit and the API key, before its body is read), then a batch is charged its other messages
 * against the rate limit, the message checks (see mcp-refusals.ts), its scope is resolved from its header
 * and query, and a server of the SDK bound to that scope answers it, unless the same request was answered
 * before, and unless it may read more files than one request may. GET and DELETE (event streams and
 * sessions) are not offered.
 */
export async function mcpRoutes(app: FastifyInstance, options: McpRouteOptions): Promise<void> {
  const { settings, metrics, mcp } = options;
  const scopes = new ScopeResolver(mcp.catalog.everything);
  const fileBytes = new ByteBudget(ANSWER_FILE_BYTES);
  const sender = new AnswerSender();
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
  const chargeBatch = await registerMcpGuards(app, settings);

  app.post<McpRequest>(
    "/mcp",
    {
      schema: {
        headers: { type: "object", properties: { "x-skill-pack": selectorSchema } },
        querystring: { type: "object", properties: { pack: selectorsSchema } },
      },
      // Refused by the handler, in words that say what the limits are for, under the request's id.
      attachValidation: true,
      // Before the body is read: one in a transfer or content coding was read as if it were not (a gzip
      // body was told it is not JSON, a brotli one declared but not compressed was served as plain), and
      // one in a charset other than UTF-8 as if it were UTF-8.
      preParsing: (request, reply, _payload, done) => {
        const refused =
          transferCodingRefusal(request.headers["transfer-encoding"]) ??
          contentCodingRefusal(request.headers["content-encoding"]) ??
          charsetRefusal(request.headers["content-type"]);
        if (refused === undefined) done();
        else refuse(reply, refused);
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
      // Pipelined after a request whose connection was lost for answers it did not take: nothing to do.
      if (request.raw.socket.destroyed) return reply.code(503).send();
      if (request.validationError !== undefined)
        return refuse(reply, selectorsOverLimits(request.validationError, request.body));
      acceptAsTheSdkReadsIt(request.raw.headers);
      const batch = Array.isArray(request.body) ? request.body.length : 1;
      const overLimit = batch > 1 ? await chargeBatch?.(request, batch) : undefined;
      const refused = overLimit ?? messageRefusal(request);
      if (refused !== undefined) return refuse(reply, refused);
      // As the server reads it (a null cursor or `arguments` as none), also for a kept answer's key.
      const body = requestsAsMeant(request.body);
      const scopeAsked = scopeAskedFor(request);
      const call = startCall(request, scopeAsked);
      const caller = callerOf(scopes, scopeAsked, body);
      if (caller instanceof Refusal) return refuse(reply, caller);
      // The era is told by the headers and the body, which the key holds: a kept answer needs no telling.
      const asked = endpoints.request(caller, request.raw, body, request.id);
      const weight = fileBytesOfBody(mcp, caller.scope, body);
      // A kept answer holds the file as much as a new one: a client that stops taking it loses its
      // connection too (it kept the connection, and Node's buffer of the answers, for good).
      if (asked.kept !== undefined) {
        if (weight > 0) reply.raw.setTimeout(settings.requestTimeoutMs);
        return sender.send(reply, asked.kept);
      }
      if (weight > fileBytes.limit) return refuse(reply, tooMuchToRead(weight, fileBytes.limit));
      if (weight > 0) await holdUntilSent(reply, fileBytes, weight);
      const { answer, failed, failure } = await asked.answer();
      // A client that stops taking an answer that holds a file loses its connection, and its share.
      if (weight > 0) reply.raw.setTimeout(settings.requestTimeoutMs);
      call.failed = failed;
      call.told = { body: answer.body, failure };
      return sender.send(reply, answer);
    },
  );

  app.route({
    // Every other method Fastify takes (HEAD comes with GET), OPTIONS and TRACE too: the resource exists,
    // so a method it does not take is a 405 naming POST, not a 404 (TRACE was). A browser's CORS preflight
    // is answered before this, when ALLOWED_ORIGINS lists its origin.
    method: app.supportedMethods.filter((method) => method !== "POST" && method !== "HEAD"),
    url: "/mcp",
    // Answered before the body is read (after the API key): a PUT or PATCH whose body is not JSON, or
    // too large, is still a method this route does not take, not a body it could not parse. (A route
    // needs its handler too.)
    preParsing: (_request, reply, _payload, _done) => {
      refuse(reply, NOT_ALLOWED);
    },
    handler: (_request, reply) => refuse(reply, NOT_ALLOWED),
  });
}

/** The scope a request asks for: its X-Skill-Pack header, a comma list, and each `?pack=` it holds. */
interface ScopeAsked {
  readonly header: string | undefined;
  readonly query: readonly string[] | undefined;
}

function scopeAskedFor(request: McpPost): ScopeAsked {
  const sent = request.headers["x-skill-pack"];
  return {
    header: sent === undefined ? undefined : headerText(sent),
    query: request.query.pack,
  };
}

/**
 * The call `request` makes, as its log line and metrics tell it: read by them from the request rather than
 * bound to a child logger, which costs as much again.
 */
function startCall(request: McpPost, { header, query }: ScopeAsked): McpCall {
  const { rpc, tool } = describeCall(request.body);
  const call: McpCall = { rpc, tool, scope: describeScope(header, query), failed: false };
  request.mcpCall = call;
  return call;
}

/** The caller's scope, or the refusal of a selector that matches nothing, which names the valid ones. */
function callerOf(
  scopes: ScopeResolver,
  { header, query }: ScopeAsked,
  body: unknown,
): CallerScope | Refusal {
  try {
    return scopes.resolve(header, query);
  } catch (error) {
    if (!(error instanceof SelectorError)) throw error;
    return unknownSelector(error, body);
  }
}

/**
 * Takes `weight` bytes of the file budget, held until the answer is sent or its connection lost: a client
 * that does not read its answer holds it in memory as surely as one being made.
 */
async function holdUntilSent(reply: FastifyReply, fileBytes: ByteBudget, weight: number): Promise<void> {
  const free = await fileBytes.take(weight);
  reply.raw.once("close", free);
  if (reply.raw.closed) free();
}

/**
 * Refusals at the HTTP edge (4xx, 501 for a transfer coding, and 503 from load shedding) are "rejected";
 * other 5xx are errors.
 */
function outcomeOf(status: number, call: McpCall | null): Outcome {
  if (status >= 500 && status !== 501 && status !== 503) return "error";
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

function describeScope(header: string | undefined, query: readonly string[] | undefined): string | undefined {
  const joined = query?.join(",");
  const parts = [header ? `header=${header}` : "", joined ? `query=${joined}` : ""].filter(Boolean);
  return parts.length > 0 ? parts.join(" ") : undefined;
}
