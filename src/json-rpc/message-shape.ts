import { quoted } from "../shared/index.js";

/** The members a JSON-RPC request or notification may hold, as MCP's schema allows them. */
const MESSAGE_MEMBERS = ["jsonrpc", "id", "method", "params"];

/** The members a JSON-RPC response may hold, as MCP's schema allows them: a result or an error, not both. */
const RESPONSE_MEMBERS = ["jsonrpc", "id", "result", "error"];

/**
 * What makes `message` no JSON-RPC request, notification or response, said so that the client knows what
 * to change; undefined when it finds nothing (a fault it does not name), and for a valid message. A
 * message with a method and a result or an error is told it is neither a request nor a response.
 * `subject` names the message where it is not even an object ("the body", "the line").
 */
export function messageShapeProblem(message: unknown, subject = "the message"): string | undefined {
  if (!isJsonObject(message)) {
    return `${subject} is ${jsonKindOf(message)}, where a JSON-RPC message is an object such as {"jsonrpc":"2.0","id":1,"method":"tools/list"}.`;
  }
  if ("result" in message || "error" in message) {
    if (!("method" in message)) return responseProblem(message);
    return `a message with a "method" is a request or a notification, which holds no "${"result" in message ? "result" : "error"}" (a response's member, sent to answer a request).`;
  }
  if (message.jsonrpc !== "2.0") {
    return `"jsonrpc" must be "2.0", ${"jsonrpc" in message ? `not ${shown(message.jsonrpc)}` : "and is missing"}.`;
  }
  if (!("method" in message))
    return `"method" is missing: a request or notification names its method, as "tools/list".`;
  if (typeof message.method !== "string")
    return `"method" must be a string, not ${jsonKindOf(message.method)}.`;
  if ("id" in message && typeof message.id !== "string" && !Number.isSafeInteger(message.id)) {
    const notification = message.id === null ? " (a notification has no id at all)" : "";
    return `"id" must be a string or an integer of at most 2^53 - 1 in size, not ${shown(message.id)}${notification}.`;
  }
  const { params } = message;
  if (params !== undefined && !isJsonObject(params)) {
    return `"params" must be an object, not ${jsonKindOf(params)}; leave it out when there are none.`;
  }
  const meta = params?._meta;
  if (meta !== undefined && !isJsonObject(meta)) {
    return `"params._meta" must be an object, not ${jsonKindOf(meta)}.`;
  }
  const metaProblem = meta === undefined ? undefined : metaMemberProblem(meta);
  if (metaProblem !== undefined) return metaProblem;
  const other = Object.keys(message).find((member) => !MESSAGE_MEMBERS.includes(member));
  if (other !== undefined) {
    return `${quoted(other)} is no member of a JSON-RPC message: a request holds ${MESSAGE_MEMBERS.join(", ")} only.`;
  }
  return undefined;
}

/**
 * What makes `message` (an object with a result or an error, and no method) no JSON-RPC response, as MCP's
 * schema has one: `{"jsonrpc":"2.0","id":1,"result":{}}`, or an error of an integer code and a string
 * message, whose id may be left out; nothing else beside them.
 */
function responseProblem(message: Record<string, unknown>): string | undefined {
  if ("result" in message && "error" in message)
    return 'a response holds either "result" or "error", not both.';
  if (message.jsonrpc !== "2.0")
    return `"jsonrpc" must be "2.0", ${"jsonrpc" in message ? `not ${shown(message.jsonrpc)}` : "and is missing"}.`;
  const { id } = message;
  if (!("id" in message) && "result" in message)
    return `"id" is missing: a response carries the id of the request it answers.`;
  if ("id" in message && typeof id !== "string" && !Number.isSafeInteger(id))
    return `"id" must be a string or an integer of at most 2^53 - 1 in size, not ${shown(id)}: a response carries the id of the request it answers.`;
  if ("result" in message && !isJsonObject(message.result))
    return `"result" must be an object, not ${jsonKindOf(message.result)}.`;
  const { error } = message;
  if ("error" in message && !isJsonObject(error))
    return `"error" must be an object holding an integer "code" and a string "message", not ${jsonKindOf(error)}.`;
  if (isJsonObject(error) && !Number.isSafeInteger(error.code))
    return `"error.code" must be an integer, ${"code" in error ? `not ${shown(error.code)}` : "and is missing"}.`;
  if (isJsonObject(error) && typeof error.message !== "string")
    return `"error.message" must be a string, ${"message" in error ? `not ${jsonKindOf(error.message)}` : "and is missing"}.`;
  const other = Object.keys(message).find((member) => !RESPONSE_MEMBERS.includes(member));
  if (other !== undefined) {
    return `${quoted(other)} is no member of a JSON-RPC response: a response holds jsonrpc, id and result or error, nothing else.`;
  }
  return undefined;
}

/** The key under which a message names the task it belongs to, as MCP's schema has it. */
const RELATED_TASK = "io.modelcontextprotocol/related-task";

/**
 * What is wrong with the members of `params._meta` that MCP's schema of a message types: a progress token
 * (a string or an integer, as an id) and the related task (an object with a string `taskId`).
 */
function metaMemberProblem(meta: Record<string, unknown>): string | undefined {
  const { progressToken } = meta;
  if (
    progressToken !== undefined &&
    typeof progressToken !== "string" &&
    !Number.isSafeInteger(progressToken)
  )
    return `"params._meta.progressToken" must be a string or an integer, not ${shown(progressToken)}.`;
  const task = meta[RELATED_TASK];
  if (task === undefined) return undefined;
  const taskId = isJsonObject(task) ? task.taskId : undefined;
  return typeof taskId === "string"
    ? undefined
    : `"params._meta[${JSON.stringify(RELATED_TASK)}]" must be an object whose "taskId" is a string.`;
}

/** Whether `value` is what JSON calls an object: not null, and not an array. */
export function isJsonObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** What kind of JSON value `value` is, in words: `null`, `an array`, `an object`, `a string`. */
export function jsonKindOf(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  return `a ${typeof value}`;
}

/**
 * A short JSON value as written, and any other by its kind. A number past 2^53 - 1 is not shown: JSON.parse
 * read it as another (9007199254740993 as …992, 1e400 as Infinity, which JSON writes null).
 */
function shown(value: unknown): string {
  if (typeof value === "number" && Math.abs(value) > Number.MAX_SAFE_INTEGER)
    return "a number past 2^53 - 1 in size";
  if (typeof value === "number" || typeof value === "boolean" || value === null) return JSON.stringify(value);
  if (typeof value === "string" && value.length <= 20) return JSON.stringify(value);
  return jsonKindOf(value);
}
