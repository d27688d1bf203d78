import { findTool } from "./server.js";

/**
 * A client's message with a `tools/call`'s `arguments` as the server reads them, before the SDK's check of
 * the request (which a handler cannot relax: the SDK's `tools/call` wrapper checks its params first):
 *
 * - `"arguments": null` reads as no arguments. MCP's schema has `arguments` an optional object, but clients
 *   built on models (n8n's MCP Client Tool, agent frameworks serializing an empty tool input) send null
 *   for none, and the SDK refused it with a dump of its schema's issues that says nothing a model can fix.
 *   A tool that needs an argument still answers that it is missing, as for a call without `arguments`.
 * - A call naming no tool of the four has its `arguments` left out whatever they are, so that it is
 *   answered as unknown, naming the tools, as a call with an object is: the SDK refused arguments that are
 *   no object first, and a client that mistyped the name was told of its arguments instead.
 *
 * Anything else, a batch member included (see {@link toolCallsAsMeant}), is returned as it is.
 */
export function toolCallAsMeant(message: unknown): unknown {
  if (!isPlainObject(message) || message.method !== "tools/call" || !isPlainObject(message.params))
    return message;
  const { params } = message;
  if (!Object.hasOwn(params, "arguments")) return message;
  const unknownTool = typeof params.name === "string" && findTool(params.name) === undefined;
  if (params.arguments !== null && !(unknownTool && !isPlainObject(params.arguments))) return message;
  const { arguments: _left, ...rest } = params;
  return { ...message, params: rest };
}

/** A POST's body with each message as {@link toolCallAsMeant} makes it: a batch's members one by one. */
export function toolCallsAsMeant(body: unknown): unknown {
  if (!Array.isArray(body)) return toolCallAsMeant(body);
  const meant = body.map(toolCallAsMeant);
  return meant.some((message, index) => message !== body[index]) ? meant : body;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
