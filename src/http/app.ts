import type { Server } from "node:http";
import type { Socket } from "node:net";
import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
  type onResponseHookHandler,
} from "fastify";
import type { HttpSettings } from "../config/index.js";
import { bytesAt, holdsMoreAfterValue, notUtf8At, textProblemIn } from "../json-rpc/index.js";
import type { McpDeps } from "../mcp/index.js";
import { isSaidSparingly, quoted, visible } from "../shared/index.js";
import { drainBounds, drained, worthDraining } from "./body-drain.js";
import {
  clientErrorHandler,
  connectRefused,
  expectationFailed,
  getOnly,
  notFound,
  PipelinedAnswers,
  UnframedRequests,
} from "./client-errors.js";
import { continueOnceBodyIsRead } from "./expect-continue.js";
import { originGuard, wellFormedRequest } from "./guard.js";
import { healthRoutes } from "./health-route.js";
import { failureIn, JSON_RPC, jsonRpcError, sendError } from "./json-rpc.js";
import { LINGER_BOUNDS, LingeringCloses } from "./lingering-close.js";
import { limitsPassed } from "./mcp-guards.js";
import { type McpCall, mcpRoutes } from "./mcp-route.js";
import { Metrics, metricsRoutes } from "./metrics.js";
import { Readiness } from "./readiness.js";

interface AppDeps {
  /** What every MCP server is built from; its catalog is also what /health and /metrics report on. */
  readonly mcp: McpDeps;
  readonly logger: FastifyBaseLogger;
  readonly settings: HttpSettings;
  /** Flipped by shutdown so that /health fails first; a new one never drains. */
  readonly readiness?: Readiness;
  /** Skills a high finding of the audit makes unsafe: left out, or served as UNSAFE_SKILLS=serve asked. */
  readonly unsafeSkills?: { readonly leftOut: number; readonly served: number };
  /** The connections closed lingering after a refused body; by default under LINGER_BOUNDS. */
  readonly lingering?: LingeringCloses;
}

