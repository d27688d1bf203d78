import type { JSONRPCMessage } from "@modelcontextprotocol/server";
import { isJsonObject } from "../json-rpc/index.js";
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
  if (!isJsonObject(message) || !isJsonObject(message.params)) return message;
  const { params } = message;
  const dropped = new Set<string>();
  for (const member of ["cursor", "arguments"]) if (params[member] === null) dropped.add(member);
  if (message.method === "tools/call" && Object.hasOwn(params, "arguments")) {
    const unknownTool = typeof params.name === "string" && findTool(params.name) === undefined;
    if (unknownTool && !isJsonObject(params.arguments)) dropped.add("arguments");
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

/** How the SDK begins its refusal of a `tools/call` whose params do not fit, before its schema's issues as JSON. */
const TOOL_CALL_REFUSAL = "Invalid tools/call request: ";

/**
 * `message` with the SDK's refusal of a `tools/call`'s params (-32602, "Invalid tools/call request: "
 * and its schema's issues as indented JSON) worded as the refusals of the other methods' params are
 * (`Invalid params for tools/call: arguments: Invalid input: expected record, received string`), one
 * line per fault, over HTTP and stdio alike; any other message as it is.
 *
 * Assumption (held by test/mcp/requests-as-meant.test.ts, which wants these words): the SDK's tools/call
 * wrapper refuses params its schema does not take with exactly that prefix and zod's issues (`path`,
 * `message`) as JSON; anything else after it is left as the SDK wrote it.
 */
export function inParamsWords(message: JSONRPCMessage): JSONRPCMessage {
  if (!("error" in message) || !message.error.message.startsWith(TOOL_CALL_REFUSAL)) return message;
  let issues: unknown;
  try {
    issues = JSON.parse(message.error.message.slice(TOOL_CALL_REFUSAL.length));
  } catch {
    return message;
  }
  if (!Array.isArray(issues) || !issues.every(isIssue)) return message;
  const faults = issues.map(({ path, message: said }) => {
    const member = (path[0] === "params" ? path.slice(1) : path).join(".");
    return `${member === "" ? "params" : member}: ${said}`;
  });
  return {
    ...message,
    error: { ...message.error, message: `Invalid params for tools/call: ${faults.join("; ")}` },
  };
}

/** An answer's JSON (one message or a batch's) with each message as {@link inParamsWords} words it. */
export function answerInParamsWords(json: Buffer): Buffer {
  if (!json.includes(TOOL_CALL_REFUSAL)) return json;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json.toString("utf8"));
  } catch {
    return json;
  }
  const worded = Array.isArray(parsed)
    ? parsed.map((message: JSONRPCMessage) => inParamsWords(message))
    : inParamsWords(parsed as JSONRPCMessage);
  return Buffer.from(JSON.stringify(worded));
}

function isIssue(value: unknown): value is { path: (string | number)[]; message: string } {
  return isJsonObject(value) && Array.isArray(value.path) && typeof value.message === "string";
}
