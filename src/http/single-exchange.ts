import type { IncomingHttpHeaders } from "node:http";
import {
  isInitializeRequest,
  isJsonContentType,
  type JSONRPCMessage,
  type JSONRPCRequest,
  type McpServer,
  parseJSONRPCMessage,
  SUPPORTED_PROTOCOL_VERSIONS,
  type Transport,
} from "@modelcontextprotocol/server";

/**
 * The 2025-era request almost every client sends: one JSON-RPC request, with headers the SDK's stateless
 * transport accepts. Undefined for anything else (a batch, a notification, a header it would refuse),
 * which that transport answers, with its own errors.
 *
 * The checks are the transport's own, in its order: it accepts both content types, sends JSON, and (but
 * for `initialize`) names a protocol version it supports or none. The message is parsed by the SDK's own
 * schema, as the transport parses it.
 */
export function singleRequestOf(headers: IncomingHttpHeaders, body: unknown): JSONRPCRequest | undefined {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return undefined;
  const accept = headers.accept;
  if (!accept?.includes("application/json") || !accept.includes("text/event-stream")) return undefined;
  if (!isJsonContentType(headers["content-type"])) return undefined;
  let message: JSONRPCMessage;
  try {
    message = parseJSONRPCMessage(body);
  } catch {
    return undefined;
  }
  if (!("method" in message) || !("id" in message)) return undefined;
  const version = headers["mcp-protocol-version"];
  if (version === undefined || (message.method === "initialize" && isInitializeRequest(message)))
    return message;
  return typeof version === "string" && SUPPORTED_PROTOCOL_VERSIONS.includes(version) ? message : undefined;
}

/**
 * The server's answer to one request, carried by a transport of the SDK's `Transport` interface that
 * holds nothing but that exchange. The SDK's stateless HTTP transport answers the same message the same,
 * but through a web Request and Response made and read back for every request: that costs more than the
 * search it answers.
 */
export async function answerSingle(server: McpServer, request: JSONRPCRequest): Promise<JSONRPCMessage> {
  const exchange = new SingleExchange();
  await server.connect(exchange);
  // Not closed after: once it has answered, the server holds no handler, timer or abort of this exchange,
  // and closing would only have the SDK build a "connection closed" error (a stack trace) for no one, a
  // twentieth of the CPU of a new search. The pair is garbage once this returns.
  return exchange.answer(request);
}

class SingleExchange implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  #request?: JSONRPCRequest;
  #answered?: (message: JSONRPCMessage) => void;

  async start(): Promise<void> {}

  /** The answer to the request; notifications on the way, which a JSON answer has no room for, are dropped. */
  async send(message: JSONRPCMessage): Promise<void> {
    if ("id" in message && message.id === this.#request?.id && !("method" in message))
      this.#answered?.(message);
  }

  async close(): Promise<void> {
    this.onclose?.();
  }

  answer(request: JSONRPCRequest): Promise<JSONRPCMessage> {
    return new Promise((resolve) => {
      this.#request = request;
      this.#answered = resolve;
      this.onmessage?.(request);
    });
  }
}
