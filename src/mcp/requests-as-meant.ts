import {
  INTERNAL_ERROR,
  INVALID_PARAMS,
  type JSONRPCMessage,
  LATEST_PROTOCOL_VERSION,
} from "@modelcontextprotocol/server";
import { isJsonObject } from "../json-rpc/index.js";
import { notAnObject } from "./format.js";
import { findTool, paramsSchemaOf, TOOL_NAMES } from "./server.js";

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
 * - `"cursor": ""` reads as no cursor too, on every listing: no cursor this server gives is empty, and
 *   clients send one for "the first page" (a string field left at its zero value). The paged listings
 *   refused it as a cursor they never gave, while tools/list and resources/templates/list, which have one
 *   page and then ignored any cursor, answered it (they refuse any other cursor now, see onePage).
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
  if (params.cursor === "") dropped.add("cursor");
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
 * How the SDK begins its refusal of params that a handler's schema refuses, before the schema's issues
 * joined by ", ", which their own messages hold too ("expected string, received number").
 */
const PARAMS_REFUSAL = "Invalid params for ";
/** How this server joins the faults of one refusal, in every refusal of params. */
const FAULTS_JOINED = "; ";

/**
 * What the 2025 handshake needs, said after what was wrong with it: a client that sent `initialize`
 * without params (or without one of its three members) was answered -32603, an internal error, with a
 * dump of the SDK's schema issues, from which no one learns what to send.
 */
const HANDSHAKE_NEEDS = `initialize needs params such as {"protocolVersion": "${LATEST_PROTOCOL_VERSION}", "capabilities": {}, "clientInfo": {"name": "<client>", "version": "<its version>"}}: the newest protocol version the client speaks, its capabilities ({} for none), and its name and version.`;

/**
 * What a tool call needs, said after what was wrong when it names no tool (no params, or a name that is no
 * string): its schema's words alone ("params: Invalid input: expected object, received undefined") left a
 * client to guess what a call holds.
 */
const CALL_NEEDS = `tools/call needs params such as {"name": "list_skills", "arguments": {"query": "<the task>"}}: the name of one of the tools (${TOOL_NAMES.join(", ")}) and its arguments, as tools/list describes them.`;

/**
 * What a method that names what it reads needs, said after what was wrong with the member naming it (left
 * out, or no string): the schema's words alone (`name: Invalid input: expected string, received
 * undefined`) said neither what such a name looks like nor which method lists them.
 */
const METHOD_NEEDS: ReadonlyMap<string, { member: string; said: string }> = new Map([
  [
    "prompts/get",
    {
      member: "name",
      said: 'prompts/get needs params such as {"name": "<prompt>"}: the name of one of the prompts, one per skill (its name, or pack/name where packs share it), as prompts/list gives them.',
    },
  ],
  [
    "skills/get",
    {
      member: "uri",
      said: 'skills/get needs params such as {"uri": "skill://<pack>/<skill>/SKILL.md"}: the URI of a skill\'s SKILL.md, as skills/list gives them.',
    },
  ],
  [
    "resources/read",
    {
      member: "uri",
      said: 'resources/read needs params such as {"uri": "skill://<pack>/<path>"}: the URI of a file, as resources/list gives them.',
    },
  ],
  [
    "resources/directory/read",
    {
      member: "uri",
      said: 'resources/directory/read needs params such as {"uri": "skill://<pack>"}: the URI of a folder, as resources/list gives them.',
    },
  ],
]);

/** How the SDK refuses a `subscriptions/listen` whose filter is missing or does not fit, whatever was wrong. */
const LISTEN_REFUSAL = "Invalid params: 'notifications' is required and must be a valid SubscriptionFilter";

/**
 * What a subscription asks for, said after the SDK's refusal of its filter: "a valid SubscriptionFilter"
 * names a type of the SDK's, not its members, where every other method's refusal says what it needs.
 */
