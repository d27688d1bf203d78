import { findTool } from "./server.js";

/**
 * A client's message with its params as the server reads them, before the SDK checks them (which a
 * handler cannot relax: the SDK's `tools/call` wrapper checks its params first):
 *
 * - `null` for an optional member reads as the member left out: `"arguments": null` of a `tools/call` or
 *   a `prompts/get`, `"cursor": null` of a listing. MCP's schema has them optional, an object and a
 *   string, but clients built on models (n8n's MCP Client Tool, agent frameworks serializing an empty tool
 *   input, a typed client's unset field) send null for none, and the SDK refused it with a dump of its
 *   schema's issues (a null cursor as an internal error, -32603) that says nothing a model can fix. A tool
 *   that needs an argument still answers that it is missing, as for a call without `arguments`.
 * - A call naming no tool of the four has its `arguments` left out whatever they are, so that it is
 *   answered as unknown, naming the tools, as a call with an object is: the SDK refused arguments that are
 *   no object first, and a client that mistyped the name was told of its arguments instead.
 *
 * Anything else, a batch member included (see {@link requestsAsMeant}), is returned as it is.
 */
export function requestAsMeant(message: unknown): unknown {
  if (!isPlainObject(message) || !isPlainObject(message.params)) return message;
  const { params } = message;
  const dropped = new Set<string>();
  for (const member of ["cursor", "arguments"]) if (params[member] === null) dropped.add(member);
  if (message.method === "tools/call" && Object.hasOwn(params, "arguments")) {
    const unknownTool = typeof params.name === "string" && findTool(params.name) === undefined;
    if (unknownTool && !isPlainObject(params.arguments)) dropped.add("arguments");
  }
  if (dropped.size === 0) return message;
  const kept = Object.entries(params).filter(([member]) => !dropped.has(member));
  return { ...message, params: Object.fromEntries(kept) };
}

/** A POST's body with each message as {@link requestAsMeant} makes it: a batch's members one by one. */
export function requestsAsMeant(body: unknown): unknown {
  if (!Array.isArray(body)) return requestAsMeant(body);
  const meant = body.map(requestAsMeant);
  return meant.some((message, index) => message !== body[index]) ? meant : body;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
