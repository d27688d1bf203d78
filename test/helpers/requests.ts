/**
 * JSON-RPC requests as clients of each protocol era put them on the wire, for tests that post raw
 * bodies: a 2026-07-28 request carries its envelope in `params._meta` and repeats its method (and the
 * name or URI it is about) in headers, which the server checks against the body.
 */

export type WireEra = "legacy" | "modern";

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientInfo": { name: "raw", version: "1" },
  "io.modelcontextprotocol/clientCapabilities": {},
};

interface WireRequest {
  readonly body: { jsonrpc: "2.0"; id: number | string; method: string; params?: Record<string, unknown> };
  readonly headers: Record<string, string>;
}

export function wireRequest(
  era: WireEra,
  id: number | string,
  method: string,
  params?: Record<string, unknown>,
): WireRequest {
  if (era === "legacy") {
    return { body: { jsonrpc: "2.0", id, method, ...(params ? { params } : {}) }, headers: {} };
  }
  const headers: Record<string, string> = { "mcp-protocol-version": "2026-07-28", "mcp-method": method };
  const named = params?.name ?? params?.uri;
  if (typeof named === "string") headers["mcp-name"] = named;
  const meta = { ...MODERN_META, ...(params?._meta as object | undefined) };
  return { body: { jsonrpc: "2.0", id, method, params: { ...params, _meta: meta } }, headers };
}

export function wireToolCall(
  era: WireEra,
  id: number | string,
  name: string,
  args: Record<string, unknown> = {},
): WireRequest {
  return wireRequest(era, id, "tools/call", { name, arguments: args });
}