const LISTEN_NEEDS =
  'subscriptions/listen needs params such as {"notifications": {"toolsListChanged": true}}: the notifications to receive (toolsListChanged, promptsListChanged and resourcesListChanged, each true or false; resourceSubscriptions, a list of resource URIs), of which the acknowledgement names those this server sends.';

/**
 * `message`, the answer to `request` when it is known, with the SDK's refusals of params worded as the
 * refusals of the other methods' params are (`Invalid params for tools/call: name: Invalid input: expected
 * string, received number`), one line per request, over HTTP and stdio alike; any other message as it is:
 *
 * - a `tools/call`'s, -32602 with "Invalid tools/call request: " and its schema's issues as indented JSON;
 *   `arguments` that are no object are said so, in words a model acts on (see argumentsFault);
 * - any other method's that the SDK's own handler checks (`initialize`),
 *   -32603, an internal error, with only its schema's issues as indented JSON: -32602, as MCP has a
 *   request's invalid params answered, and `initialize` also told what the handshake needs;
 * - a method's whose handler was registered with a schema (this server's listings, reads and prompts,
 *   the Skills extension's methods), -32602 with the schema's faults joined by ", ": joined by "; ", as
 *   the two above are, and told what the method needs when the member naming what it reads is wrong (see
 *   checkedInParamsWords);
 * - a `subscriptions/listen`'s, whose filter the SDK's listen router checks: its words, then what a
 *   subscription asks for.
 *
 * Assumption (held by test/mcp/requests-as-meant.test.ts, which wants these words): the SDK refuses such
 * params with exactly those codes, that prefix and zod's issues (`path`, `message`) as JSON, each path of
 * a request's own check beginning with "params"; anything else is left as the SDK wrote it.
 */
export function inParamsWords(message: JSONRPCMessage, request?: unknown): JSONRPCMessage {
  if (!("error" in message)) return message;
  const { error } = message;
  const method = isJsonObject(request) && typeof request.method === "string" ? request.method : undefined;
  if (error.code === INVALID_PARAMS && error.message.startsWith(PARAMS_REFUSAL))
    return checkedInParamsWords(message, request);
  if (method === "subscriptions/listen" && error.code === INVALID_PARAMS && error.message === LISTEN_REFUSAL)
    return { ...message, error: { ...error, message: `${LISTEN_REFUSAL}. ${LISTEN_NEEDS}` } };
  const toolCall = error.message.startsWith(TOOL_CALL_REFUSAL);
  if (!toolCall && (error.code !== INTERNAL_ERROR || method === undefined)) return message;
  let issues: unknown;
  try {
    issues = JSON.parse(toolCall ? error.message.slice(TOOL_CALL_REFUSAL.length) : error.message);
  } catch {
    return message;
  }
  if (!Array.isArray(issues) || issues.length === 0 || !issues.every(isIssue)) return message;
  if (!toolCall && !issues.every(({ path }) => path[0] === "params")) return message;
  const params = isJsonObject(request) && isJsonObject(request.params) ? request.params : undefined;
  const faults = issues.map(({ path, message: said }) => {
    const member = memberOf(path);
    if (toolCall && member === "arguments" && params !== undefined && "arguments" in params)
      return argumentsFault(params.arguments, params.name);
    return `${member === "" ? "params" : member}: ${said}`;
  });
  const worded = `${PARAMS_REFUSAL}${toolCall ? "tools/call" : method}: ${faults.join(FAULTS_JOINED)}`;
  const namesNoTool = issues.some(({ path }) => ["", "name"].includes(memberOf(path)));
  const needs =
    !toolCall && method === "initialize"
      ? `. ${HANDSHAKE_NEEDS}`
      : toolCall && namesNoTool
        ? `. ${CALL_NEEDS}`
        : "";
  return { ...message, error: { ...message.error, code: INVALID_PARAMS, message: `${worded}${needs}` } };
}