/** The HTTP app: `/mcp`, `/health` and `/metrics`. Never listens and never reads the environment. */
export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const { settings } = deps;
  const { catalog, info, resources } = deps.mcp;
  const metrics = new Metrics(catalog, info.version);
  // The connections whose refused body is being read (body-drain.ts): one that ends mid-body is a client
  // gone, logged as the 413 it never read, not as a request cut short.
  const draining = new WeakSet<Socket>();
  const unframed = new UnframedRequests();
  const lingering = deps.lingering ?? new LingeringCloses(LINGER_BOUNDS);
  const pipelined = new PipelinedAnswers();
  const app = Fastify({
    loggerInstance: deps.logger,
    // One log line per request, written by the onResponse hook below with the tool and the scope.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: settings.maxBodyBytes,
    // Slow senders (slowloris) lose their connection; Node checks at this interval.
    requestTimeout: settings.requestTimeoutMs,
    // Longer than the idle timeout of what is in front, which may otherwise send a request on a connection
    // the server is closing (a 502 for its client): Fastify's 72 s outlasts AWS's ALB and ingress-nginx (60 s),
    // not Google's load balancers (600 s) or Envoy (1 h).
    keepAliveTimeout: settings.keepAliveTimeoutMs,
    http: {
      // Node checks the headers' timeout against the request's as it makes the server, before Fastify sets
      // the request's: left at Node's 300 s, a REQUEST_TIMEOUT_MS over it stopped the start.
      requestTimeout: settings.requestTimeoutMs,
      headersTimeout: settings.requestTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, settings.requestTimeoutMs),
    },
    // The client is the address this many proxies back in X-Forwarded-For.
    trustProxy:
      settings.trustProxyHops > 0 ? (_address: string, hop: number) => hop < settings.trustProxyHops : false,
    // A request that reached the server during shutdown is served, not refused: readiness failed
    // earlier, so load balancers have stopped sending new ones.
    return503OnClosing: false,
    clientErrorHandler: clientErrorHandler(
      settings.requestTimeoutMs,
      deps.logger,
      metrics,
      draining,
      unframed,
      lingering,
      pipelined,
    ),
    // `/mcp/` is a common way to write the endpoint's address.
    routerOptions: { ignoreTrailingSlash: true },
    // A path the router cannot decode (`/mcp%`), answered as every other error of this server is.
    frameworkErrors: badPath(metrics),
    // The routes' schemas are ours and fixed (the tests hold what they let through): checking them against
    // JSON Schema's own meta-schema compiled that meta-schema at every start, some 40 ms of it.
    ajv: { customOptions: { validateSchema: false } },
    // A `__proto__` or `constructor.prototype` key is valid JSON (a tool's argument may be named so), which
    // Fastify refused as a parse error. JSON.parse makes it an own member, never a prototype; nothing of
    // ours copies a body's members by assignment, and the SDK's schemas drop a `__proto__` they are given.
    onProtoPoisoning: PROTO_POISONING,
    onConstructorPoisoning: PROTO_POISONING,
  });
  answerPipelinedAfterHalfClose(app.server);
  app.server.on("checkExpectation", expectationFailed(metrics));
  // Before Fastify's own listener, which may answer the request at once.
  app.server.prependListener("request", unframed.came);
  app.server.prependListener("request", pipelined.came);
  app.server.on("connect", connectRefused(deps.logger, metrics));
  continueOnceBodyIsRead(app.server);

  // MCP speaks JSON only; without this, Fastify would parse text/plain bodies and hand them on.
  app.removeContentTypeParser("text/plain");
  parseJsonInOurWords(app);

  app.addHook("onRequest", wellFormedRequest());
  app.addHook("onRequest", originGuard(settings.allowedOrigins));

  // Once shutdown begins every answer closes its connection: a keep-alive connection that a request still
  // in flight at close leaves idle would otherwise hold the process until the grace period runs out.
  const readiness = deps.readiness ?? new Readiness();
  // A connection lingering after its refusal is owed nothing more: the stop closes it rather than wait
  // out its bounds (the server's close waits for every connection).
  app.addHook("preClose", (done) => {
    lingering.closeAll();
    done();
  });
  app.addHook("onSend", (request, reply, payload, done) => {
    if (readiness.draining) reply.header("connection", "close");
    // What a refused or failed request was told, for its log line: the line alone said only that it failed.
    // An error this server made said so as it was sent (see sendError).
    if (request.failure === undefined && (reply.statusCode >= 400 || request.mcpCall?.failed === true))
      request.failure = failureOf(request, payload);
    done();
  });
  app.decorateRequest("failure", undefined);
  app.decorateRequest("textProblem", undefined);

  const logsEveryRequest = deps.logger.level === "debug" || deps.logger.level === "trace";
  app.addHook("onResponse", answerRecorder(metrics, logsEveryRequest));

  app.setErrorHandler(errorHandler(settings, metrics, draining, lingering));

  await app.register(mcpRoutes, { mcp: deps.mcp, settings, metrics });
  await app.register(healthRoutes, {
    catalog,
    version: info.version,
    readiness,
    extensionSkills: resources.carried,
    unsafeSkills: deps.unsafeSkills ?? { leftOut: 0, served: 0 },
  });
  await app.register(metricsRoutes, { metrics });
  for (const url of ["/health", "/metrics"]) getOnly(app, url);
  // Last, so that the answer to no route has every hook above.
  await app.register(notFoundBeforeBody);
  return app;
}

/**
 * A client that sends its requests and then shuts down its side of the connection (a pipelining script,
 * `nc -N`) gets every answer, the connection closing after the last. Node's default ends the connection as
 * the client's side ends, and an answer not yet written when that end arrived was lost: such a client got
 * the answers already written or none at all. `httpAllowHalfOpen` is Node's own switch (undocumented, on
 * `http.Server` since its start) that marks the last answer queued as the connection's last instead.
 */
function answerPipelinedAfterHalfClose(server: Server): void {
  Object.assign(server, { httpAllowHalfOpen: true });
}

/**
 * A path no route serves is answered before its body is read: Fastify read and parsed it first, and sent
 * `Expect: 100-continue` its 100 Continue for a body no one wanted (see continueOnceBodyIsRead). The hook
 * that answers it lives in the not-found handler's own context: added to the app, it ran on every request
 * of every route, each time one more turn of Fastify's hook runner.
 */
async function notFoundBeforeBody(scope: FastifyInstance): Promise<void> {
  // Every request of this context is one no route serves: answered, it is never handed on.
  scope.addHook("preParsing", (request, reply, _payload, _done) => {
    notFound(request, reply);
  });
  scope.setNotFoundHandler(notFound);
}

/**
 * JSON bodies parsed by Fastify's own parser, its refusal worded as stdio words a line that is not JSON:
 * Fastify said "Body is not valid JSON but content-type is set to 'application/json'" of every body, which
 * names neither the common mistake (two messages sent as one) nor what to send.
 */
