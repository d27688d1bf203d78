import { type IncomingMessage, type ServerResponse, STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { quoted } from "../shared/index.js";
import { JSON_RPC, jsonRpcError, sendError } from "./json-rpc.js";
import type { LingeringCloses } from "./lingering-close.js";
import type { Metrics } from "./metrics.js";

/**
 * Errors Node meets before a request reaches Fastify (a body slower than REQUEST_TIMEOUT_MS, headers too
 * large, bytes that are not HTTP), answered as Fastify's default handler answers them but with a JSON-RPC
 * error body, as every other error of this server is, and logged and counted as every other refused request
 * is (route "other", untimed: no request was read).
 */
export function clientErrorHandler(
  requestTimeoutMs: number,
  logger: FastifyBaseLogger,
  metrics: Metrics,
  draining: WeakSet<Socket>,
  unframed: UnframedRequests,
  lingering: LingeringCloses,
  pipelined: PipelinedAnswers,
) {
  return (error: Error & { code?: string; reason?: string }, socket: Socket): void => {
    // A reset connection has no one left to answer; one whose refused body was being read is logged and
    // counted as the 413 it no longer reads (see errorHandler in app.ts), not as a request cut short.
    if (error.code === "ECONNRESET" || socket.destroyed) return;
    // Answered, and read only to be thrown away (a body's rest, a request's timeout): its bounds close it.
    if (lingering.has(socket)) return;
    // Its route has answered it, logged and counted: a second answer would be read as that of the next request.
    if (draining.has(socket) || (error.code === NOT_CHUNKED_LAST && unframed.written(socket))) {
      socket.destroy(error);
      return;
    }
    // Its route answers it, once those sent before it are answered, and Node then closes the connection.
    if (error.code === NOT_CHUNKED_LAST && unframed.answered(socket)) return;
    // Node goes on failing each byte that comes after its error: the refusal is sent once.
    if (pipelined.refusing(socket)) return;
    const refuse = (): void => {
      const [status, message] = describe(error, requestTimeoutMs);
      // No request was read, so no method, path or forwarded address: the connection's peer is the client.
      logger.info({ status, code: error.code, remoteAddress: socket.remoteAddress }, "request");
      metrics.recordHttp(undefined, undefined, status);
      if (socket.writable) socket.write(rawAnswer(status, message));
      // Closed lingering: destroyed with the bytes after the error unread, the connection was reset, and the
      // reset threw away what the client had not read yet, this refusal and the answers pipelined before it.
      lingering.close(socket);
    };
    const before = pipelined.unwritten(socket);
    if (before === undefined) {
      refuse();
      return;
    }
    // Written at once, the refusal was read as the answer to a request sent before it, whose own answer
    // the close then cut off.
    before.once("finish", refuse);
    // A client that shuts down its side has Node end the connection as the answer it takes for the last is
    // written (`destroySoon`), before the refusal, which Node knows nothing of, is: the refusal ends it.
    socket.destroySoon = () => {};
    before.once("close", () => {
      if (!before.writableFinished) socket.destroy(error);
    });
  };
}

/**
 * The answers of the requests pipelined on each connection, so that an error Node meets in what comes
 * after them (a header too large, bytes that are not HTTP, a body's chunk that is not one) is answered
 * after them, as the client reads answers: in the order of its requests.
 */
export class PipelinedAnswers {
  readonly #last = new WeakMap<Socket, ServerResponse>();
  /** The answer queued before each answer not yet written, while that one is not written either. */
  readonly #before = new WeakMap<ServerResponse, ServerResponse>();
  readonly #refusing = new WeakSet<Socket>();

  /** Told of every request as it comes, before its route. */
  readonly came = ({ socket }: IncomingMessage, response: ServerResponse): void => {
    const before = this.#last.get(socket);
    if (before !== undefined && !before.writableFinished) this.#before.set(response, before);
    this.#last.set(socket, response);
  };

  /**
   * The last answer on `socket` that its refusal must follow, when it is not written yet: that of the last
   * request, or, when the error is in that request's own body (it is not complete), that of the one before.
   */
  unwritten(socket: Socket): ServerResponse | undefined {
    const last = this.#last.get(socket);
    const answered = last === undefined || last.req.complete ? last : this.#before.get(last);
    return answered === undefined || answered.writableFinished || answered.destroyed ? undefined : answered;
  }

  /** Whether `socket`'s refusal is already decided on, marking it so. */
  refusing(socket: Socket): boolean {
    if (this.#refusing.has(socket)) return true;
    this.#refusing.add(socket);
    return false;
  }
}

/**
 * A CONNECT request (a client taking this server for a proxy), answered 400 as a request target that is
 * not a path is (see wellFormedRequest), logged and counted as the errors above: without a listener, Node
 * closed its connection without a word.
 */
export function connectRefused(logger: FastifyBaseLogger, metrics: Metrics) {
  return (request: IncomingMessage, socket: Socket): void => {
    const status = 400;
    logger.info(
      { method: request.method, url: request.url, status, remoteAddress: socket.remoteAddress },
      "request",
    );
    metrics.recordHttp(request.method, request.url, status);
    socket.on("error", () => {});
    // Handed over by Node, the connection is ours to close, once the answer is written.
    socket.end(
      rawAnswer(
        status,
        "Bad request: the request target must be a path, as in POST /mcp; this server is not a proxy and takes no CONNECT.",
      ),
      () => socket.destroy(),
    );
  };
}

/** An answer written on the connection itself, where Node has no response to write it with, closing it. */
function rawAnswer(status: number, message: string): string {
  const body = JSON.stringify(jsonRpcError(JSON_RPC.invalidRequest, message));
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
    `Content-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`
  );
}

function describe(
  { code, reason }: { code?: string; reason?: string },
  requestTimeoutMs: number,
): [number, string] {
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") {
    return [408, `Request timeout: the whole request must arrive within ${requestTimeoutMs} ms.`];
  }
  if (code === "HPE_HEADER_OVERFLOW") return [431, "Request headers are too large."];
  // A method Node's parser knows no name of (`FOO /mcp`, `post`), or bytes that begin with none: said so,
  // where it was told only that the request is not well-formed HTTP.
  if (code === "HPE_INVALID_METHOD")
    return [
      400,
      "Bad request: the request does not begin with a method HTTP knows, such as POST; MCP is served at POST /mcp.",
    ];
  if (code === NOT_CHUNKED_LAST)
    return [400, reason === CODINGS_UNREAD ? codingsUnread() : notChunkedLast(undefined)];
  if (code === "HPE_INVALID_CONTENT_LENGTH" && reason === CONTENT_LENGTH_AND_CODING)
    return [
      400,
      "Bad request: the request has both a Transfer-Encoding and a Content-Length, which disagree on where its body ends (RFC 9112, section 6.3); send the JSON-RPC message with a Content-Length alone, or with Transfer-Encoding: chunked alone.",
    ];
  return [400, "Bad request: this is not a well-formed HTTP request."];
}

