import type { FastifyReply } from "fastify";
import type { TextProblem } from "../json-rpc/index.js";
import { excerpt, visible } from "../shared/index.js";

declare module "fastify" {
  interface FastifyRequest {
    /** What a refused or failed request was told (its JSON-RPC error, or a tool's refusal), for its log line. */
    failure: string | undefined;
    /** What the JSON body's text holds that refuses it (see textProblemIn): nesting too deep, a key held twice. */
    textProblem: TextProblem | undefined;
  }
}

/** JSON-RPC error codes used on the HTTP edge. */
export const JSON_RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  internalError: -32603,
  /**
   * Server-defined: the server cannot take the request now (overloaded, 503, or the client over its rate
   * limit, 429); retry after the answer's Retry-After.
   */
  unavailable: -32000,
  /** Server-defined: the request lacks a valid API key. */
  unauthorized: -32001,
  /** MCP 2026-07-28: the request names a protocol version the server does not implement. */
  unsupportedProtocolVersion: -32022,
} as const;

export interface JsonRpcErrorBody {
  jsonrpc: "2.0";
  error: { code: number; message: string; data?: unknown };
  id: string | number | null;
}

export function jsonRpcError(
  code: number,
  message: string,
  id: string | number | null = null,
  data?: unknown,
): JsonRpcErrorBody {
  return { jsonrpc: "2.0", error: data === undefined ? { code, message } : { code, message, data }, id };
}

/**
 * Sends `body`, an error this server made, keeping what it tells for the request's log line, which would
 * otherwise parse it back from the bytes sent.
 */
export function sendError(reply: FastifyReply, body: JsonRpcErrorBody): FastifyReply {
  reply.request.failure = failureIn(body);
  return reply.send(body);
}

/**
 * The id of a single JSON-RPC request body, so an HTTP-level error can still be matched to it; null for an
 * id MCP does not allow. A number past 2^53 was read as another (9007199254740993 as …992), and an answer
 * under it could be matched to another request of the client's. Null for a response too (a result or an
 * error, and no method): its id is one of the server's, and an answer under it could be matched to the
 * client's own request of that id.
 */
export function requestId(body: unknown): string | number | null {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return null;
  if (!("method" in body) && ("result" in body || "error" in body)) return null;
  const id = (body as { id?: unknown }).id;
  return typeof id === "string" || (typeof id === "number" && Number.isSafeInteger(id)) ? id : null;
}

/** The JSON-RPC method and, for tools/call, the tool: what the request log line says was asked. */
export function describeCall(body: unknown): { rpc?: string; tool?: string } {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return {};
  const { method, params } = body as { method?: unknown; params?: { name?: unknown } };
  return {
    rpc: typeof method === "string" ? method : undefined,
    tool: typeof params?.name === "string" ? params.name : undefined,
  };
}

/** The most characters of what a failed answer told that a log line carries: a refusal quotes what the client sent. */
const FAILURE_CHARACTERS = 300;

/**
 * What a parsed answer that failed told the client: its JSON-RPC error's message, or the text of a tool
 * result with isError (the first failing member's, for a batch), shown as the client's own text is in a
 * log line.
 */
export function failureIn(answer: unknown): string | undefined {
  for (const message of Array.isArray(answer) ? answer : [answer]) {
    const said = failureMessage(message);
    if (said !== undefined) return excerpt(visible(said), FAILURE_CHARACTERS);
  }
  return undefined;
}

function failureMessage(message: unknown): string | undefined {
  if (message === null || typeof message !== "object") return undefined;
  const { error, result } = message as { error?: { message?: unknown }; result?: unknown };
  if (typeof error?.message === "string") return error.message;
  const { isError, content } = (result ?? {}) as { isError?: unknown; content?: unknown };
  if (isError !== true || !Array.isArray(content)) return undefined;
  const texts = content.flatMap((part: { text?: unknown }) =>
    typeof part?.text === "string" ? [part.text] : [],
  );
  return texts.length > 0 ? texts.join(" ") : undefined;
}
