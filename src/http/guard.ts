import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest, HookHandlerDoneFunction, RequestPayload } from "fastify";
import { JSON_RPC, jsonRpcError } from "./json-rpc.js";

/** Headers a browser client may send to `/mcp`, announced in answers to CORS preflights. */
const CORS_ALLOWED_HEADERS =
  "authorization, content-type, accept, x-skill-pack, mcp-protocol-version, mcp-session-id, last-event-id";

/**
 * Refuses requests from web pages whose origin is not allowed (DNS rebinding, cross-site requests):
 * browsers always send `Origin` on a cross-site or non-GET request, while agents, n8n and curl send
 * none, so a request without `Origin` passes. An allowed origin gets the CORS header its browser needs.
 */
export function originGuard(allowedOrigins: readonly string[]) {
  const allowed = new Set(allowedOrigins);
  return (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction): void => {
    const origin = request.headers.origin;
    if (origin === undefined) {
      done();
    } else if (allowed.has(origin.toLowerCase())) {
      // Set on the raw response: /mcp answers through it after reply.hijack().
      reply.raw.setHeader("access-control-allow-origin", origin);
      reply.raw.setHeader("vary", "Origin");
      done();
    } else {
      refuseOrigin(reply, origin);
    }
  };
}

function refuseOrigin(reply: FastifyReply, origin: string): void {
  reply
    .code(403)
    .send(
      jsonRpcError(
        JSON_RPC.invalidRequest,
        `Origin ${JSON.stringify(origin.slice(0, 200))} is not allowed: requests from web pages are refused unless ALLOWED_ORIGINS lists their origin.`,
      ),
    );
}

/** The answer to a CORS preflight from an allowed origin (others were refused by originGuard). */
export function corsPreflight(_request: FastifyRequest, reply: FastifyReply): void {
  reply.raw.setHeader("access-control-allow-methods", "POST");
  reply.raw.setHeader("access-control-allow-headers", CORS_ALLOWED_HEADERS);
  reply.raw.setHeader("access-control-max-age", "600");
  reply.code(204).send();
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
    reply
      .code(403)
      .send(
        jsonRpcError(
          JSON_RPC.invalidRequest,
          "Host not allowed: this server answers only the host names listed in ALLOWED_HOSTS.",
        ),
      );
  };
}

function withoutPort(host: string): string {
  const colon = host.lastIndexOf(":");
  return colon > host.lastIndexOf("]") ? host.slice(0, colon) : host;
}

/**
 * Checks `Authorization: Bearer <key>` against the configured keys in constant time: every key is
 * compared, each as a SHA-256 digest, so neither the length nor the first differing byte of a key
 * shows in the time an answer takes.
 */
export class ApiKeyCheck {
  readonly #digests: readonly Buffer[];

  constructor(keys: readonly string[]) {
    this.#digests = keys.map(digest);
  }

  accepts(authorization: string | undefined): boolean {
    if (authorization === undefined) return false;
    const match = /^bearer +(\S+) *$/i.exec(authorization);
    if (!match?.[1]) return false;
    const presented = digest(match[1]);
    let accepted = false;
    for (const known of this.#digests) accepted = timingSafeEqual(known, presented) || accepted;
    return accepted;
  }
}

function digest(key: string): Buffer {
  return createHash("sha256").update(key).digest();
}

/** Runs before the body is read, so unauthenticated callers cannot make the server parse anything. */
export function apiKeyGuard(keys: readonly string[]) {
  const check = new ApiKeyCheck(keys);
  return (
    request: FastifyRequest,
    reply: FastifyReply,
    payload: RequestPayload,
    done: (error: Error | null, payload?: RequestPayload) => void,
  ): void => {
    if (check.accepts(request.headers.authorization)) {
      done(null, payload);
      return;
    }
    const invalid = request.headers.authorization !== undefined;
    reply
      .code(401)
      .header(
        "www-authenticate",
        invalid ? 'Bearer realm="skills-mcp", error="invalid_token"' : 'Bearer realm="skills-mcp"',
      )
      .send(
        jsonRpcError(
          JSON_RPC.unauthorized,
          invalid
            ? "Unauthorized: the API key is not valid."
            : "Unauthorized: send the API key as Authorization: Bearer <key>.",
        ),
      );
  };
}