/** What Node's parser says of a request holding both a Transfer-Encoding and a Content-Length. */
const CONTENT_LENGTH_AND_CODING = "Content-Length can't be present with Transfer-Encoding";

/** Node's code for a request whose Transfer-Encoding does not end in chunked: its body has no length to tell. */
const NOT_CHUNKED_LAST = "HPE_INVALID_TRANSFER_ENCODING";

/**
 * What Node's parser says, as it reads the headers, of a Transfer-Encoding naming a coding after chunked
 * (`chunked, gzip`) or chunked twice (`chunked, chunked`, or the header sent twice), which it tells apart
 * from nothing else of the kind; one not ending in chunked at all (`gzip`) reaches its route instead. A
 * parser wording it otherwise has its refusal say only that chunked must come last, as before.
 */
const CODINGS_UNREAD = "Invalid `Transfer-Encoding` header value";

/**
 * The refusal of a request whose Transfer-Encoding names a coding after chunked or chunked twice: told only
 * that it must end in chunked, a client that sent chunked twice was told to do what it did.
 */
function codingsUnread(): string {
  return "Bad request: a Transfer-Encoding must name chunked once, and last, or where the body ends cannot be told (RFC 9112, sections 6.1 and 6.3); this server takes only chunked: send the JSON-RPC message with Transfer-Encoding: chunked alone, or with a Content-Length.";
}

