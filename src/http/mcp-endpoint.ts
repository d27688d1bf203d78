import type { IncomingHttpHeaders, IncomingMessage } from "node:http";
import {
  classifyInboundRequest,
  createMcpHandler,
  type McpHttpHandler,
  type McpServer,
  WebStandardStreamableHTTPServerTransport,
} from "@modelcontextprotocol/server";
import type { Scope } from "../catalog/index.js";
import type { Answer } from "./answers.js";
import { answerSingle, singleRequestOf } from "./single-exchange.js";

/**
 * Which protocol era a request speaks, as the SDK tells it from its body and headers: `modern` for a
 * 2026-07-28 request (its `_meta` envelope), `legacy` for the 2025 handshake and what follows it, and
 * `refused` for what the SDK's own checks refuse (the modern path answers it, with the SDK's error).
 */
export type Era = "modern" | "legacy" | "refused";

export function eraOf(headers: IncomingHttpHeaders, body: unknown): Era {
  const outcome = classifyInboundRequest({
    httpMethod: "POST",
    protocolVersionHeader: single(headers["mcp-protocol-version"]),
    mcpMethodHeader: single(headers["mcp-method"]),
    mcpNameHeader: single(headers["mcp-name"]),
    body,
  });
  if (outcome.kind === "legacy") return "legacy";
  return outcome.kind === "modern" ? "modern" : "refused";
}

/** Node joins a repeated header with ", ", as the web's Headers do. */
function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(", ") : value;
}

/**
 * An answer, and whether it holds a JSON-RPC error or a tool result with isError: the metrics count those
 * as errors, and none of them is kept.
 */
export interface Answered {
  readonly answer: Answer;
  readonly failed: boolean;
}

/**
 * The MCP endpoint of one scope: every request gets a server of its own from `factory`, through the SDK's
 * handler for 2026-07-28 requests. In the 2025 era, one request goes through a transport that carries
 * just that exchange, and anything else (batches, notifications, what the SDK refuses) through the SDK's
 * stateless Streamable HTTP transport, answering JSON (the SDK's own 2025 leg would answer with an event
 * stream).
 */
export class McpEndpoint {
  readonly #modern: McpHttpHandler;

  constructor(
    private readonly factory: () => McpServer,
    onerror: (error: Error) => void,
  ) {
    this.#modern = createMcpHandler(factory, { legacy: "reject", onerror });
  }

  /** The SDK's answer to one POST whose body Fastify has parsed, read whole. */
  async answer(era: Era, raw: IncomingMessage, parsed: unknown): Promise<Answered> {
    const body = era === "legacy" ? withoutCancellations(parsed) : parsed;
    if (Array.isArray(body) && body.length === 0)
      return { answer: { status: 202, contentType: "", body: Buffer.alloc(0) }, failed: false };
    const single = era === "legacy" ? singleRequestOf(raw.headers, body) : undefined;
    if (single !== undefined) {
      const message = await answerSingle(this.factory(), single);
      const answer = {
        status: 200,
        contentType: "application/json",
        body: Buffer.from(JSON.stringify(message)),
      };
      return { answer, failed: !isSuccess(message) };
    }
    const request = webRequestOf(raw);
    const response =
      era === "legacy"
        ? await this.#legacy(request, body)
        : await this.#modern.fetch(request, { parsedBody: body });
    const answer = {
      status: response.status,
      contentType: response.headers.get("content-type") ?? "application/json",
      body: Buffer.from(await response.arrayBuffer()),
    };
    return { answer, failed: !succeeded(answer) };
  }

  async #legacy(request: Request, body: unknown): Promise<Response> {
    const server = this.factory();
    const transport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    await server.connect(transport);
    try {
      return await transport.handleRequest(request, { parsedBody: body });
    } finally {
      // Stateless: the pair serves this one request.
      await Promise.all([transport.close(), server.close()]);
    }
  }
}

/**
 * The request as the SDK's handlers take it: its method, URL and headers. Fastify has read and parsed the
 * body, which goes to the SDK as `parsedBody`, so the Request carries none (making one with the body
 * again cost a tenth of a new search).
 */
function webRequestOf(raw: IncomingMessage): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(raw.headers)) {
    if (typeof value === "string") headers.set(name, value);
    else if (value !== undefined) for (const item of value) headers.append(name, item);
  }
  return new Request(`http://${raw.headers.host ?? "localhost"}${raw.url ?? "/mcp"}`, {
    method: "POST",
    headers,
  });
}

/** Whether the answer's bytes hold no JSON-RPC error and no tool result with isError. */
function succeeded(answer: Answer): boolean {
  if (answer.status >= 400) return false;
  if (answer.body.length === 0) return true;
  let parsed: unknown;
  try {
    parsed = JSON.parse(answer.body.toString("utf8"));
  } catch {
    return false;
  }
  return (Array.isArray(parsed) ? parsed : [parsed]).every(isSuccess);
}

function isSuccess(message: unknown): boolean {
  if (message === null || typeof message !== "object" || "error" in message) return false;
  const { result } = message as { result?: { isError?: unknown } };
  return result === undefined || result.isError !== true;
}

/**
 * A batch less its cancellations. Stateless, a POST can only cancel a request of its own batch, and the
 * SDK's transport then never answers that POST: it would hang until the client gives up. Its requests are
 * answered instead.
 */
function withoutCancellations(body: unknown): unknown {
  if (!Array.isArray(body)) return body;
  return body.filter(
    (message) => (message as { method?: unknown } | null)?.method !== "notifications/cancelled",
  );
}

/** One endpoint per scope, made on its first request and dropped with the scope. */
export class McpEndpoints {
  readonly #endpoints = new WeakMap<Scope, McpEndpoint>();

  constructor(
    /** Makes what the servers of a scope share, once per scope; the factory it returns makes each. */
    private readonly factoryFor: (scope: Scope) => () => McpServer,
    private readonly onerror: (error: Error) => void,
  ) {}

  for(scope: Scope): McpEndpoint {
    let endpoint = this.#endpoints.get(scope);
    if (endpoint === undefined) {
      endpoint = new McpEndpoint(this.factoryFor(scope), this.onerror);
      this.#endpoints.set(scope, endpoint);
    }
    return endpoint;
  }
}