function parseJsonInOurWords(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser(PROTO_POISONING, PROTO_POISONING);
  app.removeContentTypeParser("application/json");
  // Read as bytes, which Fastify holds anyway: decoded to a string, a byte that is not UTF-8 became U+FFFD
  // without a word, and a query holding one was served as if it asked for something else.
  app.addContentTypeParser<Buffer>("application/json", { parseAs: "buffer" }, (request, body, done) => {
    const notUtf8 = notUtf8At(body);
    if (notUtf8 !== undefined) return done(notUtf8Error(body, notUtf8), undefined);
    const text = body.toString("utf8");
    parseJson(request, text, (error, parsed) => {
      if (error !== null) error.message = notJsonMessage(text);
      // Read from the bytes, which alone still hold both copies of a key; refused with the message checks.
      else request.textProblem = textProblemIn(body);
      done(error, parsed);
    });
  });
}

/**
 * A body that is not UTF-8, refused as no JSON is (400, -32700: JSON between systems is UTF-8, RFC 8259,
 * section 8.1), saying where its first byte that is not is, and that MCP's messages are UTF-8; and, when
 * it is no JSON even with each such byte read as U+FFFD (bytes of another format: a gzip body sent without
 * Content-Encoding, an image), that too, and what to send: told only of its encoding, such a client would
 * re-encode what is not JSON to begin with. Worked out only for a body already refused, so a request that
 * is UTF-8 pays nothing for it.
 */
function notUtf8Error(body: Buffer, offset: number): FastifyError {
  const where = `the body is not UTF-8 from byte offset ${offset} (counting from 0; the bytes there are ${bytesAt(body, offset)})`;
  const notJson = notJsonEither(body.toString("utf8"));
  const message =
    notJson === undefined
      ? `Parse error: ${where}; MCP messages are UTF-8: send the JSON-RPC message encoded in UTF-8.`
      : `Parse error: ${where}, and, with each such byte read as U+FFFD, ${notJson}`;
  return Object.assign(new Error(message), { code: NOT_UTF8, statusCode: 400, name: "NotUtf8" });
}

/** Why `text` (a body decoded as UTF-8, not empty) is no JSON, and what to send; undefined when it is JSON. */
function notJsonEither(text: string): string | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch {
    return notJsonReason(text);
  }
}

/**
 * Every answer counted and timed by route, method and status in /metrics (POST /mcp's also by tool, in
 * src/http/mcp-route.ts), and a log line for each refusal and failure; for every request only at debug
 * (`logsEveryRequest`): at info, a line per answer cost some 15% of the CPU of a cached answer
 * (docs/performance.md).
 */
function answerRecorder(metrics: Metrics, logsEveryRequest: boolean): onResponseHookHandler {
  return (request, reply, done) => {
    metrics.recordHttp(request.method, request.url, reply.statusCode, reply.elapsedTime / 1000);
    const failed = reply.statusCode >= 400 || request.mcpCall?.failed === true;
    // Built only when written: at info, every answered request paid for a line no one saw.
    if (!failed && !logsEveryRequest) return done();
    request.log[failed ? "info" : "debug"](
      {
        method: request.method,
        url: request.url,
        // The client, as the rate limit counts it (TRUST_PROXY): who is refused, or failing, and how often.
        ip: request.ip,
        status: reply.statusCode,
        ms: Math.round(reply.elapsedTime),
        ...describeMcpCall(request),
        error: request.failure,
      },
      "request",
    );
    done();
  };
}

/**
 * Every error's answer (see errorAnswer), that of a body over MAX_BODY_BYTES once the rest of it is read,
 * within bounds; when its client goes meanwhile, its log line and count, as of a 413 never read: answered on
 * a closed connection, the refusal was never reported as an answer, and the request left no trace.
 */
