import bearerAuth from "@fastify/bearer-auth";
import cors from "@fastify/cors";
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction } from "fastify";
import { LRUCache } from "lru-cache";
import { quoted } from "../shared/index.js";
import { endsInChunked, notChunkedLast } from "./client-errors.js";
import { JSON_RPC, jsonRpcError, sendError } from "./json-rpc.js";

/** Headers a browser client may send to `/mcp`, announced in answers to CORS preflights. */
const CORS_ALLOWED_HEADERS = [
  "authorization",
  "content-type",
  "accept",
  "x-skill-pack",
  "mcp-protocol-version",
  "mcp-method",
  "mcp-name",
  "mcp-session-id",
  "last-event-id",
];

/** What a Host header may hold: a name or address and a port, in URI characters (no `@`, `/`, `?`, `#`). */
const HOST_CHARACTERS = /^[\w.~!$&'()*+,;=%:[\]-]+$/;
/** Hosts found well formed, since a client sends the same one every time. */
const WELL_FORMED_HOSTS = 64;

/**
 * Refuses, with 400 and a JSON-RPC error saying what is wrong, a request whose line or Host header no web
 * URL can be made of: a target that is not a path (`POST http://evil/mcp`: this server is no proxy), a
 * Host header that is not a host and port (`x:99999`, `a b`, `a@b`), or two Host headers, which HTTP
 * refuses (RFC 9112 §3.2). Such a request reached the SDK as a web Request that could not be built: 500.
 * So is one whose Transfer-Encoding does not end in chunked, on every route, as RFC 9112, section 6.3, asks,
 * its answer closing the connection (see UnframedRequests): only /mcp refused it, and /health, /metrics or a
 * 404 answered it as any other request, or, when Node failed its body first, a raw 400 was written ahead of
 * the answers to requests sent before it on the connection, and read as theirs.
 */
export function wellFormedRequest() {
  const wellFormed = new LRUCache<string, true>({ max: WELL_FORMED_HOSTS });
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const codings = request.headers["transfer-encoding"];
    if (codings !== undefined && !endsInChunked(codings)) {
      sendError(reply.code(400), jsonRpcError(JSON_RPC.invalidRequest, notChunkedLast(codings)));
      return;
    }
    const problem = requestLineProblem(request, wellFormed);
    if (problem === undefined) {
      done();
      return;
    }
    sendError(reply.code(400), jsonRpcError(JSON_RPC.invalidRequest, `Bad request: ${problem}`));
  };
}

function requestLineProblem(request: FastifyRequest, wellFormed: LRUCache<string, true>): string | undefined {
  if (!request.raw.url?.startsWith("/")) {
    return "the request target must be a path, as in POST /mcp; this server is not a proxy and takes no absolute URL.";
  }
  const { host } = request.headers;
  // HTTP/1.0 may send none, and Node refuses an HTTP/1.1 request without one.
  if (host === undefined) return undefined;
  // Node keeps the first of several Host headers; a proxy in front may have read another.
  if (hostHeaders(request.raw.rawHeaders) > 1) return "more than one Host header; send one.";
  if (wellFormed.has(host)) return undefined;
  if (!HOST_CHARACTERS.test(host) || !URL.canParse(`http://${host}`)) {
    return `the Host header ${quoted(host, 200)} is not a host name or address with an optional port (1 to 65535).`;
  }
  wellFormed.set(host, true);
  return undefined;
}

/** How many Host headers `rawHeaders` (names and values, one after the other) hold. */
function hostHeaders(rawHeaders: readonly string[]): number {
  let count = 0;
  for (let at = 0; at < rawHeaders.length; at += 2) {
    const name = rawHeaders[at];
    if (name?.length === 4 && name.toLowerCase() === "host") count++;
  }
  return count;
}

/**
 * Refuses requests from web pages whose origin is not allowed (DNS rebinding, cross-site requests):
 * browsers always send `Origin` on a cross-site or non-GET request, while agents, n8n and curl send
 * none, so a request without `Origin` passes. The CORS answers for allowed origins are @fastify/cors's.
 */
export function originGuard(allowedOrigins: readonly string[]) {
  const allowed = new Set(allowedOrigins);
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const origin = request.headers.origin;
    if (origin === undefined || allowed.has(origin.toLowerCase())) {
      done();
      return;
    }
    refuse(
      reply,
      `Origin ${quoted(origin, 200)} is not allowed: requests from web pages are refused unless ALLOWED_ORIGINS lists their origin.`,
    );
  };
}

/** CORS answers, preflights included, for the origins ALLOWED_ORIGINS lists. */
export async function registerCors(app: FastifyInstance, allowedOrigins: readonly string[]): Promise<void> {
  await app.register(cors, {
    origin: [...allowedOrigins],
    methods: ["POST"],
    allowedHeaders: CORS_ALLOWED_HEADERS,
    maxAge: 600,
  });
}

/**
 * Refuses a `Host` header that is not listed: a DNS-rebinding page reaches the server under the
 * attacker's host name. A listed `host` matches any port; a listed `host:port` only that port.
 */
export function hostGuard(allowedHosts: readonly string[]) {
  const allowed = new Set(allowedHosts);
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const host = request.headers.host?.toLowerCase();
    if (host !== undefined && (allowed.has(host) || allowed.has(withoutPort(host)))) {
      done();
      return;
    }
    // The host as sent: what an operator compares with ALLOWED_HOSTS (a proxy may send the pod's address).
    const sent = request.headers.host;
    const refused = sent === undefined ? "A request without Host" : `Host ${quoted(sent, 200)}`;
    refuse(
      reply,
      `${refused} is not allowed: this server answers only the host names listed in ALLOWED_HOSTS.`,
    );
  };
}

/** 403 with a JSON-RPC error saying why, as every refusal of this server is answered. */
function refuse(reply: FastifyReply, message: string): void {
  sendError(reply.code(403), jsonRpcError(JSON_RPC.invalidRequest, message));
}

function withoutPort(host: string): string {
  const colon = host.lastIndexOf(":");
  return colon > host.lastIndexOf("]") ? host.slice(0, colon) : host;
}

/**
 * Requires `Authorization: Bearer <key>` on the routes of `app`, checked before the body is read, so
 * that unauthenticated callers cannot make the server parse anything. @fastify/bearer-auth compares the
 * key in constant time; a refusal is a 401 with a JSON-RPC error and the challenge RFC 6750 asks for.
 */
export async function registerApiKeys(app: FastifyInstance, keys: readonly string[]): Promise<void> {
  await app.register(bearerAuth, {
    keys: [...keys],
    // Bearer or bearer: the scheme is case-insensitive (RFC 9110).
    specCompliance: "rfc6749",
    addHook: false,
    verifyErrorLogLevel: "debug",
  });
  const { verifyBearerAuth } = app;
  if (verifyBearerAuth === undefined) throw new Error("@fastify/bearer-auth did not decorate the app");
  app.addHook("preParsing", (request, reply, _payload, done) => {
    verifyBearerAuth(request, reply, (error) => {
      if (error === undefined) {
        done();
        return;
      }
      const invalid = request.headers.authorization !== undefined;
      sendError(
        reply
          .code(401)
          .header(
            "www-authenticate",
            invalid ? 'Bearer realm="skills-mcp", error="invalid_token"' : 'Bearer realm="skills-mcp"',
          ),
        jsonRpcError(
          JSON_RPC.unauthorized,
          invalid
            ? "Unauthorized: the API key is not valid."
            : "Unauthorized: send the API key as Authorization: Bearer <key>.",
        ),
      );
    });
  });
}
