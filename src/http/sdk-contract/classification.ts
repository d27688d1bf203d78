import type { IncomingHttpHeaders } from "node:http";
import { JSONRPCMessageSchema } from "@modelcontextprotocol/core";
import { classifyInboundRequest, type InboundClassificationOutcome } from "@modelcontextprotocol/server";

/** Which era a request speaks, or that it is refused, as the SDK's entry tells it from headers and body. */
export function classify(headers: IncomingHttpHeaders, body: unknown): InboundClassificationOutcome {
  return classifyInboundRequest({
    httpMethod: "POST",
    protocolVersionHeader: joinedHeader(headers["mcp-protocol-version"]),
    mcpMethodHeader: joinedHeader(headers["mcp-method"]),
    mcpNameHeader: joinedHeader(headers["mcp-name"]),
    body,
  });
}

/**
 * Whether `value` is a JSON-RPC request, notification or response. Assumption: the SDK's schema of a
 * message is the union of those its four exported guards check (isJSONRPCRequest, isJSONRPCNotification,
 * isJSONRPCResultResponse, isJSONRPCErrorResponse), which its classification asks one by one: one parse
 * says what the four say.
 */
export function isJsonRpcMessage(value: unknown): boolean {
  return JSONRPCMessageSchema.safeParse(value).success;
}

/** Node joins a repeated header with ", ", as the web's Headers do. */
export function joinedHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value.join(", ") : value;
}