function errorHandler(
  settings: HttpSettings,
  metrics: Metrics,
  draining: WeakSet<Socket>,
  lingering: LingeringCloses,
): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => FastifyReply | Promise<void> {
  const errorAnswered = errorAnswer(settings);
  const bounds = drainBounds(settings.maxBodyBytes, settings.requestTimeoutMs);
  // A body refused with part of it still to come closes its connection lingering (see LingeringCloses).
  const answer = (error: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply => {
    if (error.code === BODY_TOO_LARGE && !request.raw.complete)
      lingering.closeAfterAnswer(request.raw.socket);
    return errorAnswered(error, request, reply);
  };
  return (error, request, reply) => {
    // Answered once the rest of the body is read (see drained): answered at once, the connection closed
    // with it unread, and a client still writing it was reset before it read the 413.
    if (error.code === BODY_TOO_LARGE && worthDraining(request.raw, bounds)) {
      const { socket } = request.raw;
      // Taken now: once the client is gone, its socket no longer knows its address.
      const { ip } = request;
      draining.add(socket);
      return drained(request.raw, bounds).then((end) => {
        draining.delete(socket);
        if (end === "answerable") answer(error, request, reply);
        else recordUnread(metrics, request, reply, { ip, error });
      });
    }
    return answer(error, request, reply);
  };
}

/** The log line and count of a 413 whose client went away before it could be sent, as answerRecorder writes them. */
function recordUnread(
  metrics: Metrics,
  request: FastifyRequest,
  reply: FastifyReply,
  { ip, error }: { readonly ip: string; readonly error: FastifyError },
): void {
  const status = 413;
  metrics.recordHttp(request.method, request.url, status, reply.elapsedTime / 1000);
  request.log.info(
    {
      method: request.method,
      url: request.url,
      ip,
      status,
      ms: Math.round(reply.elapsedTime),
      error: `${error.message} (the client went away while the rest of the body was read, before this answer)`,
    },
    "request",
  );
}

/**
 * Sends an error's answer: a JSON-RPC error object, its code by what went wrong, with Fastify's words for
 * the client's mistakes and nothing internal for the server's (logged instead); a shed request also warned
 * of, sparingly, per overload.
 */
function errorAnswer(
  settings: HttpSettings,
): (error: FastifyError, request: FastifyRequest, reply: FastifyReply) => FastifyReply {
  let shed = 0;
  let lastShedAt = Number.NEGATIVE_INFINITY;
  return (error, request, reply) => {
    const status = error.statusCode !== undefined && error.statusCode >= 400 ? error.statusCode : 500;
    if (error.code === SHED) {
      const now = Date.now();
      // A new overload, after a quiet spell, is counted afresh: counted on from the last one, it went
      // unsaid until the count reached the next power of ten.
      if (now - lastShedAt > SHED_QUIET_MS) shed = 0;
      lastShedAt = now;
      shed++;
      // Each shed request has its request line (503): said each time, the warning doubled what an
      // overloaded server wrote.
      if (isSaidSparingly(shed)) {
        // The shedding plugin decorates /mcp's own instance, which the request's server is.
        const over = limitsPassed(request.server.memoryUsage(), settings);
        request.log.warn({ ...describeMcpCall(request), shed, over }, "overloaded: request shed");
      }
      return sendError(reply.code(503), jsonRpcError(JSON_RPC.unavailable, error.message));
    }
    if (status >= 500) request.log.error({ err: error, ...describeMcpCall(request) }, "request failed");
    // Over the rate limit, the request is sound but cannot be taken now: a server error, as shedding's.
    const code = NOT_JSON.has(error.code)
      ? JSON_RPC.parseError
      : status === 429
        ? JSON_RPC.unavailable
        : JSON_RPC.invalidRequest;
    return sendError(
      reply.code(status),
      jsonRpcError(
        status >= 500 ? JSON_RPC.internalError : code,
        clientMessage(error, status, settings, request),
      ),
    );
  };
}

function badPath(metrics: Metrics) {
  return (_error: FastifyError, request: FastifyRequest, reply: FastifyReply): void => {
    // Answered outside every hook, so the request line is written and the answer counted here; Fastify's
    // request for it knows no proxies, so the address is the connection's, as for requests Node refuses
    // (client-errors.ts).
    request.log.info(
      {
        method: request.method,
        url: request.url,
        status: 400,
        remoteAddress: request.raw.socket.remoteAddress,
      },
      "request",
    );
    reply
      .code(400)
      .send(
        jsonRpcError(
          JSON_RPC.invalidRequest,
          "Bad request: the request target is not a valid path, as in POST /mcp (a % must start an escape such as %2F).",
        ),
      );
    metrics.recordHttp(request.method, request.url, 400, reply.elapsedTime / 1000);
  };
}

/**
 * The call a POST /mcp made, for its log lines: method, tool and scope (none for other routes). Each is
 * the client's own text, which JSON leaves raw outside C0 controls: a line separator, a C1 control such
 * as CSI or a bidi override is written `{U+2028}`, so that no client can forge or redraw a log line.
 */
function describeMcpCall(request: FastifyRequest): Omit<McpCall, "failed"> | undefined {
  const call = request.mcpCall;
  return call ? { rpc: shown(call.rpc), tool: shown(call.tool), scope: shown(call.scope) } : undefined;
}

/** The most bytes of an answer read for what it said: an error or a tool's refusal is a few hundred. */
const FAILURE_ANSWER_BYTES = 64 * 1024;

/**
 * What a failed answer told the client, for its log line: the endpoint's word for its own answer, which it
 * parsed already, else the answer's bytes read for it (an error some plugin sent).
 */
function failureOf(request: FastifyRequest, payload: unknown): string | undefined {
  const told = request.mcpCall?.told;
  if (told !== undefined && told.body === payload) return told.failure;
  const bytes = typeof payload === "string" || Buffer.isBuffer(payload) ? payload : undefined;
  if (bytes === undefined || bytes.length === 0 || bytes.length > FAILURE_ANSWER_BYTES) return undefined;
  try {
    return failureIn(JSON.parse(bytes.toString()));
  } catch {
    return undefined;
  }
}

function shown(text: string | undefined): string | undefined {
  return text === undefined ? undefined : visible(text);
}

/** What the JSON parser does with a `__proto__` or `constructor` key (see buildApp): reads it as any other. */
const PROTO_POISONING = "ignore";

/**
 * What a body that is not JSON is told (-32700): that it is empty, that it holds a whole JSON value and more
 * after it (two messages sent as one), or only that it is not JSON, and what to send instead.
 */
function notJsonMessage(body: string): string {
  if (body.trim() === "") return `Parse error: the body is empty; ${SEND_JSON}.`;
  return `Parse error: the body ${notJsonReason(body)}`;
}

/** What to send instead of a body that is no JSON. */
const SEND_JSON =
  'POST one JSON-RPC message (a JSON object, as {"jsonrpc":"2.0","id":1,"method":"tools/list"}) or a batch of them (a JSON array), in UTF-8';

/** Why `body`, not blank, is no JSON (after "the body"), and what to send instead. */
function notJsonReason(body: string): string {
  if (holdsMoreAfterValue(Buffer.from(body)))
    return "holds a whole JSON value and more after it; send several messages as a batch (one JSON array of them), or each in a POST of its own.";
  return `is not JSON; ${SEND_JSON}.`;
}

/** The code of the error for a body that is not UTF-8 (see parseJsonInOurWords). */
const NOT_UTF8 = "SKILLS_MCP_BODY_NOT_UTF8";

/**
 * The errors for a JSON body that is not JSON, Fastify's and ours: an empty one is no more JSON than a
 * broken one, nor is one that is not UTF-8.
 */
const NOT_JSON: ReadonlySet<string> = new Set([
  "FST_ERR_CTP_INVALID_JSON_BODY",
  "FST_ERR_CTP_EMPTY_JSON_BODY",
  NOT_UTF8,
]);

/** Fastify's error for a body over MAX_BODY_BYTES, by its Content-Length or as it arrived. */
const BODY_TOO_LARGE = "FST_ERR_CTP_BODY_TOO_LARGE";

/** The code of @fastify/under-pressure's error: load shedding, a refusal rather than a fault. */
const SHED = "FST_UNDER_PRESSURE";
/** A shed this long after the last one begins a new overload, warned of as the first was. */
export const SHED_QUIET_MS = 60_000;

/**
 * What the client is told: Fastify's own message for its mistakes, nothing internal for ours. A content
 * type refused is named, as sent, beside the one to send; a body too large, by its size beside the limit.
 */
function clientMessage(
  error: FastifyError,
  status: number,
  settings: HttpSettings,
  request: FastifyRequest,
): string {
  if (status >= 500) return "Internal server error";
  if (error.code === BODY_TOO_LARGE) {
    return tooLargeMessage(request.headers["content-length"], settings.maxBodyBytes);
  }
  if (error.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") {
    const contentType = request.headers["content-type"];
    const sent = contentType === undefined ? "none (no Content-Type)" : quoted(contentType);
    return `Unsupported content type ${sent}: send the JSON-RPC message as application/json.`;
  }
  return error.message;
}

/**
 * A body over `limit` bytes, told its size: its Content-Length, which Fastify refuses before reading any
 * of it, or, for a body sent without one (chunked), that more than the limit arrived before it was cut
 * off, no more of it being read to count the rest. It said only the limit, so a client could not tell
 * how far over it was.
 */
function tooLargeMessage(contentLength: string | undefined, limit: number): string {
  const declared = contentLength === undefined ? Number.NaN : Number(contentLength);
  const size = Number.isSafeInteger(declared)
    ? `it is ${declared} bytes (its Content-Length)`
    : "more than that arrived before it was cut off (it was sent without Content-Length, so its size is unknown)";
  return `Request body is too large: the limit is ${limit} bytes, and ${size}; send a smaller body (a batch's messages may go in several POSTs).`;
}