/**
 * `message`, the SDK's refusal of `request`'s params by the schema its handler was registered with, with
 * the schema's faults joined as every other refusal of params joins them, and what the method needs (see
 * METHOD_NEEDS) when its name or URI is a fault: the SDK joins them with ", ",
 * which the faults hold too (`cursor: Invalid input: expected string, received number, uri: …`). The
 * faults are found again by the same schema, on the params as the SDK checked them; any other message is
 * left as it is.
 */
function checkedInParamsWords(message: JSONRPCMessage, request: unknown): JSONRPCMessage {
  if (!("error" in message) || !isJsonObject(request) || typeof request.method !== "string") return message;
  const { method } = request;
  const prefix = `${PARAMS_REFUSAL}${method}: `;
  const schema = paramsSchemaOf(method);
  if (schema === undefined || !message.error.message.startsWith(prefix)) return message;
  const checked = schema["~standard"].validate({ ...(isJsonObject(request.params) ? request.params : {}) });
  if (checked instanceof Promise || checked.issues === undefined) return message;
  const members = checked.issues.map(({ path }) =>
    (path ?? []).map((key) => String(typeof key === "object" ? key.key : key)).join("."),
  );
  const faults = checked.issues.map(({ message: said }, index) =>
    members[index] === "" ? said : `${members[index]}: ${said}`,
  );
  // Only the joints and what follows change: faults found otherwise than the SDK found them leave its
  // message as it is.
  if (`${prefix}${faults.join(", ")}` !== message.error.message) return message;
  const needs = METHOD_NEEDS.get(method);
  const told = needs !== undefined && members.includes(needs.member) ? `. ${needs.said}` : "";
  const worded = `${prefix}${faults.join(FAULTS_JOINED)}${told}`;
  return worded === message.error.message
    ? message
    : { ...message, error: { ...message.error, message: worded } };
}

/**
 * What is wrong with a tools/call's `arguments` that are no object (null and none read as none before
 * this), naming the arguments the tool takes, or saying it takes none, as a prompt's are told (see
 * notAnObject): list_packs's were told only "a JSON object", where the other tools named theirs.
 */
function argumentsFault(args: unknown, name: unknown): string {
  const tool = findTool(name);
  if (tool === undefined) return notAnObject("arguments", args, "a JSON object");
  const listed = tool.listed.inputSchema.properties;
  const names = listed === undefined ? [] : Object.keys(listed);
  const wanted =
    names.length === 0
      ? `a JSON object (${tool.listed.name} takes no arguments, so it may be left out)`
      : `a JSON object of ${tool.listed.name}'s arguments (${names.join(", ")})`;
  return notAnObject("arguments", args, wanted);
}

/**
 * An answer (one message or a batch's, as parsed from its JSON) with each message as {@link inParamsWords}
 * words it, told which request of `body` (the message or batch it answers) each answers, by id: the
 * answer itself when no message changed.
 */
export function answersInParamsWords(answer: unknown, body: unknown): unknown {
  const asked = new Map<unknown, unknown>();
  for (const message of Array.isArray(body) ? body : [body])
    if (isJsonObject(message) && "id" in message) asked.set(message.id, message);
  const worded = (message: unknown) =>
    isJsonObject(message) && "error" in message
      ? inParamsWords(message as JSONRPCMessage, asked.get(message.id))
      : message;
  if (!Array.isArray(answer)) return worded(answer);
  const messages = answer.map(worded);
  return messages.some((message, index) => message !== answer[index]) ? messages : answer;
}

/** The member an issue's path names, within params (`clientInfo.version`); empty for params themselves. */
function memberOf(path: readonly (string | number)[]): string {
  return (path[0] === "params" ? path.slice(1) : path).join(".");
}

function isIssue(value: unknown): value is { path: (string | number)[]; message: string } {
  return isJsonObject(value) && Array.isArray(value.path) && typeof value.message === "string";
}
