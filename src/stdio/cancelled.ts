import { isJSONRPCNotification, type JSONRPCMessage, type RequestId } from "@modelcontextprotocol/server";

/** The request `message` cancels, when it is a `notifications/cancelled` naming one by a usable id. */
export function cancelledRequest(message: JSONRPCMessage): RequestId | undefined {
  if (!isJSONRPCNotification(message) || message.method !== "notifications/cancelled") return undefined;
  const cancelled = (message.params as { requestId?: unknown } | undefined)?.requestId;
  return typeof cancelled === "string" || typeof cancelled === "number" ? cancelled : undefined;
}
