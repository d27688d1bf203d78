/** JSON-RPC error codes used on the HTTP edge. */
export const JSON_RPC = {
  parseError: -32700,
  invalidRequest: -32600,
  internalError: -32603,
  /** Server-defined: the server cannot take the request now (overloaded); retry later. */
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

/** The id of a single JSON-RPC request body, so an HTTP-level error can still be matched to it. */
export function requestId(body: unknown): string | number | null {
  if (body === null || typeof body !== "object" || Array.isArray(body)) return null;
  const id = (body as { id?: unknown }).id;
  return typeof id === "string" || typeof id === "number" ? id : null;
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

/** The members a JSON-RPC request or notification may hold, as MCP's schema allows them. */
const MESSAGE_MEMBERS = ["jsonrpc", "id", "method", "params"];

/**
 * What makes `body` no JSON-RPC request or notification, said so that the client knows what to change;
 * undefined when it finds nothing (a response, or a fault it does not name), and for a valid message.
 */
export function messageShapeProblem(body: unknown): string | undefined {
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    return `the body is ${kindOf(body)}, where a JSON-RPC message is an object such as {"jsonrpc":"2.0","id":1,"method":"tools/list"}.`;
  }
  const message = body as Record<string, unknown>;
  if ("result" in message || "error" in message) return undefined;
  if (message.jsonrpc !== "2.0") {
    return `"jsonrpc" must be "2.0", ${"jsonrpc" in message ? `not ${shown(message.jsonrpc)}` : "and is missing"}.`;
  }
  if (!("method" in message))
    return `"method" is missing: a request or notification names its method, as "tools/list".`;
  if (typeof message.method !== "string") return `"method" must be a string, not ${kindOf(message.method)}.`;
  if ("id" in message && typeof message.id !== "string" && !Number.isSafeInteger(message.id)) {
    const notification = message.id === null ? " (a notification has no id at all)" : "";
    return `"id" must be a string or an integer of at most 2^53 - 1 in size, not ${shown(message.id)}${notification}.`;
  }
  const { params } = message;
  if (params !== undefined && (params === null || typeof params !== "object" || Array.isArray(params))) {
    return `"params" must be an object, not ${kindOf(params)}; leave it out when there are none.`;
  }
  const meta = (params as { _meta?: unknown } | undefined)?._meta;
  if (meta !== undefined && (meta === null || typeof meta !== "object" || Array.isArray(meta))) {
    return `"params._meta" must be an object, not ${kindOf(meta)}.`;
  }
  const other = Object.keys(message).find((member) => !MESSAGE_MEMBERS.includes(member));
  if (other !== undefined) {
    return `${JSON.stringify(other.slice(0, 100))} is no member of a JSON-RPC message: a request holds ${MESSAGE_MEMBERS.join(", ")} only.`;
  }
  return undefined;
}

function kindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}

/** A short JSON value as written, and any other by its kind. */
function shown(value: unknown): string {
  if (typeof value === "number" || typeof value === "boolean" || value === null) return JSON.stringify(value);
  if (typeof value === "string" && value.length <= 20) return JSON.stringify(value);
  return kindOf(value);
}
