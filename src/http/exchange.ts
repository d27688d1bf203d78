import type { IncomingHttpHeaders } from "node:http";
import { MAX_BATCH_SIZE } from "@modelcontextprotocol/sdk/server/requestBody.js";
import { isJsonContentType } from "@modelcontextprotocol/sdk/shared/mediaType.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  isInitializeRequest,
  type JSONRPCMessage,
  JSONRPCMessageSchema,
  type JSONRPCRequest,
  type JSONRPCResponse,
  type RequestId,
  SUPPORTED_PROTOCOL_VERSIONS,
} from "@modelcontextprotocol/sdk/types.js";
import { JSON_RPC, type JsonRpcErrorBody, jsonRpcError, requestId } from "./json-rpc.js";

/** A POST /mcp that the Streamable HTTP rules refuse before any message reaches the server. */
export interface Refusal {
  readonly status: number;
  readonly body: JsonRpcErrorBody;
}

/**
 * The JSON-RPC messages of a POST /mcp, checked by the rules of MCP's Streamable HTTP transport in JSON
 * response mode, in the order and with the answers of the SDK's own transport: what the client accepts,
 * what it sent, batch size, message shape, one initialize alone, and a protocol version the SDK speaks.
 */
export function readMessages(headers: IncomingHttpHeaders, body: unknown): JSONRPCMessage[] | Refusal {
  const accept = headers.accept;
  if (!accept?.includes("application/json") || !accept.includes("text/event-stream")) {
    return refusal(
      406,
      JSON_RPC.transportRule,
      "Not Acceptable: Client must accept both application/json and text/event-stream",
    );
  }
  if (!isJsonContentType(headers["content-type"])) {
    return refusal(
      415,
      JSON_RPC.transportRule,
      "Unsupported Media Type: Content-Type must be application/json",
    );
  }
  if (Array.isArray(body) && body.length > MAX_BATCH_SIZE) {
    return refusal(
      400,
      JSON_RPC.invalidRequest,
      `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`,
    );
  }
  if (nestedDeeperThan(body, MAX_NESTING)) {
    return refusal(
      400,
      JSON_RPC.invalidRequest,
      `Invalid Request: JSON nested deeper than ${MAX_NESTING} levels; an MCP message needs a few.`,
      requestId(body),
    );
  }
  const messages: JSONRPCMessage[] = [];
  for (const message of Array.isArray(body) ? body : [body]) {
    const parsed = JSONRPCMessageSchema.safeParse(message);
    if (!parsed.success) return refusal(400, JSON_RPC.parseError, "Parse error: Invalid JSON-RPC message");
    messages.push(parsed.data);
  }
  // The method first: the SDK's check parses every message with the initialize schema, and a failed
  // parse (every tools/call) builds an error only to be dropped.
  if (
    messages.some(
      (message) => "method" in message && message.method === "initialize" && isInitializeRequest(message),
    )
  ) {
    if (messages.length > 1) {
      return refusal(
        400,
        JSON_RPC.invalidRequest,
        "Invalid Request: Only one initialization request is allowed",
      );
    }
    return messages;
  }
  const header = headers["mcp-protocol-version"];
  // Node joins repeated unknown headers with ", ", as the SDK's web Headers do.
  const version = Array.isArray(header) ? header.join(", ") : header;
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
    const supported = SUPPORTED_PROTOCOL_VERSIONS.join(", ");
    return refusal(
      400,
      JSON_RPC.transportRule,
      `Bad Request: Unsupported protocol version: ${version} (supported versions: ${supported})`,
    );
  }
  return messages;
}

/**
 * What a message that passed JSONRPCMessageSchema is, told by its members: the schema's four shapes
 * differ in them, so this says what the SDK's own type guards would say without parsing again.
 */
export function isRequest(message: JSONRPCMessage): message is JSONRPCRequest {
  return "method" in message && "id" in message;
}

export function isResponse(message: JSONRPCMessage): message is JSONRPCResponse {
  return "result" in message || "error" in message;
}

export function isRefusal(read: JSONRPCMessage[] | Refusal): read is Refusal {
  return !Array.isArray(read);
}

function refusal(status: number, code: number, message: string, id: RequestId | null = null): Refusal {
  return { status, body: jsonRpcError(code, message, id) };
}

/**
 * How deep a body's arrays and objects may nest: an MCP message nests five or six levels, and what reads
 * a message after this check (the schemas, the key of a kept answer) walks it recursively, so some
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
 * Not handed on: a cancellation names a request id, and the server knows requests only by the ids this
 * transport gave them, so a client could otherwise cancel another client's request. Stateless, a client
 * has nothing in flight that a later POST could cancel; cancelling a request of the same batch would,
 * through the SDK's own transport, leave that POST without an answer.
 */
const CANCELLED = "notifications/cancelled";

interface Waiting {
  /** The id the client gave its request. */
  readonly id: RequestId;
  readonly answer: (message: JSONRPCResponse) => void;
}

/**
 * One long-lived transport between one MCP server and every HTTP request it answers, so the server is
 * built once instead of per request. Each POST hands in its messages and gets back the answers to its
 * requests. Request ids are renamed on the way in, so that concurrent clients that all send id 1 never
 * meet inside the server, and given back on the way out. Stateless: nothing outlives an exchange.
 */
export class ExchangeTransport implements Transport {
  onmessage?: Transport["onmessage"];
  onclose?: Transport["onclose"];
  onerror?: Transport["onerror"];
  #lastId = 0;
  readonly #waiting = new Map<number, Waiting>();

  async start(): Promise<void> {}

  async close(): Promise<void> {
    this.#waiting.clear();
    this.onclose?.();
  }

  /**
   * The server's answers. Anything else it might send (notifications, requests to the client) has no
   * stream to go to in stateless JSON mode, so it is dropped, as the SDK's transport would drop it.
   */
  async send(message: JSONRPCMessage): Promise<void> {
    if (!isResponse(message) || typeof message.id !== "number") return;
    const waiting = this.#waiting.get(message.id);
    if (waiting === undefined) return;
    this.#waiting.delete(message.id);
    waiting.answer({ ...message, id: waiting.id });
  }

  /**
   * Hands `messages` to the server; resolves with the answers to its requests, in their order (none when
   * it held only notifications). Responses from the client answer nothing (this server never asks the
   * client anything) and are dropped.
   */
  exchange(messages: readonly JSONRPCMessage[]): Promise<JSONRPCResponse[]> {
    const answers: Promise<JSONRPCResponse>[] = [];
    for (const message of messages) {
      if (isRequest(message)) answers.push(this.#request(message));
      else if (!isResponse(message) && message.method !== CANCELLED) this.onmessage?.(message);
    }
    return Promise.all(answers);
  }

  #request(request: JSONRPCRequest): Promise<JSONRPCResponse> {
    const id = ++this.#lastId;
    const answered = new Promise<JSONRPCResponse>((answer) =>
      this.#waiting.set(id, { id: request.id, answer }),
    );
    this.onmessage?.({ ...request, id });
    return answered;
  }
}