/**
 * The refusal of a request whose Transfer-Encoding (`header`, where known) does not end in chunked, so that
 * where its body ends cannot be told (RFC 9112, section 6.3, asks for 400 and a closed connection).
 */
export function notChunkedLast(header: string | undefined): string {
  const named =
    header === undefined ? "a Transfer-Encoding" : `Transfer-Encoding ${quoted(header.slice(0, 200))}`;
  return `Bad request: ${named} must end in chunked, or where the body ends cannot be told (RFC 9112, section 6.3); this server takes only chunked: send the JSON-RPC message with Transfer-Encoding: chunked alone, or with a Content-Length.`;
}

/** Whether the transfer codings `header` lists end in chunked, as a request's body must (RFC 9112, section 6.3). */
export function endsInChunked(header: string): boolean {
  const last = header.slice(header.lastIndexOf(",") + 1).trim();
  return last.toLowerCase() === "chunked";
}

/**
 * The requests whose Transfer-Encoding does not end in chunked, each known by its response: Node hands such
 * a request to its route, then fails its body, and the route's answer is the one its client reads, after
 * those of any requests sent before it on the connection (a raw answer written at once was read as theirs).
 */
export class UnframedRequests {
  readonly #responses = new WeakMap<Socket, ServerResponse>();

  /**
   * Told of every request as it comes, before its route: only one with a Transfer-Encoding is kept, its
   * answer saying the connection closes, as Node then closes it: its body has no end to find.
   */
  readonly came = ({ headers, socket }: IncomingMessage, response: ServerResponse): void => {
    const codings = headers["transfer-encoding"];
    if (codings === undefined || endsInChunked(codings)) return;
    response.setHeader("connection", "close");
    this.#responses.set(socket, response);
  };

  /** Whether the last such request on `socket` has been answered by its route, or will be. */
  answered(socket: Socket): boolean {
    return this.#responses.has(socket);
  }

  /** Whether that answer is written whole: nothing more is to come on `socket`. */
  written(socket: Socket): boolean {
    return this.#responses.get(socket)?.writableFinished === true;
  }
}

/**
 * A request whose `Expect` header asks anything but `100-continue`, which Node refuses with 417 before
 * Fastify sees it: answered with a JSON-RPC error body, as every other error of this server is, rather
 * than Node's empty one. Counted by its route, untimed: Fastify never had it.
 */
export function expectationFailed(metrics: Metrics) {
  return (request: IncomingMessage, response: ServerResponse): void => {
    metrics.recordHttp(request.method, request.url, 417);
    const body = JSON.stringify(
      jsonRpcError(
        JSON_RPC.invalidRequest,
        "Expectation failed: the only Expect this server takes is 100-continue.",
      ),
    );
    response.writeHead(417, {
      "content-type": "application/json; charset=utf-8",
      "content-length": Buffer.byteLength(body),
    });
    response.end(body);
  };
}

/**
 * Every other method on `url`, a route that answers GET (and HEAD, which Fastify adds): 405 naming them, as
 * `/mcp` answers a method it does not take, rather than a 404 saying the route does not exist. No CORS
 * headers: only `/mcp` takes a browser's requests, so a preflight here fails as before.
 */
export function getOnly(app: FastifyInstance, url: string): void {
  const refuse = (reply: FastifyReply) =>
    sendError(
      reply.code(405).header("allow", "GET, HEAD"),
      jsonRpcError(
        JSON_RPC.invalidRequest,
        `Method not allowed: ${url} answers GET (and HEAD) only; MCP is served at POST /mcp.`,
      ),
    );
  app.route({
    method: app.supportedMethods.filter((method) => method !== "GET" && method !== "HEAD"),
    url,
    // Answered before any body is read: a POST whose body is not JSON is still a method not taken here.
    preParsing: (_request, reply, _payload, _done) => {
      refuse(reply);
    },
    handler: (_request, reply) => refuse(reply),
  });
}

/** Any route but `/mcp`, `/health` and `/metrics`: a JSON-RPC error that says where MCP is served. */
export function notFound(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const path = request.url.split("?")[0] ?? request.url;
  return sendError(
    reply.code(404),
    jsonRpcError(
      JSON_RPC.invalidRequest,
      `No route ${request.method} ${path}: MCP is served at POST /mcp; GET /health and GET /metrics report on the server.`,
    ),
  );
}
