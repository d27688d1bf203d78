import { type IncomingMessage, type ServerResponse, STATUS_CODES } from "node:http";
import type { Socket } from "node:net";
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from "fastify";
import { JSON_RPC, jsonRpcError, sendError } from "./json-rpc.js";
import type { Metrics } from "./metrics.js";

/**
 * Errors Node meets before a request reaches Fastify (a body slower than REQUEST_TIMEOUT_MS, headers too
 * large, bytes that are not HTTP), answered as Fastify's default handler answers them but with a JSON-RPC
 * error body, as every other error of this server is, and logged and counted as every other refused request
 * is (route "other", untimed: no request was read).
 */
export function clientErrorHandler(requestTimeoutMs: number, logger: FastifyBaseLogger, metrics: Metrics) {
  return (error: Error & { code?: string }, socket: Socket): void => {
    // A reset connection has no one left to answer.
    if (error.code === "ECONNRESET" || socket.destroyed) return;
    const [status, message] = describe(error.code, requestTimeoutMs);
    // No request was read, so no method, path or forwarded address: the connection's peer is the client.
    logger.info({ status, code: error.code, remoteAddress: socket.remoteAddress }, "request");
    metrics.recordHttp(undefined, undefined, status);
    const body = JSON.stringify(jsonRpcError(JSON_RPC.invalidRequest, message));
    if (socket.writable) {
      socket.write(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n` +
          `Content-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy(error);
  };
}

function describe(code: string | undefined, requestTimeoutMs: number): [number, string] {
  if (code === "ERR_HTTP_REQUEST_TIMEOUT") {
    return [408, `Request timeout: the whole request must arrive within ${requestTimeoutMs} ms.`];
  }
  if (code === "HPE_HEADER_OVERFLOW") return [431, "Request headers are too large."];
  return [400, "Bad request: this is not a well-formed HTTP request."];
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
